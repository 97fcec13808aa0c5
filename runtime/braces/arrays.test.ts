/**
 * Unit tests of the array functions' run-time contract that the data tables cannot show: inputs
 * are never changed, lambdas run once per element in order, results are prototype-free where keys
 * are data, and the shared work budget is per outermost call (reset even after a failure).
 */
import { describe, expect, it } from 'vitest';
import { PipeError } from '../errors.js';
import type { Json } from '../types.js';
import {
  EVERY,
  FILTER,
  FIND,
  GROUPBY,
  MAP,
  MAX_ELEMENTS,
  MAX_LAMBDA_CALLS,
  REDUCE,
  SOME,
  SORTBY,
  SUM_MAP,
  sizeUpTo,
} from './arrays.js';
import { AVG, COUNT, MAX, MIN, SUM } from './math.js';
import { get } from './values.js';

describe('array functions', () => {
  it('never change their input and call the lambda once per element, in order', () => {
    const input: Json = [3, 1, 2];
    const seen: Json[] = [];
    const sorted = SORTBY(input, (x) => {
      seen.push(x);
      return x;
    });
    expect(sorted).toEqual([1, 2, 3]);
    expect(input).toEqual([3, 1, 2]);
    expect(seen).toEqual([3, 1, 2]);
    expect(MAP(input, (x) => x)).not.toBe(input);
  });

  it('stops SOME, EVERY and FIND at the first decisive element', () => {
    const calls: Json[] = [];
    const probe = (x: Json): Json => {
      calls.push(x);
      return x === 2;
    };
    expect(SOME([1, 2, 3], probe)).toBe(true);
    expect(FIND([1, 2, 3], probe)).toBe(2);
    expect(EVERY([2, 1, 3], probe)).toBe(false);
    expect(calls).toEqual([1, 2, 1, 2, 2, 1]);
  });

  it('reads a lambda result of undefined as null', () => {
    expect(MAP([1], () => undefined as unknown as Json)).toEqual([null]);
    expect(FILTER([1], () => undefined as unknown as Json)).toEqual([]);
  });

  it('builds GROUPBY results whose keys are plain data', () => {
    const groups = GROUPBY([{ k: '__proto__' }, { k: 'toString' }], (x) => get(x, 'k')) as Record<string, Json>;
    expect(Object.getPrototypeOf(groups)).toBeNull();
    expect(Object.keys(groups)).toEqual(['__proto__', 'toString']);
    expect(({} as Record<string, unknown>)['k']).toBeUndefined();
  });

  it('starts REDUCE from the initial value and passes the accumulator first', () => {
    expect(REDUCE(['a', 'b'], (acc, x) => `${String(acc)}${String(x)}`, '>')).toBe('>ab');
  });

  it('refuses arrays over the element cap before calling the lambda', () => {
    let calls = 0;
    const big = new Array<Json>(MAX_ELEMENTS + 1).fill(1);
    expect(() =>
      MAP(big, () => {
        calls++;
        return 1;
      }),
    ).toThrow(PipeError);
    expect(calls).toBe(0);
    expect(() => SUM(big)).toThrow(/at most 1000000/);
  });

  it('shares the call budget with nested calls, per outermost call, reset after a failure', () => {
    const inner = new Array<Json>(1_000_000).fill(0);
    const outer = new Array<Json>(Math.floor((MAX_LAMBDA_CALLS * 0.6) / inner.length)).fill(0);
    const sixtyPercent = (): Json => MAP(outer, () => SOME(inner, () => false));
    expect(() =>
      MAP([1, 2], (x) => {
        if (x === 2) throw new PipeError('boom', { code: 500, kind: 'TEST' });
        return sixtyPercent();
      }),
    ).toThrow('boom');
    // Each call alone fits; together they would not: the budget is per outermost call.
    expect(sixtyPercent()).toHaveLength(outer.length);
    expect(sixtyPercent()).toHaveLength(outer.length);
    expect(() => MAP([1, 2], () => sixtyPercent())).toThrow(/lambda calls/);
  });

  it('counts the size of values, shared data once', () => {
    expect(sizeUpTo('abc', 100)).toBe(4);
    expect(sizeUpTo({ ab: [1, 'x'] }, 100)).toBe(1 + 2 + 1 + 1 + 2);
    const seen = new WeakSet<object>();
    const shared = { a: 'x'.repeat(50) };
    expect(sizeUpTo(shared, 1000, seen)).toBe(53);
    expect(sizeUpTo(shared, 1000, seen)).toBe(1);
    expect(sizeUpTo(['y'.repeat(1000), 'z'.repeat(1000)], 10)).toBeLessThan(1100);
  });
});

describe('aggregates over one array', () => {
  it('fold the elements, and keep the variadic form', () => {
    expect(SUM([1, 2, 3])).toBe(6);
    expect(SUM(1, 2, 3)).toBe(6);
    expect(AVG([1, 2])).toBe(1.5);
    expect(MIN([2, -1])).toBe(-1);
    expect(MAX(new Array<Json>(200_000).fill(7))).toBe(7);
    expect(COUNT([null, 1])).toBe(2);
    expect(COUNT(1, null)).toBe(2);
  });

  it('name the element that is not a number', () => {
    expect(() => SUM([1, 'x'])).toThrow('SUM: the element at index 1 must be a number, got the string "x"');
  });

  it('give null for a null element wherever it is, before looking at the others', () => {
    expect(SUM([1, 'x', null])).toBeNull();
    expect(SUM([null, 2])).toBeNull();
    expect(SUM([])).toBe(0);
    expect(SUM(['1.5', 2])).toBe(3.5);
    expect(SUM([0.1, 0.2, 0.3])).toBe([0.1, 0.2, 0.3].reduce((x, y) => x + y, 0));
  });
});

describe('SUM_MAP (what SUM(MAP(…)) compiles to)', () => {
  /** The outcome of a call: its value, or the error it raised (function name and message). */
  const outcome = (run: () => Json): unknown => {
    try {
      return { value: run() };
    } catch (err) {
      return err instanceof PipeError ? { error: err.message } : { thrown: String(err) };
    }
  };

  it('gives exactly what SUM of MAP gives, errors included', () => {
    const lambdas: Array<(x: Json) => Json> = [
      (x) => x,
      (x) => (typeof x === 'number' ? x * 1.5 : x),
      (x) => (x === 2 ? null : x),
      (x) => (x === 3 ? 'seven' : x),
      (x) => (x === 3 ? { a: 1 } : x === 4 ? null : x),
      (x) => (x === 4 ? 'x' : x === 5 ? null : x),
      (x) => {
        if (x === 2) throw new PipeError('lambda failed', { code: 400, kind: 'FUNCTION' });
        return x;
      },
    ];
    const arrays: Json[] = [
      [1, 2, 3, 4, 5],
      [],
      ['2', 3.25, '1e3'],
      [Number.MAX_VALUE, Number.MAX_VALUE],
      [0.1, 0.2, 0.3],
      null,
      'text',
      5,
      { a: 1 },
    ];
    for (const array of arrays) {
      for (const lambda of lambdas) {
        expect(
          outcome(() => SUM_MAP(array, lambda)),
          JSON.stringify(array),
        ).toEqual(outcome(() => SUM(MAP(array, lambda))));
      }
    }
  });

  it('counts its lambda calls in the work budget of the call around it', () => {
    const nested = MAP([[1, 2], [3]], (row) => SUM_MAP(row, (x) => x));
    expect(nested).toEqual([3, 3]);
    expect(() => MAP(new Array(10).fill(Array(MAX_ELEMENTS).fill(1)), (row) => SUM_MAP(row, (x) => x))).toThrow(
      `more than ${MAX_LAMBDA_CALLS} lambda calls`,
    );
  });
});
