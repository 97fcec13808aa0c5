/**
 * JSLT's regular expressions (`test`, `capture`, `split`, `replace`): Java syntax on RE2, through
 * the shared translator (runtime/regex), so they run in linear time whatever the input.
 * A literal pattern is checked at build time (compiler/jslt/codegen.ts, PIPE5310 / PIPE5504);
 * one that arrives with the data and cannot run fails the step with 422. The error text keeps
 * "regular expression", as the reference implementation's does.
 */
import { compileRegex, patternRefused, RegexSyntaxError, type Re2Pattern } from '../regex/index.js';
import { jsltError } from './values.js';

export { javaSplit } from '../regex/index.js';

export const MAX_SUBJECT_LENGTH = 1_000_000;

/** Compiles (memoised) a Java-syntax regular expression for the function `fn`. */
export function javaRegex(pattern: string, fn: string): Re2Pattern {
  try {
    return compileRegex(pattern, 'java');
  } catch (err) {
    if (err instanceof RegexSyntaxError) throw patternRefused(`${fn}()`, pattern, err);
    throw err;
  }
}

/** Why a literal pattern cannot run (build time), or undefined. */
export { regexProblem } from '../regex/index.js';

export function checkSubject(text: string, functionName: string): string {
  if (text.length > MAX_SUBJECT_LENGTH) {
    throw jsltError(`${functionName}(): input longer than ${MAX_SUBJECT_LENGTH} characters`);
  }
  return text;
}

/** Names of the named groups, sorted (the order `capture` reports them in). */
export function namedGroups(regex: Re2Pattern): string[] {
  return Object.keys(regex.namedGroups()).sort();
}
