/**
 * Java SimpleDateFormat patterns for `format-time` and `parse-time`, on luxon for time zones.
 * Input: a pattern such as `yyyy-MM-dd'T'HH:mm:ssX`, epoch milliseconds or text, a zone id.
 * Output: formatted text, or epoch milliseconds. Errors mirror Java's wording: an unknown
 * pattern letter is "Illegal pattern character", text that does not fit is "Unparseable date".
 * Parsing is lenient like Java's: trailing text is ignored and out-of-range fields roll over.
 */
import { DateTime, IANAZone } from 'luxon';

type PatternPart =
  | { readonly kind: 'field'; readonly letter: string; readonly count: number }
  | { readonly kind: 'literal'; readonly text: string };

const FIELD_LETTERS = new Set('GyYMLwWDdFEuaHkKhmsSzZX');
const NUMERIC_LETTERS = new Set('yYMLwWDdFuHkKhmsS');
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

export class PatternError extends Error {}
export class UnparseableError extends Error {}

/** Splits a SimpleDateFormat pattern into fields and literal text. */
export function parsePattern(pattern: string): PatternPart[] {
  const parts: PatternPart[] = [];
  let literal = '';
  const flushLiteral = (): void => {
    if (literal) parts.push({ kind: 'literal', text: literal });
    literal = '';
  };
  for (let pos = 0; pos < pattern.length;) {
    const char = pattern[pos] as string;
    if (char === "'") {
      if (pattern[pos + 1] === "'") {
        literal += "'";
        pos += 2;
        continue;
      }
      const end = pattern.indexOf("'", pos + 1);
      if (end === -1) throw new PatternError('Unterminated quote');
      literal += pattern.slice(pos + 1, end);
      pos = end + 1;
      continue;
    }
    if (/[A-Za-z]/.test(char)) {
      if (!FIELD_LETTERS.has(char)) throw new PatternError(`Illegal pattern character '${char}'`);
      let count = 1;
      while (pattern[pos + count] === char) count++;
      flushLiteral();
      parts.push({ kind: 'field', letter: char, count });
      pos += count;
      continue;
    }
    literal += char;
    pos++;
  }
  flushLiteral();
  return parts;
}

// ───────────────────────────── zones ─────────────────────────────

/** Whether Java would know this zone id (IANA names plus the UTC/GMT aliases). */
export function isKnownZone(zone: string): boolean {
  return zone === 'UTC' || zone === 'GMT' || IANAZone.isValidZone(zone);
}

const LONG_TO_SHORT: Record<string, string> = {
  'Central European Standard Time': 'CET',
  'Central European Summer Time': 'CEST',
  'Eastern European Standard Time': 'EET',
  'Eastern European Summer Time': 'EEST',
  'Western European Standard Time': 'WET',
  'Western European Summer Time': 'WEST',
  'British Summer Time': 'BST',
  'Greenwich Mean Time': 'GMT',
  'Coordinated Universal Time': 'UTC',
  'Moscow Standard Time': 'MSK',
  'Japan Standard Time': 'JST',
  'India Standard Time': 'IST',
  'China Standard Time': 'CST',
};

function zoneName(instant: DateTime, zone: string, style: 'short' | 'long'): string {
  if (zone === 'UTC') return style === 'short' ? 'UTC' : 'Coordinated Universal Time';
  const long = instant.offsetNameLong ?? zone;
  if (style === 'long') return long;
  const short = instant.offsetNameShort ?? zone;
  if (!/^(GMT|UTC)[+-]/.test(short)) return short;
  return LONG_TO_SHORT[long] ?? short;
}

function offsetText(minutes: number, style: 'rfc' | 'iso1' | 'iso2' | 'iso3'): string {
  if (minutes === 0 && style !== 'rfc') return 'Z';
  const sign = minutes < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0');
  const mins = String(Math.abs(minutes) % 60).padStart(2, '0');
  if (style === 'iso1') return `${sign}${hours}`;
  if (style === 'iso3') return `${sign}${hours}:${mins}`;
  return `${sign}${hours}${mins}`;
}

// ───────────────────────────── formatting ─────────────────────────────

function pad(value: number, width: number): string {
  const text = String(Math.abs(value)).padStart(width, '0');
  return value < 0 ? `-${text}` : text;
}

function formatField(instant: DateTime, letter: string, count: number, zone: string): string {
  switch (letter) {
    case 'G':
      return instant.year > 0 ? 'AD' : 'BC';
    case 'y':
    case 'Y':
      return count === 2 ? pad(instant.year % 100, 2) : pad(instant.year, count);
    case 'M':
    case 'L': {
      const name = MONTHS[instant.month - 1] as string;
      if (count >= 4) return name;
      if (count === 3) return name.slice(0, 3);
      return pad(instant.month, count);
    }
    case 'w':
      return pad(instant.weekNumber, count);
    case 'W':
      return pad(Math.ceil((instant.day + (instant.startOf('month').weekday % 7 || 7) - 1) / 7), count);
    case 'D':
      return pad(instant.ordinal, count);
    case 'd':
      return pad(instant.day, count);
    case 'F':
      return pad(Math.ceil(instant.day / 7), count);
    case 'E': {
      const name = WEEKDAYS[instant.weekday - 1] as string;
      return count >= 4 ? name : name.slice(0, 3);
    }
    case 'u':
      return pad(instant.weekday, count);
    case 'a':
      return instant.hour < 12 ? 'AM' : 'PM';
    case 'H':
      return pad(instant.hour, count);
    case 'k':
      return pad(instant.hour === 0 ? 24 : instant.hour, count);
    case 'K':
      return pad(instant.hour % 12, count);
    case 'h':
      return pad(instant.hour % 12 || 12, count);
    case 'm':
      return pad(instant.minute, count);
    case 's':
      return pad(instant.second, count);
    case 'S':
      return pad(instant.millisecond, count);
    case 'z':
      return zoneName(instant, zone, count >= 4 ? 'long' : 'short');
    case 'Z':
      return offsetText(instant.offset, 'rfc');
    case 'X':
      return offsetText(instant.offset, count === 1 ? 'iso1' : count === 2 ? 'iso2' : 'iso3');
    default:
      throw new PatternError(`Illegal pattern character '${letter}'`);
  }
}

/** Formats epoch milliseconds with a SimpleDateFormat pattern in `zone`. */
export function formatTime(epochMillis: number, pattern: string, zone: string): string {
  const parts = parsePattern(pattern);
  const instant = DateTime.fromMillis(epochMillis, { zone: zone === 'UTC' || zone === 'GMT' ? 'UTC' : zone });
  return parts
    .map((part) => (part.kind === 'literal' ? part.text : formatField(instant, part.letter, part.count, zone)))
    .join('');
}

// ───────────────────────────── parsing ─────────────────────────────

const ZONE_ABBREVIATIONS: Record<string, number> = {
  UTC: 0,
  GMT: 0,
  UT: 0,
  Z: 0,
  CET: 60,
  CEST: 120,
  MET: 60,
  MEST: 120,
  EET: 120,
  EEST: 180,
  WET: 0,
  WEST: 60,
  BST: 60,
  MSK: 180,
  JST: 540,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
};

interface ParsedFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  pm: boolean | undefined;
  hourIs12: boolean;
  offsetMinutes: number | undefined;
}

class TextCursor {
  pos = 0;
  constructor(readonly text: string) {}

  fail(): never {
    throw new UnparseableError(`Unparseable date: "${this.text}"`);
  }

  digits(maxWidth: number | undefined): number {
    const start = this.pos;
    if (this.text[this.pos] === '-' || this.text[this.pos] === '+') this.pos++;
    const limit = maxWidth === undefined ? this.text.length : this.pos + maxWidth;
    while (this.pos < limit && this.pos < this.text.length && /[0-9]/.test(this.text[this.pos] as string)) this.pos++;
    const taken = this.text.slice(start, this.pos);
    if (!/[0-9]/.test(taken)) {
      this.pos = start;
      this.fail();
    }
    return Number(taken);
  }

  oneOf(names: readonly string[]): number {
    const rest = this.text.slice(this.pos).toLowerCase();
    let best = -1;
    let bestLength = 0;
    names.forEach((name, index) => {
      for (const candidate of [name, name.slice(0, 3)]) {
        if (rest.startsWith(candidate.toLowerCase()) && candidate.length > bestLength) {
          best = index;
          bestLength = candidate.length;
        }
      }
    });
    if (best === -1) this.fail();
    this.pos += bestLength;
    return best;
  }

  zone(letter: string): number {
    const rest = this.text.slice(this.pos);
    if (letter === 'X' && rest.startsWith('Z')) {
      this.pos++;
      return 0;
    }
    const numeric = /^(?:GMT|UTC)?([+-])(\d{2}):?(\d{2})?/.exec(rest);
    if (numeric) {
      this.pos += numeric[0].length;
      const minutes = Number(numeric[2]) * 60 + Number(numeric[3] ?? '0');
      return numeric[1] === '-' ? -minutes : minutes;
    }
    if (letter === 'z') {
      const name = /^[A-Za-z]+/.exec(rest)?.[0] ?? '';
      for (let length = name.length; length > 0; length--) {
        const offset = ZONE_ABBREVIATIONS[name.slice(0, length).toUpperCase()];
        if (offset !== undefined) {
          this.pos += length;
          return offset;
        }
      }
    }
    return this.fail();
  }
}

function twoDigitYear(value: number): number {
  const now = new Date().getUTCFullYear();
  const century = Math.floor((now - 80) / 100) * 100;
  let year = century + value;
  if (year < now - 80) year += 100;
  return year;
}

function parseField(cursor: TextCursor, fields: ParsedFields, letter: string, count: number, abutting: boolean): void {
  const width = abutting ? count : undefined;
  switch (letter) {
    case 'G':
      cursor.oneOf(['AD', 'BC']);
      return;
    case 'y':
    case 'Y': {
      const start = cursor.pos;
      const value = cursor.digits(width);
      fields.year = count <= 2 && cursor.pos - start === 2 ? twoDigitYear(value) : value;
      return;
    }
    case 'M':
    case 'L':
      fields.month = count >= 3 ? cursor.oneOf(MONTHS) + 1 : cursor.digits(width);
      return;
    case 'E':
      cursor.oneOf(WEEKDAYS);
      return;
    case 'a':
      fields.pm = cursor.oneOf(['AM', 'PM']) === 1;
      return;
    case 'd':
      fields.day = cursor.digits(width);
      return;
    case 'H':
      fields.hour = cursor.digits(width);
      return;
    case 'k':
      fields.hour = cursor.digits(width) % 24;
      return;
    case 'h':
    case 'K':
      fields.hour = cursor.digits(width) % 12;
      fields.hourIs12 = true;
      return;
    case 'm':
      fields.minute = cursor.digits(width);
      return;
    case 's':
      fields.second = cursor.digits(width);
      return;
    case 'S':
      fields.millisecond = cursor.digits(width);
      return;
    case 'z':
    case 'Z':
    case 'X':
      fields.offsetMinutes = cursor.zone(letter);
      return;
    default:
      // w W D F u: read and ignore, as the other fields decide the date
      cursor.digits(width);
  }
}

/** Parses text with a SimpleDateFormat pattern; without a zone in the text, `zone` applies. */
export function parseTime(text: string, pattern: string, zone: string): number {
  const parts = parsePattern(pattern);
  const cursor = new TextCursor(text);
  const fields: ParsedFields = {
    year: 1970,
    month: 1,
    day: 1,
    hour: 0,
    minute: 0,
    second: 0,
    millisecond: 0,
    pm: undefined,
    hourIs12: false,
    offsetMinutes: undefined,
  };
  parts.forEach((part, index) => {
    if (part.kind === 'literal') {
      if (!text.startsWith(part.text, cursor.pos)) cursor.fail();
      cursor.pos += part.text.length;
      return;
    }
    const next = parts[index + 1];
    const abutting = NUMERIC_LETTERS.has(part.letter) && next?.kind === 'field' && NUMERIC_LETTERS.has(next.letter);
    parseField(cursor, fields, part.letter, part.count, abutting);
  });
  const hour = fields.pm === true && fields.hour < 12 ? fields.hour + 12 : fields.hour;
  const wallClock = Date.UTC(
    fields.year,
    fields.month - 1,
    fields.day,
    hour,
    fields.minute,
    fields.second,
    fields.millisecond,
  );
  if (fields.offsetMinutes !== undefined) return wallClock - fields.offsetMinutes * 60_000;
  if (zone === 'UTC' || zone === 'GMT') return wallClock;
  const local = DateTime.fromMillis(wallClock, { zone: 'UTC' }).setZone(zone, { keepLocalTime: true });
  return local.toMillis();
}
