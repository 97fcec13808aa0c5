/**
 * Build-time work that depends on the connector: references to accounts, schemas, pipelines and
 * stores (checked and resolved), schemas compiled to validators, JOLT/JSLT compiled to functions,
 * and output shapes that follow from parameters. Generic rules come from the schema's `x-pipe-ref`
 * marks; a few connectors add their own step.
 */
import { storeExpireSeconds } from './check-declarations.js';
import type { ConnectorStep, ObjectValue, Step, Value } from '../ast/ast.js';
import type { ConnectorSchema } from '../connectors/connector-registry.js';
import { paramProperties } from '../connectors/connector-registry.js';
import { diagnostic } from '../diagnostics/codes.js';
import { suggest } from '../diagnostics/suggest.js';
import { compileJoltChain } from '../jolt/index.js';
import { compileJslt } from '../jslt/index.js';
import type { JsExpr } from '../plan/plan.js';
import type { Span } from '../source/span.js';
import { BOOLEAN, INTEGER, STRING, UNKNOWN, objectOf, type PipeType } from '../types/pipe-type.js';
import type { PipelineContext } from './context.js';
import { resolveSchemaValue, schemaLocator } from './schema-refs.js';
import { entryOf, stepsEntryOf, toLiteral, spanAt } from './literal.js';
import { schemaToType } from './shapes.js';
import { compileValue, propertyKey } from './values.js';

export interface HookInput {
  readonly step: ConnectorStep;
  readonly schema: ConnectorSchema;
  /** Positional parameters from the header words. */
  readonly extra: Readonly<Record<string, unknown>>;
  readonly message: PipeType;
  readonly ctx: PipelineContext;
  readonly label: string | undefined;
}

export interface HookResult {
  /** Parameter keys the hook emits itself (left out of the generic compilation). */
  readonly replaced: Set<string>;
  /** Extra parameters as JS expressions. */
  readonly params: Record<string, JsExpr>;
  /** Output shape, when the hook knows it better than the schema's output rule. */
  output?: PipeType;
  /** Steps of an `on-fail { … }` block. */
  onFailSteps?: readonly Step[];
}

const STORE_OPERATIONS = [
  'insert', 'find', 'find-by-id', 'update', 'update-by-id', 'delete', 'delete-by-id', 'aggregate', 'create-index', 'list-indexes', 'drop-index',
];
/** Store operations answering `{ data: [...], rowCount }`; the others answer `{ data: [], updateCount }`. */
const STORE_READS = ['find', 'find-by-id', 'aggregate', 'list-indexes'];

export function applyConnectorHook(input: HookInput): HookResult {
  const result: HookResult = { replaced: new Set(), params: {} };
  for (const [key, value] of Object.entries(input.extra)) result.params[key] = { js: JSON.stringify(value), constant: true };
  applyReferences(input, result);
  switch (input.schema.name) {
    case 'store':
      storeHook(input, result);
      break;
    case 'execute':
      executeHook(input, result);
      break;
    case 'validate':
      validateHook(input, result);
      break;
    case 'jolt':
      joltHook(input, result);
      break;
    case 'jslt':
      jsltHook(input, result);
      break;
    case 'agent':
      agentHook(input, result);
      break;
    case 'json-transformer':
      jsonTransformerHook(input, result);
      break;
    default:
      break;
  }
  // Blocks of steps are never data: drop them from the generic parameters.
  for (const entry of input.step.params.entries) if (entry.kind === 'steps-entry') result.replaced.add(entry.key);
  return result;
}

/** `x-pipe-ref` marks: account → fields at run time; schema name → the schema; pipeline/store → must exist. */
function applyReferences({ step, schema, ctx, extra }: HookInput, result: HookResult): void {
  for (const [key, propSchema] of Object.entries(paramProperties(schema))) {
    const ref = propSchema['x-pipe-ref'];
    if (typeof ref !== 'string') continue;
    const value = entryOf(step.params, key);
    const name = value && (value.kind === 'ident' || value.kind === 'string') ? (value.kind === 'ident' ? value.name : value.value) : typeof extra[key] === 'string' ? (extra[key] as string) : undefined;
    const span = value?.span ?? step.connectorSpan;
    if (name === undefined) continue;
    switch (ref) {
      case 'account':
        if (checkExists(ctx, 'PIPE2005', 'account', name, [...ctx.facts.decls.accounts.keys()], span)) {
          result.params['accountFields'] = { js: `ctx.accounts[${JSON.stringify(name)}]`, constant: false };
        }
        break;
      case 'pipeline':
        checkExists(ctx, 'PIPE2007', 'pipeline', name, [...ctx.facts.decls.pipelines.keys()], span);
        break;
      case 'store':
        checkExists(ctx, 'PIPE2006', 'store', name, [...ctx.facts.decls.stores.keys()], span);
        break;
      case 'schema':
        if (value) {
          const resolved = resolveSchemaValue(value, ctx.facts.decls, ctx.diagnostics);
          if (resolved !== undefined) {
            result.replaced.add(key);
            result.params[key] = { js: JSON.stringify(resolved), constant: true };
          }
        }
        break;
    }
  }
}

export function checkExists(ctx: PipelineContext, code: string, what: string, name: string, candidates: readonly string[], span: Span): boolean {
  if (candidates.includes(name)) return true;
  const close = suggest(name, candidates);
  ctx.diagnostics.push(
    diagnostic(code, {
      message: `unknown ${what} \`${name}\``,
      span,
      label: close ? `did you mean \`${close}\`?` : `no ${what} of that name`,
      ...(candidates.length > 0 ? { body: [`Known ${what}s: ${candidates.map((c) => `\`${c}\``).join(', ')}.`] } : {}),
      ...(close ? { hint: `write \`${close}\`` } : {}),
    }),
  );
  return false;
}

/** `store NAME.OPERATION`: the header word names both the store and the operation. */
export function splitStoreTarget(connector: string, extra: Record<string, unknown>): void {
  const target = extra['target'];
  if (connector !== 'store' || typeof target !== 'string') return;
  const dot = target.lastIndexOf('.');
  extra['store'] = dot > 0 ? target.slice(0, dot) : target;
  extra['operation'] = dot > 0 ? target.slice(dot + 1) : '';
  delete extra['target'];
}

function storeHook({ step, ctx, extra }: HookInput, result: HookResult): void {
  const arg = step.args[0];
  if (typeof extra['store'] !== 'string' || typeof extra['operation'] !== 'string' || !arg) return;
  const store = extra['store'];
  const operation = extra['operation'];
  const dot = store.length;
  const storeSpan = { file: arg.span.file, start: arg.span.start, end: arg.span.start + store.length };
  const opSpan = { file: arg.span.file, start: arg.span.start + dot + 1, end: arg.span.end };
  const known = checkExists(ctx, 'PIPE2006', 'store', store, [...ctx.facts.decls.stores.keys()], storeSpan);
  if (!STORE_OPERATIONS.includes(operation)) {
    const close = suggest(operation, STORE_OPERATIONS);
    ctx.diagnostics.push(
      diagnostic('PIPE2012', {
        message: dot > 0 ? `unknown store operation \`${operation}\`` : `a store step names its operation: \`store ${store}.find { … }\``,
        span: dot > 0 ? opSpan : arg.span,
        label: close ? `did you mean \`${close}\`?` : 'unknown operation',
        body: [`Operations: ${STORE_OPERATIONS.map((o) => `\`${o}\``).join(', ')}.`],
      }),
    );
  }
  result.params['store'] = { js: JSON.stringify(store), constant: true };
  result.params['operation'] = { js: JSON.stringify(operation), constant: true };
  const decl = known ? ctx.facts.decls.stores.get(store) : undefined;
  result.params['storeOptions'] = { js: JSON.stringify({ expireAfterSeconds: storeExpireSeconds(decl) ?? 0 }), constant: true };
  // list-indexes rows are closed: `{ name, key, unique }`.
  const docs: PipeType =
    operation === 'list-indexes'
      ? { kind: 'object', open: false, fields: { name: { type: STRING, required: true }, key: { type: objectOf({}, true), required: true }, unique: { type: BOOLEAN, required: true } } }
      : objectOf({}, true);
  result.output =
    STORE_READS.includes(operation)
      ? { kind: 'object', open: false, fields: { data: { type: { kind: 'array', items: docs }, required: true }, rowCount: { type: INTEGER, required: true } } }
      : { kind: 'object', open: true, fields: { data: { type: { kind: 'array', items: docs }, required: true }, updateCount: { type: INTEGER, required: true } } };
}

function executeHook({ step, ctx, extra }: HookInput, result: HookResult): void {
  const target = typeof extra['pipeline'] === 'string' ? extra['pipeline'] : undefined;
  if (target) ctx.executes.push({ from: ctx.pipeline, to: target, span: step.args[0]?.span ?? step.connectorSpan });
}

function validateHook({ step, ctx, label }: HookInput, result: HookResult): void {
  const schemaValue = entryOf(step.params, 'schema');
  const onFail = stepsEntryOf(step.params, 'on-fail');
  if (onFail) result.onFailSteps = onFail.steps;
  if (!schemaValue) return;
  const resolved = resolveSchemaValue(schemaValue, ctx.facts.decls, ctx.diagnostics);
  if (resolved === undefined) return;
  const draftValue = entryOf(step.params, 'draft');
  const draft = draftValue?.kind === 'string' || draftValue?.kind === 'ident' ? (draftValue.kind === 'string' ? draftValue.value : draftValue.name) : undefined;
  const compiled = ctx.compileSchema(resolved, schemaValue.span, draft, label ?? 'step', schemaLocator(schemaValue, ctx.facts.decls));
  result.replaced.add('schema');
  result.replaced.add('draft');
  // The compiled validator replaces the schema: it need not travel with every call.
  delete result.params['schema'];
  if (compiled) {
    result.params['validator'] = { js: compiled, constant: true };
    result.output = schemaToType(resolved);
  }
}

function joltHook({ step, ctx, label }: HookInput, result: HookResult): void {
  const specValue = entryOf(step.params, 'spec');
  if (!specValue) return;
  const literal = toLiteral(specValue);
  if (literal.dynamic.size > 0) return; // dynamic specs are rejected by the schema (no x-pipe-braces)
  const locate = (path: readonly (string | number)[], part: 'key' | 'value'): Span => {
    const pointer = path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
    return (part === 'key' ? literal.spans.get(`#key:${pointer}`) : undefined) ?? spanAt(literal, pointer, specValue.span);
  };
  const compiled = compileJoltChain(literal.json, locate);
  ctx.diagnostics.push(...compiled.diagnostics);
  if (compiled.diagnostics.some((d) => d.severity === 'error')) return;
  ctx.namespaces.add('J');
  const name = ctx.hoist(`jolt-${label ?? 'transform'}`, compiled.js, 'compiled JOLT chain');
  result.replaced.add('spec');
  result.params['transform'] = { js: name, constant: true };
}

function jsltHook({ step, ctx, label }: HookInput, result: HookResult): void {
  const queryValue = entryOf(step.params, 'query');
  if (!queryValue || queryValue.kind !== 'string') return;
  const compiled = compileJslt(queryValue.value, { file: queryValue.span.file, mapOffset: offsetMapper(queryValue, ctx) });
  ctx.diagnostics.push(...compiled.diagnostics);
  if (compiled.diagnostics.some((d) => d.severity === 'error')) return;
  ctx.namespaces.add('L');
  const name = ctx.hoist(`jslt-${label ?? 'transform'}`, compiled.js, 'compiled JSLT query');
  result.replaced.add('query');
  result.params['transform'] = { js: name, constant: true };
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

/** Actions whose `value`/`condition` are {{ }} over `item` become module-level functions. */
function jsonTransformerHook({ step, ctx, message, label }: HookInput, result: HookResult): void {
  const actions = entryOf(step.params, 'actions');
  if (!actions || actions.kind !== 'array') return;
  const env = ctx.bracesEnv(message, { item: UNKNOWN });
  const compiledActions = actions.items.map((action, i) => {
    if (action.kind !== 'object') return 'undefined';
    const parts: string[] = [];
    for (const entry of action.entries) {
      if (entry.kind !== 'entry') continue;
      if (entry.key === 'value' || entry.key === 'condition') {
        const compiled = compileValue(entry.value, env, ctx.diagnostics);
        const fn = ctx.hoist(`${label ?? 'transformer'}-action${i + 1}-${entry.key}`, `(item: Json, message: Json, ctx: ExecutionContext): Json => ${compiled.js}`, `json-transformer action ${i + 1}: ${entry.key}`);
        parts.push(`${entry.key}: ${fn}`);
      } else {
        parts.push(`${propertyKey(entry.key)}: ${compileValue(entry.value, env, ctx.diagnostics).js}`);
      }
    }
    return `{ ${parts.join(', ')} }`;
  });
  result.replaced.add('actions');
  result.params['actions'] = { js: `[${compiledActions.join(', ')}]`, constant: true };
}

function agentHook({ step, ctx, message }: HookInput, result: HookResult): void {
  const schemaValue = entryOf(step.params, 'output-schema');
  const resolved = schemaValue ? resolveSchemaValue(schemaValue, ctx.facts.decls, ctx.diagnostics) : undefined;
  if (schemaValue && resolved !== undefined) ctx.compileSchema(resolved, schemaValue.span, undefined, 'agent-output', schemaLocator(schemaValue, ctx.facts.decls));
  const tokenUsage = objectOf({ inputTokenCount: INTEGER, outputTokenCount: INTEGER, totalTokenCount: INTEGER });
  const body = resolved !== undefined ? schemaToType(resolved) : objectOf({ text: { kind: 'string' } });
  result.output = objectOf({ body, tokenUsage });
  // MCP tools: each `account: name` also gets the account's fields at run time.
  const tools = entryOf(step.params, 'tools');
  if (tools?.kind === 'array') {
    const env = ctx.bracesEnv(message);
    const toolJs = tools.items.map((tool) => {
      const compiled = compileValue(tool, env, ctx.diagnostics);
      const obj: ObjectValue | undefined = tool.kind === 'tagged' ? tool.value : tool.kind === 'object' ? tool : undefined;
      const account = entryOf(obj, 'account');
      const name = account?.kind === 'ident' ? account.name : account?.kind === 'string' ? account.value : undefined;
      if (!name || !account || !compiled.js.endsWith('}')) return compiled.js;
      if (!checkExists(ctx, 'PIPE2005', 'account', name, [...ctx.facts.decls.accounts.keys()], account.span)) return compiled.js;
      return `${compiled.js.slice(0, -1).trimEnd()}, accountFields: ctx.accounts[${JSON.stringify(name)}] }`;
    });
    result.replaced.add('tools');
    result.params['tools'] = { js: `[${toolJs.join(', ')}]`, constant: false };
  }
}
