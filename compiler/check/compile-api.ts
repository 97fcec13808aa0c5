/**
 * The implementation of the hook API (compiler/connectors/hook-api.ts): the one object through
 * which connectors' and triggers' compile-time parts reach the compiler. Stateless; everything
 * per-pipeline goes through the `ctx` they are given.
 */
import { regexFlagNames, regexProblem } from '../../runtime/regex/index.js';
import { FIELD_OPERATORS, LOGICAL_OPERATORS } from '../../runtime/backends/query/filter.js';
import type { ObjectValue, Value } from '../ast/ast.js';
import {
  entryOf,
  escapePointer,
  isDynamicPointer,
  spanAt,
  staticJson,
  stepsEntryOf,
  toLiteral,
} from '../ast/literal.js';
import type { Span } from '../../base/source/span.js';
import { diagnostic } from '../../base/diagnostics/codes.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import type { CompileApi, ConfigReader, ShapeKit } from '../connectors/hook-api.js';
import { compileJoltChain } from '../jolt/index.js';
import { inferJoltShape } from '../jolt/infer-shape.js';
import { compileJslt } from '../jslt/index.js';
import { inferJslt } from '../jslt/infer-shape.js';
import { fieldNeverThere } from '../jslt/errors.js';
import { compileValue, propertyKey } from '../lower/values.js';
import { checkExists } from '../resolve/references.js';
import { checkAccountType } from './account-types.js';
import { resolveSchemaValue, schemaLocator } from '../resolve/schema-refs.js';
import {
  arrayOf,
  BOOLEAN,
  INTEGER,
  NULL,
  NUMBER,
  objectOf,
  STRING,
  UNKNOWN,
  type FieldType,
  type PipeType,
} from '../types/pipe-type.js';
import { asMessageShape } from '../types/output-shape.js';
import type { PipelineContext } from './context.js';
import { detectDraft } from './json-schema.js';
import { schemaToType } from './shapes.js';
import { narrowBySchema, union } from '../types/type-ops.js';

const SHAPES: ShapeKit = {
  UNKNOWN,
  NULL,
  BOOLEAN,
  NUMBER,
  INTEGER,
  STRING,
  arrayOf,
  objectOf,
  closed(fields: Record<string, PipeType>, optional: readonly string[] = []): PipeType {
    const out: Record<string, FieldType> = {};
    for (const [key, type] of Object.entries(fields)) out[key] = { type, required: !optional.includes(key) };
    return { kind: 'object', fields: out, open: false };
  },
  narrow: narrowBySchema,
  union,
};

export const COMPILE_API: CompileApi = {
  diagnostic,
  suggest,
  checkReference(ctx, kind, name, span) {
    return checkExists(ctx.diagnostics, ctx.facts.decls, kind, name, span);
  },
  checkAccount(ctx, name, span, property, owner) {
    if (!checkExists(ctx.diagnostics, ctx.facts.decls, 'account', name, span)) return false;
    checkAccountType(ctx.diagnostics, ctx.facts.decls, property, name, span, owner);
    return true;
  },
  entryOf,
  stepsEntryOf,
  toLiteral,
  spanAt,
  staticJson,
  isDynamicPointer,
  escapePointer,
  reader: configReader,
  resolveSchema(value, ctx) {
    return resolveSchemaValue(value, ctx.facts.decls, ctx.diagnostics);
  },
  compileSchemaParam(value, ctx, hint, draft) {
    if (!value) return { type: UNKNOWN };
    const resolved = resolveSchemaValue(value, ctx.facts.decls, ctx.diagnostics);
    if (resolved === undefined) return { type: UNKNOWN };
    const validator = ctx.compileSchema(resolved, value.span, draft, hint, schemaLocator(value, ctx.facts.decls));
    return { ...(validator ? { validator } : {}), schema: resolved, type: schemaToType(resolved) };
  },
  schemaToType,
  schemaViolations(schema, value, ctx) {
    return ctx.facts.schemas.violations(schema, detectDraft(schema) ?? 'draft-07', value);
  },
  compileValue(value, env, ctx) {
    return compileValue(value, env, ctx.diagnostics);
  },
  propertyKey,
  compileJoltChain(spec, locate, ctx) {
    if (!ctx) return compileJoltChain(spec, locate);
    // A check only wants the diagnostics: no fast path, and no source lines for the comments of code
    // nobody reads (each one located the spec key and its line).
    if (!ctx.facts.forEmit) return compileJoltChain(spec, locate, { fixedShape: false });
    const sourceLine = (span: Span): string => {
      const at = ctx.source(span);
      return `${at.file}:${at.line}`;
    };
    return compileJoltChain(spec, locate, { sourceLine, fixedShape: true });
  },
  inferJoltShape,
  inferJsltShape(value, input, ctx) {
    const inferred = inferJslt(value.value, input);
    const mapOffset = offsetMapper(value, ctx);
    const diagnostics = inferred.absentReads.map((read) => {
      const problem = fieldNeverThere(read.key, read.fields, suggest(read.key, read.fields));
      return diagnostic(problem.code, {
        message: problem.message,
        span: { file: value.span.file, start: mapOffset(read.start), end: mapOffset(read.end) },
        ...(problem.hint !== undefined ? { hint: problem.hint } : {}),
      });
    });
    return { type: asMessageShape(inferred.type), diagnostics };
  },
  valueType(value, message, ctx) {
    return compileValue(value, ctx.bracesEnv(message), []).type;
  },
  compileJsltValue(value, ctx) {
    return compileJslt(value.value, { file: value.span.file, mapOffset: offsetMapper(value, ctx) });
  },
  triggerAuth,
  queryOperators: { logical: LOGICAL_OPERATORS, field: FIELD_OPERATORS },
  queryRegexProblem(pattern, options) {
    const problem = regexProblem(pattern, 'ecmascript', regexFlagNames(options));
    return problem ? { message: problem.message, needsBacktracking: problem.needsBacktracking } : undefined;
  },
  types: SHAPES,
};

function configReader(config: ObjectValue): ConfigReader {
  return {
    num(key, fallback) {
      const v = entryOf(config, key);
      return v?.kind === 'number' ? v.value : v?.kind === 'duration' ? v.ms : v?.kind === 'size' ? v.bytes : fallback;
    },
    str(key, fallback) {
      const v = entryOf(config, key);
      return v?.kind === 'string' ? v.value : v?.kind === 'ident' ? v.name : fallback;
    },
    bool(key, fallback) {
      const v = entryOf(config, key);
      return v?.kind === 'boolean' ? v.value : fallback;
    },
  };
}

/** The runtime AuthSpec (runtime/security/auth.ts) as JS, with the account checked. */
function triggerAuth(value: Value | undefined, ctx: PipelineContext): string | undefined {
  if (!value || value.kind !== 'object') return undefined;
  const json = staticJson(value) as Record<string, unknown> | undefined;
  if (!json) return undefined;
  const account = json['account'];
  if (typeof account === 'string') {
    const accountValue = entryOf(value, 'account');
    checkExists(ctx.diagnostics, ctx.facts.decls, 'account', account, accountValue?.span ?? value.span);
  }
  const spec: Record<string, unknown> = { type: json['type'] };
  if (json['type'] === 'api-key') {
    spec['in'] = json['in'] ?? 'header';
    spec['name'] = json['name'] ?? 'x-api-key';
  }
  for (const [from, to] of [
    ['account', 'account'],
    ['jwks-url', 'jwksUrl'],
    ['issuer', 'issuer'],
    ['audience', 'audience'],
    ['scopes', 'scopes'],
    ['claims', 'claims'],
    ['realm', 'realm'],
  ] as const) {
    if (json[from] !== undefined) spec[to] = json[from];
  }
  if (typeof json['leeway'] === 'number') spec['leewaySeconds'] = Math.round(json['leeway'] / 1000);
  return JSON.stringify(spec);
}

/** Maps an offset in a (possibly dedented multi-line) string value to the host file, line by line. */
function offsetMapper(value: Extract<Value, { kind: 'string' }>, ctx: PipelineContext): (offset: number) => number {
  const source = ctx.facts.sourceOf(value.span.file);
  const host = source ? source.text.slice(value.span.start, value.span.end) : '';
  const lines = value.value.split('\n');
  const lineHostStarts: number[] = [];
  let searchFrom = 0;
  for (const line of lines) {
    const at = line.trim() === '' ? -1 : host.indexOf(line, searchFrom);
    lineHostStarts.push(at >= 0 ? value.span.start + at : value.span.start);
    if (at >= 0) searchFrom = at + line.length;
  }
  return (offset: number) => {
    let remaining = offset;
    for (let i = 0; i < lines.length; i++) {
      const len = (lines[i] as string).length;
      if (remaining <= len) return (lineHostStarts[i] ?? value.span.start) + remaining;
      remaining -= len + 1;
    }
    return value.span.end;
  };
}
