/**
 * User regular expressions, run on RE2 (re2-wasm): linear time, so a hostile pattern such as
 * `(a+)+$` cannot hang an execution. Java `Pattern` syntax is translated where RE2 differs
 * (POSIX `\p{Alpha}` classes, `(?x)` comments, Java flag names); what RE2 cannot do
 * (backreferences, lookaround, possessive quantifiers) is reported as a clear error.
 * Compiled patterns are memoised by (pattern, flags), so a constant pattern compiles once.
 * In: pattern text + Java flag names. Out: a `CompiledRegex` or a thrown PipeError.
 */
import type { RE2 } from 're2-wasm';
import { re2 } from '../re2.js';
import { fail } from './values.js';

export interface CompiledRegex {
  /** Matches from `lastIndex`; the caller owns the instance only for one call (see `withRegex`). */
  readonly re: RE2;
}

/** Java Pattern flag names accepted by STRINGMATCHES (case-insensitive, joined by `|` or `,`). */
export const JAVA_FLAGS = [
  'CANON_EQ',
  'CASE_INSENSITIVE',
  'COMMENTS',
  'DOTALL',
  'LITERAL',
  'MULTILINE',
  'UNICODE_CASE',
  'UNICODE_CHARACTER_CLASS',
  'UNIX_LINES',
] as const;

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  Lower: 'lower',
  Upper: 'upper',
  ASCII: 'ascii',
  Alpha: 'alpha',
  Digit: 'digit',
  Alnum: 'alnum',
  Punct: 'punct',
  Graph: 'graph',
  Print: 'print',
  Blank: 'blank',
  Cntrl: 'cntrl',
  XDigit: 'xdigit',
  Space: 'space',
};

/** Why a pattern cannot run; thrown as PipeError by `compileRegex`, reported at build time by the checker. */
export class RegexSyntaxError extends Error {}

interface Translated {
  readonly source: string;
  readonly flags: string;
}

/** Parses a flag list such as "CASE_INSENSITIVE|MULTILINE" into Java flag names. */
export function parseJavaFlags(text: string): string[] {
  const names = text
    .split(/[|,\s]+/)
    .map((f) => f.trim().toUpperCase())
    .filter((f) => f !== '');
  for (const name of names) {
    if (!(JAVA_FLAGS as readonly string[]).includes(name)) {
      throw new RegexSyntaxError(`unknown pattern flag \`${name}\` (expected one of ${JAVA_FLAGS.join(', ')})`);
    }
  }
  return names;
}

function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/** Removes whitespace and `#…` comments outside character classes (Java COMMENTS / `(?x)`). */
function stripComments(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (c === '\\') {
      out += c + (source[i + 1] ?? '');
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
    } else if (c === '#') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (!/\s/.test(c)) {
      out += c;
    }
  }
  return out;
}

/** Java-only syntax → RE2 syntax; throws RegexSyntaxError for what RE2 cannot express. */
function translate(pattern: string, javaFlags: readonly string[]): Translated {
  let source = pattern;
  let flags = 'u';
  if (javaFlags.includes('LITERAL')) return { source: escapeLiteral(pattern), flags: javaFlags.includes('CASE_INSENSITIVE') ? 'iu' : 'u' };
  if (javaFlags.includes('CASE_INSENSITIVE')) flags += 'i';
  if (javaFlags.includes('MULTILINE')) flags += 'm';
  if (javaFlags.includes('DOTALL')) flags += 's';
  // Inline flag groups: RE2 knows i, m, s; x (comments) is applied here; u and d are no-ops for RE2.
  source = source.replace(/\(\?([imsxud]+)\)/g, (_all, letters: string) => {
    if (letters.includes('x')) javaFlags = [...javaFlags, 'COMMENTS'];
    const kept = letters.replace(/[xud]/g, '');
    return kept === '' ? '' : `(?${kept})`;
  });
  if (javaFlags.includes('COMMENTS')) source = stripComments(source);
  if (/\\[1-9]|\\k</.test(source)) throw new RegexSyntaxError('backreferences (\\1, \\k<name>) are not supported: patterns run on a linear-time engine');
  if (/\(\?<?[=!]/.test(source)) throw new RegexSyntaxError('lookahead and lookbehind are not supported: patterns run on a linear-time engine');
  if (/\(\?>/.test(source)) throw new RegexSyntaxError('atomic groups `(?>…)` are not supported');
  if (/(?:[*+?]|\{\d+(?:,\d*)?\})\+/.test(source.replace(/\\./g, 'x'))) throw new RegexSyntaxError('possessive quantifiers (`*+`, `++`, `?+`) are not supported');
  source = translatePosix(source);
  return { source, flags };
}

/** `\p{Alpha}` → `[[:alpha:]]` (or `[:alpha:]` inside a class). */
function translatePosix(source: string): string {
  let out = '';
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (c === '\\') {
      const rest = source.slice(i);
      const m = /^\\([pP])\{(?:Is)?([A-Za-z]+)\}/.exec(rest);
      const posix = m ? POSIX_CLASSES[m[2] as string] : undefined;
      if (m && posix) {
        const negated = m[1] === 'P';
        out += depth > 0 ? `[:${negated ? '^' : ''}${posix}:]` : `[${negated ? '^' : ''}[:${posix}:]]`;
        i += m[0].length - 1;
        continue;
      }
      out += c + (source[i + 1] ?? '');
      i++;
    } else {
      if (c === '[') depth++;
      else if (c === ']' && depth > 0) depth--;
      out += c;
    }
  }
  return out;
}

const CACHE_LIMIT = 256;
/** Memo of compiled patterns: keys are pattern+flags, so entries never go stale; bounded in size. */
const cache = new Map<string, RE2 | RegexSyntaxError>();

/**
 * Compiles (or fetches from the memo) a Java-style pattern. Throws RegexSyntaxError when the
 * pattern is invalid or uses what RE2 cannot run.
 */
export function compileRegexOrThrow(pattern: string, javaFlags: readonly string[] = []): RE2 {
  const key = `${javaFlags.join('|')}\u0000${pattern}`;
  let entry = cache.get(key);
  if (entry === undefined) {
    try {
      const t = translate(pattern, javaFlags);
      entry = new (re2())(t.source, t.flags + 'g');
    } catch (err) {
      entry = err instanceof RegexSyntaxError ? err : new RegexSyntaxError(cleanRe2Message(err));
    }
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(key, entry);
  }
  if (entry instanceof RegexSyntaxError) throw entry;
  entry.lastIndex = 0;
  return entry;
}

function cleanRe2Message(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const m = /: ([^:]+: .*)$/.exec(text);
  return m ? (m[1] as string) : text;
}

/** Compiles for a library function: invalid patterns become a PipeError of kind `fn`. */
export function compileRegex(fn: string, pattern: string, javaFlags: readonly string[] = []): RE2 {
  try {
    return compileRegexOrThrow(pattern, javaFlags);
  } catch (err) {
    return fail(fn, `invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message}`);
  }
}

/** Build-time check: undefined when the pattern compiles, otherwise the reason. */
export function regexProblem(pattern: string, javaFlags: readonly string[] = []): string | undefined {
  try {
    compileRegexOrThrow(pattern, javaFlags);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

export interface RegexMatch {
  readonly index: number;
  readonly end: number;
  readonly groups: readonly (string | undefined)[];
  readonly named: Readonly<Record<string, string>> | undefined;
}

/**
 * re2-wasm copies the whole input into wasm memory on every search, so a global search costs
 * input length × matches. This budget (in characters copied) turns a pathological case — many
 * matches over a huge string — into a clear error instead of minutes of work.
 */
export const REGEX_WORK_LIMIT = 128 * 1024 * 1024;

/** The pattern itself when it has no regex syntax (and no flags): such patterns run as plain text search. */
export function literalPattern(pattern: string, javaFlags: readonly string[] = []): string | undefined {
  return javaFlags.length === 0 && !/[\\^$.|?*+()[\]{}]/.test(pattern) ? pattern : undefined;
}

/** Every non-overlapping match, left to right (empty matches advance by one code point). */
export function allMatches(fn: string, re: RE2, input: string): RegexMatch[] {
  const out: RegexMatch[] = [];
  let work = 0;
  re.lastIndex = 0;
  while (re.lastIndex <= input.length) {
    work += input.length + 1;
    if (work > REGEX_WORK_LIMIT) fail(fn, `too much regular-expression work: ${out.length} matches over ${input.length} characters; split the input or use a literal pattern`);
    const m = re.exec(input);
    if (!m) break;
    const text = m[0] ?? '';
    out.push({ index: m.index, end: m.index + text.length, groups: [...m], named: m.groups });
    if (text === '') {
      const code = input.codePointAt(m.index);
      re.lastIndex = m.index + (code !== undefined && code > 0xffff ? 2 : 1);
    }
  }
  re.lastIndex = 0;
  return out;
}
