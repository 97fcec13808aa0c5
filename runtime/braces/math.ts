/**
 * Double Braces MATH functions (reference §1.4.7). Results are binary floating-point numbers
 * (JSON has no int/double distinction: Digibee's `10.0` is our `10`). A null argument gives null;
 * numeric text is converted; division and modulo by zero are errors naming the function.
 * SUM, AVG, MIN, MAX and COUNT also take ONE array and fold its elements (beyond Digibee), with the
 * same null rule: a null element makes the result null.
 */
import type { Json } from '../types.js';
import { onlyArray } from './arrays.js';
import { elementNumber, fail, toNum } from './values.js';

/** The numbers to fold: the elements of a single array argument, else the arguments. */
function foldable(fn: string, values: readonly Json[]): number[] | null {
  const elements = onlyArray(fn, values);
  if (elements === undefined) return nums(fn, values);
  // A null anywhere gives null before any element is checked (plain loops: SUM(MAP(…)) is common).
  for (const v of elements) if (v === null || v === undefined) return null;
  const out: number[] = [];
  for (let i = 0; i < elements.length; i++) {
    const v = elements[i] as Json;
    out.push(elementNumber(fn, i, v));
  }
  return out;
}

function total(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum;
}

function largest(values: readonly number[]): number {
  let out = -Infinity;
  for (const v of values) if (v > out || Number.isNaN(v)) out = v;
  return out;
}

function smallest(values: readonly number[]): number {
  let out = Infinity;
  for (const v of values) if (v < out || Number.isNaN(v)) out = v;
  return out;
}

function nums(fn: string, values: readonly Json[]): number[] | null {
  if (values.some((v) => v === null || v === undefined)) return null;
  return values.map((v, i) => toNum(fn, i + 1, v));
}

function finite(fn: string, n: number): number {
  if (Number.isNaN(n)) fail(fn, 'the result is not a number');
  return n;
}

/** @example ABS(-34) // 34 */
export function ABS(n: Json): Json {
  const a = nums('ABS', [n]);
  return a ? Math.abs(a[0] as number) : null;
}
/** @example CEIL(12.885) // 13 */
export function CEIL(n: Json): Json {
  const a = nums('CEIL', [n]);
  return a ? Math.ceil(a[0] as number) : null;
}
/** @example FLOOR(12.885) // 12 (extra: not in the Digibee list) */
export function FLOOR(n: Json): Json {
  const a = nums('FLOOR', [n]);
  return a ? Math.floor(a[0] as number) : null;
}
/** @example DIVIDE(10, 2) // 5 */
export function DIVIDE(numerator: Json, denominator: Json): Json {
  const a = nums('DIVIDE', [numerator, denominator]);
  if (!a) return null;
  if (a[1] === 0) fail('DIVIDE', 'division by zero');
  return (a[0] as number) / (a[1] as number);
}
/** @example LOG(8, 2) // 3 */
export function LOG(value: Json, base: Json): Json {
  const a = nums('LOG', [value, base]);
  if (!a) return null;
  const [v, b] = a as [number, number];
  if (v <= 0 || b <= 0 || b === 1) fail('LOG', `undefined for value ${v} and base ${b}`);
  const r = Math.log(v) / Math.log(b);
  // Powers of the base come out as 2.9999999999999996; snap results within rounding error.
  const rounded = Math.round(r);
  return Math.abs(r - rounded) < 1e-12 && b ** rounded === v ? rounded : r;
}
/** @example MAX(8, 2) // 8; MAX([8, 2]) // 8; MAX([]) // null */
export function MAX(...values: readonly Json[]): Json {
  const a = foldable('MAX', values);
  return a && a.length > 0 ? largest(a) : null;
}
/** @example MIN(8, 2) // 2; MIN([8, 2]) // 2; MIN([]) // null */
export function MIN(...values: readonly Json[]): Json {
  const a = foldable('MIN', values);
  return a && a.length > 0 ? smallest(a) : null;
}
/** @example MOD(8, 3) // 2 */
export function MOD(numerator: Json, denominator: Json): Json {
  const a = nums('MOD', [numerator, denominator]);
  if (!a) return null;
  if (a[1] === 0) fail('MOD', 'modulo by zero');
  return (a[0] as number) % (a[1] as number);
}
/** @example MULTIPLY(8, 2) // 16 */
export function MULTIPLY(...values: readonly Json[]): Json {
  const a = nums('MULTIPLY', values);
  return a ? a.reduce((x, y) => x * y, 1) : null;
}
/** @example POW(2, 2) // 4 */
export function POW(base: Json, exponent: Json): Json {
  const a = nums('POW', [base, exponent]);
  return a ? finite('POW', (a[0] as number) ** (a[1] as number)) : null;
}
/** Nearest integer, ties toward +∞ (Java Math.round, same as JavaScript's). @example ROUND(2.5) // 3; ROUND(-2.5) // -2 */
export function ROUND(n: Json): Json {
  const a = nums('ROUND', [n]);
  return a ? Math.round(a[0] as number) : null;
}
/** @example SQRT(4) // 2 */
export function SQRT(n: Json): Json {
  const a = nums('SQRT', [n]);
  if (!a) return null;
  if ((a[0] as number) < 0) fail('SQRT', 'square root of a negative number');
  return Math.sqrt(a[0] as number);
}
/** @example SUBTRACT(10, 2) // 8 */
export function SUBTRACT(a: Json, b: Json): Json {
  const v = nums('SUBTRACT', [a, b]);
  return v ? (v[0] as number) - (v[1] as number) : null;
}
/** @example SUM(8, 2) // 10; SUM([8, 2]) // 10; SUM([]) // 0 */
export function SUM(...values: readonly Json[]): Json {
  const a = foldable('SUM', values);
  return a ? total(a) : null;
}
/** @example AVG(8, 2) // 5; AVG([8, 2]) // 5; AVG([]) // null (extra) */
export function AVG(...values: readonly Json[]): Json {
  const a = foldable('AVG', values);
  return a && a.length > 0 ? total(a) / a.length : null;
}
/** Number of arguments, or of elements of one array (nulls included). @example COUNT([1, null]) // 2; COUNT(null) // null (extra) */
export function COUNT(...values: readonly Json[]): Json {
  if (values.length === 1 && (values[0] === null || values[0] === undefined)) return null;
  return (onlyArray('COUNT', values) ?? values).length;
}
