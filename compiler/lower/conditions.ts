/**
 * Choice conditions and for-each collections: a JSONPath string (parsed and checked against the
 * message shape at build time, evaluated by runtime/jsonpath.ts) or a `{{ }}` expression.
 */
import type { BracesValue, StringValue, Value } from '../ast/ast.js';
import { analyzeJsonPath } from '../types/jsonpath-type.js';
import { literalOffsets } from '../types/literal-offsets.js';
import { compileBraces } from '../braces/index.js';
import { conditionNeverTrue, literalOutsideEnum, nearMissField } from '../braces/errors.js';
import { conditionHint, neverBoolean } from '../braces/check.js';
import { hasErrors } from '../../base/diagnostics/diagnostic.js';
import {
  assignmentInJsonPath,
  invalidJsonPath,
  noSuchPathField,
  forEachOverList,
  forEachOverScalar,
  notACollection,
  notACondition,
  pathIntoScalar,
} from './errors.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import type { JsExpr } from './plan.js';
import { UNKNOWN, type PipeType } from '../types/pipe-type.js';
import { union } from '../types/type-ops.js';
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
    // Only `true` takes the branch: a value never boolean when present never does.
    if (!hasErrors(compiled.diagnostics) && neverBoolean(compiled.type)) {
      const text = braces.text.trim();
      const what = text.length <= 40 && !text.includes('`') ? `\`${text}\`` : 'this value';
      ctx.diagnostics.push(
        conditionNeverTrue({
          span: braces.span,
          what,
          found: compiled.type,
          hint: conditionHint(text.length <= 40 ? text : '…', compiled.type),
        }),
      );
    }
    return {
      expr: { js: `B.isTruthy(${compiled.js})`, constant: false },
      alwaysTrue: false,
      describe: braces.text.trim(),
    };
  }
  if (value.kind === 'string') {
    const path = checkJsonPath(value.value, value, message, ctx);
    if (path === undefined) return { expr: { js: 'false', constant: true }, alwaysTrue: false, describe: value.value };
    const name = ctx.hoist('jsonpath', `R.compileJsonPath(${JSON.stringify(value.value)})`, value.value);
    return {
      expr: { js: `R.jsonPathMatches(${name}, message)`, constant: false },
      alwaysTrue: value.value.trim() === '$',
      describe: value.value,
    };
  }
  ctx.diagnostics.push(notACondition(value.span));
  return { expr: { js: 'false', constant: true }, alwaysTrue: false, describe: '' };
}

export function compileCollection(
  value: Value,
  message: PipeType,
  ctx: PipelineContext,
): { expr: JsExpr; element: PipeType } {
  const braces = singleBraces(value);
  if (braces) {
    const compiled = compileBraces(braces, ctx.bracesEnv(message));
    ctx.diagnostics.push(...compiled.diagnostics);
    const element = elementsOf(compiled.type);
    const scalar = compiled.type.kind;
    if (
      (scalar === 'number' || scalar === 'string' || scalar === 'boolean') &&
      !compiled.diagnostics.some((d) => d.severity === 'error')
    ) {
      ctx.diagnostics.push(forEachOverScalar(braces.span, scalar));
    }
    return { expr: { js: `R.asArray(${compiled.js})`, constant: false }, element };
  }
  if (value.kind === 'string') {
    const path = checkJsonPath(value.value, value, message, ctx);
    if (path === undefined) return { expr: { js: '[]', constant: true }, element: UNKNOWN };
    // A definite path (no wildcard, filter, slice, union or deep scan) selects one node: when that
    // node is a list, the body runs once, with the whole list.
    if (path.element.kind === 'array' && !/[*?:,]|\.\./u.test(value.value)) {
      ctx.diagnostics.push(forEachOverList(value.span, value.value));
    }
    const name = ctx.hoist('jsonpath', `R.compileJsonPath(${JSON.stringify(value.value)})`, value.value);
    return { expr: { js: `R.jsonPathQuery(${name}, message)`, constant: false }, element: path.element };
  }
  ctx.diagnostics.push(notACollection(value.span));
  return { expr: { js: '[]', constant: true }, element: UNKNOWN };
}

/**
 * The type of the elements a `{{ }}` collection gives, as `R.asArray` makes them: an array's items,
 * nothing for null, any other value as itself; a union joins what each member gives.
 */
function elementsOf(t: PipeType): PipeType {
  switch (t.kind) {
    case 'array':
      return t.items;
    case 'union': {
      const members = t.members.filter((m) => m.kind !== 'null');
      return members.length === 0 ? UNKNOWN : union(...members.map(elementsOf));
    }
    case 'null':
      return UNKNOWN;
    default:
      return t;
  }
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

/**
 * Parses the path with the run time's parser (syntax errors → PIPE5501, at the `=` written for `==`)
 * and checks its fields, and those of the `@` chains in its filters, against the shape (PIPE5502).
 */
function checkJsonPath(
  source: string,
  value: StringValue,
  message: PipeType,
  ctx: PipelineContext,
): CheckedPath | undefined {
  const at = literalOffsets(value);
  if (!source.trim().startsWith('$')) {
    ctx.diagnostics.push(invalidJsonPath('a JSONPath starts with `$`', at(0, source.length)));
    return undefined;
  }
  const analysis = analyzeJsonPath(source, message, { objectFilter: 'self' });
  let broken = false;
  for (const finding of analysis.findings) {
    if (finding.kind === 'syntax') {
      broken = true;
      ctx.diagnostics.push(
        finding.assignment
          ? assignmentInJsonPath(finding.problem, at(finding.start, finding.end))
          : invalidJsonPath(finding.problem, at(finding.start, finding.end)),
      );
    } else if (finding.kind === 'enum') {
      const { chain: field, literal, operator, miss } = finding;
      ctx.diagnostics.push(
        literalOutsideEnum({ span: at(finding.start, finding.end), field, literal, operator, ...miss }),
      );
    } else if (finding.kind === 'near-miss') {
      const { field, declared, owner } = finding;
      const fields = owner.kind === 'object' ? owner.fields : {};
      ctx.diagnostics.push(
        nearMissField({ span: at(finding.start, finding.end), field, declared, owner: undefined, fields }),
      );
    } else {
      const span = at(finding.start, finding.end);
      const candidates = fieldsOf(finding.owner);
      ctx.diagnostics.push(
        pathIntoScalar(finding.field, span, finding.owner) ??
          noSuchPathField(finding.field, span, candidates, suggest(finding.field, candidates)),
      );
    }
  }
  return broken ? undefined : { element: analysis.selected };
}

function fieldsOf(owner: PipeType): string[] {
  if (owner.kind === 'object') return Object.keys(owner.fields);
  if (owner.kind === 'union') return [...new Set(owner.members.flatMap(fieldsOf))];
  return [];
}
