/** `field`, the per-field read generated code nests, reads exactly as `get` does. */
import { describe, expect, it } from 'vitest';
import { field, fields, get } from './values.js';

const ROOTS: readonly unknown[] = [
  { a: 1, b: null, c: { d: [1, 2] }, e: undefined },
  Object.create({ a: 'inherited' }) as unknown,
  JSON.parse('{"__proto__": {"x": 1}, "a": 0}') as unknown,
  [10, 20, 30],
  'text',
  42,
  null,
  undefined,
];
const KEYS = ['a', 'b', 'c', 'e', 'missing', '0', '2', 'length', '__proto__', 'constructor', 'toString'];

describe('field', () => {
  it('gives get(root, key) for every kind of root and key', () => {
    for (const root of ROOTS)
      for (const key of KEYS) expect(field(root, key), `${JSON.stringify(root)} . ${key}`).toEqual(get(root, key));
  });

  it('nested, gives get(root, a, b)', () => {
    for (const root of ROOTS)
      for (const a of KEYS) for (const b of KEYS) expect(field(field(root, a), b)).toEqual(get(root, a, b));
  });
});

describe('fields (what generated code reads field names through)', () => {
  it('gives, with `?? null`, what field gives for every kind of value and key it is used for', () => {
    const roots: unknown[] = [
      null,
      undefined,
      0,
      7,
      '',
      'text',
      true,
      [],
      [1, 2],
      { a: 1 },
      { a: null },
      { b: { c: 2 } },
      Object.assign(Object.create(null) as object, { a: 'own' }),
      JSON.parse('{"__proto__": {"a": 9}}'),
    ];
    for (const root of roots) {
      for (const key of ['a', 'b', 'length', 'read-timeout']) {
        expect((fields(root) as Record<string, unknown>)[key] ?? null).toEqual(field(root, key));
      }
    }
  });

  it('never hands out something writable for a value that is no object', () => {
    expect(Object.isFrozen(fields(null))).toBe(true);
    expect(Object.getPrototypeOf(fields([1]))).toBe(null);
  });
});
