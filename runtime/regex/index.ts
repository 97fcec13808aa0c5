/**
 * User regular expressions on RE2 (linear time, so `(a+)+$` cannot hang an execution): the one
 * entry for Double Braces, JSLT, JOLT and (through schema-pattern.ts) JSON Schema. Patterns are
 * translated to RE2 syntax (translate.ts), compiled once per (dialect, flags, pattern) and kept in
 * a bounded memo, so a constant pattern compiles once and a pattern from a request costs one
 * compile. What RE2 cannot run is a RegexSyntaxError: the compiler reports it for literal
 * patterns, the runtime turns it into the step's error for patterns that arrive with the data.
 */
import { PipeError } from '../errors.js';
import { compileRe2, re2ErrorMessage, type Re2Pattern } from '../re2.js';
import { RegexSyntaxError, toRe2Syntax, type RegexDialect } from './translate.js';

export {
  JAVA_FLAGS,
  MAX_PATTERN_LENGTH,
  parseJavaFlags,
  quoteLiteral,
  RegexSyntaxError,
  type RegexDialect,
} from './translate.js';
export type { Re2Pattern } from '../re2.js';

const CACHE_LIMIT = 512;
/** Compiled patterns (or why they do not compile), by dialect, flags and text; oldest dropped first. */
const cache = new Map<string, Re2Pattern | RegexSyntaxError>();

/** Compiles (or fetches from the memo) a pattern; throws RegexSyntaxError when RE2 cannot run it. */
export function compileRegex(
  pattern: string,
  dialect: RegexDialect = 'java',
  javaFlags: readonly string[] = [],
): Re2Pattern {
  const key = `${dialect}\u0000${javaFlags.join('|')}\u0000${pattern}`;
  let entry = cache.get(key);
  if (entry === undefined) {
    entry = compileFresh(pattern, dialect, javaFlags);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(key, entry);
  }
  if (entry instanceof RegexSyntaxError) throw entry;
  return entry;
}

function compileFresh(
  pattern: string,
  dialect: RegexDialect,
  javaFlags: readonly string[],
): Re2Pattern | RegexSyntaxError {
  try {
    return compileRe2(toRe2Syntax(pattern, dialect, javaFlags).source);
  } catch (err) {
    return err instanceof RegexSyntaxError ? err : new RegexSyntaxError(re2ErrorMessage(err));
  }
}

/** Build-time check: undefined when the pattern runs on RE2, otherwise why not. */
export function regexProblem(
  pattern: string,
  dialect: RegexDialect = 'java',
  javaFlags: readonly string[] = [],
): RegexSyntaxError | undefined {
  try {
    compileRegex(pattern, dialect, javaFlags);
    return undefined;
  } catch (err) {
    if (err instanceof RegexSyntaxError) return err;
    throw err;
  }
}

/** The pattern itself when it has no regex syntax (and no flags): such patterns run as plain text search. */
export function literalPattern(pattern: string, javaFlags: readonly string[] = []): string | undefined {
  return javaFlags.length === 0 && !/[\\^$.|?*+()[\]{}]/.test(pattern) ? pattern : undefined;
}

export interface RegexMatch {
  readonly index: number;
  readonly end: number;
  /** Group 0 (the match) and every capturing group; undefined where a group took no part. */
  readonly groups: readonly (string | undefined)[];
  /** Named groups, or undefined when the pattern names none. */
  readonly named: Readonly<Record<string, string | undefined>> | undefined;
}

/** The first match at or after `from`, with its groups, or null. */
export function firstMatch(re: Re2Pattern, input: string, from = 0): RegexMatch | null {
  // The DFA answers "is there a match" several times faster than a search that tracks groups.
  if (from === 0 && !re.test(input)) return null;
  const matcher = re.matcher(input);
  return matcher.find(from) ? withGroups(re, matcher) : null;
}

/**
 * Every non-overlapping match, left to right (after an empty match the search moves on by one
 * character, as Java's Matcher.find does), with its groups when `groups` is set (they cost a
 * second pass over each match). Linear in the input: each search starts where the previous
 * match ended.
 */
export function allMatches(re: Re2Pattern, input: string, groups = true): RegexMatch[] {
  const out: RegexMatch[] = [];
  if (!re.test(input)) return out;
  const matcher = re.matcher(input);
  while (matcher.find())
    out.push(
      groups ? withGroups(re, matcher) : { index: matcher.start(), end: matcher.end(), groups: [], named: undefined },
    );
  return out;
}

type Matcher = ReturnType<Re2Pattern['matcher']>;

function withGroups(re: Re2Pattern, matcher: Matcher): RegexMatch {
  const groups: (string | undefined)[] = [];
  for (let g = 0; g <= matcher.groupCount(); g++) groups.push(matcher.group(g) ?? undefined);
  const names = re.namedGroups();
  let named: Record<string, string | undefined> | undefined;
  for (const name in names) {
    named ??= Object.create(null) as Record<string, string | undefined>;
    named[name] = groups[names[name] as number];
  }
  return { index: matcher.start(), end: matcher.end(), groups, named };
}

/**
 * Java's `String.split(regex)`: a zero-width match at the start gives no leading empty piece,
 * trailing empty pieces are removed, and no match at all gives the whole text.
 */
export function javaSplit(re: Re2Pattern, text: string): string[] {
  if (text === '') return [''];
  const pieces: string[] = [];
  let last = 0;
  for (const m of allMatches(re, text, false)) {
    if (m.end === 0) continue;
    if (m.index === m.end && m.index >= text.length) break;
    pieces.push(text.slice(last, m.index));
    last = m.end;
  }
  pieces.push(text.slice(last));
  while (pieces.length > 1 && pieces[pieces.length - 1] === '') pieces.pop();
  if (pieces.length === 1 && pieces[0] === '') return [];
  return pieces;
}

/**
 * The error of a step whose pattern arrived with the data (a literal one is checked at build time)
 * and cannot run: the data is at fault, so 422.
 */
export function patternRefused(where: string, pattern: string, err: RegexSyntaxError): PipeError {
  const shown = pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern;
  return new PipeError(`${where}: the regular expression ${JSON.stringify(shown)} cannot be used: ${err.message}`, {
    code: 422,
    kind: 'INVALID_PATTERN',
  });
}

/** Object Store `$regex` options (i, m, s) as the flag names the translator takes (the query engine and the compiler's check). */
export function regexFlagNames(flags: string): string[] {
  const names: string[] = [];
  if (flags.includes('i')) names.push('CASE_INSENSITIVE');
  if (flags.includes('m')) names.push('MULTILINE');
  if (flags.includes('s')) names.push('DOTALL');
  return names;
}
