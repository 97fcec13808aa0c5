/**
 * Double Braces DATE functions (reference §1.4.4): NOW, FORMATDATE, TOISODATE, SUMDATE, DIFFDATE.
 * Epoch milliseconds are the lingua franca (`"timestamp"` as a format means epoch ms); patterns
 * are Java's (date-pattern.ts); zones default to UTC; locales give month and day names.
 */
import { DateTime, type DurationLikeObject } from 'luxon';
import type { Json } from '../types.js';
import {
  compileDatePattern,
  DateParseError,
  DatePatternError,
  formatDate,
  parseDate,
  zoneOf,
  type DateToken,
} from './date-pattern.js';
import { localeArg } from './numerical.js';
import { fail, isAbsent, toInt, toNum, toStr } from './values.js';

/** What NOW needs from the execution context (the service's controllable clock). */
export interface ClockContext {
  readonly services: { readonly clock: { now(): number } };
}

/** Current time in epoch milliseconds from the execution's clock. @example NOW(ctx) // 1718000000000 */
export function NOW(ctx: ClockContext): number {
  return ctx.services.clock.now();
}

const CACHE_LIMIT = 256;
/** Memo of compiled date patterns keyed by their text (never stale; bounded). */
const patternCache = new Map<string, DateToken[] | DatePatternError>();

/** Compiles (memoised) a Java date pattern, or fails naming the function. */
export function datePattern(fn: string, pattern: string): DateToken[] {
  let entry = patternCache.get(pattern);
  if (entry === undefined) {
    try {
      entry = compileDatePattern(pattern);
    } catch (err) {
      if (!(err instanceof DatePatternError)) throw err;
      entry = err;
    }
    if (patternCache.size >= CACHE_LIMIT) patternCache.delete(patternCache.keys().next().value as string);
    patternCache.set(pattern, entry);
  }
  if (entry instanceof DatePatternError) return fail(fn, entry.message);
  return entry;
}

/** The zone argument (default UTC), checked. */
export function zoneArg(fn: string, argument: number, zone: Json | undefined, fallback = 'UTC'): string {
  if (isAbsent(zone)) return fallback;
  const id = toStr(fn, argument, zone);
  return zoneOf(id) ?? fail(fn, `unknown time zone ${JSON.stringify(id)}`);
}

function isTimestampKeyword(format: string): boolean {
  return format.toLowerCase() === 'timestamp';
}

function readInstant(fn: string, value: Json, format: string, locale: string, zone: string): number {
  if (isTimestampKeyword(format)) return toNum(fn, 1, value);
  const tokens = datePattern(fn, format);
  try {
    return parseDate(tokens, toStr(fn, 1, value), zone, locale);
  } catch (err) {
    if (err instanceof DateParseError) return fail(fn, `could not parse date/time: ${err.message}`);
    throw err;
  }
}

function isoOf(epochMs: number, zone: string): string {
  const dt = DateTime.fromMillis(epochMs, { zone });
  if (!dt.isValid) return fail('FORMATDATE', `the timestamp ${epochMs} is out of range`);
  return dt.toISO({ suppressMilliseconds: true }) as string;
}

/**
 * FORMATDATE(value, originFormat, destinationFormat, localeOrigin?, timezoneOrigin?,
 * localeDestination?, timezoneDestination?). A null destination gives ISO-8601 with offset;
 * the destination zone defaults to the origin zone (so a pure re-format keeps the wall time).
 * @example FORMATDATE(1564670039000, "timestamp", "dd/MM/yyyy HH:mm:ss") // "01/08/2019 14:33:59"
 */
export function FORMATDATE(
  value: Json,
  origin: Json,
  destination?: Json,
  localeOrigin?: Json,
  zoneOrigin?: Json,
  localeDestination?: Json,
  zoneDestination?: Json,
): Json {
  if (isAbsent(value)) return null;
  const fromFormat = toStr('FORMATDATE', 2, origin);
  const fromZone = zoneArg('FORMATDATE', 5, zoneOrigin);
  const toZone = zoneArg('FORMATDATE', 7, zoneDestination, fromZone);
  const epochMs = readInstant('FORMATDATE', value, fromFormat, localeArg('FORMATDATE', 4, localeOrigin), fromZone);
  if (isAbsent(destination)) return isoOf(epochMs, toZone);
  const toFormat = toStr('FORMATDATE', 3, destination);
  if (isTimestampKeyword(toFormat)) return epochMs;
  try {
    return formatDate(
      datePattern('FORMATDATE', toFormat),
      epochMs,
      toZone,
      localeArg('FORMATDATE', 6, localeDestination),
    );
  } catch (err) {
    if (err instanceof DateParseError) return fail('FORMATDATE', err.message);
    throw err;
  }
}

/**
 * TOISODATE(value, formatSource, locale?, timezone?): the instant as ISO-8601 in UTC.
 * @example TOISODATE("10/Outubro/2010 11:59:59 GMT-03:00", "dd/MMMM/yyyy HH:mm:ss z", "pt-BR") // "2010-10-10T14:59:59Z"
 */
export function TOISODATE(value: Json, format: Json, locale?: Json, zone?: Json): Json {
  if (isAbsent(value)) return null;
  const epochMs = readInstant(
    'TOISODATE',
    value,
    toStr('TOISODATE', 2, format),
    localeArg('TOISODATE', 3, locale),
    zoneArg('TOISODATE', 4, zone),
  );
  const dt = DateTime.fromMillis(epochMs, { zone: 'UTC' });
  if (!dt.isValid) return fail('TOISODATE', `the timestamp ${epochMs} is out of range`);
  return dt.toISO({ suppressMilliseconds: true }) as string;
}

const UNITS: Readonly<Record<string, keyof DurationLikeObject>> = {
  MILLISECOND: 'milliseconds',
  SECOND: 'seconds',
  MINUTE: 'minutes',
  HOUR: 'hours',
  DAY: 'days',
  WEEK: 'weeks',
  MONTH: 'months',
  YEAR: 'years',
};
export const DATE_UNITS = Object.keys(UNITS);

/** The unit argument: singular or plural, any case. */
export function unitOf(name: string): keyof DurationLikeObject | undefined {
  const upper = name.trim().toUpperCase().replace(/S$/, '');
  return UNITS[upper];
}

function unitArg(fn: string, argument: number, unit: Json): keyof DurationLikeObject {
  const name = toStr(fn, argument, unit);
  return unitOf(name) ?? fail(fn, `unknown time unit ${JSON.stringify(name)} (expected ${DATE_UNITS.join(', ')})`);
}

/**
 * Adds `value` units to an epoch-ms timestamp (negative subtracts); months and years follow the
 * calendar in the zone (default UTC).
 * @example SUMDATE(1599368565518, "SECOND", 10) // 1599368575518
 */
export function SUMDATE(epochMs: Json, unit: Json, value: Json, zone?: Json): Json {
  if (isAbsent(epochMs)) return null;
  const start = DateTime.fromMillis(toNum('SUMDATE', 1, epochMs), { zone: zoneArg('SUMDATE', 4, zone) });
  if (!start.isValid) return fail('SUMDATE', `the timestamp ${String(epochMs)} is out of range`);
  const result = start.plus({ [unitArg('SUMDATE', 2, unit)]: toInt('SUMDATE', 3, value) });
  if (!result.isValid) return fail('SUMDATE', 'the result is out of range');
  return result.toMillis();
}

/**
 * `timestamp2 - timestamp1` in whole units, truncated toward zero.
 * @example DIFFDATE(0, 90000, "MINUTE") // 1
 */
export function DIFFDATE(first: Json, second: Json, unit: Json): Json {
  if (isAbsent(first) || isAbsent(second)) return null;
  const a = DateTime.fromMillis(toNum('DIFFDATE', 1, first), { zone: 'UTC' });
  const b = DateTime.fromMillis(toNum('DIFFDATE', 2, second), { zone: 'UTC' });
  if (!a.isValid || !b.isValid) return fail('DIFFDATE', 'a timestamp is out of range');
  const u = unitArg('DIFFDATE', 3, unit);
  const diff = b.diff(a, u).as(u);
  return Math.trunc(diff) + 0;
}
