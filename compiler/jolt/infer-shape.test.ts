import { describe, expect, it } from 'vitest';
import { inferChain, inferJoltShape } from './infer-shape.js';
import { locateInJson } from './locate.js';
import { schemaToType } from '../types/schema-to-type.js';
import { arrayOf, INTEGER, NULL, NUMBER, STRING, UNKNOWN, type FieldType, type PipeType } from '../types/pipe-type.js';
import { union } from '../types/type-ops.js';

function obj(fields: Record<string, PipeType | [PipeType, 'optional']>, open = false): PipeType {
  const out: Record<string, FieldType> = {};
  for (const [k, v] of Object.entries(fields))
    out[k] = Array.isArray(v) ? { type: v[0], required: false } : { type: v, required: true };
  return { kind: 'object', fields: out, open };
}

const ORDER = schemaToType({
  type: 'object',
  additionalProperties: false,
  required: ['orderId', 'customer', 'items'],
  properties: {
    orderId: { type: 'string' },
    customer: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: { name: { type: 'string' }, email: { type: 'string' } },
    },
    items: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['sku', 'qty'],
        properties: { sku: { type: 'string' }, qty: { type: 'integer' } },
      },
    },
  },
});

const shift = (spec: unknown): unknown[] => [{ operation: 'shift', spec }];

describe('shift shapes', () => {
  it('moves typed fields; lines written by the index of a wildcard are one element each', () => {
    const { type } = inferChain(
      shift({
        orderId: 'id',
        customer: { name: 'client.name', email: 'client.email' },
        items: { '*': { sku: 'lines[&1].code', qty: 'lines[&1].quantity' } },
      }),
      ORDER,
    );
    expect(type).toEqual(
      obj({
        id: STRING,
        client: obj({ name: STRING, email: [STRING, 'optional'] }),
        lines: [arrayOf(union(obj({ code: STRING, quantity: INTEGER }), NULL)), 'optional'],
      }),
    );
  });

  it('keeps the fields of a closed input that `*` copies under their own names', () => {
    const input = obj({ a: STRING, b: [NUMBER, 'optional'] });
    expect(inferChain(shift({ '*': '&' }), input).type).toEqual(input);
    expect(inferChain(shift({ a: 'renamed', '*': '&' }), input).type).toEqual(
      obj({ renamed: STRING, b: [NUMBER, 'optional'] }),
    );
  });

  it('leaves the output open where keys come from a wildcard over an open or unknown input', () => {
    const { type } = inferChain(shift({ '*': 'copy.&', id: 'id' }), obj({ id: STRING }, true));
    expect(type).toEqual(obj({ id: STRING, copy: [obj({}, true), 'optional'] }));
    expect(inferChain(shift({ '*': '&' }), UNKNOWN).type).toEqual(union(obj({}, true), NULL));
  });

  it('makes a place written by several keys a value or a list of them', () => {
    const input = obj({ 'tuna-1': INTEGER, 'tuna-2': INTEGER, foo: STRING });
    const { type } = inferChain(shift({ 'tuna-*': 'tunas', foo: 'foo' }), input);
    expect(type).toEqual(obj({ tunas: union(INTEGER, arrayOf(INTEGER)), foo: STRING }));
  });

  it('types `#`, `$` and `@` keys', () => {
    const { type } = inferChain(shift({ role: { '#yes': 'flag', $: 'name', '@': 'value' } }), obj({ role: obj({}) }));
    expect(type).toEqual(
      obj({
        flag: { kind: 'string', enum: ['yes'] },
        name: { kind: 'string', enum: ['role'] },
        value: obj({}),
      }),
    );
  });

  it('gives unknown for a spec too large to follow over a wide closed input', () => {
    const wide = (inner: PipeType): PipeType =>
      obj(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, inner])));
    const input = wide(wide(wide(STRING)));
    expect(inferChain(shift({ '*': { '*': { '*': '&2.&1.&' } } }), input).type).toEqual(UNKNOWN);
    expect(inferChain(shift({ '*': { '*': '&1.&' } }), wide(wide(STRING))).type).toEqual(wide(wide(STRING)));
  });

  it('is unknown where a value and a container meet', () => {
    const { type } = inferChain(shift({ a: 'x', b: 'x.y' }), obj({ a: STRING, b: STRING }));
    expect(type).toEqual(obj({ x: UNKNOWN }));
  });
});

describe('keys that never match', () => {
  it('are found in closed objects only, with the fields there', () => {
    const spec = shift({ orderID: 'id', customer: { nme: 'n' } });
    const found = inferChain(spec, ORDER).unmatched.map((u) => [u.key, u.fields]);
    expect(found).toEqual([
      ['orderID', ['customer', 'items', 'orderId']],
      ['nme', ['email', 'name']],
    ]);
    expect(inferChain(spec, obj({ orderId: STRING }, true)).unmatched).toEqual([]);
    expect(inferChain(spec, UNKNOWN).unmatched).toEqual([]);
    // a scalar may match a key equal to its text
    expect(inferChain(shift({ customer: { nme: 'n' } }), obj({ customer: STRING })).unmatched).toEqual([]);
  });

  it('are warnings at the key, with the closest field as hint', () => {
    const spec = shift({ orderID: 'id' });
    const text = JSON.stringify(spec, null, 2);
    const { diagnostics } = inferJoltShape(spec, ORDER, locateInJson('<spec>', text));
    expect(diagnostics.map((d) => [d.code, d.severity, text.slice(d.primary.span.start, d.primary.span.end)])).toEqual([
      ['PIPE5021', 'warning', '"orderID"'],
    ]);
    expect(diagnostics[0]?.hint).toContain('orderId');
  });
});

describe('the other operations', () => {
  const input = obj({ a: STRING, n: [union(NUMBER, NULL), 'optional'], list: arrayOf(STRING) });

  it('default adds fields and fills null or absent ones', () => {
    const { type } = inferChain([{ operation: 'default', spec: { source: 'x', n: 0, list: [] } }], input);
    expect(type).toEqual(obj({ a: STRING, n: NUMBER, list: arrayOf(STRING), source: STRING }));
  });

  it('remove takes fields away; sort keeps the shape', () => {
    const chain = [{ operation: 'remove', spec: { a: '' } }, { operation: 'sort' }];
    expect(inferChain(chain, input).type).toEqual(obj({ n: [union(NUMBER, NULL), 'optional'], list: arrayOf(STRING) }));
  });

  it('cardinality ONE takes the first item, MANY makes a list', () => {
    const { type } = inferChain([{ operation: 'cardinality', spec: { list: 'ONE', a: 'MANY' } }], input);
    expect(type).toEqual(obj({ a: arrayOf(STRING), n: [union(NUMBER, NULL), 'optional'], list: union(STRING, NULL) }));
  });

  it('modify types what its functions give, and keeps the old type when they may give nothing', () => {
    const spec = { count: '=toInteger', a: '=toUpper', n: '=toInteger', fixed: 5 };
    const withCount = obj({ a: STRING, n: [union(NUMBER, NULL), 'optional'], list: arrayOf(STRING), count: NUMBER });
    const { type } = inferChain([{ operation: 'modify-overwrite-beta', spec }], withCount);
    expect(type).toEqual(
      obj({
        a: STRING,
        n: [union(NUMBER, NULL, INTEGER), 'optional'],
        list: arrayOf(STRING),
        count: INTEGER,
        fixed: INTEGER,
      }),
    );
  });

  it('gives unknown after a custom operation', () => {
    expect(inferChain([{ operation: 'com.example.Custom', spec: {} }], input).type).toEqual(UNKNOWN);
  });
});
