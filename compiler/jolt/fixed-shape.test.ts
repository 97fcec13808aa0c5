/**
 * The fixed-shape fast path (fixed-shape.ts) against the general code of the same chain: for every
 * spec and input here, both give the same output (key order included, as JSON text), whether the
 * fast path takes the input or declines it; and the fast path is generated exactly for the specs
 * it models.
 */
import { describe, expect, it } from 'vitest';
import { compileJoltChain, joltToFunction, locateInJson } from './index.js';
import { absentFromNonMaps } from './fixed-shape.js';

const ORDER_CHAIN: { operation: string; spec: Record<string, unknown> }[] = [
  {
    operation: 'shift',
    spec: {
      orderId: 'orderNumber',
      customer: {
        id: 'client.clientId',
        name: 'client.fullName',
        email: 'client.contact.email',
        address: { street: 'shipTo.line1', city: 'shipTo.city' },
      },
      items: { '*': { sku: 'lines[&1].code', qty: 'lines[&1].quantity', 'count|n': 'lines[&1].c&' } },
      currency: ['currency', 'totals.currency'],
    },
  },
  { operation: 'default', spec: { status: 'NEW', client: { tier: 'STANDARD' }, 'lines[]': { '*': { uom: 'EA' } } } },
  { operation: 'remove', spec: { client: { clientId: '' } } },
];

const ORDER = {
  orderId: 'O-1',
  customer: { id: 7, name: 'Ana', email: 'a@x', address: { street: 'S', city: 'C' } },
  items: [
    { sku: 'A', qty: 1, count: 9 },
    { sku: 'B', qty: 2, count: 8 },
  ],
  currency: 'EUR',
};

/** Inputs around ORDER: each changes one thing the fast path checks. */
const ORDER_VARIANTS: readonly unknown[] = [
  ORDER,
  { ...ORDER, orderId: null },
  { ...ORDER, currency: undefined },
  { ...ORDER, extra: true, __proto__: { polluted: 1 } },
  JSON.parse(
    '{"orderId":"O","__proto__":{"x":1},"customer":{"id":1,"name":"n","email":"e","address":{"street":"s","city":"c"}},"items":[{"sku":"a","qty":1,"count":2}],"currency":"c"}',
  ),
  { ...ORDER, customer: 'id' },
  { ...ORDER, customer: null },
  { ...ORDER, customer: [ORDER.customer] },
  { ...ORDER, customer: { ...ORDER.customer, name: null } },
  { ...ORDER, customer: { ...ORDER.customer, email: undefined } },
  { ...ORDER, items: [] },
  { ...ORDER, items: { 0: { sku: 'A', qty: 1, count: 2 } } },
  { ...ORDER, items: [{ sku: 'A', qty: 1, count: 2 }, 'sku'] },
  { ...ORDER, items: [{ sku: 'A', qty: 1, count: 2 }, { sku: 'B' }] },
  { ...ORDER, items: [{ sku: 'A', qty: 1, count: 2 }, null] },
  { ...ORDER, items: [{ sku: null, qty: 1, count: 2 }] },
  'orderId',
  [ORDER],
  null,
  42,
];

function general(chain: unknown): (input: unknown) => unknown {
  const fn = joltToFunction(chain, {}, { fixedShape: false }).fn;
  if (!fn) throw new Error('chain rejected');
  return (input) => fn(input);
}

function fast(chain: unknown): (input: unknown) => unknown {
  const fn = joltToFunction(chain).fn;
  if (!fn) throw new Error('chain rejected');
  return (input) => fn(input);
}

function hasFastPath(chain: unknown): boolean {
  const text = JSON.stringify(chain);
  return compileJoltChain(chain, locateInJson('<spec>', text)).js.includes('fixedShape0: {');
}

/** Both ways give the same JSON text (a thrown error counts as its message). */
function expectSame(chain: unknown, inputs: readonly unknown[]): void {
  const a = general(chain);
  const b = fast(chain);
  const outcome = (f: (input: unknown) => unknown, input: unknown): string => {
    try {
      return JSON.stringify(f(structuredClone(input))) ?? 'undefined';
    } catch (e) {
      return `throws ${(e as Error).message}`;
    }
  };
  for (const input of inputs) expect(outcome(b, input), JSON.stringify(input)).toBe(outcome(a, input));
}

describe('fixed-shape fast path', () => {
  it('builds the order of a shift, default and remove as the general code does', () => {
    expect(hasFastPath(ORDER_CHAIN)).toBe(true);
    expect(fast(ORDER_CHAIN)(structuredClone(ORDER))).toEqual({
      orderNumber: 'O-1',
      client: { fullName: 'Ana', contact: { email: 'a@x' }, tier: 'STANDARD' },
      shipTo: { line1: 'S', city: 'C' },
      lines: [
        { code: 'A', quantity: 1, ccount: 9, uom: 'EA' },
        { code: 'B', quantity: 2, ccount: 8, uom: 'EA' },
      ],
      currency: 'EUR',
      totals: { currency: 'EUR' },
      status: 'NEW',
    });
  });

  it('gives the general output for every input, taken or declined', () => {
    expectSame(ORDER_CHAIN, ORDER_VARIANTS);
    const single = structuredClone(ORDER_CHAIN);
    // one key an element: lists of one-key elements
    single[0] = { operation: 'shift', spec: { ...ORDER_CHAIN[0]?.spec, items: { '*': { sku: 'lines[&1].code' } } } };
    expect(hasFastPath(single)).toBe(true);
    expectSame(single, ORDER_VARIANTS);
    expectSame([single[0]], ORDER_VARIANTS);
  });

  it('fuses defaults over null values, new maps, lists and copies of object defaults', () => {
    const chain = [
      { operation: 'shift', spec: { a: 'x.a', b: 'x.b', l: { '*': 'list[&0]' }, m: { '*': { v: 'objs[&1].v' } } } },
      {
        operation: 'default',
        spec: {
          x: { a: 'A', c: { deep: [1] } },
          new: { n: null },
          'list[]': { '*': 'filled' },
          'objs[]': { '*': { v: 0, w: { z: 1 } } },
        },
      },
      { operation: 'default', spec: { x: { a: 'second' }, new: { n: 'late' } } },
    ];
    expect(hasFastPath(chain)).toBe(true);
    expectSame(chain, [
      { a: null, b: 1, l: [null, 2, 'x'], m: [{ v: null }, { v: 1 }] },
      { a: 'kept', b: { o: 1 }, l: [[]], m: [{ v: [] }] },
      { a: 1, b: 1, l: [1], m: [{}] },
      { a: 1, b: 1, l: [1] },
    ]);
    const out = fast(chain)({ a: 1, b: 2, l: [1], m: [{ v: 1 }, { v: 2 }] }) as { objs: { w: object }[] };
    expect(out.objs[0]?.w).not.toBe(out.objs[1]?.w);
  });

  it('fuses removes of literal keys, patterns and list elements', () => {
    const chain = [
      { operation: 'shift', spec: { a: 'x.a1', b: 'x.b1', c: 'x.c', rows: { '*': { p: 'r[&1].p', q: 'r[&1].q' } } } },
      { operation: 'remove', spec: { x: { '*1': '', missing: '' }, r: { '*': { q: '' } }, nothere: { k: '' } } },
    ];
    expect(hasFastPath(chain)).toBe(true);
    expectSame(chain, [
      { a: 1, b: 2, c: 3, rows: [{ p: 1, q: 2 }] },
      { a: 1, b: 2, c: 3, rows: [{ p: 1 }] },
      { a: 1, b: 2, c: 3, rows: [] },
    ]);
  });

  it('stops fusing at an operation it does not model, which then runs on the fast output', () => {
    const chain = [
      { operation: 'shift', spec: { a: 'x.a', b: 'y' } },
      { operation: 'default', spec: { y: { z: 1 } } },
      { operation: 'remove', spec: { x: { a: '' } } },
    ];
    expect(hasFastPath(chain)).toBe(true);
    expectSame(chain, [{ a: 1, b: {} }, { a: 1, b: 2 }, { a: 1, b: null }, { a: 1 }]);
  });

  it('handles nested lists and & of literal levels in output keys', () => {
    const chain = [
      {
        operation: 'shift',
        spec: {
          orders: { '*': { id: 'out[&1].id', lines: { '*': { sku: 'out[&3].lines[&1].&0' } } } },
          k: { v: '&1.&' },
        },
      },
    ];
    expect(hasFastPath(chain)).toBe(true);
    expectSame(chain, [
      {
        orders: [
          { id: 1, lines: [{ sku: 'a' }, { sku: 'b' }] },
          { id: 2, lines: [{ sku: 'c' }] },
        ],
        k: { v: 1 },
      },
      {
        orders: [
          { id: 1, lines: [{ sku: 'a' }] },
          { id: 2, lines: [] },
        ],
        k: { v: 1 },
      },
      { orders: [{ id: 1, lines: [{ sku: 'a' }] }], k: 'v' },
    ]);
  });

  it('tests for a map in full only where no key read is absent from every non-map value', () => {
    for (const key of ['sku', 'orderId', 'street', 'unitPrice']) expect(absentFromNonMaps(key), key).toBe(true);
    // own or inherited properties of strings, numbers, lists, symbols, functions; indexes
    for (const key of ['length', '0', '12', 'at', 'map', 'concat', 'trim', 'toFixed', 'description', 'name', 'call']) {
      expect(absentFromNonMaps(key), key).toBe(false);
    }
    const js = (spec: unknown): string => {
      const chain = [{ operation: 'shift', spec }];
      return compileJoltChain(chain, locateInJson('<spec>', JSON.stringify(chain))).js;
    };
    expect(js({ a: { length: 'x.l', 0: 'x.z' } })).toContain('Array.isArray(map1)');
    expect(js({ a: { length: 'x.l', sku: 'x.s' } })).toContain('if (map1 === null || map1 === undefined) break');
    expect(js({ rows: { '*': { at: 'r[&1].at', map: 'r[&1].m' } } })).toContain('Array.isArray(element');
    expect(js({ rows: { '*': { at: 'r[&1].at', sku: 'r[&1].s' } } })).toMatch(
      /if \(element(\d+) === null \|\| element\1 === undefined\) break/,
    );
  });

  it('declines strings, numbers and lists whose properties have the keys read', () => {
    const nonMaps: unknown[] = ['ab', 'length', '', 5, true, false, null, ['x'], ['x', 'y'], [], [[]], [{}]];
    const around = (a: unknown): unknown[] => [{ a }, { a, b: 1 }, { a: [a] }, a];
    const inputs = nonMaps.flatMap(around).concat([{ a: { length: 1, 0: 2, at: 3, map: 4, sku: 5 }, b: 1 }]);
    const specs: unknown[] = [
      { a: { length: 'x.l', 0: 'x.z' } }, // every key found on strings and lists: full test
      { a: { at: 'x.at', map: 'x.m' } }, // methods of lists (and `at` of strings)
      { a: { length: 'x.l', sku: 'x.s' }, b: 'y' }, // one key no non-map has: null test only
      { a: { '*': { length: 'r[&1].l', 0: 'r[&1].z' } } },
      { a: { '*': { at: 'r[&1].at', sku: 'r[&1].s' } } },
    ];
    for (const spec of specs) {
      const chain = [{ operation: 'shift', spec }];
      expect(hasFastPath(chain), JSON.stringify(spec)).toBe(true);
      expectSame(chain, inputs);
    }
  });

  it('is not generated for specs whose shape depends on the input', () => {
    const shifts: unknown[] = [
      { a: 'x', b: 'x' }, // two writes to one place make a list
      { a: 'x', b: 'x.y' }, // a write through a value
      { items: { '*': { 'qty|count': 'l[&1].q' } } }, // two keys of one element to one place
      { '*': 'x.&' }, // keys from the input
      { a: { '*': 'x' } }, // every element to one place
      { items: { '*': { sku: 'lines[0].code' } } },
      { items: { '*': { sku: 'lines[#2].code' } } },
      { a: { '@': 'x' } },
      { a: '@(1,b)' },
      { constructor: 'x' },
      { a: '__proto__.x' },
      { a: '' },
      { a: null },
    ];
    for (const spec of shifts) expect(hasFastPath([{ operation: 'shift', spec }]), JSON.stringify(spec)).toBe(false);
  });
});
