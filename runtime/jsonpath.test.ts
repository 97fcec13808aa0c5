import { describe, expect, it } from 'vitest';
import { compileJsonPath, jsonPathMatches, jsonPathQuery } from './jsonpath.js';
import type { Json } from './types.js';

describe('jsonpath (Jayway semantics on jsonpath-plus)', () => {
  const message: Json = { body: { total: 120, city: 'New York' }, items: [{ code: 'a', name: 'A' }, { code: 'b' }] };

  it('a filter on an object tests the object itself', () => {
    expect(jsonPathMatches(compileJsonPath('$.body[?(@.total < 500)]'), message)).toBe(true);
    expect(jsonPathMatches(compileJsonPath('$.body[?(@.total >= 500)]'), message)).toBe(false);
    expect(jsonPathMatches(compileJsonPath("$.[?(@.city == 'New York')]"), (message as { body: Json }).body)).toBe(true);
  });

  it('a filter on an array tests each element', () => {
    expect(jsonPathQuery(compileJsonPath('$.items[?(@.code && @.name)]'), message)).toEqual([{ code: 'a', name: 'A' }]);
    expect(jsonPathQuery(compileJsonPath('$.items[*].code'), message)).toEqual(['a', 'b']);
  });

  it('missing paths do not match', () => {
    expect(jsonPathMatches(compileJsonPath('$.nothing.here'), message)).toBe(false);
    expect(jsonPathMatches(compileJsonPath('$'), null)).toBe(true);
  });

  it('filters cannot reach prototypes', () => {
    const hostile = compileJsonPath("$.items[?(@.constructor.constructor('return process')())]");
    expect(() => jsonPathQuery(hostile, message)).toThrow();
  });
});
