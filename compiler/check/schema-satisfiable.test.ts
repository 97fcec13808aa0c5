import { describe, expect, it } from 'vitest';
import { schemaContradictions } from './schema-satisfiable.js';

const found = (schema: unknown): string[] => schemaContradictions(schema).map((p) => `${p.code} ${p.pointer}`);

describe('schemaContradictions', () => {
  it('finds a required property that additionalProperties: false forbids, also across allOf parts', () => {
    const closed = { type: 'object', additionalProperties: false, properties: { id: {} }, required: ['id', 'code'] };
    expect(found(closed)).toEqual(['PIPE3050 /required/1']);
    expect(
      found({
        allOf: [
          { type: 'object', properties: { a: {} }, required: ['a'] },
          { type: 'object', additionalProperties: false, properties: { b: {} } },
        ],
      }),
    ).toEqual(['PIPE3050 /allOf/0/required/0']);
  });

  it('lets patternProperties allow a required name, and leaves schemas without a closed object alone', () => {
    const patterned = { additionalProperties: false, patternProperties: { '^x-': {} }, required: ['x-id'] };
    expect(found(patterned)).toEqual([]);
    expect(found({ type: 'object', required: ['anything'] })).toEqual([]);
    expect(found({ type: 'string', additionalProperties: false, required: ['a'] })).toEqual([]);
  });

  it('finds bounds that leave no value, exclusive ones and both drafts of them included', () => {
    expect(found({ type: 'number', minimum: 5, maximum: 1 })).toEqual(['PIPE3050 /minimum']);
    expect(found({ minimum: 3, maximum: 3 })).toEqual([]);
    expect(found({ exclusiveMinimum: 3, maximum: 3 })).toEqual(['PIPE3050 /exclusiveMinimum']);
    expect(found({ minimum: 3, exclusiveMinimum: true, maximum: 3 })).toEqual(['PIPE3050 /minimum']);
    expect(found({ minimum: 3, exclusiveMinimum: 1, maximum: 4 })).toEqual([]);
    // Integers: no whole number between 1.2 and 1.8, nor strictly between 1 and 2.
    expect(found({ type: 'integer', minimum: 1.2, maximum: 1.8 })).toEqual(['PIPE3050 /minimum']);
    expect(found({ type: 'integer', exclusiveMinimum: 1, exclusiveMaximum: 2 })).toEqual([
      'PIPE3050 /exclusiveMinimum',
    ]);
    expect(found({ type: 'integer', exclusiveMinimum: 1, maximum: 2 })).toEqual([]);
    expect(found({ type: 'number', minimum: 1.2, maximum: 1.8 })).toEqual([]);
    expect(found({ minLength: 4, maxLength: 2 })).toEqual(['PIPE3050 /minLength']);
    expect(found({ type: 'array', minItems: 4, maxItems: 2 })).toEqual(['PIPE3050 /minItems']);
    expect(found({ minProperties: 2, maxProperties: 1 })).toEqual(['PIPE3050 /minProperties']);
    // Bounds of another type than the schema's do not constrain its values.
    expect(found({ type: 'string', minimum: 5, maximum: 1 })).toEqual([]);
  });

  it('finds empty enums, constants and enums outside the type, and allOf types with nothing in common', () => {
    expect(found({ enum: [] })).toEqual(['PIPE3050 /enum']);
    expect(found({ type: 'string', const: 5 })).toEqual(['PIPE3050 /const']);
    expect(found({ type: 'number', const: 5 })).toEqual([]);
    expect(found({ type: ['string', 'null'], const: null })).toEqual([]);
    expect(found({ type: 'integer', enum: ['1', '2'] })).toEqual(['PIPE3050 /enum']);
    expect(found({ type: 'integer', enum: ['1', 2] })).toEqual([]);
    expect(found({ allOf: [{ type: 'string' }, { type: 'integer' }] })).toEqual(['PIPE3050 /allOf/1/type']);
    expect(found({ type: 'number', allOf: [{ type: 'integer' }] })).toEqual([]);
    expect(found({ anyOf: [{ type: 'string' }, { type: 'integer' }] })).toEqual([]);
  });

  it('warns of keys close to a keyword, and only of those', () => {
    expect(found({ type: 'object', requried: ['a'], properties: { a: { maxlength: 3 } } })).toEqual([
      'PIPE3051 /requried',
      'PIPE3051 /properties/a/maxlength',
    ]);
    // Property names, annotations of other tools and extensions are not keywords to correct.
    expect(found({ properties: { requried: {}, tpye: {} }, 'x-requried': true, errorMessage: 'no' })).toEqual([]);
    // Subschemas kept under a key of one's own and reached by `$ref` are used.
    expect(found({ defs: { id: { type: 'string' } }, properties: { id: { $ref: '#/defs/id' } } })).toEqual([]);
    expect(found({ defs: { id: { type: 'string' } } })).toEqual(['PIPE3051 /defs']);
    // A misspelled annotation loses nothing a validator checks.
    expect(found({ type: 'string', descripton: 'a name', tittle: 'Name' })).toEqual([]);
  });
});
