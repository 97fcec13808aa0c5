/**
 * Double Braces JSON / array / object functions (reference §1.4.6) plus the listed-but-undocumented
 * ARRAYTOOBJECT / OBJECTTOARRAY and the extra FIRSTELEMENT. Arrays are never mutated: each function
 * returns a new array. JSONPATH runs the linear-time evaluator of runtime/jsonpath.ts and adds Jayway's
 * tail functions (`min() max() avg() stddev() length() sum() first() last() keys()`).
 */
import { compileJsonPath, jsonPathQuery, type CompiledJsonPath } from '../jsonpath.js';
import type { Json, JsonObject } from '../types.js';
import { PipeError } from '../errors.js';
import { unescapeJson } from './escape.js';
import {
  describeValue,
  fail,
  isAbsent,
  isPlainObject,
  newObject,
  obj,
  setOwn,
  toArr,
  toInt,
  toNum,
  toStr,
} from './values.js';

const TAIL_FUNCTIONS = ['min', 'max', 'avg', 'stddev', 'length', 'sum', 'first', 'last', 'keys'] as const;
type TailFunction = (typeof TAIL_FUNCTIONS)[number];

/**
 * Splits `$.a.max()` into `$.a` and `max`. Read from the end without a regular expression: the
 * path may come from the data, and a lazy `(.*?)` pattern took quadratic time on a long one.
 */
export function splitTailFunction(path: string): { readonly path: string; readonly fn: TailFunction | undefined } {
  const trimmed = path.trim();
  if (!trimmed.endsWith('()')) return { path, fn: undefined };
  const head = trimmed.slice(0, -2);
  let start = head.length;
  while (start > 0 && /[a-z]/.test(head.charAt(start - 1))) start--;
  const name = head.slice(start);
  if (!(TAIL_FUNCTIONS as readonly string[]).includes(name)) return { path, fn: undefined };
  const base = head.slice(0, start).replace(/\.$/, '');
  return { path: base === '' ? '$' : base, fn: name as TailFunction };
}

/** Jayway: a path with wildcards, deep scan, filters, unions, slices or scripts returns a list. */
export function isIndefinitePath(path: CompiledJsonPath): boolean {
  return path.segments.some((segment) => segment.kind !== 'name');
}

function numbersOf(values: readonly Json[]): number[] {
  return values.map((v, i) => (typeof v === 'number' ? v : toNum('JSONPATH', i + 1, v)));
}

function applyTail(fn: TailFunction, input: Json): Json {
  if (fn === 'length') {
    if (Array.isArray(input)) return input.length;
    if (isPlainObject(input)) return Object.keys(input).length;
    if (typeof input === 'string') return input.length;
    return fail('JSONPATH', `length() needs an array, object or string, got ${describeValue(input)}`);
  }
  if (fn === 'keys') {
    if (isPlainObject(input)) return Object.keys(input);
    return fail('JSONPATH', `keys() needs an object, got ${describeValue(input)}`);
  }
  const list = Array.isArray(input) ? input : fail('JSONPATH', `${fn}() needs an array, got ${describeValue(input)}`);
  if (fn === 'first') return list[0] ?? null;
  if (fn === 'last') return list[list.length - 1] ?? null;
  if (list.length === 0) return fail('JSONPATH', `${fn}() of an empty list`);
  const nums = numbersOf(list);
  const sum = nums.reduce((a, b) => a + b, 0);
  const avg = sum / nums.length;
  switch (fn) {
    case 'min':
      return Math.min(...nums);
    case 'max':
      return Math.max(...nums);
    case 'sum':
      return sum;
    case 'avg':
      return avg;
    case 'stddev':
      return Math.sqrt(nums.reduce((a, b) => a + (b - avg) ** 2, 0) / nums.length);
  }
}

/**
 * Evaluates a JSONPath (Jayway dialect, safe evaluation). A definite path gives its value (null
 * when missing); an indefinite one gives an array of matches.
 * @example JSONPATH({ a: [1, 5, 3] }, "$.a.max()") // 5
 */
export function JSONPATH(value: Json, expression: Json): Json {
  if (isAbsent(value)) return null;
  const root: Json = typeof value === 'string' ? parseJsonOrFail(value) : value;
  const { path, fn } = splitTailFunction(toStr('JSONPATH', 2, expression));
  let compiled: CompiledJsonPath;
  try {
    compiled = compiledPath(path);
  } catch (err) {
    return fail('JSONPATH', `invalid JSONPath ${JSON.stringify(expression)}: ${(err as Error).message}`);
  }
  let matches: Json[];
  try {
    matches = jsonPathQuery(compiled, root, { objectFilter: 'members' });
  } catch (err) {
    if (err instanceof PipeError) throw err;
    return fail('JSONPATH', `JSONPath ${JSON.stringify(expression)} failed: ${(err as Error).message}`);
  }
  const indefinite = isIndefinitePath(compiled);
  const result: Json = indefinite ? matches : (matches[0] ?? null);
  return fn === undefined ? result : applyTail(fn, result);
}

const PATH_CACHE_LIMIT = 256;
/** Parsed paths by text (a constant path parses once; one from the data costs one parse); oldest dropped first. */
const pathCache = new Map<string, CompiledJsonPath>();

function compiledPath(path: string): CompiledJsonPath {
  let compiled = pathCache.get(path);
  if (!compiled) {
    compiled = compileJsonPath(path);
    if (pathCache.size >= PATH_CACHE_LIMIT) pathCache.delete(pathCache.keys().next().value as string);
    pathCache.set(path, compiled);
  }
  return compiled;
}

function parseJsonOrFail(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return fail('JSONPATH', 'the value is a string that is not JSON text');
  }
}

/**
 * Parses JSON text; text that is not JSON stays a string; other values pass through.
 * @example TOJSON("{\"a\":1}") // { a: 1 }
 */
export function TOJSON(value: Json): Json {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as Json;
  } catch {
    return value;
  }
}

/** Removes one level of JSON string escaping (result is text). @example UNESCAPEJSON("{\\\"a\\\":1}") // "{\"a\":1}" */
export function UNESCAPEJSON(value: Json): Json {
  return isAbsent(value) ? null : unescapeJson(toStr('UNESCAPEJSON', 1, value));
}

/** 0-based element; out of range gives null. @example GETELEMENTAT(["a","b"], 1) // "b" */
export function GETELEMENTAT(array: Json, index: Json): Json {
  if (isAbsent(array)) return null;
  const list = toArr('GETELEMENTAT', 1, array);
  const i = toInt('GETELEMENTAT', 2, index);
  return i >= 0 && i < list.length ? (list[i] as Json) : null;
}

/** @example FIRSTELEMENT([1, 2]) // 1 (extra) */
export function FIRSTELEMENT(array: Json): Json {
  if (isAbsent(array)) return null;
  return toArr('FIRSTELEMENT', 1, array)[0] ?? null;
}

/** @example LASTELEMENT([1, 2]) // 2; LASTELEMENT([]) // null */
export function LASTELEMENT(array: Json): Json {
  if (isAbsent(array)) return null;
  const list = toArr('LASTELEMENT', 1, array);
  return list[list.length - 1] ?? null;
}

/** Without the element at index; a nonexistent index returns the array unchanged. @example REMOVEAT([1,2,3], 1) // [1,3] */
export function REMOVEAT(array: Json, index: Json): Json {
  if (isAbsent(array)) return null;
  const list = toArr('REMOVEAT', 1, array);
  const i = toInt('REMOVEAT', 2, index);
  return i >= 0 && i < list.length ? [...list.slice(0, i), ...list.slice(i + 1)] : list;
}

/** Appends (a missing element appends null; a null array starts a new one). @example PUSH([1], 2) // [1, 2] */
export function PUSH(array: Json, element?: Json): Json {
  const list = isAbsent(array) ? [] : toArr('PUSH', 1, array);
  return [...list, element ?? null];
}

/** `{ array: rest, element: last }`; an empty array is returned as it is (Digibee). @example POP([1, 2]) // { array: [1], element: 2 } */
export function POP(array: Json): Json {
  if (isAbsent(array)) return null;
  const list = toArr('POP', 1, array);
  if (list.length === 0) return [];
  return obj(['array', list.slice(0, -1)], ['element', list[list.length - 1] as Json]);
}

/** @example NEWEMPTYOBJECT() // {} */
export function NEWEMPTYOBJECT(): JsonObject {
  return newObject();
}

/** @example NEWEMPTYARRAY() // [] */
export function NEWEMPTYARRAY(): Json[] {
  return [];
}

/** n:1 — an array gives its first element (`[]` → null); anything else is unchanged. @example CARDINALITYONE([1, 2]) // 1 */
export function CARDINALITYONE(data: Json): Json {
  return Array.isArray(data) ? (data[0] ?? null) : data;
}

/** 1:n — an array is unchanged; anything else (not null) is wrapped. @example CARDINALITYMANY({}) // [{}] */
export function CARDINALITYMANY(data: Json): Json {
  if (isAbsent(data)) return null;
  return Array.isArray(data) ? data : [data];
}

/**
 * Our definition (Digibee documents only the name): `[{ key, value }, …]` or `[[key, value], …]`
 * → object; later keys win.
 * @example ARRAYTOOBJECT([{ key: "a", value: 1 }]) // { a: 1 }
 */
export function ARRAYTOOBJECT(array: Json): Json {
  if (isAbsent(array)) return null;
  const out = newObject();
  toArr('ARRAYTOOBJECT', 1, array).forEach((entry, i) => {
    if (Array.isArray(entry) && entry.length === 2 && typeof entry[0] === 'string')
      setOwn(out, entry[0], entry[1] as Json);
    else if (
      isPlainObject(entry) &&
      typeof entry['key'] === 'string' &&
      Object.prototype.hasOwnProperty.call(entry, 'value')
    )
      setOwn(out, entry['key'], entry['value'] as Json);
    else
      fail(
        'ARRAYTOOBJECT',
        `element ${i} must be { "key": string, "value": … } or [key, value], got ${describeValue(entry)}`,
      );
  });
  return out;
}

/** Our definition: object → `[{ key, value }, …]` in key order. @example OBJECTTOARRAY({ a: 1 }) // [{ key: "a", value: 1 }] */
export function OBJECTTOARRAY(object: Json): Json {
  if (isAbsent(object)) return null;
  if (!isPlainObject(object))
    return fail('OBJECTTOARRAY', `argument 1 must be an object, got ${describeValue(object)}`);
  return Object.keys(object).map((key) => obj(['key', key], ['value', object[key] as Json]));
}
