/** Structured output: strict-form transform, null clean-up, ajv violations and the repair message. */
import { describe, expect, it } from 'vitest';
import { PipeError } from '../errors.js';
import { OutputValidatorCache, repairMessage, responseFormatFor, schemaName } from './output-schema.js';
import { dropNullOptionals, toStrictSchema } from './strict-schema.js';
import { DOCUMENTATION_SCHEMA, EXPENSE_SCHEMA } from './test-support/seed-schemas.js';

describe('toStrictSchema', () => {
  it('closes objects, requires every property and makes optional ones nullable', () => {
    const { schema, strict } = toStrictSchema({
      type: 'object',
      required: ['a'],
      properties: {
        a: { type: 'string', minLength: 2 },
        b: { type: 'string', enum: ['x', 'y'] },
        c: { type: 'object', properties: { d: { type: 'number' } } },
        e: { $ref: '#/$defs/thing' },
      },
      $defs: { thing: { type: 'object', properties: { f: { type: 'integer' } }, required: ['f'] } },
    });
    expect(strict).toBe(true);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { type: ['string', 'null'], enum: ['x', 'y', null] },
        c: {
          type: ['object', 'null'],
          properties: { d: { type: ['number', 'null'] } },
          required: ['d'],
          additionalProperties: false,
        },
        e: { anyOf: [{ $ref: '#/$defs/thing' }, { type: 'null' }] },
      },
      required: ['a', 'b', 'c', 'e'],
      additionalProperties: false,
      $defs: {
        thing: { type: 'object', properties: { f: { type: 'integer' } }, required: ['f'], additionalProperties: false },
      },
    });
  });

  it('keeps minItems and enum of the seed schemas', () => {
    const { schema, strict } = toStrictSchema(DOCUMENTATION_SCHEMA);
    expect(strict).toBe(true);
    expect(schema.properties).toMatchObject({ use_cases: { minItems: 3 } });
  });

  it('sends a schema strict mode cannot express unchanged, non-strict', () => {
    const freeForm = { type: 'object', properties: { meta: { type: 'object' } }, required: ['meta'] };
    expect(toStrictSchema(freeForm)).toEqual({ schema: freeForm, strict: false });
    const oneOf = { type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }] };
    expect(toStrictSchema(oneOf).strict).toBe(false);
    expect(toStrictSchema({ type: 'array', items: { type: 'string' } }).strict).toBe(false);
  });

  it('drops nulls of optional properties only', () => {
    const schema = {
      type: 'object',
      required: ['a'],
      properties: {
        a: { type: ['string', 'null'] },
        b: { type: 'string' },
        n: { type: ['string', 'null'] },
        list: { type: 'array', items: { type: 'object', properties: { x: { type: 'number' } } } },
      },
    };
    expect(dropNullOptionals(schema, { a: null, b: null, n: null, list: [{ x: null }, { x: 1 }] })).toEqual({
      a: null,
      n: null,
      list: [{}, { x: 1 }],
    });
  });

  it('copies reply keys as data', () => {
    const reply = JSON.parse('{"__proto__": {"polluted": true}, "a": "x"}');
    const out = dropNullOptionals({ type: 'object', properties: { a: { type: 'string' } } }, reply) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
  });
});

describe('responseFormatFor', () => {
  it('builds a strict json_schema response format named from the title', () => {
    const format = responseFormatFor(EXPENSE_SCHEMA);
    expect(format.type).toBe('json_schema');
    expect(format.json_schema.name).toBe('expense_report');
    expect(format.json_schema.strict).toBe(true);
    expect(schemaName({ title: 'Expense report!' })).toBe('Expense_report');
    expect(schemaName({})).toBe('output');
  });
});

describe('OutputValidatorCache.check', () => {
  const cache = new OutputValidatorCache();
  const good = { title: 'T', description: 'D', use_cases: ['a', 'b', 'c'], best_practices: ['a', 'b', 'c'] };

  it('accepts a valid reply, also inside a code fence', () => {
    expect(cache.check(DOCUMENTATION_SCHEMA, JSON.stringify(good))).toEqual({ ok: true, value: good });
    expect(cache.check(DOCUMENTATION_SCHEMA, '```json\n' + JSON.stringify(good) + '\n```')).toEqual({
      ok: true,
      value: good,
    });
  });

  it('lists every violation with its path', () => {
    const check = cache.check(
      DOCUMENTATION_SCHEMA,
      JSON.stringify({ title: 'T', use_cases: ['a'], best_practices: ['a', 'b', 'c'], extra: 1 }),
    );
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.violations).toEqual(
      expect.arrayContaining([
        "(root): must have required property 'description'",
        '(root): must NOT have the property "extra"',
        '/use_cases: must NOT have fewer than 3 items',
      ]),
    );
  });

  it('reports enum values and invalid JSON', () => {
    const check = cache.check(
      EXPENSE_SCHEMA,
      JSON.stringify({ employee_name: 'a', department: 'b', total: 1, trip_type: 'Space', itemized_expenses: [] }),
    );
    expect(check).toEqual({ ok: false, violations: ['/trip_type: must be one of "Domestic", "International"'] });
    const broken = cache.check(EXPENSE_SCHEMA, '{"employee_name": ');
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.violations[0]).toMatch(/^the reply is not valid JSON/);
  });

  it('rejects a schema that does not compile as a configuration error', () => {
    expect(() => cache.check({ type: 'object', properties: { a: { type: 'nonsense' } } }, '{}')).toThrow(PipeError);
  });

  it('builds a repair message naming each problem', () => {
    expect(repairMessage(['/a: must be string'])).toBe(
      'Your previous reply does not match the required JSON Schema. Problems:\n- /a: must be string\n' +
        'Reply again with only the corrected JSON object, fixing every problem listed.',
    );
  });
});
