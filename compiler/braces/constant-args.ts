/**
 * Build-time checks of literal arguments: a pattern, unit, locale or zone written as a string
 * literal is validated by the SAME code the run time uses (runtime/braces), so a bad regex or
 * date pattern is a compile-time diagnostic instead of a failed execution.
 * In: the kind of constant and the literal value. Out: undefined, or the problem and its code
 * (built by errors.ts, which holds the prose).
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
import { closestZone } from './zones.js';
import type { DiagnosticCode } from '../../base/diagnostics/codes.js';
import * as E from './errors.js';

export interface ConstantProblem {
  readonly code: DiagnosticCode;
  readonly message: string;
  readonly hint?: string;
  /** Short phrase under the caret (a did-you-mean), when the problem has one. */
  readonly label?: string;
  /** Candidates for did-you-mean (units, charsets…). */
  readonly candidates?: readonly string[];
}

const NUMERIC_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

export function checkConstant(kind: ConstantKind, value: string): ConstantProblem | undefined {
  switch (kind) {
    case 'numeric':
      return NUMERIC_TEXT.test(value) ? undefined : E.textNotANumber(value);
    case 'regex': {
      const problem = regexProblem(value);
      if (problem === undefined) return undefined;
      return problem.needsBacktracking
        ? E.regexNeedsBacktracking(value, problem.message)
        : E.invalidRegex(value, problem.message);
    }
    case 'regex-flags':
      try {
        parseJavaFlags(value);
        return undefined;
      } catch (err) {
        return E.badRegexFlags((err as Error).message);
      }
    case 'date-format':
      if (value.toLowerCase() === 'timestamp') return undefined;
      try {
        compileDatePattern(value);
        return undefined;
      } catch (err) {
        if (err instanceof DatePatternError) return E.badDatePattern(err.message);
        throw err;
      }
    case 'number-pattern':
      try {
        compileNumberPattern(value);
        return undefined;
      } catch (err) {
        if (err instanceof NumberPatternError) return E.badNumberPattern(err.message);
        throw err;
      }
    case 'locale':
      try {
        normalizeLocale(value);
        return undefined;
      } catch {
        return E.unknownLocale(value);
      }
    case 'zone':
      return zoneOf(value) !== undefined ? undefined : E.unknownZone(value, closestZone(value));
    case 'date-unit':
      return unitOf(value) !== undefined ? undefined : E.notOneOfConstants('time unit', value, DATE_UNITS);
    case 'escape-type':
      if (escapeTypeOf(value) !== undefined) return undefined;
      return E.notOneOfConstants('escape type', value, ['JSON', 'XML', 'CSV', 'HTML']);
    case 'charset':
      if (charsetOf(value) !== undefined) return undefined;
      return E.notOneOfConstants('charset', value, CHARSET_NAMES, 'unsupported');
    case 'random-charset':
      if (RANDOM_CHARSETS.includes(value.toUpperCase())) return undefined;
      return E.notOneOfConstants('charset', value, RANDOM_CHARSETS);
    case 'jsonpath':
      return jsonPathProblem(value);
  }
}

function jsonPathProblem(path: string): ConstantProblem | undefined {
  if (!path.trim().startsWith('$') && !path.trim().startsWith('@')) return E.jsonPathWithoutRoot(path);
  try {
    compileJsonPath(splitTailFunction(path).path);
    return undefined;
  } catch (err) {
    return E.invalidConstantJsonPath(path, (err as Error).message);
  }
}
