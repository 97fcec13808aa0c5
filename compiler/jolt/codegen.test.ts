/**
 * Behaviour of the specialised code the JOLT compiler generates for speed: computed keys read and
 * written with plain property access, reused argument lists of modify calls, hoisted output keys,
 * match counts kept only when `[#n]` reads them, slot stores kept only when read, and the inline
 * forms of remove, cardinality and default. Each test checks results, not the generated text.
 */
import { describe, expect, it } from 'vitest';
import { compileJoltChain, joltToFunction, type JoltExtensions } from './index.js';

function run(chain: unknown, input: unknown, extensions?: JoltExtensions): unknown {
  const compiled = joltToFunction(chain, extensions);
  expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return compiled.fn?.(input, {});
}

const shift = (spec: unknown, input: unknown): unknown => run([{ operation: 'shift', spec }], input);
const modify = (spec: unknown, input: unknown, extensions?: JoltExtensions): unknown =>
  run([{ operation: 'modify-overwrite-beta', spec }], input, extensions);

const hasOwn = (o: unknown, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Input with own keys named like Object.prototype members (`__proto__` as a real own key). */
function inheritedNames(): Record<string, unknown> {
  return JSON.parse('{"constructor": 1, "toString": 2, "__proto__": 3, "valueOf": 4, "hasOwnProperty": 5}') as Record<
    string,
    unknown
  >;
}

describe('shift writes under computed keys', () => {
  it('writes keys named like Object.prototype members as own keys, at the end of a path', () => {
    const out = shift({ '*': 'out.&' }, inheritedNames()) as { out: Record<string, unknown> };
    expect(Object.getPrototypeOf(out.out)).toBe(Object.prototype);
    for (const [k, v] of Object.entries(inheritedNames())) {
      expect(hasOwn(out.out, k)).toBe(true);
      expect(out.out[k]).toBe(v);
    }
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });

  it('creates maps under such keys in the middle of a path', () => {
    const out = shift({ '*': 'out.&.value' }, inheritedNames()) as { out: Record<string, { value: unknown }> };
    expect(Object.keys(out.out).sort()).toEqual(['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf']);
    expect(out.out.constructor).toEqual({ value: 1 });
    expect(hasOwn(out.out, '__proto__') && out.out['__proto__']).toEqual({ value: 3 });
    expect(Object.getPrototypeOf(out.out)).toBe(Object.prototype);
  });

  it('merges a second write to the same computed key into a list', () => {
    const out = shift({ '*': ['out.&', 'out.&'] }, inheritedNames()) as { out: Record<string, unknown> };
    expect(out.out.toString).toEqual([2, 2]);
    expect(hasOwn(out.out, '__proto__') && out.out['__proto__']).toEqual([3, 3]);
  });

  it('uses a looked-up value as a key (skipping values that cannot be keys)', () => {
    const spec = { '*': { count: 'byLabel.@(1,label)' } };
    const input = {
      a: { label: 'x', count: 1 },
      b: { label: 'constructor', count: 2 },
      c: { label: { no: 1 }, count: 3 },
      d: { label: 4.7, count: 4 },
    };
    expect(shift(spec, input)).toEqual({ byLabel: { x: 1, constructor: 2, 4: 4 } });
  });
});

describe('shift output keys computed once per matched key', () => {
  it('builds lists by index from the parent key, and skips keys that are not indexes', () => {
    const spec = { items: { '*': { sku: 'lines[&1].code', qty: 'lines[&1].n' } } };
    expect(shift(spec, { items: [{ sku: 'a', qty: 1 }, { sku: 'b' }] })).toEqual({
      lines: [{ code: 'a', n: 1 }, { code: 'b' }],
    });
    expect(shift(spec, { items: { x: { sku: 'a' }, 2: { sku: 'c' } } })).toEqual({
      lines: [null, null, { code: 'c' }],
    });
  });

  it("uses each matched key's own captures, not the first one's", () => {
    const spec = { 'r-*-*': { v: 'out.&(1,2).&(1,1)', w: 'idx[&(1,1)]' } };
    const input = { 'r-0-a': { v: 1, w: 'x' }, 'r-1-b': { v: 2, w: 'y' } };
    expect(shift(spec, input)).toEqual({ out: { a: { 0: 1 }, b: { 1: 2 } }, idx: ['x', 'y'] });
  });

  it('still counts matches for [#n] references', () => {
    const spec = { photos: { '*': { url: 'pics[#2].link', '#seen': 'pics[#2].state' } } };
    const input = { photos: [{ url: 'a' }, { url: 'b' }, { other: 1 }] };
    expect(shift(spec, input)).toEqual({
      pics: [{ link: 'a', state: 'seen' }, { link: 'b', state: 'seen' }, { state: 'seen' }],
    });
  });

  it('reads outer keys and data through the walked path from deep levels', () => {
    // the inner `*` also matches `tag` itself, so its `@(1,tag)` writes twice
    const spec = { '*': { '*': { v: 'out.&2.&1', '@(1,tag)': 'tags.&2' } } };
    const input = { a: { tag: 't', x: { v: 1 } } };
    expect(shift(spec, input)).toEqual({ out: { a: { x: 1 } }, tags: { a: ['t', 't'] } });
  });
});

describe('modify calls', () => {
  it('gives each item its own result when argument lists are reused', () => {
    const spec = {
      items: {
        '*': {
          l: '=toList(@(1,a),@(1,b))',
          c: "=concat(@(1,a),'-',@(1,b))",
          s: '=doubleSum(@(1,a),@(1,b))',
          q: '=divide(@(1,a),@(1,b))',
        },
      },
    };
    const out = modify(spec, { items: [{ a: 1, b: 2 }, { a: 'x', b: null }, { b: 4 }] }) as {
      items: Record<string, unknown>[];
    };
    expect(out.items).toEqual([
      { a: 1, b: 2, l: [1, 2], c: '1-2', s: 3, q: 0.5 },
      { a: 'x', b: null, l: ['x', null], c: 'x-', s: 0 },
      { b: 4, l: [null, 4], c: '-4', s: 4 },
    ]);
    expect(out.items[0]?.l).not.toBe(out.items[1]?.l);
  });

  it('calls one-argument functions with the value, or with no argument when it is absent', () => {
    const spec = { name: '=toUpper', n: '=size(@(1,name))', gone: '=size(@(1,missing))', t: '=trim(@(1,pad))' };
    expect(modify(spec, { name: 'ann', pad: '  p  ' })).toEqual({ name: 'ANN', n: 3, t: 'p', pad: '  p  ' });
    expect(modify({ x: '=toUpper' }, { x: ['a', 1] })).toEqual({ x: ['A', 1] });
  });

  it('gives custom functions a list of their own on every call', () => {
    const seen: unknown[][] = [];
    const keep = (args: readonly unknown[]): unknown => {
      seen.push(args as unknown[]);
      return args;
    };
    const spec = { '*': { k: '=keep(@(1,a),@(1,b))', one: '=keep(@(1,a))' } };
    const out = modify(spec, { x: { a: 1, b: 2 }, y: { a: 3, b: 4 } }, { functions: { keep } }) as Record<
      string,
      { k: unknown; one: unknown }
    >;
    expect(out.x?.k).toEqual([1, 2]);
    expect(out.y?.k).toEqual([3, 4]);
    expect(out.x?.one).toEqual([1]);
    expect(new Set(seen).size).toBe(4);
  });

  it('keeps the walked path for references to outer levels and for creating missing parents', () => {
    // from a line: @(1) the line, @(2) the lines list, @(3) the order, @(4) the orders list, @(5) the root
    const spec = {
      orders: { '*': { lines: { '*': { ref: "=concat(@(5,id),'/',@(3,id))" } } } },
      made: { deep: { x: 1 } },
    };
    const out = modify(spec, { id: 'R', orders: [{ id: 'o1', lines: [{}, {}] }] });
    expect(out).toEqual({
      id: 'R',
      orders: [{ id: 'o1', lines: [{ ref: 'R/o1' }, { ref: 'R/o1' }] }],
      made: { deep: { x: 1 } },
    });
  });
});

describe('remove, cardinality and default', () => {
  it('removes literal keys, repeated keys and keys named like prototype members', () => {
    const spec = { 'a|a': '', constructor: '', b: { c: '' }, l: { '1': '' } };
    const input = JSON.parse('{"a": 1, "constructor": 2, "b": {"c": 3, "d": 4}, "l": [0, 1, 2], "e": 5}') as unknown;
    expect(run([{ operation: 'remove', spec }], input)).toEqual({ b: { d: 4 }, l: [0, 2], e: 5 });
    expect(run([{ operation: 'remove', spec: { toString: '' } }], { a: 1 })).toEqual({ a: 1 });
  });

  it('applies ONE and MANY to present keys only', () => {
    const spec = { one: 'ONE', many: 'MANY', none: 'MANY', nil: 'MANY', empty: 'ONE', toString: 'MANY' };
    const out = run([{ operation: 'cardinality', spec }], { one: [1, 2], many: { k: 1 }, nil: null, empty: [] });
    expect(out).toEqual({ one: 1, many: [{ k: 1 }], nil: [], empty: null });
    expect(hasOwn(out, 'toString')).toBe(false);
  });

  it('defaults plain and prototype-named keys as own keys', () => {
    const out = run(
      [{ operation: 'default', spec: { a: 1, constructor: 'c', list: [], 'l[]': { '*': { u: 'EA' } } } }],
      { a: null, l: [{}, null] },
    );
    expect(out).toEqual({ a: 1, constructor: 'c', list: [], l: [{ u: 'EA' }, { u: 'EA' }] });
    expect(hasOwn(out, 'constructor')).toBe(true);
  });
});

describe('generated code', () => {
  it('stores only the walked-path slots that some reference reads', () => {
    const plain = compileJoltChain(
      [{ operation: 'shift', spec: { items: { '*': { sku: 'lines[&1].code' } } } }],
      () => ({ file: 'x', start: 0, end: 0 }),
    );
    expect(plain.js).not.toMatch(/state\.[KCTH]\[\d+\] =/);
    const counted = compileJoltChain(
      [{ operation: 'shift', spec: { items: { '*': { sku: 'lines[#2].code', '@(2,id)': 'id' } } } }],
      () => ({ file: 'x', start: 0, end: 0 }),
    );
    expect(counted.js).toMatch(/state\.H\[2\] = 0/);
    expect(counted.js).toMatch(/state\.T\[1\] = data/);
  });
});

describe('shift writes sharing a container', () => {
  it('finds the container of a run of leaves once, with the same result as separate walks', () => {
    const spec = { items: { '*': { sku: 'lines[&1].code', qty: 'lines[&1].quantity', price: 'lines[&1].price' } } };
    const input = { items: [{ sku: 'A', qty: 1, price: 2 }, { qty: 3 }, { sku: 'C', price: 5 }] };
    expect(shift(spec, input)).toEqual({
      lines: [{ code: 'A', quantity: 1, price: 2 }, { quantity: 3 }, { code: 'C', price: 5 }],
    });
  });

  it('merges repeated writes to one key of the shared container into a list', () => {
    expect(shift({ a: 'out.v', b: 'out.v', c: 'out.w' }, { a: 1, b: 2, c: 3 })).toEqual({ out: { v: [1, 2], w: 3 } });
  });

  it('stops at a container of the wrong type for every write of the run', () => {
    expect(shift({ x: 'out', a: 'out.p', b: 'out.q' }, { x: 'scalar', a: 1, b: 2 })).toEqual({ out: 'scalar' });
    expect(shift({ x: 'out', a: 'out[0].p', b: 'out[0].q' }, { x: { k: 1 }, a: 1, b: 2 })).toEqual({ out: { k: 1 } });
  });

  it('walks again where a leaf key is also a key on the way (the write could change the walk)', () => {
    expect(shift({ a: 'x.x', b: 'x.q', c: 'x.x.z' }, { a: { m: 1 }, b: 2, c: 3 })).toEqual({
      x: { x: { m: 1, z: 3 }, q: 2 },
    });
  });

  it('writes into an input map that an earlier write placed in the output', () => {
    expect(shift({ '@': 'all', a: 'all.copy', b: 'all.more' }, { a: 1, b: 2 })).toEqual({
      all: { a: 1, b: 2, copy: 1, more: 2 },
    });
  });

  it('shares a container reached through a captured key, unless that key is one the run writes', () => {
    const spec = { 'rating-*': { value: 'ratings.&(1,1).score', max: 'ratings.&(1,1).range' } };
    expect(shift(spec, { 'rating-a': { value: 1, max: 5 }, 'rating-b': { value: 2 } })).toEqual({
      ratings: { a: { score: 1, range: 5 }, b: { score: 2 } },
    });
    // `ratings.score.score` and `ratings.score.range`: the captured key is a key written
    expect(shift(spec, { 'rating-score': { value: 1, max: 5 } })).toEqual({
      ratings: { score: { score: 1, range: 5 } },
    });
    const aliased = { '@': 'all', 'x-*': { p: 'all.&(1,1).q', r: 'all.&(1,1).s' } };
    expect(shift(aliased, { 'x-q': { p: 1, r: 2 } })).toEqual({ all: { 'x-q': { p: 1, r: 2 }, q: { q: 1, s: 2 } } });
  });

  it('gives a list index to child functions as a number and as text, with the same result', () => {
    const spec = { rows: { '*': { v: 'out[&1]', k: 'keys.&1' } } };
    expect(
      shift(spec, {
        rows: [
          { v: 'a', k: 'x' },
          { v: 'b', k: 'y' },
        ],
      }),
    ).toEqual({ out: ['a', 'b'], keys: { 0: 'x', 1: 'y' } });
    expect(shift(spec, { rows: { 0: { v: 'a', k: 'x' }, 1: { v: 'b', k: 'y' } } })).toEqual({
      out: ['a', 'b'],
      keys: { 0: 'x', 1: 'y' },
    });
  });
});

describe('shift over lists: a child function gets the index, and its key text only where used', () => {
  const items = {
    items: [
      { v: 'a', w: 1 },
      { v: 'b', w: 2 },
      { v: 'c', w: 3 },
    ],
  };

  it('writes under the index as a map key and as a value', () => {
    expect(shift({ items: { '*': { v: 'byKey.&1', $: 'keys[]' } } }, items)).toEqual({
      byKey: { 0: 'a', 1: 'b', 2: 'c' },
      keys: ['0', '1', '2'],
    });
  });

  it('reads the key text from a deeper level (a walked-path slot) and the index as a list index', () => {
    const nested = {
      items: [
        { v: 'a', meta: { name: 'x' } },
        { v: 'b', meta: { name: 'y' } },
      ],
    };
    expect(shift({ items: { '*': { v: 'out[&1].v', meta: { name: 'names.&2' } } } }, nested)).toEqual({
      out: [{ v: 'a' }, { v: 'b' }],
      names: { 0: 'x', 1: 'y' },
    });
  });

  it('gives the same keys for the elements of a map and of a list', () => {
    const asMap = { items: { 0: { v: 'a' }, 1: { v: 'b' } } };
    const asList = { items: [{ v: 'a' }, { v: 'b' }] };
    const spec = { items: { '*': { v: ['byKey.&1', 'list[&1]'], $: 'keys[]' } } };
    expect(shift(spec, asList)).toEqual(shift(spec, asMap));
  });
});

describe('shift appends to lists it made, and copies lists from the input', () => {
  it('keeps appending to its own lists, also past the few it tracks in an array', () => {
    const input = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    const out = shift({ '*': ['out.&', 'out.&', 'out.&'] }, input) as { out: Record<string, unknown> };
    for (let i = 0; i < 40; i++) expect(out.out[`k${i}`]).toEqual([i, i, i]);
  });

  it('never appends to a list of the input', () => {
    const input = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, [i]]));
    const before = JSON.stringify(input);
    const out = shift({ '*': ['out.&', 'out.&'] }, input) as { out: Record<string, unknown> };
    expect(JSON.stringify(input)).toBe(before);
    for (let i = 0; i < 20; i++) expect(out.out[`k${i}`]).toEqual([i, [i]]); // the copy of [i], then the value appended
  });
});

describe('shift containers whose kind the build proves (no check when walking through them)', () => {
  it('skips a write through a key another write set to a value', () => {
    expect(shift({ x: 'a', y: 'a.b' }, { x: 1, y: 2 })).toEqual({ a: 1 });
    expect(shift({ y: 'a.b', x: 'a' }, { x: 1, y: 2 })).toEqual({ a: [{ b: 2 }, 1] });
  });

  it('skips a write through a computed key that turned out to be the container of another write', () => {
    expect(shift({ x: 'k.b', '*': '&' }, { k: 5, x: 1 })).toEqual({ k: 5 });
    expect(shift({ x: 'k.b', '*': '&' }, { x: 1, k: 5 })).toEqual({ k: [{ b: 1 }, 5] });
    const input = { a: { w: 1, v: 2 } };
    expect(shift({ '*': { w: 'out.&(1,0)', v: 'out.&1.v' } }, input)).toEqual({ out: { a: 1 } });
    expect(shift({ '*': { v: 'out.&1.v', w: 'out.&(1,0)' } }, input)).toEqual({ out: { a: [{ v: 2 }, 1] } });
  });

  it('skips a write expecting a map where another made a list, and the other way round', () => {
    expect(shift({ a: 'o[0]', b: 'o.x' }, { a: 1, b: 2 })).toEqual({ o: [1] });
    expect(shift({ b: 'o.x', a: 'o[0]' }, { a: 1, b: 2 })).toEqual({ o: { x: 2 } });
    expect(shift({ a: 'o[]', '*': 'o.&' }, { b: 2, a: 1 })).toEqual({ o: { b: 2 } });
  });

  it('writes into a map of the input written to the output before', () => {
    const input = { a: { q: 1 }, b: 2 };
    expect(shift({ a: 'o', b: 'o.x' }, input)).toEqual({ o: { q: 1, x: 2 } });
    expect(shift({ a: 'o.p', b: 'o.p.x' }, { a: [1], b: 2 })).toEqual({ o: { p: [1] } });
  });

  it('skips a write at the root of the output when another set it to a value', () => {
    expect(shift({ a: '', b: 'x' }, { a: 1, b: 2 })).toEqual(1);
    expect(shift({ a: '', b: 'x' }, { a: [1], b: 2 })).toEqual([1]);
  });

  it('finds a container once for all writes of a spec object, also with other writes between them', () => {
    const spec = { '*': { $: 'out.&.key', a: 'out.&1.a', b: 'other.&1', c: 'out.&1.c' } };
    const input = JSON.parse('{"a": {"a": 1, "b": 2, "c": 3}, "key": {"a": 4, "c": 5}, "__proto__": {"c": 6}}');
    const out = shift(spec, input) as { out: Record<string, unknown>; other: unknown };
    expect(out.out.a).toEqual({ key: 'a', a: 1, c: 3 });
    expect(out.out.key).toEqual({ key: 'key', a: 4, c: 5 });
    expect(hasOwn(out.out, '__proto__') && out.out['__proto__']).toEqual({ key: '__proto__', c: 6 });
    expect(out.other).toEqual({ a: 2 });
  });

  it('walks again when another write of the spec object may end at the container', () => {
    expect(shift({ '*': { $: 'out.&', a: 'out.&1.x', b: 'out.&1.y' } }, { k: { a: 1, b: 2 } })).toEqual({
      out: { k: 'k' },
    });
    expect(shift({ '*': { a: 'out.&1.x', b: 'out.&1', c: 'out.&1.y' } }, { k: { a: 1, b: 2, c: 3 } })).toEqual({
      out: { k: [{ x: 1 }, 2] },
    });
  });

  it('walks through the containers it made, whatever their keys', () => {
    const input = { 'rating-1': { value: 3, label: 'a' }, 'rating-2': { value: 4, label: 'b' }, other: 7 };
    const spec = { 'rating-*': { value: 'ratings.&(1,1).score', $: 'ratings.&(1,1).key', '@': 'raw.&' }, '*': 'o.&' };
    expect(shift(spec, input)).toEqual({
      ratings: { 1: { key: 'rating-1', score: 3 }, 2: { key: 'rating-2', score: 4 } },
      raw: { 'rating-1': input['rating-1'], 'rating-2': input['rating-2'] },
      o: { other: 7 },
    });
  });
});

describe('shift sets keys and makes containers without looking only where no other write can be there first', () => {
  /** The general shift (no fixed-shape fast path), whose writes these proofs are about. */
  const general = (spec: unknown, input: unknown): unknown => {
    const compiled = joltToFunction([{ operation: 'shift', spec }], {}, { fixedShape: false });
    expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    return compiled.fn?.(input, {});
  };

  it('merges writes of two spec objects to one place', () => {
    const spec = { 'rating-*': { value: 'r.&(1,1).v' }, 'x-*': { value: 'r.&(1,1).v' } };
    expect(general(spec, { 'rating-1': { value: 1 }, 'x-1': { value: 2 } })).toEqual({ r: { 1: { v: [1, 2] } } });
    expect(general({ a: { v: 'o.v' }, b: { v: 'o.v' } }, { a: { v: 1 }, b: { v: 2 } })).toEqual({ o: { v: [1, 2] } });
  });

  it('merges writes of the two functions an `a|b` key makes', () => {
    expect(general({ 'a|b': { v: 'out.v' } }, { a: { v: 1 }, b: { v: 2 } })).toEqual({ out: { v: [1, 2] } });
    expect(general({ 'a|b': 'out.v' }, { a: 1, b: 2 })).toEqual({ out: { v: [1, 2] } });
    const twice = { 'r-*|s-*': { v: 'o.&(1,1).v' } };
    expect(general(twice, { 'r-1': { v: 1 }, 's-1': { v: 2 } })).toEqual({ o: { 1: { v: [1, 2] } } });
  });

  it('merges writes of the runs of one function when the place does not name the run', () => {
    expect(general({ '*': { v: 'out.v' } }, { a: { v: 1 }, b: { v: 2 } })).toEqual({ out: { v: [1, 2] } });
    expect(general({ '*': 'out.x' }, { a: 1, b: 2 })).toEqual({ out: { x: [1, 2] } });
    expect(general({ '*-*': { v: 'o.&(1,1)' } }, { 'a-b': { v: 1 }, 'a-c': { v: 2 } })).toEqual({ o: { a: [1, 2] } });
    const nested = { '*': { '*': { v: 'o.&1.v' } } };
    expect(general(nested, { x: { k: { v: 1 } }, y: { k: { v: 2 } } })).toEqual({ o: { k: { v: [1, 2] } } });
  });

  it('looks for a container another write of the function may have made walking another way', () => {
    const input = { k: { a: 1, b: 2, n: 'k' } };
    expect(general({ '*': { b: 'o.@(1,n).b', a: 'o.&1.a' } }, input)).toEqual({ o: { k: { b: 2, a: 1 } } });
    expect(general({ '*': { a: 'o.&1.a', b: 'o.@(1,n).b' } }, input)).toEqual({ o: { k: { a: 1, b: 2 } } });
    expect(general({ '*': { n: 'o.k', a: 'o.&1.a' } }, input)).toEqual({ o: { k: 'k' } });
  });

  it('writes each place a run names once, for every run', () => {
    const spec = { 'rating-*': { $: 'r.&(1,1).key', value: 'r.&(1,1).v', '@': 'raw.&' }, '*': 'other.&', id: 'p.id' };
    const input = { id: 7, 'rating-1': { value: 1 }, 'rating-2': { value: 2 }, note: 'n' };
    expect(general(spec, input)).toEqual({
      p: { id: 7 },
      r: { 1: { key: 'rating-1', v: 1 }, 2: { key: 'rating-2', v: 2 } },
      raw: { 'rating-1': { value: 1 }, 'rating-2': { value: 2 } },
      other: { note: 'n' },
    });
    expect(general({ '*': { '@': 'x.&', $: 'y.&' } }, [5, 6])).toEqual({ x: { 0: 5, 1: 6 }, y: { 0: '0', 1: '1' } });
  });
});

/** The general shift (no fixed-shape fast path) of `spec` and its generated text. */
function compileGeneralShift(spec: unknown): { fn: (input: unknown) => unknown; js: string } {
  const chain = [{ operation: 'shift', spec }];
  const compiled = joltToFunction(chain, {}, { fixedShape: false });
  expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const { js } = compileJoltChain(chain, () => ({ file: 'x', start: 0, end: 0 }), {
    customFunctions: [],
    customOperations: [],
    fixedShape: false,
  });
  return { fn: (input) => compiled.fn?.(input, {}), js };
}

describe('shift keeps containers at constant paths for a whole run', () => {
  const ratings = {
    'rating-*': { value: 'ratings.&(1,1).score', count: 'counts.@(1,label)', $: 'ratings.&(1,1).key', '@': 'raw.&' },
    '*': 'other.&',
  };

  it('keeps a container whose keys are all constants in one variable for the run, others per function', () => {
    const { js } = compileGeneralShift(ratings);
    // counts, raw, other and ratings: each found once per run; ratings.&(1,1) (a key from the input) once per call
    expect(js).toMatch(/let kept\d+, kept\d+, kept\d+, kept\d+; \/\/ containers at constant paths/);
    expect(js).toMatch(/let made1; \/\/ a container writes below share/);
    expect(js).toMatch(/} finally {\n\s+kept\d+ = kept\d+ = kept\d+ = kept\d+ = undefined;/);
  });

  it('starts every run with containers of its own', () => {
    const { fn } = compileGeneralShift(ratings);
    const input = { 'rating-1': { value: 3, label: 'a', count: 1 }, note: 'n' };
    const first = fn(input) as Record<string, Record<string, unknown>>;
    const second = fn({ 'rating-2': { value: 4, label: 'b', count: 2 } }) as Record<string, Record<string, unknown>>;
    expect(first).toEqual({
      ratings: { 1: { key: 'rating-1', score: 3 } },
      counts: { a: 1 },
      raw: { 'rating-1': input['rating-1'] },
      other: { note: 'n' },
    });
    expect(second.counts).toEqual({ b: 2 });
    expect(second.raw).toEqual({ 'rating-2': { value: 4, label: 'b', count: 2 } });
    expect(second.other).toBeUndefined();
    expect(second.counts).not.toBe(first.counts);
  });

  it('starts afresh after a run that failed half way', () => {
    const { fn } = compileGeneralShift(ratings);
    const failing = {
      'rating-1': { value: 1, label: 'a', count: 1 },
      'rating-2': {
        label: 'b',
        get value(): never {
          throw new Error('unreadable');
        },
      },
    };
    expect(() => fn(failing)).toThrow('unreadable');
    expect(fn({ 'rating-3': { label: 'c', count: 3 } })).toEqual({
      ratings: { 3: { key: 'rating-3' } },
      counts: { c: 3 },
      raw: { 'rating-3': { label: 'c', count: 3 } },
    });
  });

  it('gives a run started inside another (by a getter of the input) containers of its own', () => {
    const { fn } = compileGeneralShift({ 'r-*': { count: 'counts.@(1,label)' }, '*': 'other.&' });
    let inner: unknown;
    const input = {
      a: 1,
      'r-1': { label: 'x', count: 1 },
      get b(): number {
        inner = fn({ 'r-2': { label: 'y', count: 2 }, z: 9 });
        return 3;
      },
      'r-3': { label: 'x', count: 3 },
      c: 4,
    };
    expect(fn(input)).toEqual({ other: { a: 1, b: 3, c: 4 }, counts: { x: [1, 3] } });
    expect(inner).toEqual({ counts: { y: 2 }, other: { z: 9 } });
  });

  it('merges writes of several functions and runs into the kept container (collisions make lists)', () => {
    const spec = {
      'r-*': { count: 'counts.@(1,label)' },
      's-*': { count: 'counts.@(1,label)' },
      x: 'counts.__proto__',
    };
    const input = {
      'r-1': { label: 'a', count: 1 },
      'r-2': { label: 'a', count: 2 },
      's-1': { label: 'a', count: 3 },
      's-2': { label: '__proto__', count: 4 },
      x: 5,
    };
    const out = compileGeneralShift(spec).fn(input) as { counts: Record<string, unknown> };
    expect(out.counts.a).toEqual([1, 2, 3]);
    expect(Object.getPrototypeOf(out.counts)).toBe(Object.prototype);
    expect(hasOwn(out.counts, '__proto__') && out.counts['__proto__']).toEqual([5, 4]); // literal keys first
  });

  it('walks every time where another write may end at the container, or a key on the way is not constant', () => {
    const ending = { 'r-*': { count: 'counts.@(1,label)' }, c: 'counts' };
    const { fn, js } = compileGeneralShift(ending);
    expect(js).not.toMatch(/kept\d+/);
    expect(fn({ c: 7, 'r-1': { label: 'a', count: 1 } })).toEqual({ counts: 7 });
    // the literal key writes first, whatever the input's order; the map write then meets a value and skips
    expect(fn({ 'r-1': { label: 'a', count: 1 }, c: 7 })).toEqual({ counts: 7 });
    // a write of the same function may replace the container with a list: the next run of it skips
    const replacing = compileGeneralShift({ 'r-*': { count: 'counts.@(1,label)', d: 'counts' } });
    expect(replacing.js).not.toMatch(/kept\d+/);
    const input = { 'r-1': { label: 'a', count: 1, d: 7 }, 'r-2': { label: 'b', count: 2 } };
    expect(replacing.fn(input)).toEqual({ counts: [{ a: 1 }, 7] });
    // a key from the input on the way: only `counts` is kept (see the next group), not the container written into
    const computed = compileGeneralShift({ 'r-*': { count: 'counts.&(1,1).@(1,label)' } });
    expect(computed.js).toMatch(/let kept\d+; \/\/ containers at constant paths/);
    expect(computed.fn({ 'r-1': { label: 'a', count: 1 }, 'r-2': { label: 'a', count: 2 } })).toEqual({
      counts: { 1: { a: 1 }, 2: { a: 2 } },
    });
  });
});

describe('shift finds the containers at the constant start of a walk once per run', () => {
  it('walks on from the kept container by the keys from the input, in every run', () => {
    const { fn, js } = compileGeneralShift({ 'r-*': { v: 'a.b.&(1,1).c', w: 'a.b.&(1,1).d' }, '*': 'a.o.&' });
    expect(js).toMatch(/target = kept\d+;\n\s+if \(target === undefined\) {\n\s+target = state\.o\.root;/);
    const input = { 'r-1': { v: 2, w: 3 }, 'r-2': { v: 4 }, z: 9 };
    const expected = { a: { b: { 1: { c: 2, d: 3 }, 2: { c: 4 } }, o: { z: 9 } } };
    expect(fn(input)).toEqual(expected);
    expect(fn(input)).toEqual(expected);
    expect(fn({ 'r-3': { v: 5 } })).toEqual({ a: { b: { 3: { c: 5 } } } });
  });

  it('keeps only the proven start of the walk: where another write may end, it looks every time', () => {
    // `x` may set `ratings` to a value: nothing on the way is kept
    const ending = compileGeneralShift({ 'r-*': { v: 'ratings.&(1,1).score', w: 'ratings.&(1,1).w' }, x: 'ratings' });
    expect(ending.js).not.toMatch(/kept\d+/);
    expect(ending.fn({ x: 1, 'r-1': { v: 2, w: 3 }, 'r-2': { v: 4 } })).toEqual({ ratings: 1 });
    // `x` may end at `ratings.1`: `ratings` is kept, what is below it is looked for
    const below = compileGeneralShift({ 'r-*': { v: 'ratings.&(1,1).score' }, x: 'ratings.1' });
    expect(below.js).toMatch(/kept\d+/);
    expect(below.fn({ x: 1, 'r-1': { v: 2 }, 'r-2': { v: 4 } })).toEqual({ ratings: { 1: 1, 2: { score: 4 } } });
    // another function's write ends at `a.b` (a list of both when it comes second)
    const other = compileGeneralShift({ 'r-*': { v: 'a.b.&(1,1).c' }, 's-*': { v: 'a.b' } });
    expect(other.fn({ 'r-1': { v: 2 }, 's-1': { v: 7 }, 'r-2': { v: 4 } })).toEqual({ a: { b: [{ 1: { c: 2 } }, 7] } });
  });

  it('keeps a list at a constant index on the way', () => {
    const { fn } = compileGeneralShift({ 'r-*': { v: 'list[1].&(1,1)', w: 'list[0]' } });
    const input = { 'r-1': { v: 2, w: 3 }, 'r-2': { v: 4, w: 5 } };
    expect(fn(input)).toEqual({ list: [[3, 5], { 1: 2, 2: 4 }] });
    expect(fn(input)).toEqual({ list: [[3, 5], { 1: 2, 2: 4 }] });
  });
});

describe('shift over a large input: maps keyed by its data start as dictionaries (J.dict)', () => {
  const spec = {
    'rating-*': { value: 'ratings.&(1,1).score', label: 'ratings.&(1,1).label', count: 'byLabel.@(1,label)' },
    '*': 'other.&',
  };
  /** `n` ratings whose labels repeat and include names of Object.prototype members and `__proto__`. */
  function ratingsInput(n: number): Record<string, unknown> {
    const labels = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];
    const input: Record<string, unknown> = { id: 'P1' };
    for (let i = 1; i <= n; i++)
      input[`rating-${i}`] = { value: i, label: labels[i - 1] ?? `L${i % 7}`, count: i * 10 };
    return input;
  }
  /** What JOLT makes of ratingsInput(n): a second write to a label makes a list of both, in order. */
  function expected(n: number): Record<string, unknown> {
    const ratings: Record<string, unknown> = {};
    const byLabel: Record<string, unknown> = {};
    const input = ratingsInput(n);
    for (let i = 1; i <= n; i++) {
      const { value, label, count } = input[`rating-${i}`] as { value: number; label: string; count: number };
      ratings[String(i)] = { score: value, label };
      const before: unknown = hasOwn(byLabel, label) ? byLabel[label] : undefined;
      const merged = before === undefined ? count : Array.isArray(before) ? [...before, count] : [before, count];
      Object.defineProperty(byLabel, label, { value: merged, writable: true, enumerable: true, configurable: true });
    }
    return { other: { id: 'P1' }, ratings, byLabel };
  }
  const maps = (value: unknown): object[] =>
    value !== null && typeof value === 'object'
      ? [...(Array.isArray(value) ? [] : [value]), ...Object.values(value).flatMap(maps)]
      : [];

  it('gives the same output, key order and prototypes as on a small input', () => {
    for (const n of [5, 33, 120]) {
      const out = shift(spec, ratingsInput(n)) as Record<string, Record<string, unknown>>;
      expect(out).toStrictEqual(expected(n));
      expect(Object.keys(out.byLabel ?? {})).toEqual(Object.keys(expected(n).byLabel as object));
      expect(hasOwn(out.byLabel, '__proto__')).toBe(true);
      for (const map of maps(out)) expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
    }
  });

  it('merges repeated keys into lists over a large list too, and the next run starts small', () => {
    const listSpec = { '*': { count: 'byLabel.@(1,label)', '@': 'byIndex.&1' } };
    const many = Array.from({ length: 40 }, (_, i) => ({ label: i % 2 === 0 ? 'even' : 'constructor', count: i }));
    const fn = joltToFunction([{ operation: 'shift', spec: listSpec }]).fn;
    const out = fn?.(many) as { byLabel: Record<string, number[]>; byIndex: Record<string, unknown> };
    expect(out.byLabel.even).toEqual(many.filter((_, i) => i % 2 === 0).map((x) => x.count));
    expect(hasOwn(out.byLabel, 'constructor') && out.byLabel.constructor).toHaveLength(20);
    expect(Object.keys(out.byIndex)).toHaveLength(40);
    for (const map of maps(out)) expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
    const small = fn?.([{ label: 'toString', count: 1 }]) as { byLabel: Record<string, unknown> };
    expect(small.byLabel).toStrictEqual({ toString: 1 });
    expect(Object.getPrototypeOf(small.byLabel)).toBe(Object.prototype);
  });
});
