/**
 * Build-time checks of literal arguments: a pattern, unit, locale or zone written as a string
 * literal is validated by the SAME code the run time uses (runtime/braces), so a bad regex or
 * date pattern is a compile-time diagnostic instead of a failed execution.
 * In: the kind of constant and the literal value. Out: undefined, or the problem and its code.
 */
import { compileJsonPath } from '../../runtime/jsonpath.js';
import { compileDatePattern, DatePatternError, zoneOf } from '../../runtime/braces/date-pattern.js';
import { DATE_UNITS, unitOf } from '../../runtime/braces/date.js';
import { escapeTypeOf } from '../../runtime/braces/escape.js';
import { splitTailFunction } from '../../runtime/braces/json.js';
import { compileNumberPattern, normalizeLocale, NumberPatternError } from '../../runtime/braces/number-format.js';
import { parseJavaFlags, regexProblem } from '../../runtime/regex/index.js';
import { RANDOM_CHARSETS } from '../../runtime/braces/string.js';
import { CHARSET_NAMES, charsetOf } from '../../runtime/braces/utilities.js';
import type { ConstantKind } from './signatures.js';
import type { DiagnosticCode } from '../../base/diagnostics/codes.js';

export interface ConstantProblem {
  readonly code: DiagnosticCode;
  readonly message: string;
  readonly hint?: string;
  /** Candidates for did-you-mean (units, charsets…). */
  readonly candidates?: readonly string[];
}

const BACKTRACKING_HINT = 'rewrite the pattern without lookaround, backreferences, atomic groups or possessive quantifiers';

const NUMERIC_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

export function checkConstant(kind: ConstantKind, value: string): ConstantProblem | undefined {
  switch (kind) {
    case 'numeric':
      return NUMERIC_TEXT.test(value) ? undefined : { code: 'PIPE4004', message: `the text ${JSON.stringify(value)} is not a number`, hint: 'write the number without quotes' };
    case 'regex': {
      const problem = regexProblem(value);
      if (problem === undefined) return undefined;
      return problem.needsBacktracking
        ? { code: 'PIPE5504', message: `the regular expression ${JSON.stringify(value)} needs a backtracking engine: ${problem.message}`, hint: BACKTRACKING_HINT }
        : { code: 'PIPE4014', message: `invalid regular expression ${JSON.stringify(value)}: ${problem.message}` };
    }
    case 'regex-flags':
      try {
        parseJavaFlags(value);
        return undefined;
      } catch (err) {
        return { code: 'PIPE4017', message: (err as Error).message };
      }
    case 'date-format':
      if (value.toLowerCase() === 'timestamp') return undefined;
      try {
        compileDatePattern(value);
        return undefined;
      } catch (err) {
        if (err instanceof DatePatternError) return { code: 'PIPE4015', message: err.message, hint: 'pattern letters follow Java: yyyy MM dd HH mm ss SSS; write "timestamp" for epoch milliseconds' };
        throw err;
      }
    case 'number-pattern':
      try {
        compileNumberPattern(value);
        return undefined;
      } catch (err) {
        if (err instanceof NumberPatternError) return { code: 'PIPE4016', message: err.message, hint: 'number patterns use # and 0 for digits, `,` for grouping and `.` for decimals, e.g. "#,##0.00"' };
        throw err;
      }
    case 'locale':
      try {
        normalizeLocale(value);
        return undefined;
      } catch {
        return { code: 'PIPE4017', message: `unknown locale ${JSON.stringify(value)}`, hint: 'write a language tag such as "en-US", "pt-BR" or "de-DE"' };
      }
    case 'zone':
      return zoneOf(value) !== undefined ? undefined : { code: 'PIPE4017', message: `unknown time zone ${JSON.stringify(value)}`, hint: 'write an IANA zone such as "America/Sao_Paulo", "UTC" or an offset such as "GMT-3"' };
    case 'date-unit':
      return unitOf(value) !== undefined ? undefined : { code: 'PIPE4017', message: `unknown time unit ${JSON.stringify(value)}`, candidates: DATE_UNITS };
    case 'escape-type':
      return escapeTypeOf(value) !== undefined ? undefined : { code: 'PIPE4017', message: `unknown escape type ${JSON.stringify(value)}`, candidates: ['JSON', 'XML', 'CSV', 'HTML'] };
    case 'charset':
      return charsetOf(value) !== undefined ? undefined : { code: 'PIPE4017', message: `unsupported charset ${JSON.stringify(value)}`, candidates: CHARSET_NAMES };
    case 'random-charset':
      return RANDOM_CHARSETS.includes(value.toUpperCase()) ? undefined : { code: 'PIPE4017', message: `unknown charset ${JSON.stringify(value)}`, candidates: RANDOM_CHARSETS };
    case 'jsonpath':
      return jsonPathProblem(value);
  }
}

function jsonPathProblem(path: string): ConstantProblem | undefined {
  if (!path.trim().startsWith('$') && !path.trim().startsWith('@')) return { code: 'PIPE4017', message: `the JSONPath ${JSON.stringify(path)} must start with \`$\`` };
  try {
    compileJsonPath(splitTailFunction(path).path);
    return undefined;
  } catch (err) {
    return { code: 'PIPE4017', message: `invalid JSONPath ${JSON.stringify(path)}: ${(err as Error).message}` };
  }
}
