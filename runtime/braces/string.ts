/**
 * Double Braces STRING functions (22, reference §1.4.8). A null value gives null (predicates give
 * false), except CONCAT and JOIN, which read null as "". Regex functions run on RE2 (regex.ts).
 * In: JSON values. Out: JSON values, or a PipeError whose kind is the function name.
 */
import { randomInt } from 'node:crypto';
import type { Json } from '../types.js';
import { escapeAs, escapeTypeOf, unescapeAs, type EscapeType } from './escape.js';
import { allMatches, compileRegex, javaSplit, literalPattern, parseJavaFlags, RegexSyntaxError } from './regex.js';
import { checkLength, fail, isAbsent, toInt, toStr, toText } from './values.js';

/** @example CAPITALIZE("hello") // "Hello" */
export function CAPITALIZE(value: Json): Json {
  if (isAbsent(value)) return null;
  const s = toStr('CAPITALIZE', 1, value);
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** @example CONCAT("a", 1, null, "b") // "a1b" */
export function CONCAT(...values: readonly Json[]): string {
  const out = values.map(toText).join('');
  checkLength('CONCAT', out.length);
  return out;
}

/** @example CONTAINS("Hello", "ell") // true */
export function CONTAINS(main: Json, sub: Json): boolean {
  if (isAbsent(main) || isAbsent(sub)) return false;
  return toStr('CONTAINS', 1, main).includes(toStr('CONTAINS', 2, sub));
}

/** @example DEFAULT(null, "n/a") // "n/a" */
export function DEFAULT(value: Json, defaultValue: Json): Json {
  return isAbsent(value) ? defaultValue : value;
}

function escapeType(fn: string, type: Json | undefined): EscapeType {
  if (isAbsent(type)) return 'JSON';
  const found = escapeTypeOf(toStr(fn, 2, type));
  return found ?? fail(fn, `unknown escape type ${JSON.stringify(type)} (expected JSON, XML, CSV or HTML)`);
}

/** @example ESCAPE("<h1>", "HTML") // "&lt;h1&gt;" */
export function ESCAPE(value: Json, type?: Json): Json {
  if (isAbsent(value)) return null;
  return escapeAs(escapeType('ESCAPE', type), toStr('ESCAPE', 1, value));
}

/** @example UNESCAPE("&lt;b&gt;", "HTML") // "<b>" */
export function UNESCAPE(value: Json, type?: Json): Json {
  if (isAbsent(value)) return null;
  return unescapeAs(escapeType('UNESCAPE', type), toStr('UNESCAPE', 1, value));
}

/** @example INDEXOF("banana", "an", 2) // 3 */
export function INDEXOF(main: Json, sub: Json, fromIndex?: Json): Json {
  if (isAbsent(main) || isAbsent(sub)) return null;
  const from = isAbsent(fromIndex) ? 0 : toInt('INDEXOF', 3, fromIndex);
  return toStr('INDEXOF', 1, main).indexOf(toStr('INDEXOF', 2, sub), Math.max(0, from));
}

/** @example LASTINDEXOF("Hello, world!", "o") // 8 */
export function LASTINDEXOF(main: Json, sub: Json): Json {
  if (isAbsent(main) || isAbsent(sub)) return null;
  return toStr('LASTINDEXOF', 1, main).lastIndexOf(toStr('LASTINDEXOF', 2, sub));
}

/**
 * JOIN(separator, *values); an array among the values contributes its elements.
 * @example JOIN(" ", "These", "words") // "These words"
 */
export function JOIN(separator: Json, ...values: readonly Json[]): string {
  const sep = isAbsent(separator) ? '' : toStr('JOIN', 1, separator);
  const parts = values.flatMap((v) => (Array.isArray(v) ? v : [v])).map(toText);
  const out = parts.join(sep);
  checkLength('JOIN', out.length);
  return out;
}

function pad(fn: string, value: Json, length: Json, char: Json | undefined, atStart: boolean): Json {
  if (isAbsent(value)) return null;
  const s = toStr(fn, 1, value);
  const target = toInt(fn, 2, length);
  const filler = isAbsent(char) ? ' ' : toStr(fn, 3, char);
  if (filler === '') fail(fn, 'the padding text is empty');
  if (target <= s.length) return s;
  checkLength(fn, target);
  return atStart ? s.padStart(target, filler) : s.padEnd(target, filler);
}

/** @example LEFTPAD("example", 10, "-") // "---example" */
export function LEFTPAD(value: Json, length: Json, char?: Json): Json {
  return pad('LEFTPAD', value, length, char, true);
}

/** @example RIGHTPAD("example", 10, "-") // "example---" */
export function RIGHTPAD(value: Json, length: Json, char?: Json): Json {
  return pad('RIGHTPAD', value, length, char, false);
}

/** @example LOWERCASE("ABC") // "abc" */
export function LOWERCASE(value: Json): Json {
  return isAbsent(value) ? null : toStr('LOWERCASE', 1, value).toLowerCase();
}

/** @example UPPERCASE("abc") // "ABC" */
export function UPPERCASE(value: Json): Json {
  return isAbsent(value) ? null : toStr('UPPERCASE', 1, value).toUpperCase();
}

/**
 * True when the WHOLE value matches the pattern (Java `String.matches`).
 * @example MATCHES("123-456-7890", "\\d{3}-\\d{3}-\\d{4}") // true
 */
export function MATCHES(value: Json, pattern: Json): boolean {
  if (isAbsent(value) || isAbsent(pattern)) return false;
  return compileRegex('MATCHES', toStr('MATCHES', 2, pattern)).testExact(toStr('MATCHES', 1, value));
}

/** @example NORMALIZE("São Paulo") // "Sao Paulo" */
export function NORMALIZE(value: Json): Json {
  if (isAbsent(value)) return null;
  return toStr('NORMALIZE', 1, value).normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC');
}

const CHARSETS: Readonly<Record<string, string>> = {
  ALPHANUMERIC: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  ALPHABETIC: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
  NUMERIC: '0123456789',
  ASCII: Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join(''),
};
export const RANDOM_CHARSETS = Object.keys(CHARSETS);

/** @example RANDOMSTRINGS("NUMERIC", 6) // e.g. "402913" */
export function RANDOMSTRINGS(charset: Json, length: Json): string {
  const name = toStr('RANDOMSTRINGS', 1, charset).toUpperCase();
  const alphabet =
    CHARSETS[name] ??
    fail('RANDOMSTRINGS', `unknown charset ${JSON.stringify(charset)} (expected ${RANDOM_CHARSETS.join(', ')})`);
  const n = toInt('RANDOMSTRINGS', 2, length);
  if (n < 0) fail('RANDOMSTRINGS', 'the length must not be negative');
  checkLength('RANDOMSTRINGS', n);
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** Expands a Java replacement string: `$1`, `${name}`, `\$` (escaped dollar). */
function expandReplacement(
  replacement: string,
  groups: readonly (string | undefined)[],
  named: Readonly<Record<string, string | undefined>> | undefined,
): string {
  let out = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i] as string;
    if (c === '\\' && i + 1 < replacement.length) {
      out += replacement[++i];
    } else if (c === '$') {
      const named_ = /^\$\{([A-Za-z][A-Za-z0-9]*)\}/.exec(replacement.slice(i));
      const numbered = /^\$(\d)/.exec(replacement.slice(i));
      if (named_) {
        const name = named_[1] as string;
        if (!named || !Object.prototype.hasOwnProperty.call(named, name)) fail('REPLACE', `no group named \`${name}\``);
        out += named[name] ?? '';
        i += named_[0].length - 1;
      } else if (numbered) {
        const index = Number(numbered[1]);
        if (index >= groups.length) fail('REPLACE', `no group ${index} in the pattern`);
        out += groups[index] ?? '';
        i += 1;
      } else {
        fail(
          'REPLACE',
          'a `$` in the replacement must be followed by a group number or {name}; write `\\$` for a dollar sign',
        );
      }
    } else {
      out += c;
    }
  }
  return out;
}

/** Replaces ALL matches of the pattern. @example REPLACE("a1b22", "\\d+", "#") // "a#b#" */
export function REPLACE(value: Json, pattern: Json, replacement: Json): Json {
  if (isAbsent(value)) return null;
  const s = toStr('REPLACE', 1, value);
  const patternText = toStr('REPLACE', 2, pattern);
  const with_ = isAbsent(replacement) ? '' : toStr('REPLACE', 3, replacement);
  const literal = literalPattern(patternText);
  if (literal !== undefined && literal !== '') {
    // Plain text: linear-time replacement without the regex engine.
    const expanded = expandReplacement(with_, [literal], undefined);
    const pieces = s.split(literal);
    checkLength('REPLACE', s.length + (pieces.length - 1) * (expanded.length - literal.length));
    return pieces.join(expanded);
  }
  const re = compileRegex('REPLACE', patternText);
  let out = '';
  let last = 0;
  for (const m of allMatches(re, s, with_.includes('$'))) {
    out += s.slice(last, m.index) + expandReplacement(with_, m.groups, m.named);
    last = m.end;
    checkLength('REPLACE', out.length);
  }
  return out + s.slice(last);
}

/**
 * Java `String.split`: a leading empty piece from a zero-width match is dropped, trailing empty
 * pieces are removed.
 * @example SPLIT("a,b,,c,,", ",") // ["a","b","","c"]
 */
export function SPLIT(value: Json, pattern: Json): Json {
  if (isAbsent(value)) return null;
  const s = toStr('SPLIT', 1, value);
  const patternText = toStr('SPLIT', 2, pattern);
  const literal = literalPattern(patternText);
  if (literal === '') return s === '' ? [''] : Array.from(s);
  if (literal !== undefined) {
    // Not `push(...parts)`: spreading a large array overflows the stack.
    const pieces = s.split(literal);
    while (pieces.length > 1 && pieces[pieces.length - 1] === '') pieces.pop();
    if (pieces.length === 1 && pieces[0] === '' && s !== '') return [];
    return pieces;
  }
  return javaSplit(compileRegex('SPLIT', patternText), s);
}

/**
 * Every match of the pattern, with optional Java flags.
 * @example STRINGMATCHES("Hello, world!", "hello", "CASE_INSENSITIVE") // ["Hello"]
 */
export function STRINGMATCHES(value: Json, pattern: Json, flags?: Json): Json {
  if (isAbsent(value)) return null;
  let javaFlags: string[] = [];
  if (!isAbsent(flags)) {
    try {
      javaFlags = parseJavaFlags(toStr('STRINGMATCHES', 3, flags));
    } catch (err) {
      if (err instanceof RegexSyntaxError) fail('STRINGMATCHES', err.message);
      throw err;
    }
  }
  const s = toStr('STRINGMATCHES', 1, value);
  const re = compileRegex('STRINGMATCHES', toStr('STRINGMATCHES', 2, pattern), javaFlags);
  return allMatches(re, s, false).map((m) => s.slice(m.index, m.end));
}

/**
 * SUBSTRING(value, start, end?, throwIndexOutOfBoundError = true): 0-based, end exclusive.
 * With the flag false, out-of-range bounds return the value unchanged.
 * @example SUBSTRING("Hello, world!", 0, 5) // "Hello"
 */
export function SUBSTRING(value: Json, start: Json, end?: Json, throwOnBounds?: Json): Json {
  if (isAbsent(value)) return null;
  const s = toStr('SUBSTRING', 1, value);
  const from = toInt('SUBSTRING', 2, start);
  const to = isAbsent(end) ? s.length : toInt('SUBSTRING', 3, end);
  if (from < 0 || to > s.length || from > to) {
    if (throwOnBounds === false) return s;
    return fail('SUBSTRING', `range [${from}, ${to}) is out of bounds for a string of length ${s.length}`);
  }
  return s.slice(from, to);
}

/** @example TOSTRING(123) // "123" */
export function TOSTRING(value: Json): Json {
  if (isAbsent(value)) return null;
  return toText(value);
}

/** Strips leading and trailing characters up to U+0020 (Java `trim`). @example TRIM("  a ") // "a" */
export function TRIM(value: Json): Json {
  if (isAbsent(value)) return null;
  return toStr('TRIM', 1, value).replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
}
