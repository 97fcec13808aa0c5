/**
 * Public API of Double Braces at build time: parse → type-check → emit.
 * `compileBraces` handles a bare `{{ expr }}` value (it keeps the expression's JSON type),
 * `compileTemplate` a string with `{{ }}` parts (always a string), `evaluateExpression` serves
 * `pipec eval` (compile and run one expression over sample data).
 * Diagnostics are returned, never thrown; `js` is `null` when there are errors.
 */
import type { BracesValue, TemplateValue } from '../ast/ast.js';
import type { Expr } from './expr-ast.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { hasErrors } from '../../base/diagnostics/diagnostic.js';
import { STRING, type PipeType } from '../types/pipe-type.js';
import { describeType, fits, withoutNull } from '../types/type-ops.js';
import { secretFrom } from '../types/secret.js';
import { analyzeBraces } from './analyze.js';
import { pathText, type CheckResult } from './check.js';
import { Emitter } from './emit.js';
import type { BracesEnv } from './env.js';
import * as errors from './errors.js';
import { withArticle } from './errors.js';

export type { BracesEnv } from './env.js';
export { analyze, analyzeBraces, type ParsedAndChecked } from './analyze.js';
export { evaluateExpression } from './evaluate.js';
export { SIGNATURES, FUNCTION_NAMES, findSignature, type FunctionSignature } from './signatures.js';

export interface CompiledBraces {
  readonly type: PipeType;
  /** A JavaScript expression over `B`, `message`, `ctx` (and `item` / `capsule`); `null` on errors. */
  readonly js: string;
  readonly diagnostics: readonly Diagnostic[];
}

const MAX_WHERE_LINES = 4;

/** HCL-style "where" lines: what each referenced path is, and what the outer function returns. */
function whereLines(expr: Expr, check: CheckResult): string[] {
  const lines: string[] = [];
  const paths = [...check.refs.keys()];
  for (const [path, type] of check.refs) {
    if (lines.length >= MAX_WHERE_LINES) break;
    // Only whole paths: not a bare scope, not a prefix of a longer referenced path.
    if (pathText(expr) === path || !/[.[]/.test(path)) continue;
    if (paths.some((other) => other !== path && (other.startsWith(`${path}.`) || other.startsWith(`${path}[`))))
      continue;
    lines.push(`\`${path}\` is ${withArticle(describeType(type))}`);
  }
  if (expr.kind === 'call') {
    const signature = check.calls.get(expr);
    if (signature && typeof signature.result !== 'function')
      lines.push(`\`${signature.name}(…)\` always returns ${withArticle(describeType(signature.result))}`);
  } else if (pathText(expr) !== undefined) {
    lines.unshift(`\`${pathText(expr) as string}\` is ${withArticle(describeType(check.type))}`);
  }
  return lines;
}

/** The conversion FUNCTION that fixes a common mismatch (Elm's problemToHint). */
function conversionHint(actual: PipeType, expected: PipeType, source: string): string | undefined {
  const a = withoutNull(actual);
  const e = withoutNull(expected);
  const inner = source.trim();
  if (e.kind === 'number' && a.kind === 'string')
    return `To turn text into a number, wrap it: \`{{ ${e.integer ? 'TOLONG' : 'TODOUBLE'}(${inner}) }}\`.`;
  if (e.kind === 'string' && (a.kind === 'number' || a.kind === 'boolean' || a.kind === 'object' || a.kind === 'array'))
    return `To turn it into text, wrap it: \`{{ TOSTRING(${inner}) }}\`.`;
  if (e.kind === 'boolean' && a.kind === 'string')
    return `To read text such as "true", wrap it: \`{{ TOBOOLEAN(${inner}) }}\`.`;
  if (e.kind === 'array' && a.kind !== 'array')
    return `To make a one-element array, wrap it: \`{{ CARDINALITYMANY(${inner}) }}\`.`;
  return undefined;
}

/**
 * Compiles a bare `{{ expr }}` value: its type is the expression's type.
 * @example compileBraces(node, env).js // 'B.CONCAT(B.field(message, "name"), "!")'
 */
export function compileBraces(node: BracesValue, env: BracesEnv): CompiledBraces {
  const { expr, check, diagnostics } = analyzeBraces(node, env);
  if (!expr || !check) return { type: { kind: 'unknown' }, js: 'null', diagnostics };
  const all = [...diagnostics];
  if (env.expected && !hasErrors(diagnostics) && fits(check.type, env.expected.type) === 'no') {
    all.push(
      errors.typeMismatch({
        span: expr.span,
        expected: env.expected.type,
        why: env.expected.why,
        actual: check.type,
        where: whereLines(expr, check),
        hint: conversionHint(check.type, env.expected.type, node.text),
      }),
    );
  }
  const js = hasErrors(all) ? 'null' : new Emitter(check.calls).emit(expr);
  return { type: check.type, js, diagnostics: all };
}

/**
 * Compiles `"text {{ a }} more"`: always a string (a secret one when a part holds a secret); each part is interpolated as text (null → "",
 * objects and arrays → JSON text). A string that is exactly one `{{ a }}` is not a template: it
 * keeps the expression's type (check/values.ts, HCL's rule).
 * @example compileTemplate(node, env).js // 'B.template("id-", B.field(message, "id"))'
 */
export function compileTemplate(node: TemplateValue, env: BracesEnv): CompiledBraces {
  const diagnostics: Diagnostic[] = [];
  const parts: string[] = [];
  const partTypes: PipeType[] = [];
  const partEnv: BracesEnv = { ...env, expected: undefined };
  for (const part of node.parts) {
    if (part.kind === 'text') {
      if (part.value !== '') parts.push(JSON.stringify(part.value));
      continue;
    }
    const compiled = compileBraces(part, partEnv);
    diagnostics.push(...compiled.diagnostics);
    parts.push(compiled.js);
    partTypes.push(compiled.type);
  }
  if (env.expected && fits(STRING, env.expected.type) === 'no') {
    const only = node.parts.filter((p) => p.kind === 'braces');
    const onlyBraces = only.length === 1 && node.parts.every((p) => p.kind === 'braces' || p.value.trim() === '');
    diagnostics.push(
      errors.typeMismatch({
        span: node.span,
        expected: env.expected.type,
        why: env.expected.why,
        actual: STRING,
        where: ['text around `{{ }}` inside quotes (even a space) makes a string'],
        hint: onlyBraces
          ? 'Remove the spaces around `{{ … }}`: a value that is exactly one `{{ … }}`, quoted or not, keeps the type of its value.'
          : undefined,
      }),
    );
  }
  const js = hasErrors(diagnostics) ? 'null' : `B.template(${parts.join(', ')})`;
  // Text that holds a secret is a secret.
  return { type: secretFrom(STRING, partTypes), js, diagnostics };
}
