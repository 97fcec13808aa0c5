import { describe, expect, it } from 'vitest';
import { compileJsonPath, jsonPathMatches, jsonPathQuery } from './jsonpath.js';
import type { Json } from './types.js';
import { enterDeadline, leaveDeadline } from './work-meter.js';

describe('jsonpath (Jayway semantics on jsonpath-plus)', () => {
  const message: Json = { body: { total: 120, city: 'New York' }, items: [{ code: 'a', name: 'A' }, { code: 'b' }] };

  it('a filter on an object tests the object itself', () => {
    expect(jsonPathMatches(compileJsonPath('$.body[?(@.total < 500)]'), message)).toBe(true);
    expect(jsonPathMatches(compileJsonPath('$.body[?(@.total >= 500)]'), message)).toBe(false);
    expect(jsonPathMatches(compileJsonPath("$.[?(@.city == 'New York')]"), (message as { body: Json }).body)).toBe(
      true,
    );
  });

  it('a filter on an array tests each element', () => {
    expect(jsonPathQuery(compileJsonPath('$.items[?(@.code && @.name)]'), message)).toEqual([{ code: 'a', name: 'A' }]);
    expect(jsonPathQuery(compileJsonPath('$.items[*].code'), message)).toEqual(['a', 'b']);
  });

  it('reads a line break in a filter as whitespace, and keeps it inside a quoted string', () => {
    const items: Json = {
      items: [
        { a: 1, b: [1] },
        { a: 1, b: [] },
        { a: 0, b: [2] },
        { a: 1, b: ['x\ny'] },
      ],
    };
    expect(jsonPathQuery(compileJsonPath('$.items[?(@.a &&\n@.b[0])]'), items)).toEqual([
      { a: 1, b: [1] },
      { a: 1, b: ['x\ny'] },
    ]);
    expect(jsonPathQuery(compileJsonPath('$.items[?(@.a == 1 &&\r\n  @.b.length() > 0)]'), items)).toHaveLength(2);
    expect(jsonPathQuery(compileJsonPath("$.items[?(@.b[0] == 'x\ny')]"), items)).toEqual([{ a: 1, b: ['x\ny'] }]);
    expect(jsonPathQuery(compileJsonPath("$.items[?(@.b[0] == 'x y')]"), items)).toEqual([]);
    // A quoted member name outside a filter is a name as written.
    expect(jsonPathQuery(compileJsonPath("$['a\nb']"), { 'a\nb': 1, 'a\\nb': 2 })).toEqual([1]);
  });

  it("reads Jayway's length() of a string or an array in a filter", () => {
    expect(jsonPathMatches(compileJsonPath('$.body[?(@.city.length() > 5)]'), message)).toBe(true);
    expect(jsonPathMatches(compileJsonPath('$.body[?(@.city.length() > 8)]'), message)).toBe(false);
    expect(jsonPathMatches(compileJsonPath('$[?(@.items.length() == 2)]'), message)).toBe(true);
    expect(jsonPathMatches(compileJsonPath('$.body[?(@.total.length() > 0)]'), message)).toBe(false);
  });

  it("matches Jayway's =~ against the whole string, on RE2", () => {
    const names: Json = { items: [{ name: 'Catalina' }, { name: 'cat' }, { name: 'a/b' }, { name: 5 }] };
    const matching = (path: string): Json[] => jsonPathQuery(compileJsonPath(path), names);
    expect(matching('$.items[?(@.name =~ /cat.*/i)].name')).toEqual(['Catalina', 'cat']);
    expect(matching('$.items[?(@.name =~ /at/)].name')).toEqual([]);
    expect(matching('$.items[?(@.name =~ /a\\/b/ || @.name == 5)].name')).toEqual(['a/b', 5]);
    expect(matching("$.items[?(@.name == '=~ /cat/')].name")).toEqual([]);
    expect(jsonPathMatches(compileJsonPath('$.body[?(@.city =~ /new.*/i)]'), message)).toBe(true);
    expect(() => compileJsonPath("$.items[?(@.name =~ 'cat')]")).toThrow(/pattern between slashes/);
    expect(() => compileJsonPath('$.items[?(@.name =~ /a(?=b)/)]')).toThrow(/lookahead/);
    expect(() => compileJsonPath('$.items[?(@.name =~ /cat/g)]')).toThrow(/flags `g`/);
  });

  describe("Jayway's word operators", () => {
    const orders: Json = {
      allowed: [1, 4],
      items: [
        { id: 1, status: 'NEW', tags: ['a', 'b'], lines: [1, 2], index: 3, sizeLimit: 'xy', in: 'x' },
        { id: 2, status: 'PAID', tags: [], lines: 'ab', code: '2' },
        { id: 3, status: null, tags: 'ab', lines: { 0: 1, 1: 2 } },
        { id: 4, status: 'DONE', tags: ['c', 'a'] },
      ],
    };
    const ids = (filter: string): Json[] => jsonPathQuery(compileJsonPath(`$.items[?(${filter})].id`), orders);

    it('in / nin: the left value equals (==) one of the array items', () => {
      expect(ids("@.status in ['NEW','PAID']")).toEqual([1, 2]);
      expect(ids("@.status in ['nothing']")).toEqual([]);
      expect(ids('@.id in @root.allowed')).toEqual([1, 4]);
      expect(ids("@.code in [2] && @.id in ['2']")).toEqual([2]);
      // Jayway's nin is the negation of in: an item without the field, or with null, is in no list.
      expect(ids("@.status nin ['NEW','PAID']")).toEqual([3, 4]);
      expect(ids("@.missing nin ['NEW']")).toEqual([1, 2, 3, 4]);
      expect(ids('@.missing in [null]')).toEqual([]);
      expect(ids('@.status in [null]')).toEqual([3]);
      // A right side that is not an array (here a missing path or a string field): in is false.
      expect(ids('@.id in @root.nothing')).toEqual([]);
      expect(ids('@.id in @.status')).toEqual([]);
      expect(ids('@.id nin @root.nothing')).toEqual([1, 2, 3, 4]);
    });

    it('subsetof / anyof / noneof compare two arrays; anything else is false', () => {
      expect(ids("@.tags subsetof ['a','b','c']")).toEqual([1, 2, 4]);
      expect(ids("@.tags subsetof ['a']")).toEqual([2]);
      expect(ids("@.tags anyof ['a','z']")).toEqual([1, 4]);
      expect(ids("@.tags anyof ['z']")).toEqual([]);
      expect(ids("@.tags noneof ['b']")).toEqual([2, 4]);
      expect(ids("@.missing subsetof ['a'] || @.missing anyof ['a'] || @.missing noneof ['a']")).toEqual([]);
      expect(ids("['a'] subsetof @.tags")).toEqual([1, 4]);
    });

    it('size / empty: the length of a string or an array', () => {
      expect(ids('@.lines size 2')).toEqual([1, 2]);
      expect(ids('@.lines size 3')).toEqual([]);
      expect(ids('@.id size 1 || @.missing size 0')).toEqual([]);
      expect(ids('@.tags empty true')).toEqual([2]);
      expect(ids('@.tags empty false')).toEqual([1, 3, 4]);
      expect(ids('@.missing empty true || @.id empty false || @.lines empty false')).toEqual([1, 2]);
    });

    it('leaves the words alone in strings, member names and patterns', () => {
      expect(ids("@.index in [3] && @.sizeLimit size 2 && @['in'] in ['x'] && @.in == 'x'")).toEqual([1]);
      expect(ids("@.status == 'in' || @.status == ' size 2 '")).toEqual([]);
      expect(ids("@.in in ['x'] && @.in nin[] && @.lines[0]in[1,9]")).toEqual([1]);
      expect(ids('@.status\tin\t["NEW"]')).toEqual([1]);
      expect(ids('@.status =~ /N in W|NEW/')).toEqual([1]);
      expect(ids("@.status in ['NEW'] || @.status in ['DONE'] && @.tags anyof ['c']")).toEqual([1, 4]);
    });

    it('counts the comparisons of the list operators as work (the execution deadline reaches them)', () => {
      const many = (from: number): Json[] => Array.from({ length: 3000 }, (_, i) => from + i);
      const lists: Json = { a: many(0), b: many(10_000) };
      const path = compileJsonPath('$[?(@.a anyof @.b)]');
      expect(jsonPathQuery(path, lists)).toEqual([]);
      enterDeadline(performance.now() - 1, 10);
      try {
        expect(() => jsonPathQuery(path, lists)).toThrow(/timed out/);
      } finally {
        leaveDeadline();
      }
    });

    it('refuses malformed uses when the path is compiled', () => {
      expect(() => ids("@.status in 'NEW'")).toThrow("`in` takes an array on its right: `@.status in ['NEW','PAID']`");
      expect(() => ids("@.tags anyof 'a'")).toThrow('`anyof` takes an array on its right');
      expect(() => ids("@.lines size '2'")).toThrow('`size` takes a number on its right');
      expect(() => ids('@.tags empty 0')).toThrow('`empty` takes `true` or `false` on its right');
      expect(() => ids('@.status in')).toThrow('`in` needs a value on each side');
      expect(() => ids("in ['a']")).toThrow('`in` needs a value on each side');
      expect(() => ids("@.status in in ['a']")).toThrow('`in` needs a value on each side');
      expect(() => ids('@.tags empty && @.id')).toThrow('`empty` needs a value on each side');
    });
  });

  it('missing paths do not match', () => {
    expect(jsonPathMatches(compileJsonPath('$.nothing.here'), message)).toBe(false);
    expect(jsonPathMatches(compileJsonPath('$'), null)).toBe(true);
  });

  it('filters cannot reach prototypes', () => {
    expect(() => compileJsonPath("$.items[?(@.constructor.constructor('return process')())]")).toThrow(
      /calls are limited/,
    );
    expect(jsonPathQuery(compileJsonPath('$.items[?(@.constructor)]'), message)).toEqual([]);
    // No method that would run a JavaScript regular expression (ReDoS) or allocate without bound.
    expect(() => compileJsonPath("$.items[?(@.code.match('^(a+)+$'))]")).toThrow(/calls are limited/);
    expect(() => compileJsonPath('$.items[?(@.code.repeat(1e9))]')).toThrow(/calls are limited/);
    expect(
      jsonPathQuery(compileJsonPath("$.items[?(@.code.startsWith('a') && @.name.toLowerCase() == 'a')]"), message),
    ).toEqual([{ code: 'a', name: 'A' }]);
  });
});

describe('jsonpath evaluation is linear and Jayway-like', () => {
  const nest = (depth: number): Json => {
    let node: Json = { flag: true };
    for (let i = 0; i < depth; i++) node = { a: node, flag: false, list: [1, { flag: true }] };
    return node;
  };

  it('a deep scan with a filter finds each match once, however deep', () => {
    const found = jsonPathQuery(compileJsonPath('$..[?(@.flag == true)]'), nest(500));
    expect(found).toHaveLength(501);
    expect(new Set(found).size).toBe(501);
  });

  it('a deep scan after a deep scan adds nothing twice', () => {
    const doc: Json = { a: { a: { a: { b: 1 } } } };
    expect(jsonPathQuery(compileJsonPath('$..a..b'), doc)).toEqual([1]);
    expect(jsonPathQuery(compileJsonPath('$..*'), { x: [1, 2], y: { z: 3 } })).toEqual([[1, 2], { z: 3 }, 1, 2, 3]);
  });

  it('reads indices from the end, slices, unions and scripts', () => {
    const doc: Json = { a: [1, 2, 3, 4], o: { x: 1, 'y z': 2 } };
    expect(jsonPathQuery(compileJsonPath('$.a[-1]'), doc)).toEqual([4]);
    expect(jsonPathQuery(compileJsonPath('$.a[1:3]'), doc)).toEqual([2, 3]);
    expect(jsonPathQuery(compileJsonPath('$.a[::-2]'), doc)).toEqual([4, 2]);
    expect(jsonPathQuery(compileJsonPath("$.o['x','y z']"), doc)).toEqual([1, 2]);
    expect(jsonPathQuery(compileJsonPath('$.a[(@.length-1)]'), doc)).toEqual([4]);
    expect(jsonPathQuery(compileJsonPath('$.a.length'), doc)).toEqual([4]);
  });

  it('a field missing inside a filter is no match, not an error', () => {
    expect(jsonPathQuery(compileJsonPath('$.items[?(@.x.y == 1)]'), { items: [{}, null, { x: { y: 1 } }] })).toEqual([
      { x: { y: 1 } },
    ]);
  });

  it('inherited names are not members', () => {
    expect(jsonPathQuery(compileJsonPath('$.constructor'), { a: 1 })).toEqual([]);
    expect(jsonPathQuery(compileJsonPath("$['__proto__']"), JSON.parse('{"__proto__": 5}') as Json)).toEqual([5]);
  });

  it('refuses at compile time what it cannot evaluate', () => {
    expect(() => compileJsonPath('$.a[?(@path == 1)]')).toThrow(/@path/);
    expect(() => compileJsonPath('$.a[?(@.x ==)]')).toThrow(/cannot parse the filter/);
    expect(() => compileJsonPath('a.b')).toThrow(/starts with/);
  });

  it('refuses unbalanced brackets, parentheses and quotes, and `=` in a filter', () => {
    expect(() => compileJsonPath('$.items[?(@.qty > 1)')).toThrow('missing `]`');
    expect(() => compileJsonPath('$.items[?(@.qty > 1]')).toThrow('missing `)`');
    expect(() => compileJsonPath('$.items]')).toThrow('unexpected `]`');
    expect(() => compileJsonPath("$.items[?(@.name == 'a)]")).toThrow('unterminated string');
    expect(() => compileJsonPath("$.items[?(@.name = 'a')]")).toThrow('`=` assigns');
    expect(jsonPathQuery(compileJsonPath("$.items[?(@.name == 'a]b(')]"), { items: [{ name: 'a]b(' }] })).toHaveLength(
      1,
    );
    expect(
      jsonPathQuery(compileJsonPath("$.items[?(@.name == 'O\\'Brien')]"), { items: [{ name: "O'Brien" }] }),
    ).toHaveLength(1);
  });
});
