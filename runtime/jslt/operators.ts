/**
 * JSLT operators and navigation: arithmetic, comparison, `.key`, `[index]`, `[from:to]`,
 * `for` loops, object comprehensions and object matching. Compiled JSLT calls these; each takes
 * and returns JsltValues and throws a PipeError with the reference's wording on type errors.
 */
import { tick } from '../work-meter.js';
import {
  type JsltObject,
  type JsltValue,
  JsltDecimal,
  compareValues,
  getKey,
  hasKey,
  isArray,
  isIntegral,
  isNumber,
  isObject,
  isTrue,
  isValue,
  jsltEquals,
  jsltError,
  makeDouble,
  newObject,
  numberValue,
  objectKeys,
  objectToEntries,
  orNull,
  setKey,
  toJsonText,
  toText,
} from './values.js';

// ───────────────────────────── numbers from text ─────────────────────────────

/**
 * Parses JSLT's number syntax for `number()`: an optional `-`, digits (leading zeros allowed),
 * an optional fraction, an optional exponent; `.5` is allowed, `5.` is not. Returns undefined
 * when the text is not a number.
 */
export function parseNumberText(text: string): JsltValue | undefined {
  const match = /^-?([0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(text);
  if (!match) return undefined;
  const [, whole = '', fraction, exponent] = match;
  if (whole === '' && fraction === undefined) return undefined;
  const value = Number(text.startsWith('-.') ? `-0${text.slice(1)}` : text.startsWith('.') ? `0${text}` : text);
  if (fraction === undefined && exponent === undefined) return value;
  return makeDouble(value);
}

/** Operands of arithmetic: numbers pass, strings are parsed, anything else is an error. */
export function toNumberStrict(value: JsltValue): number | JsltDecimal {
  if (isNumber(value)) return value;
  if (typeof value === 'string') {
    const parsed = parseNumberText(value);
    if (parsed === undefined || !isNumber(parsed)) throw jsltError(`number(${value}) failed: not a number`);
    return parsed;
  }
  throw jsltError(`Can't convert ${toJsonText(value)} to number`);
}

function arithmetic(
  left: JsltValue,
  right: JsltValue,
  integerOp: (a: number, b: number) => number,
  doubleOp: (a: number, b: number) => number,
): JsltValue {
  if (left === null || right === null) return null;
  const a = toNumberStrict(left);
  const b = toNumberStrict(right);
  if (isIntegral(a) && isIntegral(b)) return integerOp(a, b);
  return makeDouble(doubleOp(numberValue(a), numberValue(b)));
}

// ───────────────────────────── + - * / % ─────────────────────────────

/** `+`: string concatenation, array concatenation, object union (left wins), else numbers. */
export function plus(left: JsltValue, right: JsltValue): JsltValue {
  if (typeof left === 'string' || typeof right === 'string') return toText(left) + toText(right);
  if (isArray(left) && isArray(right)) return [...left, ...right];
  if (isObject(left) && isObject(right)) {
    const union = newObject();
    for (const key of objectKeys(right)) setKey(union, key, getKey(right, key));
    for (const key of objectKeys(left)) setKey(union, key, getKey(left, key));
    return union;
  }
  if ((isObject(left) || isArray(left)) && right === null) return left;
  if (left === null && (isObject(right) || isArray(right))) return right;
  return arithmetic(
    left,
    right,
    (a, b) => a + b,
    (a, b) => a + b,
  );
}

export function minus(left: JsltValue, right: JsltValue): JsltValue {
  return arithmetic(
    left,
    right,
    (a, b) => a - b,
    (a, b) => a - b,
  );
}

export function times(left: JsltValue, right: JsltValue): JsltValue {
  return arithmetic(
    left,
    right,
    (a, b) => a * b,
    (a, b) => a * b,
  );
}

/**
 * Integer division stays an integer only when exact (`16 / 4` is 4, `5 / 2` is 2.5): an inexact
 * quotient of integers is a non-integral JS number, which is already a decimal.
 */
export function divide(left: JsltValue, right: JsltValue): JsltValue {
  return arithmetic(
    left,
    right,
    (a, b) => {
      if (b === 0) throw jsltError('Division by zero');
      return a / b;
    },
    (a, b) => a / b,
  );
}

/** `%` (an extension of this implementation): the same as `mod()`. */
export function modulo(left: JsltValue, right: JsltValue): JsltValue {
  return mod(left, right);
}

/** `mod(a, d)`: Euclidean remainder of integers, always in 0..abs(d). */
export function mod(dividend: JsltValue, divisor: JsltValue): JsltValue {
  if (dividend === null) return null;
  if (!isNumber(dividend)) throw jsltError(`mod(): dividend cannot be a non-number: ${toJsonText(dividend)}`);
  if (divisor === null) return null;
  if (!isNumber(divisor)) throw jsltError(`mod(): divisor cannot be a non-number: ${toJsonText(divisor)}`);
  if (!isIntegral(dividend) || !isIntegral(divisor)) throw jsltError('mod(): operands must be integral types');
  if (divisor === 0) throw jsltError('mod(): cannot divide by zero');
  const remainder = dividend % divisor;
  return remainder < 0 ? remainder + Math.abs(divisor) : remainder + 0;
}

// ───────────────────────────── comparisons ─────────────────────────────

export function equals(left: JsltValue, right: JsltValue): boolean {
  return jsltEquals(left, right);
}

export function notEquals(left: JsltValue, right: JsltValue): boolean {
  return !jsltEquals(left, right);
}

export function less(left: JsltValue, right: JsltValue): boolean {
  return compareValues(left, right) < 0;
}

export function lessOrEqual(left: JsltValue, right: JsltValue): boolean {
  return compareValues(left, right) <= 0;
}

export function greater(left: JsltValue, right: JsltValue): boolean {
  return compareValues(left, right) > 0;
}

export function greaterOrEqual(left: JsltValue, right: JsltValue): boolean {
  return compareValues(left, right) >= 0;
}

export function truthy(value: JsltValue): boolean {
  return isTrue(value);
}

// ───────────────────────────── navigation ─────────────────────────────

/** `.key`: the value under `key`, or null when there is none or the value is not an object. */
export function get(value: JsltValue, key: string): JsltValue {
  return isObject(value) ? getKey(value, key) : null;
}

/** Follows a chain of keys (the context of an object matcher). */
export function path(value: JsltValue, keys: readonly string[]): JsltValue {
  let current = value;
  for (const key of keys) current = get(current, key);
  return current;
}

function resolveIndex(index: JsltValue, size: number): number {
  if (!isNumber(index)) throw jsltError(`Can't index array/string with ${toJsonText(index)}`);
  const whole = Math.trunc(numberValue(index));
  return whole < 0 ? size + whole : whole;
}

/** `[i]` on arrays and strings (negative counts from the end); null for anything else. */
export function index(sequence: JsltValue, position: JsltValue): JsltValue {
  if (isArray(sequence)) {
    const at = resolveIndex(position, sequence.length);
    return at >= 0 && at < sequence.length ? orNull(sequence[at]) : null;
  }
  if (typeof sequence === 'string') {
    const at = resolveIndex(position, sequence.length);
    if (at < 0 || at >= sequence.length) throw jsltError(`String index out of range: ${at}`);
    return sequence.charAt(at);
  }
  return null;
}

/** `[from : to]` on arrays and strings; a missing bound is the start or the end. */
export function slice(sequence: JsltValue, from: JsltValue | undefined, to: JsltValue | undefined): JsltValue {
  if (!isArray(sequence) && typeof sequence !== 'string') return null;
  const size = sequence.length;
  const start = Math.max(0, from === undefined ? 0 : resolveIndex(from, size));
  const end = Math.min(size, to === undefined ? size : resolveIndex(to, size));
  if (end <= start) return isArray(sequence) ? [] : '';
  return sequence.slice(start, end);
}

// ───────────────────────────── loops and object building ─────────────────────────────

/** Marks a `for` element whose `if` filter was false. */
export const SKIP: unique symbol = Symbol('jslt.skip');

function loopItems(sequence: JsltValue, describe: string): JsltValue[] | null {
  if (sequence === null) return null;
  if (isObject(sequence)) return objectToEntries(sequence);
  if (isArray(sequence)) return sequence;
  throw jsltError(`${describe} ${toJsonText(sequence)}`);
}

/** `[for (seq) body if (cond)]`: `body` returns SKIP for filtered-out elements. */
export function forArray(sequence: JsltValue, body: (item: JsltValue) => JsltValue | typeof SKIP): JsltValue {
  const items = loopItems(sequence, "For loop can't iterate over");
  if (items === null) return null;
  const result: JsltValue[] = [];
  for (const item of items) {
    tick();
    const value = body(orNull(item));
    if (value !== SKIP) result.push(value);
  }
  return result;
}

/** `{for (seq) key : value if (cond)}`: `body` fills the object through `putComprehended`. */
export function forObject(sequence: JsltValue, body: (item: JsltValue, target: JsltObject) => void): JsltValue {
  const items = loopItems(sequence, "Object comprehension can't loop over");
  if (items === null) return null;
  const target = newObject();
  for (const item of items) {
    tick();
    body(orNull(item), target);
  }
  return target;
}

export function putComprehended(target: JsltObject, key: JsltValue, value: JsltValue): void {
  if (typeof key !== 'string') throw jsltError(`Object comprehension must have string as key, not ${toJsonText(key)}`);
  setKey(target, key, value);
}

/** Object literal with static keys: keys whose value is null, [] or {} are left out. */
export function object(pairs: ReadonlyArray<readonly [string, JsltValue]>): JsltObject {
  const target = newObject();
  for (const [key, value] of pairs) if (isValue(value)) setKey(target, key, value);
  return target;
}

export function put(target: JsltObject, key: string, value: JsltValue): void {
  if (isValue(value)) setKey(target, key, value);
}

/** A pair whose key is computed: it must be a string, and must not repeat. */
export function putDynamic(target: JsltObject, key: JsltValue, value: JsltValue): void {
  if (typeof key !== 'string') throw jsltError('Object key must be string');
  if (hasKey(target, key)) throw jsltError(`Duplicate key '${key}' in object`);
  setKey(target, key, value);
}

/** `* - a, b : expr`: copies the context object's other keys, each value mapped by `expr`. */
export function match(
  target: JsltObject,
  context: JsltValue,
  skippedKeys: readonly string[],
  valueOf: (value: JsltValue) => JsltValue,
): JsltObject {
  if (!isObject(context)) return target;
  for (const key of objectKeys(context)) {
    if (skippedKeys.includes(key)) continue;
    tick();
    setKey(target, key, valueOf(getKey(context, key)));
  }
  return target;
}

/** `fallback(a, b, …)`: the first argument that is not null, [] or {} (later ones unevaluated). */
export function firstValue(...candidates: ReadonlyArray<() => JsltValue>): JsltValue {
  for (const candidate of candidates) {
    const value = candidate();
    if (isValue(value)) return value;
  }
  return null;
}
