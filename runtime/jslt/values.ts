/**
 * The JSLT value model used by compiled JSLT programs.
 *
 * Values are plain JSON (null, boolean, number, string, array, object) plus one box:
 * `JsltDecimal`, a floating-point number whose value happens to be integral (`1.0`, `4.0`).
 * JSLT (like Jackson) keeps integers and decimals apart, so `string(1.0)` is "1.0" and
 * `is-decimal(1.0)` is true; a JS number cannot carry that difference, so only those values are
 * boxed. A non-integral JS number is always a decimal. `toPlainJson` removes the boxes at the edge.
 *
 * Objects are ordinary objects, but keys are always data: reads check own properties and
 * `__proto__` is written with defineProperty, so input keys never reach a prototype.
 */
import { PipeError } from '../errors.js';

export class JsltDecimal {
  constructor(readonly value: number) {}
}

export type JsltObject = { [key: string]: JsltValue };
export type JsltValue = null | boolean | number | string | JsltDecimal | JsltValue[] | JsltObject;

/** A runtime failure of a JSLT program (wording follows the reference implementation). */
export function jsltError(message: string): PipeError {
  return new PipeError(message, { code: 500, kind: 'JSLT_ERROR' });
}

// ───────────────────────────── type tests ─────────────────────────────

export function isNumber(value: unknown): value is number | JsltDecimal {
  return typeof value === 'number' || value instanceof JsltDecimal;
}

export function isIntegral(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

export function isDecimalNumber(value: unknown): boolean {
  return value instanceof JsltDecimal || (typeof value === 'number' && !Number.isInteger(value));
}

export function isArray(value: unknown): value is JsltValue[] {
  return Array.isArray(value);
}

export function isObject(value: unknown): value is JsltObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof JsltDecimal);
}

export function numberValue(value: number | JsltDecimal): number {
  return typeof value === 'number' ? value : value.value;
}

/** A floating-point result: boxed when integral so it still prints as `4.0`. */
export function makeDouble(value: number): JsltValue {
  return Number.isInteger(value) ? new JsltDecimal(value) : value;
}

/** Normalises a JS value that may be `undefined` (a missing array slot) to JSLT null. */
export function orNull(value: JsltValue | undefined): JsltValue {
  return value === undefined ? null : value;
}

// ───────────────────────────── objects ─────────────────────────────

export function newObject(): JsltObject {
  return {};
}

export function hasKey(object: JsltObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

export function getKey(object: JsltObject, key: string): JsltValue {
  return hasKey(object, key) ? orNull(object[key]) : null;
}

/** Sets a key as data, including `__proto__` (which would otherwise replace the prototype). */
export function setKey(object: JsltObject, key: string, value: JsltValue): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

export function objectKeys(object: JsltObject): string[] {
  return Object.keys(object);
}

/** `{"a": 1}` → `[{"key": "a", "value": 1}]`: how `for` and `array()` see objects. */
export function objectToEntries(object: JsltObject): JsltValue[] {
  return objectKeys(object).map((key) => {
    const entry = newObject();
    setKey(entry, 'key', key);
    setKey(entry, 'value', getKey(object, key));
    return entry;
  });
}

// ───────────────────────────── truth and value-ness ─────────────────────────────

/** JSLT truthiness: false, null, 0, "", [] and {} are false. */
export function isTrue(value: JsltValue): boolean {
  if (value === null || value === false) return false;
  if (typeof value === 'string') return value.length > 0;
  if (isNumber(value)) return numberValue(value) !== 0;
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return objectKeys(value).length > 0;
  return true;
}

/** Whether object construction keeps a key with this value (null, [] and {} are dropped). */
export function isValue(value: JsltValue): boolean {
  if (value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return objectKeys(value).length > 0;
  return true;
}

// ───────────────────────────── equality and order ─────────────────────────────

export function jsltEquals(a: JsltValue, b: JsltValue): boolean {
  if (isNumber(a) && isNumber(b)) return numberValue(a) === numberValue(b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) {
      if (!jsltEquals(orNull(a[index]), orNull(b[index]))) return false;
    }
    return true;
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = objectKeys(a);
    if (keys.length !== objectKeys(b).length) return false;
    return keys.every((key) => hasKey(b, key) && jsltEquals(getKey(a, key), getKey(b, key)));
  }
  return a === b;
}

/** Ordering for < > <= >= min max: numbers, strings, and null as the smallest value. */
export function compareValues(a: JsltValue, b: JsltValue): number {
  if (isNumber(a) && isNumber(b)) return numberValue(a) - numberValue(b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (a === null || b === null) {
    if (a === null && b === null) return 0;
    return a === null ? -1 : 1;
  }
  throw jsltError(`Can't compare ${toJsonText(a)} and ${toJsonText(b)}`);
}

// ───────────────────────────── text forms ─────────────────────────────

/** Java's Double.toString: `1.0`, `123.2`, `1.5147648E9`, `1.0E-4`. */
export function javaDoubleToString(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  const magnitude = Math.abs(value);
  const [mantissa = '0', exponentText = '0'] = magnitude.toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    if (exponent >= 0) {
      const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
      const fraction = digits.slice(exponent + 1) || '0';
      return `${sign}${whole}.${fraction}`;
    }
    return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  }
  const fraction = digits.slice(1) || '0';
  return `${sign}${digits[0]}.${fraction}E${exponent}`;
}

export function numberToText(value: number | JsltDecimal): string {
  if (value instanceof JsltDecimal) return javaDoubleToString(value.value);
  if (!Number.isInteger(value)) return javaDoubleToString(value);
  return Math.abs(value) < 1e21 ? String(value) : BigInt(value).toString();
}

/** JSON string literal as Jackson writes it (control characters escaped, the rest verbatim). */
export function quoteString(text: string): string {
  let out = '"';
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const char = text[index] as string;
    if (char === '"') out += '\\"';
    else if (char === '\\') out += '\\\\';
    else if (code < 0x20) {
      const short = SHORT_ESCAPES[code];
      out += short ?? `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    } else out += char;
  }
  return out + '"';
}

const SHORT_ESCAPES: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r' };

/** Compact JSON text (Jackson's `toString`); `sortKeys` gives the form `hash-int` hashes. */
export function toJsonText(value: JsltValue, sortKeys = false): string {
  if (value === null) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'string') return quoteString(value);
  if (isNumber(value)) return numberToText(value);
  if (Array.isArray(value)) return `[${value.map((item) => toJsonText(orNull(item), sortKeys)).join(',')}]`;
  const keys = objectKeys(value);
  if (sortKeys) keys.sort();
  return `{${keys.map((key) => `${quoteString(key)}:${toJsonText(getKey(value, key), sortKeys)}`).join(',')}}`;
}

/** `string()` and string concatenation: strings as they are, everything else as JSON text. */
export function toText(value: JsltValue): string {
  return typeof value === 'string' ? value : toJsonText(value);
}

/** Removes decimal boxes so the result is plain JSON; returns the same object when nothing changed. */
export function toPlainJson(value: JsltValue): unknown {
  if (value instanceof JsltDecimal) return value.value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item = orNull(value[index]);
      const plain = toPlainJson(item);
      if (plain !== item && copy === undefined) copy = value.slice(0, index);
      if (copy !== undefined) copy.push(plain);
    }
    return copy ?? value;
  }
  if (isObject(value)) {
    let copy: JsltObject | undefined;
    const keys = objectKeys(value);
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as string;
      const item = getKey(value, key);
      const plain = toPlainJson(item);
      if (plain !== item && copy === undefined) {
        copy = newObject();
        for (const earlier of keys.slice(0, index)) setKey(copy, earlier, getKey(value, earlier));
      }
      if (copy !== undefined) setKey(copy, key, plain as JsltValue);
    }
    return copy ?? value;
  }
  return value;
}

/** Accepts any JS value from the outside (undefined → null) as a JSLT value. */
export function fromExternal(value: unknown): JsltValue {
  return value === undefined ? null : (value as JsltValue);
}
