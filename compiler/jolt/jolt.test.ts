/**
 * Unit tests of the JOLT compiler: Shiftr idioms, the other operations, build-time diagnostics (code
 * and location), prototype-pollution safety, depth limits and run isolation.
 */
import { describe, expect, it } from 'vitest';
import { compileJoltChain, joltToFunction, locateInJson, type JsonPath } from './index.js';
import { PipeError } from '../../runtime/errors.js';

function run(chain: unknown, input: unknown, context?: unknown): unknown {
  const compiled = joltToFunction(chain);
  expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return compiled.fn?.(input, context);
}

const shift = (spec: unknown, input: unknown): unknown => run([{ operation: 'shift', spec }], input);

/** Compiles and returns [code, JSON path, part] of each diagnostic (the locate encodes the path). */
function problems(chain: unknown): [string, JsonPath, string][] {
  const seen: [string, JsonPath, string][] = [];
  const compiled = compileJoltChain(chain, (path, part) => ({ file: JSON.stringify([path, part]), start: 0, end: 0 }));
  for (const d of compiled.diagnostics) {
    const [path, part] = JSON.parse(d.primary.span.file) as [JsonPath, string];
    seen.push([d.code, path, part]);
  }
  return seen;
}

describe('shift', () => {
  it('copies the input with @ and moves keys with & and *', () => {
    expect(shift({ '@': '' }, { a: 1 })).toEqual({ a: 1 });
    expect(shift({ '*': 'out.&' }, { a: 1, b: 2 })).toEqual({ out: { a: 1, b: 2 } });
  });

  it('lets literal keys win over * and drops keys mapped to null', () => {
    expect(shift({ a: 'lit', '*': 'star.&' }, { a: 1, b: 2 })).toEqual({ lit: 1, star: { b: 2 } });
    expect(shift({ a: null, '*': '&' }, { a: 1, b: 2 })).toEqual({ b: 2 });
  });

  it('writes to several paths and merges repeated writes into a list', () => {
    expect(shift({ a: ['x', 'y'] }, { a: 1 })).toEqual({ x: 1, y: 1 });
    expect(shift({ a: 'x', b: 'x' }, { a: 1, b: 2 })).toEqual({ x: [1, 2] });
  });

  it('resolves partial wildcards, &(n,m) groups, $ and [] appends', () => {
    const spec = { 'rating-*-*': { value: 'r.&(1,1).&(1,2)', $: 'keys[]', '$(0,2)': 'seconds[]' } };
    expect(shift(spec, { 'rating-a-b': { value: 5 } })).toEqual({
      r: { a: { b: 5 } },
      keys: ['rating-a-b'],
      seconds: ['b'],
    });
  });

  it('uses [#2] match counts and [&1] indexes to build lists', () => {
    const byCount = { photos: { '*': { url: 'pics[#2].link' } } };
    expect(shift(byCount, { photos: [{ url: 'a' }, { url: 'b' }] })).toEqual({ pics: [{ link: 'a' }, { link: 'b' }] });
    const byIndex = { items: { '*': { sku: 'lines[&1].code' } } };
    expect(shift(byIndex, { items: [{ sku: 'x' }, { sku: 'y' }] })).toEqual({ lines: [{ code: 'x' }, { code: 'y' }] });
  });

  it('matches scalar values and writes # literals', () => {
    const spec = { status: { ok: { '#yes': 'good' }, '*': { '#no': 'good' } } };
    expect(shift(spec, { status: 'ok' })).toEqual({ good: 'yes' });
    expect(shift(spec, { status: 'bad' })).toEqual({ good: 'no' });
  });

  it('looks values up with @(n,path) on both sides', () => {
    expect(shift({ data: { '@clientName': '@clientId' } }, { data: { clientId: '7', clientName: 'Acme' } })).toEqual({
      7: 'Acme',
    });
    expect(shift({ a: 'x.@(1,b)' }, { a: 1, b: 'k' })).toEqual({ x: { k: 1 } });
  });

  it('honours escapes on both sides', () => {
    expect(shift({ '\\@a': 'b', c: 'd\\.e' }, { '@a': 1, c: 2 })).toEqual({ b: 1, 'd.e': 2 });
  });

  it('does not change or copy its input', () => {
    const input = { list: [1, 2], other: [3], obj: { k: 1 } };
    const before = JSON.stringify(input);
    const out = shift({ list: 'x', other: 'x', obj: 'o' }, input) as { x: unknown[]; o: unknown };
    expect(JSON.stringify(input)).toBe(before);
    expect(out.x).toEqual([1, 2, [3]]);
    expect(out.o).toBe(input.obj);
  });
});

describe('default, remove, cardinality, sort, modify', () => {
  it('defaults missing values without sharing them between runs', () => {
    const chain = [{ operation: 'default', spec: { a: { b: [1] }, 'x|y': { z: 1 }, '*': { w: 0 } } }];
    const fn = joltToFunction(chain).fn;
    const first = fn?.({ x: {}, q: {} }) as { a: { b: number[] } };
    expect(first).toEqual({ a: { b: [1], w: 0 }, x: { z: 1, w: 0 }, q: { w: 0 } });
    first.a.b.push(2);
    expect(fn?.({})).toEqual({ a: { b: [1], w: 0 } });
  });

  it('removes keys and list indexes', () => {
    expect(
      run([{ operation: 'remove', spec: { a: '', l: { '0': '', '2': '' }, 'p*': '' } }], {
        a: 1,
        b: 2,
        l: [0, 1, 2, 3],
        px: 1,
      }),
    ).toEqual({ b: 2, l: [1, 3] });
  });

  it('makes values ONE or MANY', () => {
    expect(
      run([{ operation: 'cardinality', spec: { one: 'ONE', many: 'MANY', '*': { t: 'MANY' } } }], {
        one: [1, 2],
        many: 'x',
        k: { t: 5 },
      }),
    ).toEqual({ one: 1, many: ['x'], k: { t: [5] } });
  });

  it('makes every element of a list or map ONE or MANY under a lone *', () => {
    const spec = { l: { '*': 'MANY' }, m: { '*': 'ONE' }, n: { '*': { '@': 'ONE', x: 'MANY' } } };
    expect(
      run([{ operation: 'cardinality', spec }], {
        l: [1, [2], null],
        m: { a: [1, 2], b: [], c: 3 },
        n: [[{ x: 1 }, 'ignored'], { x: 2 }],
      }),
    ).toEqual({ l: [[1], [2], []], m: { a: 1, b: null, c: 3 }, n: [{ x: [1] }, { x: [2] }] });
  });

  it('concatenates strings with + and anything else as Jolt prints it', () => {
    const spec = { s: "=concat(@(1,a),' / ',@(1,b))", t: "=concat(@(1,a),'-',@(1,n),@(1,missing),@(1,z),@(1,l))" };
    const input = { a: 'x', b: 'y', n: 1.5, z: null, l: [1, 'q'] };
    expect(run([{ operation: 'modify-overwrite-beta', spec }], input)).toMatchObject({ s: 'x / y', t: 'x-1.5[1, q]' });
    expect(run([{ operation: 'modify-overwrite-beta', spec }], { a: 7, b: 'y' })).toMatchObject({ s: '7 / y' });
  });

  it('modifies every element of a list under *, creating maps for nulls where the mode allows', () => {
    const spec = { l: { '*': { v: 'x', n: '=toUpper(@(1,s))' } } };
    const input = { l: [{ s: 'a' }, null, 'str', [1]] };
    const modify = (operation: string): unknown => run([{ operation, spec }], structuredClone(input));
    expect(modify('modify-overwrite-beta')).toEqual({ l: [{ s: 'a', v: 'x', n: 'A' }, { v: 'x' }, 'str', [1]] });
    expect(modify('modify-define-beta')).toEqual({ l: [{ s: 'a', v: 'x', n: 'A' }, null, 'str', [1]] });
    const nested = { l: { '*': { '*': { v: 'x' } } } };
    expect(run([{ operation: 'modify-default-beta', spec: nested }], { l: [[null, {}], { a: null }] })).toEqual({
      l: [[{ v: 'x' }, { v: 'x' }], { a: { v: 'x' } }],
    });
  });

  it('gives the library result for arguments of other types than the usual ones (strings, numbers)', () => {
    const spec = {
      u: '=toUpper',
      s: '=size',
      d: '=divide(@(1,a),@(1,b))',
      d100: '=divide(@(1,a),100)',
      ds: '=doubleSum(@(1,a),@(1,b))',
      c: '=concat(@(1,a),@(1,b))',
    };
    const modify = (input: unknown): unknown => run([{ operation: 'modify-overwrite-beta', spec }], input);
    expect(modify({ a: 'AbC', b: 2, u: 'AbC', s: 'AbC' })).toEqual({
      a: 'AbC',
      b: 2,
      u: 'ABC',
      s: 3,
      ds: 2,
      c: 'AbC2',
    });
    expect(modify({ a: 3, b: 0, u: 3, s: { k: 1 } })).toEqual({ a: 3, b: 0, u: 3, s: 1, d100: 0.03, ds: 3, c: '30' });
    expect(modify({ a: '3', b: null, u: null, s: [1, 2] })).toEqual({
      a: '3',
      b: null,
      u: null,
      s: 2,
      d100: 0.03,
      ds: 3,
      c: '3',
    });
    expect(modify({ a: 2.5, b: 'x', u: [1] })).toEqual({ a: 2.5, b: 'x', u: [1], d100: 0.025, ds: 2.5, c: '2.5x' });
  });

  it('sorts keys with ~ keys first', () => {
    const out = run([{ operation: 'sort' }], { b: 1, '~z': 1, a: { d: 1, c: 2 } });
    expect(JSON.stringify(out)).toBe('{"~z":1,"a":{"c":2,"d":1},"b":1}');
  });

  it('computes values with functions, lookups and the context', () => {
    const spec = {
      name: '=toUpper',
      full: "=concat(@(1,first),' ',@(1,last))",
      tax: '=divideAndRound(2,@(1,price),3)',
      env: '^region',
    };
    const out = run(
      [{ operation: 'modify-overwrite-beta', spec }],
      { name: 'ann', first: 'A', last: 'B', price: 10 },
      { region: 'eu' },
    );
    expect(out).toEqual({ name: 'ANN', first: 'A', last: 'B', price: 10, full: 'A B', tax: 3.33, env: 'eu' });
  });

  it('writes only where the mode allows', () => {
    const spec = { a: 'new', b: 'new', c: 'new' };
    const input = (): unknown => ({ a: 'old', b: null });
    expect(run([{ operation: 'modify-overwrite-beta', spec }], input())).toEqual({ a: 'new', b: 'new', c: 'new' });
    expect(run([{ operation: 'modify-default-beta', spec }], input())).toEqual({ a: 'old', b: 'new', c: 'new' });
    expect(run([{ operation: 'modify-define-beta', spec }], input())).toEqual({ a: 'old', b: null, c: 'new' });
  });
});

describe('diagnostics', () => {
  it('rejects chains that are not non-empty lists of operations', () => {
    expect(problems({ operation: 'shift' })).toEqual([['PIPE5001', [], 'value']]);
    expect(problems([])).toEqual([['PIPE5002', [], 'value']]);
    expect(problems([{ operation: ['shift'] }])).toEqual([['PIPE5003', [0, 'operation'], 'value']]);
    expect(problems([{ operation: 'shiftr', spec: {} }])).toEqual([['PIPE5004', [0, 'operation'], 'value']]);
    expect(problems([{ operation: 'default' }])).toEqual([['PIPE5005', [0], 'value']]);
    expect(problems([{ operation: 'shift', spec: [] }])).toEqual([['PIPE5006', [0, 'spec'], 'value']]);
  });

  it('points at malformed keys, bad references and bad output paths', () => {
    expect(problems([{ operation: 'shift', spec: { a: { 'x@y': 'b' } } }])).toEqual([
      ['PIPE5007', [0, 'spec', 'a', 'x@y'], 'key'],
    ]);
    expect(problems([{ operation: 'shift', spec: { a: 'b.&x' } }])).toEqual([['PIPE5008', [0, 'spec', 'a'], 'value']]);
    expect(problems([{ operation: 'shift', spec: { 'r-*': { v: 'x.&(1,2)' } } }])).toEqual([
      ['PIPE5008', [0, 'spec', 'r-*', 'v'], 'value'],
    ]);
    expect(problems([{ operation: 'shift', spec: { a: 'x.&5' } }])).toEqual([['PIPE5008', [0, 'spec', 'a'], 'value']]);
    expect(problems([{ operation: 'shift', spec: { a: ['ok', 'out.*'] } }])).toEqual([
      ['PIPE5009', [0, 'spec', 'a', 1], 'value'],
    ]);
    expect(problems([{ operation: 'shift', spec: { a: 5 } }])).toEqual([['PIPE5010', [0, 'spec', 'a'], 'value']]);
    expect(problems([{ operation: 'shift', spec: { a: {} } }])).toEqual([['PIPE5012', [0, 'spec', 'a'], 'value']]);
  });

  it('checks default, remove, cardinality and modify specs', () => {
    expect(problems([{ operation: 'default', spec: { 'tuna*': 'marlin' } }])).toEqual([
      ['PIPE5013', [0, 'spec', 'tuna*'], 'key'],
    ]);
    expect(problems([{ operation: 'default', spec: { 'p[]': { url: 1 } } }])).toEqual([
      ['PIPE5020', [0, 'spec', 'p[]', 'url'], 'key'],
    ]);
    expect(problems([{ operation: 'remove', spec: { a: 'eh?' } }])).toEqual([['PIPE5014', [0, 'spec', 'a'], 'value']]);
    expect(problems([{ operation: 'cardinality', spec: { a: 'pants' } }])).toEqual([
      ['PIPE5015', [0, 'spec', 'a'], 'value'],
    ]);
    expect(problems([{ operation: 'modify-overwrite-beta', spec: { a: '=uppercase' } }])).toEqual([
      ['PIPE5016', [0, 'spec', 'a'], 'value'],
    ]);
    expect(problems([{ operation: 'modify-overwrite-beta', spec: { d: { '[1]': 'x', 'a*': 'y' } } }])).toEqual([
      ['PIPE5017', [0, 'spec', 'd', '[1]'], 'key'],
    ]);
    expect(problems([{ operation: 'modify-overwrite-beta', spec: { a: '=concat(x' } }])).toEqual([
      ['PIPE5018', [0, 'spec', 'a'], 'value'],
    ]);
  });

  it('locates keys inside a JSON text', () => {
    const text = '[\n  { "operation": "shift", "spec": { "a": { "x@y": "b" } } }\n]';
    const compiled = compileJoltChain(JSON.parse(text), locateInJson('spec.json', text));
    const span = compiled.diagnostics[0]?.primary.span;
    expect(span && text.slice(span.start, span.end)).toBe('"x@y"');
  });
});

describe('safety', () => {
  it('treats __proto__, constructor and prototype as plain keys', () => {
    const input = JSON.parse(
      '{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 2}}, "a": 1}',
    ) as unknown;
    const out = shift({ '*': 'copy.&', a: '__proto__.polluted' }, input) as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out).sort()).toEqual(['__proto__', 'copy']);
    const copy = out.copy as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(copy, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });

  it('merges repeated writes to a computed key into a list, and never into an inherited member', () => {
    const input = {
      a: { k: 'x', v: 1 },
      b: { k: 'toString', v: 2 },
      c: { k: 'x', v: 3 },
      d: { k: 'constructor', v: 4 },
    };
    const out = shift({ '*': { v: 'byK.@(1,k)' } }, input) as Record<string, Record<string, unknown>>;
    expect(out.byK).toEqual({ x: [1, 3], toString: 2, constructor: 4 });
    expect(Object.keys(out.byK ?? {})).toEqual(['x', 'toString', 'constructor']);
  });

  it('does not read inherited members as input keys', () => {
    expect(shift({ constructor: 'c', toString: 't' }, { a: 1 })).toBeNull();
    expect(run([{ operation: 'modify-define-beta', spec: { constructor: 'x' } }], {})).toEqual({ constructor: 'x' });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('fails with a PipeError instead of overflowing the stack on deep input', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    const fn = joltToFunction([{ operation: 'sort' }]).fn;
    expect(() => fn?.(deep)).toThrow(PipeError);
  });

  it('rejects absurdly deep specs at build time', () => {
    let spec: unknown = 'x';
    for (let i = 0; i < 300; i++) spec = { a: spec };
    expect(problems([{ operation: 'shift', spec }]).map((p) => p[0])).toContain('PIPE5019');
  });
});
