/**
 * `$regex` evaluation with RE2 (linear time, so hostile patterns such as `(a+)+$` cannot hang).
 * A small per-instance cache of compiled patterns; an invalid pattern is PipeError 400 BAD_QUERY.
 */
import type { RE2 } from 're2-wasm';
import { re2 } from '../../re2.js';
import { badQuery } from '../json-safe.js';

export interface RegexTester {
  test(pattern: string, flags: string, text: string): boolean;
  /** Throws BAD_QUERY when the pattern does not compile (call before running a query). */
  check(pattern: string, flags: string): void;
}

export function createRegexTester(capacity = 256): RegexTester {
  const compiled = new Map<string, RE2>();
  const get = (pattern: string, flags: string): RE2 => {
    const key = `${flags}/${pattern}`;
    const hit = compiled.get(key);
    if (hit) return hit;
    let re: RE2;
    try {
      re = new (re2())(pattern, `${flags}u`);
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
      const re = get(pattern, flags);
      re.lastIndex = 0;
      return re.test(text);
    },
    check: (pattern, flags) => void get(pattern, flags),
  };
}
