/**
 * Phase `check` for a whole service: every pipeline (options, trigger, steps, on-error, branches),
 * then the checks that span pipelines (duplicate routes, execute cycles vs concurrency), accounts
 * and globals. Produces the ServicePlan that codegen turns into files.
 */
import { markSecret } from '../types/secret.js';
import type { AccountDecl, PipelineDecl, Step, TriggerDecl, Value } from '../ast/ast.js';
import type { ConnectorRegistry } from '../connectors/connector-registry.js';
import { stepReferences } from '../connectors/schema-facts.js';
import {
  badPipelineOption,
  capsuleNamedLikeConnector,
  duplicateRoute,
  expressionInGlobal,
  selfExecutionWithoutRoom,
  unknownAccountField,
  notOneOf,
  unknownAccountType,
  unknownPipelineOption,
  unusedBranch,
} from './errors.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import type { PipelinePlan, ServicePlan, TriggerPlan } from '../lower/plan.js';
import type { Declarations } from '../resolve/declarations.js';
import { resolveSchemaValue } from '../resolve/schema-refs.js';
import type { SourceFile } from '../../base/source/source-file.js';
import { joinSpans, type Span } from '../../base/source/span.js';
import { STRING, UNKNOWN, type FieldType, type PipeType } from '../types/pipe-type.js';
import { ParamValidators } from './check-params.js';
import { SchemaCompiler } from './json-schema.js';
import { walkDeclSteps } from '../ast/walk.js';
import { checkKindRouting, stepsKinds, failsWithNamedDetails } from './check-policies.js';
import { checkBlock } from './check-steps.js';
import { checkCapsules } from './check-capsules.js';
import {
  checkSchemaDeclarations,
  checkStoreDeclarations,
  storeExpireSeconds,
  storeIndexes,
} from './check-declarations.js';
import { checkTrigger } from './check-trigger.js';
import { envelopeDemand } from './envelope-demand.js';
import { checkEventFlow, declaresBodySchema, eventContracts, triggerContract, type Contract } from './contracts.js';
import { narrowBySenders, schemaShowsItsFields, senderGraph, sentShape, type Entrance } from './senders.js';
import { PipelineContext, type ExecuteEdge, type ServiceFacts, type StepShape } from './context.js';
import { entryOf, toLiteral } from '../ast/literal.js';
import { ERROR_OBJECT, ERROR_OBJECT_NAMED_ELSEWHERE } from './shapes.js';
import { compileValue } from '../lower/values.js';

export const ACCOUNT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  'secret-key': ['key', 'base-url'],
  'api-key': ['key', 'keys'],
  basic: ['username', 'password'],
  bearer: ['token'],
  'private-key': ['key', 'alg', 'kid'],
  'public-key': ['key', 'jwks-url', 'alg'],
  oauth2: ['token-url', 'client-id', 'client-secret', 'scope', 'audience'],
  mock: ['key', 'base-url'],
  // A server the service connects to (databases, brokers, caches, SMTP): a URL, or its parts.
  connection: ['url', 'host', 'port', 'username', 'password', 'database', 'tls', 'ca', 'cert', 'key'],
  // An SSH server (SFTP): password or key authentication, and the host key it must present.
  ssh: ['host', 'port', 'username', 'password', 'private-key', 'passphrase', 'host-key'],
};

/** JWS algorithms of an asymmetric key (runtime/security/keys.ts ASYMMETRIC_ALGORITHMS): never HS*, never none. */
const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Account fields whose literal value is one of a closed list (a value from `env(…)` is checked when the service starts). */
const ACCOUNT_FIELD_VALUES: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  'private-key': { alg: ASYMMETRIC_ALGORITHMS },
  'public-key': { alg: ASYMMETRIC_ALGORITHMS },
};

export interface CheckInput {
  readonly serviceName: string;
  readonly registry: ConnectorRegistry;
  readonly decls: Declarations;
  readonly sourceOf: (file: string) => SourceFile | undefined;
  /** How a source file is named in the plan (provenance of steps and generated code). */
  readonly sourcePath: (file: string) => string;
  /** false: only diagnostics are wanted (`pipec check`), so work that only speeds generated code is skipped. */
  readonly forEmit?: boolean;
}

export function checkProgram(input: CheckInput): {
  value: ServicePlan;
  diagnostics: Diagnostic[];
  shapes: StepShape[];
} {
  const diagnostics: Diagnostic[] = [];
  const shapes: StepShape[] = [];
  const accountTypes = checkAccounts(input.decls, diagnostics);
  for (const g of input.decls.globals.values()) {
    const literal = toLiteral(g.value);
    for (const pointer of literal.dynamic) {
      const span = literal.spans.get(pointer) ?? g.value.span;
      if (isEnvAt(g.value, span)) continue;
      diagnostics.push(expressionInGlobal(g.name, span));
    }
  }
  const globals = [...input.decls.globals.values()].map((g) => {
    const compiled = compileValue(g.value, emptyEnv(g.nameSpan.file), diagnostics, { envStyle: 'reference' });
    return { name: g.name, js: compiled.js, type: compiled.type };
  });
  const contracts = { pipelines: new Map<string, Contract>(), events: new Map<string, readonly Contract[]>() };
  const facts: ServiceFacts = {
    contracts,
    registry: input.registry,
    decls: input.decls,
    validators: new ParamValidators(),
    schemas: new SchemaCompiler(),
    sourceOf: input.sourceOf,
    sourcePath: memoized(input.sourcePath),
    globalTypes: Object.fromEntries(globals.map((g) => [g.name, g.type])),
    accountTypes,
    forEmit: input.forEmit !== false,
    sent: new Map(),
  };
  const pipelines: PipelinePlan[] = [];
  const edges: ExecuteEdge[] = [];
  const executed = executeTargets(input.decls, input.registry);
  // Triggers first: their contracts type the payloads that other pipelines send (contracts.ts).
  const started = [...input.decls.pipelines.values()].map((decl) => startPipeline(decl, facts));
  for (const s of started) if (s.contract) contracts.pipelines.set(s.decl.name, s.contract);
  for (const [event, subscribers] of eventContracts(input.decls, input.registry, contracts.pipelines))
    contracts.events.set(event, subscribers);
  // Senders before receivers: a pipeline whose senders are all known gets what they send (senders.ts).
  const entrances = senderGraph(input.decls, input.registry);
  const finished = new Map<string, ReturnType<typeof finishPipeline>>();
  for (const { started: s, narrow } of senderOrder(started, entrances)) {
    const entrance = narrow ? entrances.get(s.decl.name) : undefined;
    finished.set(s.decl.name, finishPipeline(s, executed.has(s.decl.name), entrance && sentTo(entrance, facts)));
  }
  for (const s of started) {
    const checked = finished.get(s.decl.name);
    if (!checked) continue;
    diagnostics.push(...checked.diagnostics);
    shapes.push(...checked.shapes);
    edges.push(...checked.executes);
    if (checked.plan) pipelines.push(checked.plan);
  }
  const capsules = checkCapsules(facts);
  diagnostics.push(...capsules.diagnostics);
  diagnostics.push(
    ...checkRoutes(input.decls, input.registry),
    ...checkExecuteCycles(input.decls, edges),
    ...checkNameClashes(input.decls, input.registry),
  );
  diagnostics.push(...checkEventFlow(input.decls, input.registry, executed));

  const accounts = [...input.decls.accounts.values()].map((a) => ({
    name: a.name,
    type: a.accountType,
    js: compileValue(a.config, emptyEnv(a.nameSpan.file), diagnostics, { envStyle: 'reference' }).js,
  }));
  diagnostics.push(
    ...checkSchemaDeclarations(input.decls, facts.schemas),
    ...checkStoreDeclarations(input.decls, input.registry, facts.validators),
  );
  const stores = [...input.decls.stores.values()].map((s) => {
    const seconds = storeExpireSeconds(s);
    const indexes = storeIndexes(s);
    return {
      name: s.name,
      ...(seconds !== undefined ? { expireAfterSeconds: seconds } : {}),
      ...(indexes !== undefined ? { indexes } : {}),
    };
  });
  return {
    value: {
      name: input.serviceName,
      pipelines,
      capsules: capsules.plans,
      accounts,
      globals: globals.map(({ name, js }) => ({ name, js })),
      stores,
    },
    diagnostics,
    shapes: [...shapes, ...capsules.shapes],
  };
}

/** True when the value at `span` is an env() call (the one dynamic form globals and accounts allow). */
function isEnvAt(value: Value, span: Span): boolean {
  if (value.kind === 'env') return value.span.start === span.start && value.span.end === span.end;
  if (value.kind === 'array') return value.items.some((i) => isEnvAt(i, span));
  if (value.kind === 'object' || value.kind === 'tagged') {
    const obj = value.kind === 'tagged' ? value.value : value;
    return obj.entries.some((e) => e.kind === 'entry' && isEnvAt(e.value, span));
  }
  return false;
}

function emptyEnv(file: string) {
  return { file, message: UNKNOWN, globals: {}, accounts: {}, steps: {} };
}

/**
 * Pipelines a step names where its connector's schema marks a pipeline reference (`execute`):
 * their message may be the caller's payload, not the trigger's.
 */
function executeTargets(decls: Declarations, registry: ConnectorRegistry): Set<string> {
  const targets = new Set<string>();
  const collect = (step: Step): void => {
    const schema = step.kind === 'connector' ? registry.connectors.get(step.connector) : undefined;
    if (step.kind !== 'connector' || !schema) return;
    for (const ref of stepReferences(step, schema, 'pipeline')) targets.add(ref.name);
  };
  for (const p of decls.pipelines.values()) walkDeclSteps(p, collect);
  for (const c of decls.capsules.values()) walkDeclSteps(c, collect);
  return targets;
}

/** A pipeline whose options and trigger are checked; its steps wait for every trigger's contract. */
interface StartedPipeline {
  readonly decl: PipelineDecl;
  readonly ctx: PipelineContext;
  readonly options: { concurrency: number; queue: number; timeout: number };
  readonly trigger: { plan: TriggerPlan; message: PipeType } | undefined;
  readonly contract: Contract | undefined;
  /** The trigger declares a `body` schema: callers must send it, so the trigger's types hold. */
  readonly typed: boolean;
}

function startPipeline(decl: PipelineDecl, facts: ServiceFacts): StartedPipeline {
  const ctx = new PipelineContext(facts, decl.name, decl.nameSpan.file, new Map(decl.branches.map((b) => [b.name, b])));
  const options = checkOptions(decl, ctx.diagnostics);
  // A missing trigger is a syntax error (PIPE1016): check never runs on such a file.
  const triggerSchema = decl.trigger ? facts.registry.triggers.get(decl.trigger.kind) : undefined;
  const envelope = triggerSchema?.['x-pipe-envelope'] === true ? envelopeDemand(decl, facts.registry) : 'all';
  const trigger = decl.trigger ? checkTrigger(decl.trigger, ctx, envelope) : undefined;
  const type =
    decl.trigger && triggerSchema && trigger
      ? triggerContract(decl.trigger, triggerSchema, trigger.message)
      : undefined;
  const typed =
    decl.trigger !== undefined && triggerSchema !== undefined && declaresBodySchema(decl.trigger, triggerSchema);
  return {
    decl,
    ctx,
    options,
    trigger,
    typed,
    contract: type
      ? {
          pipeline: decl.name,
          type,
          at: decl.trigger?.kindSpan ?? decl.nameSpan,
          wrapsBody: triggerSchema?.['x-pipe-envelope'] === true,
          ...(typed && decl.trigger ? { schema: bodySchemaOf(decl.trigger, facts) } : {}),
        }
      : undefined,
  };
}

/** The JSON Schema a trigger's `body` names or writes (its diagnostics were reported by the trigger's check). */
function bodySchemaOf(trigger: TriggerDecl, facts: ServiceFacts): unknown {
  const body = entryOf(trigger.config, 'body');
  return body ? resolveSchemaValue(body, facts.decls, []) : undefined;
}

/**
 * The order pipelines are checked in: those with no known entrance first, then each pipeline
 * whose senders are all checked. Pipelines left (senders in a cycle) are checked last, not narrowed.
 */
function senderOrder(
  started: readonly StartedPipeline[],
  entrances: ReadonlyMap<string, Entrance>,
): { started: StartedPipeline; narrow: boolean }[] {
  const out: { started: StartedPipeline; narrow: boolean }[] = [];
  const done = new Set<string>();
  let waiting = started.filter((s) => {
    if (entrances.has(s.decl.name)) return true;
    out.push({ started: s, narrow: false });
    done.add(s.decl.name);
    return false;
  });
  for (;;) {
    const ready = waiting.filter((s) =>
      (entrances.get(s.decl.name)?.senders ?? []).every((sender) => done.has(sender.pipeline)),
    );
    if (ready.length === 0) break;
    for (const s of ready) {
      out.push({ started: s, narrow: true });
      done.add(s.decl.name);
    }
    waiting = waiting.filter((s) => !done.has(s.decl.name));
  }
  for (const s of waiting) out.push({ started: s, narrow: false });
  return out;
}

/** What the senders of an entrance sent, as checked; undefined when one of them was not checked. */
function sentTo(
  entrance: Entrance,
  facts: ServiceFacts,
): { who: string; sent: { type: PipeType; span: Span }[] } | undefined {
  const sent: { type: PipeType; span: Span }[] = [];
  for (const sender of entrance.senders) {
    const types = facts.sent.get(sender.step);
    if (!types || types.length === 0) return undefined;
    sent.push(...types);
  }
  return { who: entrance.who, sent };
}

function finishPipeline(
  started: StartedPipeline,
  executedByPipelines: boolean,
  senders?: { who: string; sent: readonly { type: PipeType; span: Span }[] },
): { plan?: PipelinePlan; diagnostics: Diagnostic[]; executes: ExecuteEdge[]; shapes: StepShape[] } {
  const { decl, ctx, options, trigger } = started;
  // Called through `execute`, the pipeline receives the caller's payload instead of its trigger's
  // message: with a `body` schema, callers are checked against it and the trigger's types hold;
  // without one a caller may send anything (a self-executing pipeline reading `message.inner`).
  const declared = executedByPipelines && !started.typed ? UNKNOWN : (trigger?.message ?? UNKNOWN);
  // When every sender is known, the message is what they send (senders.ts).
  const firstMessage = !senders
    ? declared
    : started.typed
      ? schemaShowsItsFields(started.contract?.schema)
        ? narrowBySenders(declared, senders.sent, senders.who)
        : declared
      : (sentShape(senders.sent, senders.who) ?? declared);
  const steps = checkBlock(decl.steps, firstMessage, ctx, {});
  const caught = failsWithNamedDetails(decl.steps, ctx) ? ERROR_OBJECT_NAMED_ELSEWHERE : ERROR_OBJECT;
  const onError = decl.onError ? checkBlock(decl.onError, caught, ctx, {}) : undefined;
  if (decl.onError)
    checkKindRouting(decl.onError, stepsKinds(decl.steps, ctx), `the steps of pipeline \`${decl.name}\``, ctx);
  for (const branch of decl.branches) {
    if (!ctx.usedBranches.has(branch.name)) {
      ctx.diagnostics.push(unusedBranch(branch.name, branch.nameSpan));
    }
  }
  if (!trigger) return { diagnostics: ctx.diagnostics, executes: ctx.executes, shapes: ctx.shapes };
  return {
    plan: {
      name: decl.name,
      source: ctx.source(decl.nameSpan),
      trigger: trigger.plan,
      concurrency: options.concurrency,
      queue: options.queue,
      timeout: options.timeout,
      steps: steps.plan,
      ...(onError ? { onError: onError.plan } : {}),
      hoisted: ctx.hoisted,
      validators: ctx.validators,
      namespaces: ctx.namespaces,
    },
    diagnostics: ctx.diagnostics,
    executes: ctx.executes,
    shapes: ctx.shapes,
  };
}

/** The default bound of a pipeline's wait queue: overload is shed (503), never queued without end. */
export const DEFAULT_QUEUE = 1000;

const PIPELINE_OPTIONS = ['concurrency', 'queue', 'timeout'];

function checkOptions(
  decl: PipelineDecl,
  diagnostics: Diagnostic[],
): { concurrency: number; queue: number; timeout: number } {
  let concurrency = 10;
  let queue = DEFAULT_QUEUE;
  let timeout = 30000;
  for (const entry of decl.options?.entries ?? []) {
    if (entry.kind !== 'entry') continue;
    const v = entry.value;
    if (
      entry.key === 'concurrency' &&
      v.kind === 'number' &&
      Number.isInteger(v.value) &&
      v.value >= 1 &&
      v.value <= 1000
    )
      concurrency = v.value;
    else if (
      entry.key === 'queue' &&
      v.kind === 'number' &&
      Number.isInteger(v.value) &&
      v.value >= 0 &&
      v.value <= 100_000
    )
      queue = v.value;
    else if (
      entry.key === 'timeout' &&
      (v.kind === 'duration' || v.kind === 'number') &&
      (v.kind === 'duration' ? v.ms : v.value) > 0
    )
      timeout = v.kind === 'duration' ? v.ms : v.value;
    else if (entry.key === 'concurrency' || entry.key === 'queue' || entry.key === 'timeout') {
      diagnostics.push(badPipelineOption(entry.key, v.span));
    } else {
      const close = suggest(entry.key, PIPELINE_OPTIONS);
      diagnostics.push(unknownPipelineOption(entry.key, entry.keySpan, close));
    }
  }
  return { concurrency, queue, timeout };
}

function checkAccounts(decls: Declarations, diagnostics: Diagnostic[]): Record<string, PipeType> {
  const types: Record<string, PipeType> = {};
  for (const account of decls.accounts.values()) {
    const allowed = ACCOUNT_FIELDS[account.accountType];
    if (!allowed) {
      const close = suggest(account.accountType, Object.keys(ACCOUNT_FIELDS));
      diagnostics.push(unknownAccountType(account.accountType, account.typeSpan, Object.keys(ACCOUNT_FIELDS), close));
      continue;
    }
    types[account.name] = accountShape(account, allowed, diagnostics);
  }
  return types;
}

function accountShape(account: AccountDecl, allowed: readonly string[], diagnostics: Diagnostic[]): PipeType {
  const fields: Record<string, FieldType> = {};
  for (const entry of account.config.entries) {
    if (entry.kind !== 'entry') continue;
    if (!allowed.includes(entry.key)) {
      const close = suggest(entry.key, allowed);
      diagnostics.push(unknownAccountField(account.accountType, entry.key, entry.keySpan, allowed, close));
    }
    const values = ACCOUNT_FIELD_VALUES[account.accountType]?.[entry.key];
    if (values && entry.value.kind === 'string' && !values.includes(entry.value.value)) {
      const owner = { what: 'account', name: account.name };
      diagnostics.push(
        notOneOf(` \`${entry.key}\``, owner, entry.value.span, values, suggest(entry.value.value, values)),
      );
    }
    // Every value of an account is a secret: it may not leave the service (secret-sinks.ts).
    const secret = {
      from: `account.${account.name}.${entry.key}`,
      declaredAt: joinSpans(entry.keySpan, entry.value.span),
    };
    fields[entry.key] = { type: markSecret(entry.key === 'keys' ? UNKNOWN : STRING, secret), required: true };
  }
  return { kind: 'object', fields, open: false };
}

/** Triggers whose schema says `x-pipe-route` serve a method and path: two may not serve the same. */
function checkRoutes(decls: Declarations, registry: ConnectorRegistry): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Map<string, { pipeline: string; span: Span }>();
  for (const p of decls.pipelines.values()) {
    const t = p.trigger;
    const route = t ? registry.triggers.get(t.kind)?.['x-pipe-route'] : undefined;
    if (!t || !route) continue;
    const path = entryOf(t.config, route.path);
    const method = route.method !== undefined ? entryOf(t.config, route.method) : undefined;
    if (!path || path.kind !== 'string') continue;
    const methods =
      method?.kind === 'ident'
        ? [method.name]
        : method?.kind === 'string'
          ? [method.value]
          : method?.kind === 'array'
            ? method.items.map((i) => (i.kind === 'ident' ? i.name : i.kind === 'string' ? i.value : ''))
            : [route['default-method']];
    for (const m of methods) {
      const key = `${m} ${path.value.replace(/:[^/]+/g, ':')}`;
      const previous = seen.get(key);
      if (previous) {
        out.push(duplicateRoute(`${m} ${path.value}`, previous.pipeline, path.span, previous.span));
      } else seen.set(key, { pipeline: p.name, span: path.span });
    }
  }
  return out;
}

/** A capsule named like a connector would silently shadow it (or be shadowed). */
function checkNameClashes(decls: Declarations, registry: ConnectorRegistry): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const capsule of decls.capsules.values()) {
    if (registry.connectors.has(capsule.name)) {
      out.push(capsuleNamedLikeConnector(capsule.name, capsule.nameSpan));
    }
  }
  return out;
}

/** Pipelines on an execute cycle wait for themselves: each needs concurrency ≥ 2. */
function checkExecuteCycles(decls: Declarations, edges: readonly ExecuteEdge[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const next = new Map<string, ExecuteEdge[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e]);
  const reported = new Set<string>();
  for (const start of decls.pipelines.keys()) {
    const cycle = findCycle(start, next);
    if (!cycle) continue;
    const decl = decls.pipelines.get(start);
    const concurrency = entryOf(decl?.options, 'concurrency');
    const value = concurrency?.kind === 'number' ? concurrency.value : 10;
    if (value >= 2 || reported.has(start)) continue;
    reported.add(start);
    const names = [start, ...cycle.map((e) => e.to)].join(' → ');
    out.push(
      selfExecutionWithoutRoom(
        start,
        names,
        value,
        concurrency?.span ?? decl?.nameSpan ?? (cycle[0] as ExecuteEdge).span,
        (cycle[0] as ExecuteEdge).span,
      ),
    );
  }
  return out;
}

function findCycle(start: string, next: ReadonlyMap<string, readonly ExecuteEdge[]>): ExecuteEdge[] | undefined {
  const stack: { node: string; path: ExecuteEdge[] }[] = [{ node: start, path: [] }];
  const visited = new Set<string>();
  while (stack.length > 0) {
    const { node, path } = stack.pop() as { node: string; path: ExecuteEdge[] };
    for (const edge of next.get(node) ?? []) {
      if (edge.to === start) return [...path, edge];
      if (!visited.has(edge.to)) {
        visited.add(edge.to);
        stack.push({ node: edge.to, path: [...path, edge] });
      }
    }
  }
  return undefined;
}

/** `sourcePath` answered once per file: every step's provenance asks it again for the same file. */
function memoized(sourcePath: (file: string) => string): (file: string) => string {
  const known = new Map<string, string>();
  return (file) => {
    let named = known.get(file);
    if (named === undefined) {
      named = sourcePath(file);
      known.set(file, named);
    }
    return named;
  };
}
