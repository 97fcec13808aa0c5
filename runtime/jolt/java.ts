/**
 * Java-flavoured value helpers for the JOLT runtime: the reference implementation is Java, so number
 * parsing (Integer.parseInt / Double.parseDouble), `toString()` of scalars, maps and lists, and
 * String.compareTo ordering are reproduced here. Pure functions; recursive ones carry a depth guard.
 */
import { PipeError } from '../errors.js';

/** Deepest nesting any recursive runtime helper walks before failing with a PipeError. */
export const MAX_DEPTH = 1000;

export function tooDeep(what: string): PipeError {
  return new PipeError(`JOLT ${what}: value nested deeper than ${MAX_DEPTH} levels`, {
    code: 400,
    kind: 'JOLT_TOO_DEEP',
  });
}

export type JsonMap = Record<string, unknown>;

export function isMap(v: unknown): v is JsonMap {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const INT_RE = /^[+-]?\d+$/;

/** Java Integer.parseInt: the number, or undefined when the text is not a 32-bit integer. */
export function parseJavaInt(text: string): number | undefined {
  const length = text.length;
  if (length === 0 || length > 11) return undefined;
  let i = 0;
  let negative = false;
  const first = text.charCodeAt(0);
  if (first === 45 || first === 43) {
    negative = first === 45;
    i = 1;
    if (length === 1) return undefined;
  }
  let n = 0;
  for (; i < length; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    n = n * 10 + d;
  }
  if (negative) n = -n;
  return n >= -2147483648 && n <= 2147483647 ? n : undefined;
}

/** Java Long.parseLong (precision beyond 2^53 is lost, as everywhere in JS). */
export function parseJavaLong(text: string): number | undefined {
  if (!INT_RE.test(text)) return undefined;
  const n = Number(text);
  return Math.abs(n) <= 9223372036854775807 ? n : undefined;
}

const DOUBLE_RE = /^[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?))[fFdD]?$/;

/** Java Double.parseDouble (leading/trailing whitespace allowed, optional f/d suffix). */
export function parseJavaDouble(text: string): number | undefined {
  const t = text.trim();
  if (!DOUBLE_RE.test(t)) return undefined;
  return Number(t.replace(/[fFdD]$/, ''));
}

/** The Java numeric type a JS number stands for (JS cannot tell 2 from 2.0; integral means int/long). */
export type NumKind = 'int' | 'long' | 'double';

export function kindOf(n: number): NumKind {
  if (!Number.isInteger(n)) return 'double';
  return n >= -2147483648 && n <= 2147483647 ? 'int' : 'long';
}

/** A parsed number and the Java type it would have had. */
export interface TypedNumber {
  readonly value: number;
  readonly kind: NumKind;
}

/** Objects.toNumber of the JOLT function library: numbers as-is, strings parsed int → long → double. */
export function toNumber(arg: unknown): TypedNumber | undefined {
  if (typeof arg === 'number') return { value: arg, kind: kindOf(arg) };
  if (typeof arg !== 'string') return undefined;
  const i = parseJavaInt(arg);
  if (i !== undefined) return { value: i, kind: 'int' };
  const l = parseJavaLong(arg);
  if (l !== undefined) return { value: l, kind: 'long' };
  const d = parseJavaDouble(arg);
  if (d !== undefined) return { value: d, kind: 'double' };
  return undefined;
}

/** The value of Objects.toNumber without its type (no allocation): numbers as-is, strings parsed. */
export function numberValue(arg: unknown): number | undefined {
  if (typeof arg === 'number') return arg;
  if (typeof arg !== 'string') return undefined;
  return parseJavaInt(arg) ?? parseJavaLong(arg) ?? parseJavaDouble(arg);
}

/** Java (int) of a double: truncation toward zero, saturating. */
export function javaIntValue(n: number): number {
  if (Number.isNaN(n)) return 0;
  const t = Math.trunc(n);
  return Math.max(-2147483648, Math.min(2147483647, t));
}

export function javaLongValue(n: number): number {
  if (Number.isNaN(n)) return 0;
  const t = Math.trunc(n);
  return Math.max(-9223372036854775808, Math.min(9223372036854775807, t));
}

/** Java Double.toString for a non-integral double. */
function javaDoubleString(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
  const abs = Math.abs(n);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(n);
    return s.includes('.') || s.includes('e') ? s : `${s}.0`;
  }
  const [mantissa = '0', exponent = '0'] = n.toExponential().split('e');
  const m = mantissa.includes('.') ? mantissa : `${mantissa}.0`;
  return `${m}E${exponent.replace('+', '')}`;
}

/** `toString()` of a JSON scalar as Java prints it (integral numbers print as ints). */
export function scalarString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') {
    if (Number.isInteger(v) && Math.abs(v) < 1e21) return String(v);
    return javaDoubleString(v);
  }
  return String(v);
}

/** Java Objects.toString of any JSON value: maps print `{a=1, b=2}`, lists `[1, 2]`. */
export function javaToString(v: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) throw tooDeep('toString');
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map((e) => javaToString(e, depth + 1)).join(', ')}]`;
  if (isMap(v)) {
    return `{${Object.keys(v)
      .map((k) => `${k}=${javaToString(v[k], depth + 1)}`)
      .join(', ')}}`;
  }
  return scalarString(v);
}

/** Java String.compareTo: UTF-16 code-unit order. */
export function compareUtf16(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a.charCodeAt(i) - b.charCodeAt(i);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** Deep JSON equality (Java equals on Jackson maps/lists). */
export function jsonEquals(a: unknown, b: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH) throw tooDeep('comparison');
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((e, i) => jsonEquals(e, b[i], depth + 1));
  }
  if (isMap(a)) {
    if (!isMap(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEquals(a[k], b[k], depth + 1));
  }
  return false;
}

/**
 * Rounds `value` to `digits` decimals HALF_UP on its exact binary value, like
 * `new BigDecimal(double).setScale(digits, HALF_UP)`.
 */
export function roundHalfUpExact(value: number, digits: number): number {
  if (!Number.isFinite(value) || digits < 0 || digits > 300) return value;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const negative = bits >> 63n === 1n;
  const exponentBits = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & 0xfffffffffffffn;
  let exponent: number;
  if (exponentBits === 0) exponent = -1074;
  else {
    mantissa |= 1n << 52n;
    exponent = exponentBits - 1075;
  }
  // exact value = mantissa * 2^exponent; scaled = value * 10^digits
  let numerator = mantissa * 10n ** BigInt(digits);
  let denominator = 1n;
  if (exponent >= 0) numerator <<= BigInt(exponent);
  else denominator <<= BigInt(-exponent);
  let quotient = numerator / denominator;
  const remainder = numerator - quotient * denominator;
  if (remainder * 2n >= denominator) quotient += 1n;
  const rounded = Number(`${quotient}e-${digits}`);
  return negative ? -rounded : rounded;
}
