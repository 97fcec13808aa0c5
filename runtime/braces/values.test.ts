/** `field`, the per-field read generated code nests, reads exactly as `get` does. */
import { describe, expect, it } from 'vitest';
import { field, get } from './values.js';

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
    for (const root of ROOTS) for (const key of KEYS) expect(field(root, key), `${JSON.stringify(root)} . ${key}`).toEqual(get(root, key));
  });

  it('nested, gives get(root, a, b)', () => {
    for (const root of ROOTS) for (const a of KEYS) for (const b of KEYS) expect(field(field(root, a), b)).toEqual(get(root, a, b));
  });
});
