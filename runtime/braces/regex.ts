/**
 * Double Braces' regular expressions (MATCHES, REPLACE, SPLIT, STRINGMATCHES): Java `Pattern`
 * syntax on RE2, through the shared translator (runtime/regex). A literal pattern is checked at
 * build time (compiler/braces/constant-args.ts); one that arrives with the data and cannot run
 * fails the function with 422.
 */
import { compileRegex as compileShared, RegexSyntaxError, type Re2Pattern } from '../regex/index.js';
import { PipeError } from '../errors.js';

export {
  allMatches,
  javaSplit,
  JAVA_FLAGS,
  literalPattern,
  parseJavaFlags,
  RegexSyntaxError,
  type RegexMatch,
} from '../regex/index.js';

/** Compiles for a library function: a pattern RE2 cannot run becomes a 422 PipeError of kind `fn`. */
export function compileRegex(fn: string, pattern: string, javaFlags: readonly string[] = []): Re2Pattern {
  try {
    return compileShared(pattern, 'java', javaFlags);
  } catch (err) {
    if (!(err instanceof RegexSyntaxError)) throw err;
    throw new PipeError(`${fn}: invalid regular expression ${JSON.stringify(shorten(pattern))}: ${err.message}`, {
      code: 422,
      kind: fn,
    });
  }
}

function shorten(pattern: string): string {
  return pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern;
}
