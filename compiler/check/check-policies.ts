/**
 * Failure policies of steps, in one place for every connector:
 *
 * - the step option `retry` (`retry: 3` or `retry: { attempts, backoff, max-delay, multiplier,
 *   budget, on, status }`), taken out of the step's parameters before they are checked against
 *   the connector's schema, checked here and lowered to a RetryPlan with the connector's defaults
 *   (`x-pipe-retry` in its schema.json, else defaults derived from its `x-pipe-errors`);
 * - error kinds: what each step can fail with (its connector's `x-pipe-errors`, plus the kinds any
 *   step can produce), so that routing on a kind no step can produce — in `catch`, `on-fail`,
 *   `on-error` or `retry: { on }` — is diagnosed (PIPE6007).
 *
 * Everything is read from the schemas: a connector added as a folder gets both without an edit here.
 */
import type { ConnectorStep, ObjectEntry, ObjectValue, Step, StepsEntry, Value } from '../ast/ast.js';
import { paramProperties, type ConnectorSchema } from '../connectors/connector-registry.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import type { Span } from '../../base/source/span.js';
import { toLiteral } from '../ast/literal.js';
import type { RetryPlan } from '../lower/plan.js';
import type { PipelineContext } from './context.js';
import {
  badRetryOption,
  kindNeverProduced,
  retriedNotIdempotent,
  retriesMultiply,
  retryCannotHelp,
  unknownRetryOption,
} from './errors.js';

/** The step options every connector step takes, besides its connector's parameters. */
export const STEP_OPTION_KEYS: readonly string[] = ['retry'];

/** Kinds any step can fail with: an unexpected exception, the execution's timeout, the service's shutdown. */
export const ANY_STEP_KINDS: readonly string[] = ['INTERNAL', 'TIMEOUT', 'SHUTDOWN'];

/** Retried by default on every connector (a failure with such a status may pass). */
const DEFAULT_STATUSES: readonly number[] = [408, 429, 502, 503, 504];

/** Failing fast is the point of an open circuit: retrying it at once only fails again. */
const NEVER_RETRIED_BY_DEFAULT: readonly string[] = ['CIRCUIT_OPEN'];

const RETRY_KEYS = ['attempts', 'backoff', 'max-delay', 'multiplier', 'budget', 'on', 'status'];

/** The step's parameters without the step options (they are not the connector's). */
export function connectorParams(params: ObjectValue): ObjectValue {
  if (!params.entries.some((e) => STEP_OPTION_KEYS.includes(e.key))) return params;
  return { ...params, entries: params.entries.filter((e) => !STEP_OPTION_KEYS.includes(e.key)) };
}

/**
 * A status that says the other side was away, slow or busy (503, 504, 408, 425, 429): a failure
 * listed with one may pass on another attempt. 500 and 502 are left out: connectors use them for
 * what a repeat does not change (a transformation that failed on this input, credentials the
 * server refused, an answer it could not read).
 */
function transientStatus(status: number): boolean {
  return [408, 425, 429, 503, 504].includes(status);
}

/** The error kinds a connector lists; undefined when its schema does not say (anything is possible). */
export function connectorKinds(schema: ConnectorSchema): Set<string> | undefined {
  const listed = schema['x-pipe-errors'];
  if (listed === undefined) return undefined;
  // A connector that runs another pipeline fails with that pipeline's kinds too.
  if (Object.values(paramProperties(schema)).some((p) => p['x-pipe-ref'] === 'pipeline')) return undefined;
  return new Set([...ANY_STEP_KINDS, ...listed.map((e) => e.kind)]);
}

/** Kinds that may pass on another attempt: listed with a transient status. */
function transientKinds(schema: ConnectorSchema): string[] {
  const listed = schema['x-pipe-errors'] ?? [];
  const kinds = listed.filter((e) => e.status !== undefined && transientStatus(e.status)).map((e) => e.kind);
  return [...new Set(kinds)].filter((k) => !NEVER_RETRIED_BY_DEFAULT.includes(k));
}

/** The `retry` entry of a step, if any. */
function retryEntry(step: ConnectorStep): ObjectEntry | undefined {
  return step.params.entries.find((e): e is ObjectEntry => e.kind === 'entry' && e.key === 'retry');
}

/** The `retry` of a connector when a step writes no option of its own (`retry: {}`). */
export interface RetryDefaults {
  readonly attempts: number;
  readonly initialMs: number;
  readonly maxDelayMs: number;
  readonly multiplier: number;
  readonly budgetMs: number;
  readonly kinds: readonly string[];
  readonly statuses: readonly number[];
}

/**
 * The connector's `retry` defaults: its `x-pipe-retry.defaults`, else derived from its
 * `x-pipe-errors` (the kinds listed with a transient status). Undefined when nothing it lists can
 * pass on another attempt: `retry` cannot help (PIPE3012). Also read by docs/connectors/.
 */
export function retryDefaults(schema: ConnectorSchema): RetryDefaults | undefined {
  const facts = schema['x-pipe-retry'];
  const transient = transientKinds(schema);
  if (!facts && schema['x-pipe-errors'] !== undefined && transient.length === 0) return undefined;
  const d = facts?.defaults ?? {};
  return {
    attempts: d.attempts ?? 3,
    initialMs: d.initial ?? 200,
    maxDelayMs: d['max-delay'] ?? 10_000,
    multiplier: d.multiplier ?? 2,
    budgetMs: d.budget ?? 30_000,
    kinds: d.on ?? transient,
    statuses: d.status ?? DEFAULT_STATUSES,
  };
}

/** Checks the step's `retry` option and lowers it with the connector's defaults; undefined without one. */
export function checkRetry(
  step: ConnectorStep,
  schema: ConnectorSchema,
  extra: Readonly<Record<string, unknown>>,
  ctx: PipelineContext,
): RetryPlan | undefined {
  const entry = retryEntry(step);
  if (!entry) return undefined;
  const facts = schema['x-pipe-retry'];
  const plan = retryDefaults(schema);
  if (!plan) {
    ctx.diagnostics.push(retryCannotHelp(step.connector, kindList(schema), entry.keySpan));
    return undefined;
  }
  const given = readRetryValue(entry.value, schema, ctx);
  if (!given) return undefined;
  const out: RetryPlan = {
    ...plan,
    ...given,
    ...(facts?.output ? { outputStatus: facts.output.status } : {}),
    ...(facts?.output?.headers ? { outputHeaders: facts.output.headers } : {}),
  };
  if (out.maxDelayMs < out.initialMs) {
    const problem = `\`max-delay\` (${out.maxDelayMs} ms) is shorter than \`backoff\` (${out.initialMs} ms)`;
    invalid(entry.value.span, problem, ctx);
    return undefined;
  }
  if (out.attempts > 1) warnUnsafe(step, schema, extra, entry, ctx);
  if (out.attempts > 1) warnOwnRetries(step, facts?.own ?? [], out.attempts, entry, ctx);
  return out;
}

/** PIPE3016 when a parameter of the connector's own retries (x-pipe-retry.own) is set above 0 beside `retry`. */
function warnOwnRetries(
  step: ConnectorStep,
  own: readonly string[],
  attempts: number,
  entry: ObjectEntry,
  ctx: PipelineContext,
): void {
  for (const e of step.params.entries) {
    if (e.kind !== 'entry' || !own.includes(e.key)) continue;
    // A literal 0 is the connector's retries turned off; a value known at run time may be above 0.
    if (e.value.kind === 'number' && e.value.value === 0) continue;
    ctx.diagnostics.push(retriesMultiply(step.connector, e.key, attempts, e.keySpan, entry.keySpan));
  }
}

type RetryFields = { -readonly [K in keyof RetryPlan]?: RetryPlan[K] };

/** The fields the author gave; undefined after a diagnostic. */
function readRetryValue(value: Value, schema: ConnectorSchema, ctx: PipelineContext): RetryFields | undefined {
  if (value.kind === 'number') return integerIn(value, 1, 20, 'retry', ctx) ? { attempts: value.value } : undefined;
  if (value.kind !== 'object') {
    const shape = '`{ attempts, backoff, max-delay, multiplier, budget, on, status }`';
    invalid(value.span, `\`retry\` is a number of attempts or an object ${shape}`, ctx);
    return undefined;
  }
  const out: RetryFields = {};
  let ok = true;
  for (const e of value.entries) {
    if (e.kind !== 'entry' || !RETRY_KEYS.includes(e.key)) {
      const close = suggest(e.key, RETRY_KEYS);
      ctx.diagnostics.push(unknownRetryOption(e.key, e.keySpan, RETRY_KEYS, close));
      ok = false;
      continue;
    }
    const v = e.value;
    switch (e.key) {
      case 'attempts':
        if (v.kind === 'number' && integerIn(v, 1, 20, 'attempts', ctx)) out.attempts = v.value;
        else ok = v.kind === 'number' ? false : invalid(v.span, '`attempts` is an integer from 1 to 20', ctx);
        break;
      case 'backoff':
      case 'max-delay':
      case 'budget': {
        const ms = durationMs(v);
        if (ms === undefined || ms < 0 || ms > 86_400_000) {
          ok = invalid(v.span, `\`${e.key}\` is a duration such as \`200ms\`, \`10s\` (at most a day)`, ctx);
        } else if (e.key === 'backoff') out.initialMs = ms;
        else if (e.key === 'max-delay') out.maxDelayMs = ms;
        else out.budgetMs = ms;
        break;
      }
      case 'multiplier':
        if (v.kind === 'number' && v.value >= 1 && v.value <= 10) out.multiplier = v.value;
        else ok = invalid(v.span, '`multiplier` is a number from 1 to 10', ctx);
        break;
      case 'on': {
        const kinds = kindWords(v, ctx);
        if (kinds === undefined) ok = false;
        else {
          ok = checkKindsExist(kinds, connectorKinds(schema), `\`${schema.name}\``, ctx) && ok;
          out.kinds = kinds.map((k) => k.kind);
        }
        break;
      }
      case 'status': {
        const items = v.kind === 'array' ? v.items : [v];
        const statusOf = (i: Value): number | undefined =>
          i.kind === 'number' && Number.isInteger(i.value) && i.value >= 400 && i.value <= 599 ? i.value : undefined;
        const statuses = items.map(statusOf);
        if (statuses.some((s) => s === undefined)) {
          ok = invalid(v.span, '`status` is a list of statuses from 400 to 599, e.g. `[429, 503]`', ctx);
        } else out.statuses = statuses as number[];
        break;
      }
    }
  }
  return ok ? out : undefined;
}

function durationMs(v: Value): number | undefined {
  if (v.kind === 'duration') return v.ms;
  if (v.kind === 'number' && Number.isInteger(v.value)) return v.value;
  return undefined;
}

function integerIn(
  v: { value: number; span: Span },
  min: number,
  max: number,
  what: string,
  ctx: PipelineContext,
): boolean {
  if (Number.isInteger(v.value) && v.value >= min && v.value <= max) return true;
  invalid(v.span, `\`${what}\` is an integer from ${min} to ${max}`, ctx);
  return false;
}

/** Reports PIPE3013; returns false (so `ok = invalid(…)` reads as what it does). */
function invalid(span: Span, message: string, ctx: PipelineContext): false {
  ctx.diagnostics.push(badRetryOption(message, span));
  return false;
}

interface KindWord {
  readonly kind: string;
  readonly span: Span;
}

function kindWords(v: Value, ctx: PipelineContext): KindWord[] | undefined {
  const items = v.kind === 'array' ? v.items : [v];
  const out: KindWord[] = [];
  for (const item of items) {
    const text = item.kind === 'ident' ? item.name : item.kind === 'string' ? item.value : undefined;
    if (text === undefined || !/^[A-Z][A-Z0-9_]*$/.test(text)) {
      invalid(item.span, '`on` is a list of error kinds such as `[TIMEOUT, REST_UNREACHABLE]`', ctx);
      return undefined;
    }
    out.push({ kind: text, span: item.span });
  }
  return out;
}

/** PIPE6007 for each kind not in `known` (undefined: the steps may fail in any way). */
function checkKindsExist(
  words: readonly KindWord[],
  known: ReadonlySet<string> | undefined,
  what: string,
  ctx: PipelineContext,
): boolean {
  if (known === undefined) return true;
  let ok = true;
  for (const word of words) {
    if (known.has(word.kind)) continue;
    ok = false;
    const close = suggest(word.kind, [...known]);
    ctx.diagnostics.push(kindNeverProduced(what, word.kind, word.span, [...known].sort(), close));
  }
  return ok;
}

function kindList(schema: ConnectorSchema): string {
  const kinds = (schema['x-pipe-errors'] ?? []).map((e) => `\`${e.kind}\`${e.status ? ` (${e.status})` : ''}`);
  return kinds.length > 0 ? kinds.join(', ') : 'none';
}

/** PIPE3014 when the connector says this call is not idempotent (x-pipe-retry.unsafe.when matches). */
function warnUnsafe(
  step: ConnectorStep,
  schema: ConnectorSchema,
  extra: Readonly<Record<string, unknown>>,
  entry: ObjectEntry,
  ctx: PipelineContext,
): void {
  const unsafe = schema['x-pipe-retry']?.unsafe;
  if (!unsafe) return;
  const withDefault = Object.entries(paramProperties(schema)).filter(([, p]) => p['default'] !== undefined);
  const defaults = Object.fromEntries(withDefault.map(([k, p]) => [k, p['default']]));
  const literal = toLiteral(connectorParams(step.params)).json as Record<string, unknown>;
  const instance = { ...defaults, ...literal, ...extra };
  if (!ctx.facts.validators.validatorForFact(unsafe.when)(instance)) return;
  ctx.diagnostics.push(retriedNotIdempotent(step.connector, unsafe.how, entry.keySpan));
}

// ───────────────────────────── routing on error kinds ─────────────────────────────

/** What a block of steps can fail with; `undefined` = anything (a step whose kinds are unknown). */
export type KindSet = Set<string> | undefined;

function union(a: KindSet, b: KindSet): KindSet {
  if (a === undefined || b === undefined) return undefined;
  for (const k of b) a.add(k);
  return a;
}

/**
 * Whether an error that escapes `steps` may carry fields named in the pipeline rather than by the
 * platform: a `fail` whose message is not text (its object joins the error), an `execute` (the
 * executed pipeline's `fail` details come back), a capsule (its steps are not walked here). As
 * stepsKinds: a `try`'s own body is caught by its `catch`, so only the catch is walked.
 */
export function failsWithNamedDetails(
  steps: readonly Step[],
  ctx: PipelineContext,
  seen: Set<string> = new Set(),
): boolean {
  return steps.some((step) => {
    switch (step.kind) {
      case 'connector':
        if (step.connector === 'execute' || ctx.facts.decls.capsules.has(step.connector)) return true;
        return step.params.entries.some(
          (e) => e.kind === 'steps-entry' && failsWithNamedDetails((e as StepsEntry).steps, ctx, seen),
        );
      case 'fail':
        return step.message.kind !== 'string' && step.message.kind !== 'template';
      case 'respond':
        return false;
      case 'choice':
        return [...step.whens.map((w) => w.body), ...(step.otherwise ? [step.otherwise] : [])].some((body) => {
          if (body.kind === 'inline') return failsWithNamedDetails(body.steps, ctx, seen);
          if (seen.has(body.name)) return false;
          seen.add(body.name);
          const branch = ctx.branches.get(body.name);
          return branch === undefined || failsWithNamedDetails(branch.steps, ctx, seen);
        });
      case 'try':
        return failsWithNamedDetails(step.catchBody, ctx, seen);
      case 'for-each':
        return failsWithNamedDetails(step.body, ctx, seen);
    }
  });
}

/** The kinds the steps can fail with (failures a `try`'s `catch` handles count as its catch's). */
export function stepsKinds(steps: readonly Step[], ctx: PipelineContext, seen: Set<string> = new Set()): KindSet {
  let kinds: KindSet = new Set(ANY_STEP_KINDS);
  for (const step of steps) {
    switch (step.kind) {
      case 'connector': {
        if (ctx.facts.decls.capsules.has(step.connector)) return undefined;
        const schema = ctx.facts.registry.connectors.get(step.connector);
        kinds = union(kinds, schema ? connectorKinds(schema) : undefined);
        for (const e of step.params.entries) {
          if (e.kind === 'steps-entry') kinds = union(kinds, stepsKinds((e as StepsEntry).steps, ctx, seen));
        }
        break;
      }
      case 'fail':
        kinds?.add('FAIL');
        break;
      case 'respond':
        break;
      case 'choice':
        for (const body of [...step.whens.map((w) => w.body), ...(step.otherwise ? [step.otherwise] : [])]) {
          if (body.kind === 'inline') kinds = union(kinds, stepsKinds(body.steps, ctx, seen));
          else if (!seen.has(body.name)) {
            seen.add(body.name);
            const branch = ctx.branches.get(body.name);
            kinds = union(kinds, branch ? stepsKinds(branch.steps, ctx, seen) : undefined);
          }
        }
        break;
      case 'try':
        kinds = union(kinds, stepsKinds(step.catchBody, ctx, seen));
        break;
      case 'for-each':
        kinds = union(kinds, stepsKinds(step.body, ctx, seen));
        break;
    }
    if (kinds === undefined) return undefined;
  }
  return kinds;
}

/**
 * PIPE6007 for each `when` at the head of a failure handler (before any connector step replaces
 * the error object) that compares `message.kind` with a kind the guarded steps cannot produce.
 */
export function checkKindRouting(handler: readonly Step[], kinds: KindSet, what: string, ctx: PipelineContext): void {
  if (kinds === undefined) return;
  for (const step of handler) {
    if (step.kind !== 'choice') return;
    for (const when of step.whens) checkKindsExist(kindsNamedBy(when.condition), kinds, what, ctx);
  }
}

const BRACES_KIND = [
  /message\.kind\s*(?:===?|!==?)\s*(["'])([A-Z][A-Z0-9_]*)\1/g,
  /(["'])([A-Z][A-Z0-9_]*)\1\s*(?:===?|!==?)\s*message\.kind\b/g,
  /EQUALTO\(\s*message\.kind\s*,\s*(["'])([A-Z][A-Z0-9_]*)\1\s*\)/g,
];
const JSONPATH_KIND = /@\.kind\s*(?:===?|!==?)\s*(["'])([A-Z][A-Z0-9_]*)\1/g;

/** The kinds a `when` condition compares `message.kind` with, each with the span of its literal. */
export function kindsNamedBy(condition: Value): KindWord[] {
  const out: KindWord[] = [];
  const onlyPart = condition.kind === 'template' && condition.parts.length === 1 ? condition.parts[0] : undefined;
  const braces = condition.kind === 'braces' ? condition : onlyPart?.kind === 'braces' ? onlyPart : undefined;
  if (braces) {
    for (const pattern of BRACES_KIND) {
      for (const m of braces.text.matchAll(pattern)) {
        const at = (m.index ?? 0) + m[0].indexOf(m[2] as string) - 1;
        const start = braces.offsets ? (braces.offsets[at] ?? braces.textStart + at) : braces.textStart + at;
        const kind = m[2] as string;
        out.push({ kind, span: { file: braces.span.file, start, end: start + kind.length + 2 } });
      }
    }
  } else if (condition.kind === 'string') {
    for (const m of condition.value.matchAll(JSONPATH_KIND)) out.push({ kind: m[2] as string, span: condition.span });
  }
  return out;
}
