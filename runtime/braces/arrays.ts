/**
 * Double Braces array functions with lambdas (beyond Digibee): MAP, FILTER, REDUCE, SOME, EVERY,
 * FIND, SORTBY, GROUPBY. Generated code passes the lambda as a JavaScript arrow function:
 * `B.MAP(B.field(message, "lines"), ($l) => B.field($l, "qty"))`.
 * In: an array (null gives null; SOME/EVERY give false like other predicates) and a lambda.
 * Out: JSON values; a non-array is a PipeError naming the function.
 *
 * Limits: an array argument has at most MAX_ELEMENTS elements, and one outermost array call
 * (with every array call nested in its lambdas) makes at most MAX_LAMBDA_CALLS lambda calls and
 * receives at most MAX_RESULT_SIZE units of new lambda results (string characters + 1 per value;
 * data returned again counts once), so nested or hostile lambdas can neither hang an execution
 * nor exhaust its memory.
 */
import type { Json, JsonObject } from '../types.js';
import { tick } from '../work-meter.js';
import { compare, isTrue } from './operators.js';
import { describeValue, elementNumber, fail, newObject, numericValue, setOwn } from './values.js';

export type Lambda = (x: Json) => Json;
export type Reducer = (acc: Json, x: Json) => Json;

/** Most elements an array function processes. */
export const MAX_ELEMENTS = 1_000_000;
/** Most lambda calls of one outermost array call, nested calls included. */
export const MAX_LAMBDA_CALLS = 10_000_000;
/** Most characters + values the lambdas of one outermost array call may return in total. */
export const MAX_RESULT_SIZE = 64 * 1024 * 1024;

interface Work {
  calls: number;
  size: number;
  /** Arrays and objects already counted (a lambda returning shared data adds no memory); made for the first one. */
  seen: WeakSet<object> | undefined;
}

/**
 * The work of the outermost array call now running. Evaluation is synchronous, so the array
 * calls nested in its lambdas run inside it and share this counter; it is reset when the outermost
 * call returns or throws, so nothing carries over between expressions or executions.
 */
let current: Work | undefined;

/**
 * Runs `run` with the work counter of the outermost array call. `a` and `b` are handed on, so
 * that the commonest calls (MAP, SUM of MAP) can pass a module-level function, not a closure made
 * per evaluation.
 */
function withWork<T, A = undefined, B = undefined>(run: (work: Work, a: A, b: B) => T, a?: A, b?: B): T {
  if (current !== undefined) return run(current, a as A, b as B);
  const work: Work = { calls: 0, size: 0, seen: undefined };
  current = work;
  try {
    return run(work, a as A, b as B);
  } finally {
    current = undefined;
  }
}

/** Calls a lambda on one element, counting the call and the size of what it returns. */
function call(fn: string, work: Work, lambda: Lambda, x: Json): Json {
  countCall(fn, work);
  return countResult(fn, work, lambda(x) ?? null);
}

/** Calls REDUCE's reducer: text grown from the accumulator counts only the characters added. */
function callReducer(work: Work, reducer: Reducer, acc: Json, x: Json): Json {
  countCall('REDUCE', work);
  return countResult('REDUCE', work, reducer(acc, x) ?? null, acc);
}

function countCall(fn: string, work: Work): void {
  work.calls++;
  tick();
  if (work.calls > MAX_LAMBDA_CALLS)
    fail(
      fn,
      `more than ${MAX_LAMBDA_CALLS} lambda calls in one computation (nested array functions multiply); split the work over several steps`,
    );
}

function countResult(fn: string, work: Work, value: Json, previous?: Json): Json {
  if (typeof value === 'string' && typeof previous === 'string')
    work.size += Math.max(0, value.length - previous.length) + 1;
  // Scalars (the usual lambda result) are counted here, as sizeUpTo would, without its work list.
  else if (value === null || typeof value !== 'object') work.size += typeof value === 'string' ? value.length + 1 : 1;
  else work.size += sizeUpTo(value, MAX_RESULT_SIZE - work.size + 1, (work.seen ??= new WeakSet()));
  if (work.size > MAX_RESULT_SIZE)
    fail(
      fn,
      `the lambdas returned more than ${MAX_RESULT_SIZE} characters and values in one computation; split the work over several steps`,
    );
  return value;
}

/**
 * Size of a value: 1 per value plus the characters of strings and keys, counted only up to
 * `limit`. Arrays and objects in `seen` count 1 (they were counted before); new ones are added.
 */
export function sizeUpTo(value: Json, limit: number, seen: WeakSet<object> = new WeakSet()): number {
  let size = 0;
  const pending: Json[] = [value];
  while (pending.length > 0 && size < limit) {
    const next = pending.pop() as Json;
    size += 1;
    if (typeof next === 'string') size += next.length;
    if (next === null || typeof next !== 'object' || seen.has(next)) continue;
    seen.add(next);
    if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
      continue;
    }
    for (const key of Object.keys(next)) {
      size += key.length;
      pending.push(next[key] as Json);
    }
  }
  return size;
}

/** The array argument: null stays null (the caller returns its null result), a non-array fails. */
function elements(fn: string, value: Json): Json[] | null {
  if (value === null || value === undefined) return null;
  if (!Array.isArray(value)) fail(fn, `argument 1 must be an array, got ${describeValue(value)}`);
  if (value.length > MAX_ELEMENTS)
    fail(fn, `the array has ${value.length} elements; at most ${MAX_ELEMENTS} are processed`);
  return value;
}

/** @example MAP([1, 2], ($x) => $x * 10) // [10, 20] */
export function MAP(array: Json, lambda: Lambda): Json {
  const items = elements('MAP', array);
  if (items === null) return null;
  return withWork(mapItems, items, lambda);
}

function mapItems(work: Work, items: readonly Json[], lambda: Lambda): Json[] {
  const out: Json[] = [];
  for (const x of items) out.push(call('MAP', work, lambda, x));
  return out;
}

/**
 * `SUM(MAP(array, lambda))` in one pass (the compiler writes it so): the same lambda calls,
 * limits, errors and result as the two calls, without the list in between. As in SUM, a null
 * result anywhere gives null, and otherwise the first result that is no number is the error.
 */
export function SUM_MAP(array: Json, lambda: Lambda): Json {
  const items = elements('MAP', array);
  if (items === null) return null;
  return withWork(sumItems, items, lambda);
}

function sumItems(work: Work, items: readonly Json[], lambda: Lambda): Json {
  let sum = 0;
  let sawNull = false;
  let firstNonNumber = -1;
  let nonNumber: Json = null;
  for (let i = 0; i < items.length; i++) {
    const value = call('MAP', work, lambda, items[i] as Json);
    if (value === null) sawNull = true;
    else if (firstNonNumber < 0) {
      const n = numericValue(value);
      if (n !== undefined) sum += n;
      else {
        firstNonNumber = i;
        nonNumber = value;
      }
    }
  }
  if (sawNull) return null;
  // fails for the first result that is no number, as SUM does
  return firstNonNumber < 0 ? sum : elementNumber('SUM', firstNonNumber, nonNumber);
}

/** Only elements whose lambda gives `true` are kept (null and anything else drop them). @example FILTER([1, 5], ($x) => $x > 2) // [5] */
export function FILTER(array: Json, lambda: Lambda): Json {
  const items = elements('FILTER', array);
  if (items === null) return null;
  return withWork((work) => items.filter((x) => isTrue(call('FILTER', work, lambda, x))));
}

/** Left fold from `initial`. @example REDUCE([1, 2, 3], ($acc, $x) => $acc + $x, 0) // 6 */
export function REDUCE(array: Json, reducer: Reducer, initial: Json): Json {
  const items = elements('REDUCE', array);
  if (items === null) return null;
  return withWork((work) => items.reduce<Json>((acc, x) => callReducer(work, reducer, acc, x), initial ?? null));
}

/** @example SOME([1, 5], ($x) => $x > 2) // true; SOME(null, …) // false */
export function SOME(array: Json, lambda: Lambda): boolean {
  const items = elements('SOME', array);
  if (items === null) return false;
  return withWork((work) => items.some((x) => isTrue(call('SOME', work, lambda, x))));
}

/** True for an empty array; false for null (like other predicates on a missing value). @example EVERY([1, 5], ($x) => $x > 0) // true */
export function EVERY(array: Json, lambda: Lambda): boolean {
  const items = elements('EVERY', array);
  if (items === null) return false;
  return withWork((work) => items.every((x) => isTrue(call('EVERY', work, lambda, x))));
}

/** The first element whose lambda gives true, else null. @example FIND([1, 5, 7], ($x) => $x > 2) // 5 */
export function FIND(array: Json, lambda: Lambda): Json {
  const items = elements('FIND', array);
  if (items === null) return null;
  return withWork((work) => items.find((x) => isTrue(call('FIND', work, lambda, x))) ?? null);
}

/**
 * A stable sort by a key that is a number or a string (all keys of one kind; null keys first,
 * last when descending). Keys are computed once per element; the input is not changed.
 * @example SORTBY([{ p: 2 }, { p: 1 }], ($x) => B.field($x, "p")) // [{ p: 1 }, { p: 2 }]
 */
export function SORTBY(array: Json, lambda: Lambda, descending?: Json): Json {
  const items = elements('SORTBY', array);
  if (items === null) return null;
  const keyed = withWork((work) => items.map((x, index) => ({ x, index, key: call('SORTBY', work, lambda, x) })));
  let kind: 'number' | 'string' | undefined;
  for (const { key } of keyed) {
    if (key === null) continue;
    if (typeof key !== 'number' && typeof key !== 'string')
      fail('SORTBY', `the key must be a number or a string, got ${describeValue(key)}`);
    const keyKind = typeof key as 'number' | 'string';
    if (kind !== undefined && kind !== keyKind)
      fail('SORTBY', 'the keys mix numbers and strings; convert them to one type (TODOUBLE or TOSTRING)');
    kind = keyKind;
  }
  const direction = isTrue(descending ?? null) ? -1 : 1;
  // Ties keep the input order in both directions (the index breaks them).
  keyed.sort((a, b) => direction * compare(a.key, b.key) || a.index - b.index);
  return keyed.map((k) => k.x);
}

/**
 * Groups the elements by a key: strings as they are, numbers and booleans as their JSON text,
 * null as "null". Keys are plain data (`__proto__` is an ordinary key).
 * @example GROUPBY([{ c: "a" }, { c: "b" }, { c: "a" }], ($x) => B.field($x, "c")) // { a: [2 items], b: [1 item] }
 */
export function GROUPBY(array: Json, lambda: Lambda): Json {
  const items = elements('GROUPBY', array);
  if (items === null) return null;
  const groups = new Map<string, Json[]>();
  withWork((work) => {
    for (const x of items) {
      const key = groupKey(call('GROUPBY', work, lambda, x));
      const group = groups.get(key);
      if (group) group.push(x);
      else groups.set(key, [x]);
    }
  });
  const out: JsonObject = newObject();
  for (const [key, group] of groups) setOwn(out, key, group);
  return out;
}

function groupKey(key: Json): string {
  if (typeof key === 'string') return key;
  if (key === null || typeof key === 'number' || typeof key === 'boolean') return JSON.stringify(key);
  return fail('GROUPBY', `the key must be a string, number, boolean or null, got ${describeValue(key)}`);
}

/**
 * The single-array form of SUM, AVG, MIN, MAX and COUNT: the elements of `value` when it is the
 * only argument and an array (checked against MAX_ELEMENTS), else undefined (variadic form).
 */
export function onlyArray(fn: string, values: readonly Json[]): Json[] | undefined {
  const only = values[0];
  if (values.length !== 1 || !Array.isArray(only)) return undefined;
  if (only.length > MAX_ELEMENTS)
    fail(fn, `the array has ${only.length} elements; at most ${MAX_ELEMENTS} are processed`);
  return only;
}
