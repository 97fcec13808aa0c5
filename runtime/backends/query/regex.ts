/**
 * `$regex` evaluation with RE2 (linear time, so hostile patterns such as `(a+)+$` cannot hang).
 * A small per-instance cache of compiled patterns; an invalid pattern is PipeError 400 BAD_QUERY.
 */
import { compileRegex, regexFlagNames, type Re2Pattern } from '../../regex/index.js';
import { badQuery } from '../json-safe.js';

export interface RegexTester {
  test(pattern: string, flags: string, text: string): boolean;
  /** Throws BAD_QUERY when the pattern does not compile (call before running a query). */
  check(pattern: string, flags: string): void;
}

export function createRegexTester(capacity = 256): RegexTester {
  const compiled = new Map<string, Re2Pattern>();
  const get = (pattern: string, flags: string): Re2Pattern => {
    const key = `${flags}/${pattern}`;
    const hit = compiled.get(key);
    if (hit) return hit;
    let re: Re2Pattern;
    try {
      re = compileRegex(pattern, 'ecmascript', regexFlagNames(flags));
    } catch (err) {
      throw badQuery(`invalid $regex ${JSON.stringify(pattern.slice(0, 80))}: ${(err as Error).message}`);
    }
    if (compiled.size >= capacity) {
      const oldest = compiled.keys().next().value;
      if (oldest !== undefined) compiled.delete(oldest);
    }
    compiled.set(key, re);
    return re;
  };
  return {
    test: (pattern, flags, text) => {
      return get(pattern, flags).test(text);
    },
    check: (pattern, flags) => void get(pattern, flags),
  };
}
