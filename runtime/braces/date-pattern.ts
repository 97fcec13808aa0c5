/**
 * Java date-time patterns (java.time `DateTimeFormatter` letters) for the date functions:
 * y u M L d D E a h H k K m s S z Z X x V O and 'quoted literals' (`''` is a quote).
 * A pattern compiles once into tokens; `formatDate` renders an instant in a zone and locale
 * (luxon supplies zones and month/day names); `parseDate` reads text left to right and fails
 * with java.time's wording ("Text '…' could not be parsed at index N").
 * In: pattern text, zone id, locale tag. Out: text, or epoch milliseconds.
 */
import { DateTime, Info, IANAZone } from 'luxon';

export type DateToken =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'field'; readonly letter: string; readonly count: number };

export class DatePatternError extends Error {}
export class DateParseError extends Error {}

const SUPPORTED_LETTERS = 'yuMLdDEahHkKmsSzZXxVO';

export function compileDatePattern(pattern: string): DateToken[] {
  const tokens: DateToken[] = [];
  let literal = '';
  const flush = (): void => {
    if (literal !== '') tokens.push({ kind: 'literal', text: literal });
    literal = '';
  };
  for (let i = 0; i < pattern.length;) {
    const c = pattern[i] as string;
    if (c === "'") {
      if (pattern[i + 1] === "'") {
        literal += "'";
        i += 2;
        continue;
      }
      let j = i + 1;
      let text = '';
      for (; j < pattern.length; j++) {
        if (pattern[j] === "'") {
          if (pattern[j + 1] === "'") {
            text += "'";
            j++;
            continue;
          }
          break;
        }
        text += pattern[j];
      }
      if (j >= pattern.length)
        throw new DatePatternError(`unterminated quote in date pattern ${JSON.stringify(pattern)}`);
      literal += text;
      i = j + 1;
      continue;
    }
    if (/[A-Za-z]/.test(c)) {
      if (!SUPPORTED_LETTERS.includes(c)) {
        throw new DatePatternError(
          `unknown pattern letter \`${c}\` in date pattern ${JSON.stringify(pattern)}; quote literal text, e.g. "yyyy-MM-dd'T'HH:mm"`,
        );
      }
      let j = i;
      while (pattern[j] === c) j++;
      const count = j - i;
      checkCount(c, count, pattern);
      flush();
      tokens.push({ kind: 'field', letter: c, count });
      i = j;
      continue;
    }
    if (c === '[' || c === ']' || c === '{' || c === '}' || c === '#') {
      throw new DatePatternError(
        `\`${c}\` is reserved in date patterns (${JSON.stringify(pattern)}); quote it: '${c}'`,
      );
    }
    literal += c;
    i++;
  }
  flush();
  return tokens;
}

const MAX_COUNTS: Readonly<Record<string, number>> = {
  M: 5,
  L: 5,
  d: 2,
  D: 3,
  E: 5,
  a: 1,
  h: 2,
  H: 2,
  k: 2,
  K: 2,
  m: 2,
  s: 2,
  S: 9,
  z: 4,
  Z: 5,
  X: 5,
  x: 5,
  V: 2,
  O: 4,
};

function checkCount(letter: string, count: number, pattern: string): void {
  const max = MAX_COUNTS[letter];
  if (max !== undefined && count > max)
    throw new DatePatternError(`too many \`${letter}\` letters in date pattern ${JSON.stringify(pattern)}`);
  if (letter === 'V' && count !== 2)
    throw new DatePatternError(`\`V\` must be written \`VV\` in date pattern ${JSON.stringify(pattern)}`);
  if (letter === 'O' && count !== 1 && count !== 4)
    throw new DatePatternError(`\`O\` must be written \`O\` or \`OOOO\` in date pattern ${JSON.stringify(pattern)}`);
}

/**
 * A Java / IANA zone id as a luxon zone: "UTC", "GMT", "Z", "America/Sao_Paulo", "GMT-3",
 * "UTC+03:00", "-03:00". Returns undefined for ids that are not zones.
 */
export function zoneOf(id: string): string | undefined {
  const text = id.trim();
  if (/^(UTC|GMT|Z|UT)$/i.test(text)) return 'UTC';
  const offset = /^(?:UTC|GMT|UT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(text);
  if (offset) {
    const hours = Number(offset[2]);
    const minutes = Number(offset[3] ?? '0');
    if (hours > 18 || minutes > 59) return undefined;
    return `UTC${offset[1]}${hours}${minutes ? ':' + String(minutes).padStart(2, '0') : ''}`;
  }
  return IANAZone.isValidZone(text) ? text : undefined;
}

function pad(n: number, width: number): string {
  const s = String(Math.abs(n)).padStart(width, '0');
  return n < 0 ? `-${s}` : s;
}

function offsetText(minutes: number, withColon: boolean, withMinutes: 'always' | 'nonzero'): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  const h = pad(Math.floor(abs / 60), 2);
  const m = pad(abs % 60, 2);
  if (withMinutes === 'nonzero' && abs % 60 === 0) return `${sign}${h}`;
  return `${sign}${h}${withColon ? ':' : ''}${m}`;
}

function formatField(dt: DateTime, letter: string, count: number): string {
  switch (letter) {
    case 'y':
    case 'u':
      return count === 2 ? pad(dt.year % 100, 2) : pad(dt.year, count);
    case 'M':
    case 'L':
      if (count <= 2) return pad(dt.month, count);
      return dt.toFormat(count === 3 ? 'MMM' : count === 4 ? 'MMMM' : 'MMMMM');
    case 'd':
      return pad(dt.day, count);
    case 'D':
      return pad(dt.ordinal, count);
    case 'E':
      return dt.toFormat(count <= 3 ? 'EEE' : count === 4 ? 'EEEE' : 'EEEEE');
    case 'a':
      return dt.toFormat('a');
    case 'h':
      return pad(dt.hour % 12 === 0 ? 12 : dt.hour % 12, count);
    case 'H':
      return pad(dt.hour, count);
    case 'k':
      return pad(dt.hour === 0 ? 24 : dt.hour, count);
    case 'K':
      return pad(dt.hour % 12, count);
    case 'm':
      return pad(dt.minute, count);
    case 's':
      return pad(dt.second, count);
    case 'S':
      return pad(dt.millisecond, 3).padEnd(count, '0').slice(0, count);
    case 'z':
      return count === 4 ? (dt.offsetNameLong ?? dt.zoneName ?? 'UTC') : (dt.offsetNameShort ?? 'UTC');
    case 'Z':
      if (count <= 3) return offsetText(dt.offset, false, 'always');
      if (count === 4) return dt.offset === 0 ? 'GMT' : `GMT${offsetText(dt.offset, true, 'always')}`;
      return dt.offset === 0 ? 'Z' : offsetText(dt.offset, true, 'always');
    case 'X':
    case 'x': {
      if (letter === 'X' && dt.offset === 0) return 'Z';
      if (count === 1) return offsetText(dt.offset, false, 'nonzero');
      return offsetText(dt.offset, count === 3 || count === 5, 'always');
    }
    case 'V':
      return dt.zoneName ?? 'UTC';
    case 'O': {
      if (dt.offset === 0) return 'GMT';
      if (count === 4) return `GMT${offsetText(dt.offset, true, 'always')}`;
      const abs = Math.abs(dt.offset);
      return `GMT${dt.offset < 0 ? '-' : '+'}${Math.floor(abs / 60)}${abs % 60 ? ':' + pad(abs % 60, 2) : ''}`;
    }
    default:
      throw new DatePatternError(`unsupported pattern letter \`${letter}\``);
  }
}

/** Renders epoch ms with a compiled pattern in a luxon zone and locale. */
export function formatDate(tokens: readonly DateToken[], epochMs: number, zone: string, locale: string): string {
  const dt = DateTime.fromMillis(epochMs, { zone, locale });
  if (!dt.isValid) throw new DateParseError(`the timestamp ${epochMs} is out of range`);
  return tokens.map((t) => (t.kind === 'literal' ? t.text : formatField(dt, t.letter, t.count))).join('');
}

interface Fields {
  year?: number;
  twoDigitYear?: boolean;
  month?: number;
  day?: number;
  dayOfYear?: number;
  hour24?: number;
  hour12?: number;
  pm?: boolean;
  minute?: number;
  second?: number;
  millisecond?: number;
  zone?: string;
}

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

function namesMatcher(names: readonly string[]): RegExp {
  const sorted = [...names].sort((a, b) => b.length - a.length).map(escapeRegex);
  return new RegExp(`(?:${sorted.join('|')})`, 'iy');
}

function numericWidth(letter: string, count: number, next: DateToken | undefined): [number, number] {
  // Adjacent numeric fields (yyyyMMdd) must be read at fixed width.
  const adjacentNumber =
    next?.kind === 'field' && 'yuMLdDhHkKmsS'.includes(next.letter) && !('ML'.includes(next.letter) && next.count >= 3);
  if (letter === 'S') return [count, count];
  if ((letter === 'y' || letter === 'u') && count !== 2) return [count, adjacentNumber ? count : 9];
  if (count === 1 && !adjacentNumber) return [1, letter === 'D' ? 3 : 2];
  return [count, count];
}

/** Parses text written with a compiled pattern. Zone text in the input wins over `defaultZone`. */
export function parseDate(tokens: readonly DateToken[], text: string, defaultZone: string, locale: string): number {
  const fields: Fields = {};
  let pos = 0;
  const failAt = (index: number): never => {
    throw new DateParseError(
      `Text '${text.length > 64 ? text.slice(0, 64) + '…' : text}' could not be parsed at index ${index}`,
    );
  };
  tokens.forEach((token, i) => {
    if (token.kind === 'literal') {
      if (text.startsWith(token.text, pos)) pos += token.text.length;
      else failAt(pos);
      return;
    }
    const { letter, count } = token;
    const matchAt = (re: RegExp): string => {
      re.lastIndex = pos;
      const m = re.exec(text);
      if (!m) return failAt(pos);
      pos += m[0].length;
      return m[0];
    };
    if ((letter === 'M' || letter === 'L') && count >= 3) {
      const style = count === 3 ? 'short' : count === 4 ? 'long' : 'narrow';
      const names = Info.months(style, { locale }).map((n) => n.toLowerCase());
      const found = matchAt(namesMatcher(names)).toLowerCase();
      fields.month = names.indexOf(found) + 1;
      return;
    }
    if (letter === 'E') {
      matchAt(namesMatcher(Info.weekdays(count <= 3 ? 'short' : count === 4 ? 'long' : 'narrow', { locale })));
      return;
    }
    if (letter === 'a') {
      const meridiems = Info.meridiems({ locale }).map((m) => m.toLowerCase());
      fields.pm = meridiems.indexOf(matchAt(namesMatcher(meridiems)).toLowerCase()) === 1;
      return;
    }
    if (letter === 'z' || letter === 'V' || letter === 'O') {
      const start = pos;
      const raw = matchAt(/(?:[A-Za-z][A-Za-z0-9_/]*(?:[+-]\d{1,2}(?::?\d{2})?)?)/y);
      const zone = zoneOf(raw);
      if (zone === undefined) failAt(start);
      fields.zone = zone;
      return;
    }
    if (letter === 'Z' || letter === 'X' || letter === 'x') {
      const start = pos;
      const raw = matchAt(/(?:Z|GMT|(?:GMT)?[+-]\d{2}(?::?\d{2})?)/y);
      const zone = zoneOf(raw);
      if (zone === undefined) failAt(start);
      fields.zone = zone;
      return;
    }
    const [min, max] = numericWidth(letter, count, tokens[i + 1]);
    const value = Number(matchAt(new RegExp(`\\d{${min},${max}}`, 'y')));
    assignNumber(fields, letter, count, value);
  });
  if (pos < text.length) failAt(pos);
  return resolve(fields, defaultZone, text);
}

function assignNumber(fields: Fields, letter: string, count: number, value: number): void {
  switch (letter) {
    case 'y':
    case 'u':
      fields.year = count === 2 ? 2000 + value : value;
      return;
    case 'M':
    case 'L':
      fields.month = value;
      return;
    case 'd':
      fields.day = value;
      return;
    case 'D':
      fields.dayOfYear = value;
      return;
    case 'H':
      fields.hour24 = value;
      return;
    case 'k':
      fields.hour24 = value === 24 ? 0 : value;
      return;
    case 'h':
      fields.hour12 = value === 12 ? 0 : value;
      return;
    case 'K':
      fields.hour12 = value;
      return;
    case 'm':
      fields.minute = value;
      return;
    case 's':
      fields.second = value;
      return;
    case 'S':
      fields.millisecond = Math.floor(value / 10 ** Math.max(0, count - 3)) * 10 ** Math.max(0, 3 - count);
      return;
  }
}

function resolve(fields: Fields, defaultZone: string, text: string): number {
  const zone = fields.zone ?? defaultZone;
  const hour = fields.hour24 ?? (fields.hour12 !== undefined ? fields.hour12 + (fields.pm ? 12 : 0) : 0);
  const base = {
    year: fields.year ?? 1970,
    hour,
    minute: fields.minute ?? 0,
    second: fields.second ?? 0,
    millisecond: fields.millisecond ?? 0,
  };
  const dt =
    fields.dayOfYear !== undefined && fields.month === undefined
      ? DateTime.fromObject({ ...base, ordinal: fields.dayOfYear }, { zone })
      : DateTime.fromObject({ ...base, month: fields.month ?? 1, day: fields.day ?? 1 }, { zone });
  if (!dt.isValid)
    throw new DateParseError(`Text '${text}' could not be parsed: ${dt.invalidExplanation ?? 'invalid date'}`);
  return dt.toMillis();
}
