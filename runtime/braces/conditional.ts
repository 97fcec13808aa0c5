/**
 * Double Braces CONDITIONAL functions (reference §1.4.3). EQUALTO is deep equality; the ordering
 * functions treat null as the smallest value and compare numbers (numeric text is read as a
 * number) or else strings. IF and SWITCHCASE are emitted inline as lazy conditionals (see
 * docs/double-braces.md); the functions here are their eager equivalents, used when a value is
 * passed around (and by tests).
 */
import type { Json } from '../types.js';
import { deepEqual, describeValue, fail, isPlainObject } from './values.js';

/** @example EQUALTO({ a: [1] }, { a: [1] }) // true */
export function EQUALTO(a: Json, b: Json): boolean {
  return deepEqual(a, b);
}

const NUMERIC = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

function orderKey(fn: string, value: Json): number | string | null {
  if (value === null || typeof value === 'number') return value;
  if (typeof value === 'string') return NUMERIC.test(value) ? Number(value) : value;
  return fail(fn, `cannot compare ${describeValue(value)}`);
}

/** Null smallest; then numbers; strings compare with strings. Returns <0, 0, >0. */
function order(fn: string, a: Json, b: Json): number {
  const x = orderKey(fn, a);
  const y = orderKey(fn, b);
  if (x === null || y === null) return (x === null ? 0 : 1) - (y === null ? 0 : 1);
  if (typeof x !== typeof y) return fail(fn, `cannot compare ${describeValue(a)} with ${describeValue(b)}`);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** @example GREATERTHAN(2, null) // true; GREATERTHAN(null, null) // false */
export function GREATERTHAN(a: Json, b: Json): boolean {
  return order('GREATERTHAN', a, b) > 0;
}
/** @example GREATERTHANEQUAL(null, null) // true */
export function GREATERTHANEQUAL(a: Json, b: Json): boolean {
  return order('GREATERTHANEQUAL', a, b) >= 0;
}
/** @example LESSTHAN(1, 2) // true */
export function LESSTHAN(a: Json, b: Json): boolean {
  return order('LESSTHAN', a, b) < 0;
}
/** @example LESSTHANEQUAL(null, null) // true */
export function LESSTHANEQUAL(a: Json, b: Json): boolean {
  return order('LESSTHANEQUAL', a, b) <= 0;
}

/** Eager IF (generated code uses a lazy `?:` instead). @example IF(true, 1, 2) // 1 */
export function IF(condition: Json, whenTrue: Json, whenFalse: Json): Json {
  return condition === true ? whenTrue : whenFalse;
}

/** @example ISOBJECT({}) // true */
export function ISOBJECT(value: Json): boolean {
  return isPlainObject(value);
}
/** @example ISARRAY([]) // true */
export function ISARRAY(value: Json): boolean {
  return Array.isArray(value);
}
/** @example ISBOOLEAN(false) // true */
export function ISBOOLEAN(value: Json): boolean {
  return typeof value === 'boolean';
}
/** @example ISSTRING("a") // true */
export function ISSTRING(value: Json): boolean {
  return typeof value === 'string';
}
/** @example ISNUMBER(1.5) // true */
export function ISNUMBER(value: Json): boolean {
  return typeof value === 'number';
}
/** A missing path reads as null, so ISNULL is also "is missing". @example ISNULL(null) // true */
export function ISNULL(value: Json | undefined): boolean {
  return value === null || value === undefined;
}

/**
 * Eager SWITCHCASE(default, cond1, result1, …): the result of the first true condition.
 * @example SWITCHCASE("failed", false, "a", true, "b") // "b"
 */
export function SWITCHCASE(defaultValue: Json, ...pairs: readonly Json[]): Json {
  for (let i = 0; i + 1 < pairs.length; i += 2) if (pairs[i] === true) return pairs[i + 1] as Json;
  return defaultValue;
}
