/**
 * The modify code's shortcuts where a spec object's input has been checked to be a map (or list) in
 * its own function: one type check per object, `@(1,key)` arguments read with a plain property
 * load, and leaves that never use their key's own value not reading it. The expected values are
 * those of the general path (the code generated before these shortcuts), including inputs that must
 * not take them: values of the wrong type, null, inherited names, deeper paths, lists, `?` keys.
 */
import { describe, expect, it } from 'vitest';
import { compileJoltChain, joltToFunction, type JoltExtensions } from './index.js';

function run(chain: unknown, input: unknown, extensions?: JoltExtensions): unknown {
  const compiled = joltToFunction(chain, extensions);
  expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return compiled.fn?.(input, {});
}

const modifyIn =
  (operation: string) =>
  (spec: unknown, input: unknown, extensions?: JoltExtensions): unknown =>
    run([{ operation, spec }], input, extensions);
const overwrite = modifyIn('modify-overwrite-beta');
const defaults = modifyIn('modify-default-beta');
const define = modifyIn('modify-define-beta');

function generated(spec: unknown): string {
  return compileJoltChain([{ operation: 'modify-overwrite-beta', spec }], () => ({ file: 'x', start: 0, end: 0 })).js;
}

describe('modify into an object checked once', () => {
  const spec = {
    items: {
      '*': {
        label: "=concat(@(1,a),'/',@(1,b))",
        half: '=divide(@(1,p),2)',
        sum: '=doubleSum(@(1,p),@(1,q))',
        n: '=size(@(1,list))',
      },
    },
  };

  it('computes from sibling keys, creates objects for null and leaves other values alone', () => {
    const input = {
      items: [
        { a: 'x', b: 'y', p: 4, q: 1, list: [1, 2] },
        { a: null, p: 'z', label: 'old', half: 9 },
        {},
        [1, 2],
        'text',
        7,
        null,
        true,
      ],
    };
    expect(overwrite(spec, input)).toEqual({
      items: [
        { a: 'x', b: 'y', p: 4, q: 1, list: [1, 2], label: 'x/y', half: 2, sum: 5, n: 2 },
        { a: null, p: 'z', label: '/', half: 9, sum: 0 },
        { label: '/', sum: 0 },
        [1, 2],
        'text',
        7,
        { label: '/', sum: 0 },
        true,
      ],
    });
  });

  it('does the same under the keys of a map', () => {
    const input = { items: { k1: { a: 'x', b: 'y' }, k2: 'no', k3: null } };
    expect(overwrite({ items: { '*': { label: "=concat(@(1,a),'/',@(1,b))" } } }, input)).toEqual({
      items: { k1: { a: 'x', b: 'y', label: 'x/y' }, k2: 'no', k3: { label: '/' } },
    });
  });

  it('reads the target key itself only where the mode or the function needs it', () => {
    const leaves = { '*': { label: "=concat(@(1,a),'-')", half: '=divide(@(1,p),2)' } };
    const input = { one: { a: 'x', p: 2, label: null }, two: { a: 'y', p: 4, label: 'kept', half: 1 }, three: {} };
    expect(defaults(leaves, structuredClone(input))).toEqual({
      one: { a: 'x', p: 2, label: 'x-', half: 1 },
      two: { a: 'y', p: 4, label: 'kept', half: 1 },
      three: { label: '-' },
    });
    expect(define(leaves, structuredClone(input))).toEqual({
      one: { a: 'x', p: 2, label: null, half: 1 },
      two: { a: 'y', p: 4, label: 'kept', half: 1 },
      three: { label: '-' },
    });
    const mixed = { x: { 'label?': "=concat(@(1,a),'-')", '~half': '=divide(@(1,p),2)', _d: '=divide(@(1,p),4)' } };
    expect(overwrite(mixed, { x: { a: 'q', p: 8, half: null, d: 3 } })).toEqual({ x: { a: 'q', p: 8, half: 4, d: 3 } });
    const own = { x: { s: '=toUpper', t: ['=toLower', 'fallback'], u: "=concat(@(0),'!')" } };
    expect(overwrite(own, { x: { s: 'ab', t: 5, u: 'u' } })).toEqual({ x: { s: 'AB', t: 'fallback', u: 'u!' } });
  });

  it('keeps the general reads for inherited names, deeper paths, the own value and plain references', () => {
    const leaves = {
      x: {
        a: "=concat(@(1,constructor),'-',@(1,toString))",
        b: '=divide(@(1,deep.v),2)',
        c: '=concat(@(0),@(1,__proto__))',
        d: '@(1,missing)',
        e: '@(1,v)',
      },
    };
    const input = { x: JSON.parse('{"constructor":"c","deep":{"v":6},"v":1}') as unknown };
    expect(overwrite(leaves, input)).toEqual({
      x: { constructor: 'c', deep: { v: 6 }, v: 1, a: 'c-', b: 3, c: '', e: 1 },
    });
  });

  it('passes absent arguments of custom functions as null', () => {
    const keep = (args: readonly unknown[]): unknown => JSON.stringify(args);
    expect(overwrite({ x: { y: '=keep(@(1,a),@(1,b))' } }, { x: { a: 1 } }, { functions: { keep } })).toEqual({
      x: { a: 1, y: '[1,null]' },
    });
  });

  it('creates the object on the way and reads outer levels the general way', () => {
    expect(overwrite({ made: { label: "=concat(@(1,a),'-',@(2,top))" } }, { top: 'T' })).toEqual({
      top: 'T',
      made: { label: '-T' },
    });
  });

  it('reads sibling keys with a plain property load, and inherited names through the checked reader', () => {
    const js = generated({ x: { y: '=divide(@(1,p),2)', z: '=divide(@(1,constructor),2)' } });
    expect(js).toContain('data["p"]');
    expect(js).not.toContain('data["constructor"]');
  });
});

describe('modify into values whose type is known only at run time', () => {
  it('reads sibling keys of a map input and nothing of a list input', () => {
    const spec = { '*': "=concat(@(1,a),'!')" };
    expect(overwrite(spec, { a: 'A', b: 1 })).toEqual({ a: 'A!', b: 'A!!' });
    expect(overwrite(spec, ['x', 'y'])).toEqual(['!', '!']);
  });

  it('grows a list written by index', () => {
    expect(overwrite({ xs: { '[1]': "=concat(@(1,a),'!')", '[3]': '=toUpper' } }, { xs: ['a', 'b'] })).toEqual({
      xs: ['a', '!', null, null],
    });
    expect(overwrite({ xs: { '[1]': "=concat(@(1,a),'!')" } }, { xs: { a: 1 } })).toEqual({ xs: { a: 1 } });
  });
});

describe('cardinality then modify', () => {
  it('gives the modify the values cardinality made', () => {
    const chain = [
      { operation: 'cardinality', spec: { items: { '*': { c: 'ONE', n: 'MANY' } } } },
      {
        operation: 'modify-overwrite-beta',
        spec: { items: { '*': { s: '=toUpper', l: "=concat(@(1,c),'/',@(1,n))" } }, count: '=size(@(1,items))' },
      },
    ];
    expect(run(chain, { items: [{ c: ['a', 'b'], n: 'x', s: 'q' }, { c: [], n: null }, 'str', [1]] })).toEqual({
      items: [{ c: 'a', n: ['x'], s: 'Q', l: 'a/[x]' }, { c: null, n: [], l: '/[]' }, 'str', [1]],
      count: 4,
    });
  });
});
