/**
 * Choice conditions and for-each collections: a JSONPath string (parsed and checked against the
 * message shape at build time, evaluated by runtime/jsonpath.ts) or a `{{ }}` expression.
 */
import { JSONPath } from 'jsonpath-plus';
import { compileJsonPath } from '../../runtime/jsonpath.js';
import type { BracesValue, Value } from '../ast/ast.js';
import { compileBraces } from '../braces/index.js';
import { invalidJsonPath, noSuchPathField, notACollection, notACondition } from './errors.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import type { JsExpr } from './plan.js';
import type { Span } from '../../base/source/span.js';
import { UNKNOWN, type PipeType } from '../types/pipe-type.js';
import type { PipelineContext } from '../check/context.js';

export interface CompiledCondition {
  readonly expr: JsExpr;
  /** True for conditions that match every message (`$`). */
  readonly alwaysTrue: boolean;
  /** Human description for logs/traces: the JSONPath or expression text. */
  readonly describe: string;
}

export function compileCondition(value: Value, message: PipeType, ctx: PipelineContext): CompiledCondition {
  const braces = singleBraces(value);
  if (braces) {
    const compiled = compileBraces(braces, ctx.bracesEnv(message));
    ctx.diagnostics.push(...compiled.diagnostics);
    return { expr: { js: `B.isTruthy(${compiled.js})`, constant: false }, alwaysTrue: false, describe: braces.text.trim() };
  }
  if (value.kind === 'string') {
    const path = checkJsonPath(value.value, value.span, message, ctx);
    if (path === undefined) return { expr: { js: 'false', constant: true }, alwaysTrue: false, describe: value.value };
    const name = ctx.hoist('jsonpath', `R.compileJsonPath(${JSON.stringify(value.value)})`, value.value);
    return { expr: { js: `R.jsonPathMatches(${name}, message)`, constant: false }, alwaysTrue: value.value.trim() === '$', describe: value.value };
  }
  ctx.diagnostics.push(
    notACondition(value.span),
  );
  return { expr: { js: 'false', constant: true }, alwaysTrue: false, describe: '' };
}

export function compileCollection(value: Value, message: PipeType, ctx: PipelineContext): { expr: JsExpr; element: PipeType } {
  const braces = singleBraces(value);
  if (braces) {
    const compiled = compileBraces(braces, ctx.bracesEnv(message));
    ctx.diagnostics.push(...compiled.diagnostics);
    const element = compiled.type.kind === 'array' ? compiled.type.items : UNKNOWN;
    return { expr: { js: `R.asArray(${compiled.js})`, constant: false }, element };
  }
  if (value.kind === 'string') {
    const path = checkJsonPath(value.value, value.span, message, ctx);
    if (path === undefined) return { expr: { js: '[]', constant: true }, element: UNKNOWN };
    const name = ctx.hoist('jsonpath', `R.compileJsonPath(${JSON.stringify(value.value)})`, value.value);
    return { expr: { js: `R.jsonPathQuery(${name}, message)`, constant: false }, element: path.element };
  }
  ctx.diagnostics.push(
    notACollection(value.span),
  );
  return { expr: { js: '[]', constant: true }, element: UNKNOWN };
}

/** `{{ x }}` or `"{{ x }}"` (a template whose only part is one expression). */
function singleBraces(value: Value): BracesValue | undefined {
  if (value.kind === 'braces') return value;
  if (value.kind === 'template') {
    const parts = value.parts.filter((p) => !(p.kind === 'text' && p.value.trim() === ''));
    if (parts.length === 1 && parts[0]?.kind === 'braces') return parts[0];
  }
  return undefined;
}

interface CheckedPath {
  /** Shape of the nodes the path selects, when it is known. */
  readonly element: PipeType;
}

/** Parses the path (syntax errors → PIPE5501) and checks field names against the shape (PIPE5502). */
function checkJsonPath(source: string, span: Span, message: PipeType, ctx: PipelineContext): CheckedPath | undefined {
  const inner = { file: span.file, start: span.start + 1, end: span.end - 1 };
  const syntaxError = jsonPathSyntaxError(source) ?? compileProblem(source);
  if (syntaxError) {
    ctx.diagnostics.push(
      invalidJsonPath(syntaxError, inner),
    );
    return undefined;
  }
  const segments = JSONPath.toPathArray(source.replace(/(?<!\.)\.\[/g, '[')) as string[];
  let current: PipeType = message;
  for (const segment of segments.slice(1)) {
    if (segment === '..' || segment === '*' || segment.startsWith('(')) return { element: UNKNOWN };
    if (segment.startsWith('?(')) {
      const target: PipeType = current.kind === 'array' ? current.items : current;
      checkFilterFields(segment, target, source, inner, ctx);
      current = target;
      continue;
    }
    if (/^-?\d+$/.test(segment) || segment.includes(':') || segment.includes(',')) {
      current = current.kind === 'array' ? current.items : UNKNOWN;
      continue;
    }
    const next = fieldOf(current, segment);
    if (next === 'missing') {
      reportMissingField(segment, current, source, inner, ctx);
      return { element: UNKNOWN };
    }
    current = next;
  }
  return { element: current };
}

/** What the run time's parser (runtime/jsonpath.ts) refuses, e.g. a filter that does not parse. */
function compileProblem(source: string): string | undefined {
  try {
    compileJsonPath(source);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function jsonPathSyntaxError(source: string): string | undefined {
  const trimmed = source.trim();
  if (!trimmed.startsWith('$')) return 'a JSONPath starts with `$`';
  let depthSquare = 0;
  let depthRound = 0;
  let quote: string | undefined;
  for (const ch of trimmed) {
    if (quote) {
      if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '[') depthSquare++;
    else if (ch === ']') depthSquare--;
    else if (ch === '(') depthRound++;
    else if (ch === ')') depthRound--;
    if (depthSquare < 0) return 'unexpected `]`';
    if (depthRound < 0) return 'unexpected `)`';
  }
  if (quote) return 'unterminated string';
  if (depthSquare > 0) return 'missing `]`';
  if (depthRound > 0) return 'missing `)`';
  try {
    const segments = JSONPath.toPathArray(trimmed) as string[];
    for (const segment of segments) {
      if (segment.startsWith('?(')) parseFilterScript(segment.slice(2, -1));
    }
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  return undefined;
}

/** Parses a filter the way jsonpath-plus will (its safe evaluator's parser), without running it. */
function parseFilterScript(script: string): void {
  const prepared = script
    .replaceAll('@parentProperty', '_$_parentProperty')
    .replaceAll('@parent', '_$_parent')
    .replaceAll('@property', '_$_property')
    .replaceAll('@root', '_$_root')
    .replaceAll(/@([.\s)[])/gu, '_$_v$1');
  const ScriptClass = (JSONPath as unknown as { prototype: { safeVm: { Script: new (code: string) => unknown } } }).prototype.safeVm.Script;
  new ScriptClass(prepared);
}

function checkFilterFields(segment: string, target: PipeType, source: string, span: Span, ctx: PipelineContext): void {
  for (const match of segment.matchAll(/@\.([A-Za-z_$][\w$-]*)/g)) {
    const field = match[1] as string;
    if (fieldOf(target, field) === 'missing') reportMissingField(field, target, source, span, ctx);
  }
}

function fieldOf(type: PipeType, field: string): PipeType | 'missing' {
  if (type.kind === 'object') {
    const found = Object.hasOwn(type.fields, field) ? type.fields[field] : undefined;
    if (found) return found.type;
    return type.open ? UNKNOWN : 'missing';
  }
  if (type.kind === 'union') {
    const options = type.members.map((m) => fieldOf(m, field)).filter((t): t is PipeType => t !== 'missing');
    return options.length === 0 ? 'missing' : options.length === 1 ? (options[0] as PipeType) : UNKNOWN;
  }
  return UNKNOWN;
}

function reportMissingField(field: string, owner: PipeType, source: string, span: Span, ctx: PipelineContext): void {
  const candidates = owner.kind === 'object' ? Object.keys(owner.fields) : [];
  const close = suggest(field, candidates);
  const at = source.indexOf(field);
  const fieldSpan = at >= 0 ? { file: span.file, start: span.start + at, end: span.start + at + field.length } : span;
  ctx.diagnostics.push(
    noSuchPathField(field, fieldSpan, candidates, close),
  );
}
