import { describe, expect, it } from 'vitest';
import { arrayOf, BOOLEAN, INTEGER, NULL, NUMBER, STRING, UNKNOWN } from './pipe-type.js';
import { schemaToType } from './schema-to-type.js';
import { describeType, fits, lookupField, union, withoutNull } from './type-ops.js';

describe('schemaToType', () => {
  it('maps scalar types and type lists', () => {
    expect(schemaToType({ type: 'string' })).toEqual(STRING);
    expect(schemaToType({ type: 'integer' })).toEqual(INTEGER);
    expect(schemaToType({ type: ['number', 'null'] })).toEqual(union(NUMBER, NULL));
    expect(schemaToType({})).toEqual(UNKNOWN);
    expect(schemaToType(true)).toEqual(UNKNOWN);
  });

  it('closes objects only when additionalProperties is false', () => {
    const open = schemaToType({ type: 'object', properties: { a: { type: 'string' } } });
    expect(open).toMatchObject({ kind: 'object', open: true });
    const closed = schemaToType({
      type: 'object',
      additionalProperties: false,
      required: ['a'],
      properties: { a: { type: 'string' }, b: { type: 'boolean' } },
    });
    expect(closed).toMatchObject({
      kind: 'object',
      open: false,
      fields: { a: { type: STRING, required: true }, b: { type: BOOLEAN, required: false } },
    });
    expect(schemaToType({ properties: { x: {} }, unevaluatedProperties: false })).toMatchObject({ open: false });
  });

  it('maps arrays, tuples, enum, const, anyOf/oneOf and nullable', () => {
    expect(schemaToType({ type: 'array', items: { type: 'string' } })).toEqual(arrayOf(STRING));
    expect(schemaToType({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] })).toEqual(
      arrayOf(union(STRING, INTEGER)),
    );
    expect(schemaToType({ enum: ['Domestic', 'International'] })).toEqual({
      kind: 'string',
      enum: ['Domestic', 'International'],
      declared: true,
    });
    expect(schemaToType({ const: 'web' })).toEqual({ kind: 'string', enum: ['web'], declared: true });
    expect(schemaToType({ const: 3 })).toEqual(INTEGER);
    expect(schemaToType({ anyOf: [{ type: 'string' }, { type: 'integer' }] })).toEqual(union(STRING, INTEGER));
    expect(schemaToType({ oneOf: [{ type: 'boolean' }, { type: 'null' }] })).toEqual(union(BOOLEAN, NULL));
    expect(schemaToType({ type: 'string', nullable: true })).toEqual(union(STRING, NULL));
  });

  it('merges allOf objects', () => {
    const t = schemaToType({
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { b: { type: 'number' } } },
      ],
    });
    expect(t).toMatchObject({
      kind: 'object',
      open: true,
      fields: { a: { type: STRING, required: true }, b: { type: NUMBER, required: false } },
    });
  });

  it('follows local $ref into $defs and definitions, and stops at recursion', () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      properties: {
        item: { $ref: '#/$defs/Item' },
        legacy: { $ref: '#/definitions/Old' },
        missing: { $ref: '#/$defs/Nope' },
      },
      $defs: { Item: { type: 'object', properties: { child: { $ref: '#/$defs/Item' } } } },
      definitions: { Old: { type: 'integer' } },
    };
    const t = schemaToType(schema);
    const item = lookupField(t, 'item');
    const itemType = item.kind === 'found' ? withoutNull(item.type) : UNKNOWN;
    expect(itemType.kind).toBe('object');
    const child = lookupField(itemType, 'child');
    // The recursive reference inside Item stops as `unknown` instead of looping.
    expect(child).toEqual({ kind: 'found', type: UNKNOWN });
    expect(lookupField(t, 'legacy')).toEqual({ kind: 'found', type: union(INTEGER, NULL) });
    expect(lookupField(t, 'missing')).toEqual({ kind: 'found', type: union(UNKNOWN) });
    expect(lookupField(t, 'nope')).toEqual({ kind: 'missing', candidates: ['item', 'legacy', 'missing'] });
  });

  it('converts the seed expense-report schema', () => {
    const t = schemaToType({
      type: 'object',
      required: ['employee_name', 'total', 'trip_type'],
      properties: {
        employee_name: { type: 'string' },
        total: { type: 'number' },
        trip_type: { type: 'string', enum: ['Domestic', 'International'] },
        itemized_expenses: {
          type: 'array',
          items: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
        },
      },
    });
    expect(lookupField(t, 'total')).toEqual({ kind: 'found', type: NUMBER });
    expect(describeType(t)).toBe('object { employee_name, itemized_expenses, total, trip_type, … }');
  });
});

describe('type operations', () => {
  it('answers fit with yes, maybe or no', () => {
    expect(fits(INTEGER, NUMBER)).toBe('yes');
    expect(fits(NUMBER, INTEGER)).toBe('maybe');
    expect(fits(STRING, INTEGER)).toBe('no');
    expect(fits(union(STRING, NULL), STRING)).toBe('maybe');
    expect(fits(UNKNOWN, INTEGER)).toBe('yes');
    expect(fits({ kind: 'string', enum: ['a'] }, { kind: 'string', enum: ['a', 'b'] })).toBe('yes');
    expect(fits({ kind: 'string', enum: ['c'] }, { kind: 'string', enum: ['a', 'b'] })).toBe('no');
    expect(fits(arrayOf(STRING), arrayOf(NUMBER))).toBe('no');
  });

  it('describes types for messages', () => {
    expect(describeType(union(STRING, NULL))).toBe('string or null');
    expect(describeType(arrayOf(INTEGER))).toBe('array of integer');
    expect(describeType({ kind: 'string', enum: ['A', 'B'] })).toBe('"A" | "B"');
  });

  it('flattens and deduplicates unions', () => {
    expect(union(STRING, union(STRING, NULL))).toEqual(union(STRING, NULL));
    expect(union(INTEGER, NUMBER)).toEqual(NUMBER);
    expect(union(STRING, UNKNOWN)).toEqual(UNKNOWN);
  });
});

describe('schemaToType: names declared elsewhere', () => {
  it('marks an open object whose other fields are described elsewhere', () => {
    const map = schemaToType({ type: 'object', properties: { id: {} }, additionalProperties: { type: 'string' } });
    expect(map).toMatchObject({ kind: 'object', open: true, freeNames: true });
    const conditional = schemaToType({ type: 'object', properties: { kind: {} }, if: {}, then: {} });
    expect(conditional).toMatchObject({ freeNames: true });
    const plain = schemaToType({ type: 'object', properties: { id: { type: 'string' } } });
    expect(plain).toMatchObject({ kind: 'object', open: true });
    expect(plain).not.toHaveProperty('freeNames');
  });

  it('keeps a required name the properties do not describe as a field', () => {
    const t = schemaToType({ type: 'object', required: ['total', 'id'], properties: { id: { type: 'string' } } });
    expect(lookupField(t, 'total')).toEqual({ kind: 'found', type: UNKNOWN });
    expect(t).toMatchObject({ fields: { total: { required: true }, id: { type: STRING, required: true } } });
  });
});
