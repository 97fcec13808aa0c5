import { describe, expect, it } from 'vitest';
import { compareJson, matches } from './compare.js';

describe('compareJson', () => {
  it('equal: every field must match, extra fields are differences', () => {
    expect(compareJson({ a: 1, b: { c: 'x' } }, { a: 1, b: { c: 'x' } }, 'equal')).toEqual([]);
    expect(compareJson({ a: 1 }, { a: 1, extra: true }, 'equal')).toEqual([{ path: '$.extra', actual: true }]);
    expect(compareJson({ a: 1, b: 2 }, { a: 1 }, 'equal')).toEqual([{ path: '$.b', expected: 2 }]);
  });

  it('contains: only the given fields count, recursively', () => {
    expect(compareJson({ b: { c: 'x' } }, { a: 1, b: { c: 'x', d: 2 } }, 'contains')).toEqual([]);
    expect(compareJson({ b: { c: 'y' } }, { b: { c: 'x' } }, 'contains')).toEqual([
      { path: '$.b.c', expected: 'y', actual: 'x' },
    ]);
  });

  it('arrays match element by element and by length', () => {
    expect(matches([{ id: 1 }], [{ id: 1, more: true }], 'contains')).toBe(true);
    expect(compareJson([1, 2], [1, 3], 'equal')).toEqual([{ path: '$[1]', expected: 2, actual: 3 }]);
    expect(compareJson([1], [1, 2], 'contains')).toEqual([{ path: '$', expected: [1], actual: [1, 2] }]);
  });

  it('names odd keys safely and treats __proto__ as data', () => {
    const actual = JSON.parse('{"__proto__": {"x": 1}, "a-b": 2}') as Record<string, unknown>;
    expect(compareJson(JSON.parse('{"__proto__": {"x": 2}}'), actual as never, 'contains')).toEqual([
      { path: '$.__proto__.x', expected: 2, actual: 1 },
    ]);
    expect(compareJson({ 'a-b': 3 }, actual as never, 'contains')).toEqual([
      { path: '$["a-b"]', expected: 3, actual: 2 },
    ]);
  });

  it('scalars of different kinds never match', () => {
    expect(matches('1', 1, 'equal')).toBe(false);
    expect(matches(null, {}, 'contains')).toBe(false);
    expect(compareJson({ a: 1 }, undefined, 'equal')).toEqual([{ path: '$', expected: { a: 1 } }]);
  });
});
