/**
 * Double Braces NUMERICAL functions (reference §1.4.2): FORMATNUMBER, TONUMBER (Java
 * DecimalFormat-style patterns with locales, number-format.ts), TODOUBLE, TOINT, TOLONG and
 * RANDOMNUMBERS (inclusive bounds). Compiled patterns are memoised by their text.
 */
import { randomInt } from 'node:crypto';
import type { Json } from '../types.js';
import {
  compileNumberPattern,
  formatNumber,
  normalizeLocale,
  NumberPatternError,
  parseNumber,
  type NumberPattern,
} from './number-format.js';
import { fail, isAbsent, toNum, toStr } from './values.js';

const PATTERN_CACHE_LIMIT = 256;
/** Memo of compiled patterns keyed by their text (entries never go stale; bounded in size). */
const patternCache = new Map<string, NumberPattern | NumberPatternError>();

/** Compiles (memoised) a number pattern, or fails naming the function. */
export function numberPattern(fn: string, pattern: string): NumberPattern {
  let entry = patternCache.get(pattern);
  if (entry === undefined) {
    try {
      entry = compileNumberPattern(pattern);
    } catch (err) {
      if (!(err instanceof NumberPatternError)) throw err;
      entry = err;
    }
    if (patternCache.size >= PATTERN_CACHE_LIMIT) patternCache.delete(patternCache.keys().next().value as string);
    patternCache.set(pattern, entry);
  }
  if (entry instanceof NumberPatternError) return fail(fn, entry.message);
  return entry;
}

/** The locale argument (default en-US), checked. */
export function localeArg(fn: string, argument: number, locale: Json | undefined): string {
  if (isAbsent(locale)) return 'en-US';
  try {
    return normalizeLocale(toStr(fn, argument, locale));
  } catch {
    return fail(fn, `unknown locale ${JSON.stringify(locale)}`);
  }
}

/**
 * Formats a number with a DecimalFormat pattern and locale (default en-US).
 * @example FORMATNUMBER(123456.9123, "###,###.###", "pt-BR") // "123.456,912"
 */
export function FORMATNUMBER(value: Json, format: Json, locale?: Json): Json {
  if (isAbsent(value)) return null;
  const n = toNum('FORMATNUMBER', 1, value);
  const pattern = numberPattern('FORMATNUMBER', toStr('FORMATNUMBER', 2, format));
  return formatNumber(pattern, n, localeArg('FORMATNUMBER', 3, locale));
}

/**
 * Parses text written with a DecimalFormat pattern and locale; `asInteger` truncates.
 * @example TONUMBER("R$ 300.754,15", "'R$ '###,###.##", "pt-br") // 300754.15
 */
export function TONUMBER(value: Json, format: Json, locale?: Json, asInteger?: Json): Json {
  if (isAbsent(value)) return null;
  const pattern = numberPattern('TONUMBER', toStr('TONUMBER', 2, format));
  const tag = localeArg('TONUMBER', 3, locale);
  const parsed = typeof value === 'number' ? value : parseNumber(pattern, toStr('TONUMBER', 1, value), tag);
  if (parsed === undefined)
    return fail(
      'TONUMBER',
      `cannot parse ${JSON.stringify(value)} with pattern ${JSON.stringify(format)} (locale ${tag})`,
    );
  return asInteger === true ? Math.trunc(parsed) : parsed;
}

/** @example TODOUBLE("12") // 12 */
export function TODOUBLE(value: Json): Json {
  return isAbsent(value) ? null : toNum('TODOUBLE', 1, value);
}

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

/** Truncates to a 32-bit integer. @example TOINT(12.345) // 12 */
export function TOINT(value: Json): Json {
  if (isAbsent(value)) return null;
  const n = Math.trunc(toNum('TOINT', 1, value));
  if (!(n >= INT_MIN && n <= INT_MAX))
    fail('TOINT', `${String(value)} is outside the 32-bit integer range; use TOLONG`);
  return n;
}

/** Truncates to an integer (exact up to 2^53). @example TOLONG("12.345") // 12 */
export function TOLONG(value: Json): Json {
  if (isAbsent(value)) return null;
  const n = Math.trunc(toNum('TOLONG', 1, value));
  if (!Number.isFinite(n) || Math.abs(n) > 2 ** 63)
    fail('TOLONG', `${String(value)} is outside the 64-bit integer range`);
  return n;
}

/** A random integer between min and max, both inclusive. @example RANDOMNUMBERS(1, 6) // e.g. 4 */
export function RANDOMNUMBERS(min: Json, max: Json): number {
  const lo = Math.ceil(toNum('RANDOMNUMBERS', 1, min));
  const hi = Math.floor(toNum('RANDOMNUMBERS', 2, max));
  if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi))
    fail('RANDOMNUMBERS', 'bounds must be integers within ±2^53');
  if (lo > hi) fail('RANDOMNUMBERS', `min ${lo} is greater than max ${hi}`);
  const span = hi - lo + 1;
  if (span <= 2 ** 48 - 1) return lo + randomInt(span);
  // crypto.randomInt is limited to 2^48 values: combine two draws for wider ranges.
  const high = randomInt(2 ** 24);
  const low = randomInt(2 ** 29);
  return lo + Math.floor(((high * 2 ** 29 + low) / 2 ** 53) * span);
}
