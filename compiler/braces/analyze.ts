/**
 * Parse + check of one expression text, shared by compileBraces, compileTemplate and eval.
 * In: expression text, the host offset of its first character (and the offset map when escapes
 * changed lengths), the env. Out: the tree, the check result and all diagnostics.
 */
import type { BracesValue } from '../ast/ast.js';
import { parseExpression, type ParseResult } from './parser.js';
import type { Expr } from './expr-ast.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { checkExpression, type CheckResult } from './check.js';
import type { BracesEnv } from './env.js';
import * as errors from './errors.js';

export interface ParsedAndChecked {
  readonly expr: Expr | undefined;
  readonly check: CheckResult | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/** Parses and checks expression text whose first character sits at `textStart` in `env.file`. */
export function analyze(
  text: string,
  textStart: number,
  offsets: readonly number[] | undefined,
  env: BracesEnv,
): ParsedAndChecked {
  return checked(parseExpression(text, { file: env.file, textStart, offsets }), env);
}

/** Parses of `{{ }}` values, by value: one is checked more than once (as a sink, on each route into a branch). */
const parses = new WeakMap<BracesValue, { readonly file: string; readonly parsed: ParseResult }>();

/** `analyze` of a `{{ }}` value of the AST, parsed once however often it is checked. */
export function analyzeBraces(node: BracesValue, env: BracesEnv): ParsedAndChecked {
  let known = parses.get(node);
  if (known?.file !== env.file) {
    const map = { file: env.file, textStart: node.textStart, offsets: node.offsets };
    known = { file: env.file, parsed: parseExpression(node.text, map) };
    parses.set(node, known);
  }
  return checked(known.parsed, env);
}

function checked(parsed: ParseResult, env: BracesEnv): ParsedAndChecked {
  if (parsed.problem) return { expr: undefined, check: undefined, diagnostics: [errors.syntax(parsed.problem)] };
  const check = checkExpression(parsed.expr, env);
  return { expr: parsed.expr, check, diagnostics: check.diagnostics };
}
