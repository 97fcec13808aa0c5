/**
 * The helpers generated pipeline code calls between its own lines: run a connector step (with
 * fail-on-error, labelled outputs and per-step hooks), reply, fail, catch, for-each. Kept small and
 * allocation-light: they sit on every request's path.
 */
import { envOrFile } from './service/env-values.js';
import { maskSecrets, secretValues } from './service/logging.js';
import { PipeError, asPipeError, toErrorObject, toFailureOutput } from './errors.js';
import {
  NO_HEADERS,
  Reply,
  type CompiledValidator,
  type ExecutionContext,
  type Json,
  type JsonObject,
  type SpanKindName,
} from './types.js';
import { enterDeadline, isExecutionTimeout, leaveDeadline } from './work-meter.js';
import { runWithRetry, sleep, type Pacer, type RetrySpec } from './policies/retry.js';
import { MAX_QUEUED_PUBLISHES, PublishBatch } from './publish-batch.js';

/** Facts about one step, emitted once per step as a module constant. */
export interface StepInfo {
  readonly label?: string;
  readonly connector: string;
  /** `file.pipe:line`. */
  readonly source: string;
  readonly failOnError: boolean;
  /** The connector schema's `x-pipe-span`: the step span's kind and its attributes (attribute → parameter). */
  readonly span?: { readonly kind: SpanKindName; readonly attributes?: Readonly<Record<string, string>> };
  /** The connector schema's `x-pipe-metrics`: what the service counts for the step. */
  readonly metrics?: StepMetrics;
  /** The step's `retry` option, with the connector's defaults filled in (runtime/policies/retry.ts). */
  readonly retry?: RetrySpec;
}

/** Counted per step when its connector says so; values name the parameter (or output field) to read. */
export interface StepMetrics {
  readonly 'events-published'?: { readonly event: string };
  readonly 'token-usage'?: { readonly model: string; readonly usage: string };
}

/** Parameters of a step: a frozen constant, or a module-level function of the message. */
export type StepParams<P> = P | ((message: Json, ctx: ExecutionContext) => P);

/**
 * Observers of step execution (metrics, tracing, `pipec test` coverage and mocks). The service
 * installs one shared object on every context; absent means no cost beyond one property read.
 * `ctx` and `params` come last so observers that do not need them can ignore them.
 */
export interface StepHooks {
  /** Replaces the connector (mocks in pipeline tests); undefined = run it. */
  readonly mock?: (
    step: StepInfo,
    params: unknown,
    message: Json,
    ctx: ExecutionContext,
  ) => Json | Promise<Json> | undefined;
  /**
   * Called as the step starts; what it returns comes back to `after` (and `around`) as `token`.
   * `chained`: the step belongs to a pipeline whose steps are all synchronous (`stepNow`), so
   * nothing but the pipeline's own code ran since the step before it ended.
   */
  readonly before?: (step: StepInfo, ctx: ExecutionContext, chained: boolean) => unknown;
  /** Runs the connector inside `around` (e.g. with the step's trace context active). */
  readonly around?: <T>(step: StepInfo, token: unknown, run: () => T) => T;
  readonly after?: (
    step: StepInfo,
    token: unknown,
    outcome: 'ok' | 'error',
    output: Json | undefined,
    error: PipeError | undefined,
    ctx: ExecutionContext,
    params: unknown,
    chained: boolean,
  ) => void;
  /** The step failed and its `retry` runs it again (counted by the service's metrics). */
  readonly retried?: (step: StepInfo, ctx: ExecutionContext) => void;
  /** A choice took its branch `index` (whens in order, then otherwise); coverage in pipeline tests. */
  readonly branch?: (choice: ChoiceInfo, index: number, ctx: ExecutionContext) => void;
}

/** Facts about one choice, emitted once per choice as a module constant. */
export interface ChoiceInfo {
  readonly label?: string;
  /** `file.pipe:line` of the choice. */
  readonly source: string;
  /** Each branch as written: the `when` conditions in order, then `otherwise` when there is one. */
  readonly branches: readonly string[];
}

type ContextWithHooks = ExecutionContext & { readonly hooks?: StepHooks };

/**
 * A connector's run function as a step calls it. Connectors whose work is synchronous (validate,
 * JOLT, json-generator) return the output itself, so their steps cost no promise.
 */
export type StepRun<P> = (params: P, message: Json, ctx: ExecutionContext) => Json | Promise<Json>;

/** The run function of a connector whose work is synchronous. */
export type SyncConnectorRun<P> = (params: P, message: Json, ctx: ExecutionContext) => Json;

/** A promise (or any thenable); JSON values never carry a function, so this cannot misread data. */
/** True for a promise (any thenable): a step, or a pipeline's run, that has not finished yet. */
export function isPending<T>(value: T | Promise<T>): value is Promise<T> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * Runs one connector step. The output comes back as it is when the connector finished at once
 * (and no mock or span wrapped it), otherwise as a promise: generated code awaits only the latter.
 */
export function step<P>(
  ctx: ExecutionContext,
  info: StepInfo,
  run: StepRun<P>,
  params: StepParams<P>,
  message: Json,
  chained = false,
): Json | Promise<Json> {
  const hooks = (ctx as ContextWithHooks).hooks;
  const token = hooks?.before?.(info, ctx, chained);
  let resolved: P | undefined;
  let output: Json | Promise<Json>;
  // The step's synchronous work (its parameters, a transformation) counts against the execution's deadline.
  enterDeadline(ctx.deadline, ctx.timeoutMs);
  try {
    resolved = typeof params === 'function' ? (params as (m: Json, c: ExecutionContext) => P)(message, ctx) : params;
    const mocked = hooks?.mock?.(info, resolved, message, ctx);
    const ready = resolved;
    if (mocked !== undefined) output = mocked;
    else if (info.retry === undefined && !hooks?.around) output = run(ready, message, ctx);
    else {
      // A closure only where a retry or an `around` hook runs the connector (not per plain step).
      const attempt =
        info.retry === undefined
          ? () => run(ready, message, ctx)
          : () => retried(info, info.retry as RetrySpec, () => run(ready, message, ctx), ctx);
      output = hooks?.around ? hooks.around(info, token, attempt) : attempt();
    }
  } catch (err) {
    return stepFailed(ctx, info, hooks, token, resolved, err, chained);
  } finally {
    leaveDeadline();
  }
  if (!isPending(output)) return stepSucceeded(ctx, info, hooks, token, resolved, output, chained);
  const settledParams = resolved;
  return output.then(
    (value) => stepSucceeded(ctx, info, hooks, token, settledParams, value, false),
    (err: unknown) => stepFailed(ctx, info, hooks, token, settledParams, err, false),
  );
}

/** The connector's run under the step's retry policy, waiting on the service's clock. */
function retried(
  info: StepInfo,
  spec: RetrySpec,
  run: () => Json | Promise<Json>,
  ctx: ExecutionContext,
): Promise<Json> {
  const clock = ctx.services.clock;
  const pacer: Pacer = {
    now: () => clock.now(),
    sleep: clock.sleep ? (ms, signal) => (clock.sleep as Pacer['sleep'])(ms, signal) : sleep,
  };
  return runWithRetry(spec, run, pacer, ctx.signal, (notice) => {
    (ctx as ContextWithHooks).hooks?.retried?.(info, ctx);
    ctx.log.warn({ step: info.label ?? info.connector, source: info.source, ...notice }, 'step failed; retrying');
  });
}

function stepSucceeded(
  ctx: ExecutionContext,
  info: StepInfo,
  hooks: StepHooks | undefined,
  token: unknown,
  params: unknown,
  output: Json,
  chained: boolean,
): Json {
  if (info.label !== undefined) ctx.steps[info.label] = output;
  hooks?.after?.(info, token, 'ok', output, undefined, ctx, params, chained);
  return output;
}

/** A failed step: thrown on (fail-on-error, or the execution was aborted), else its failure output. */
function stepFailed(
  ctx: ExecutionContext,
  info: StepInfo,
  hooks: StepHooks | undefined,
  token: unknown,
  params: unknown,
  err: unknown,
  chained: boolean,
): Json {
  const error = withoutAccountValues(withStep(asPipeError(err, info.label ?? info.connector), info), ctx.accounts);
  hooks?.after?.(info, token, 'error', undefined, error, ctx, params, chained);
  // The execution's own timeout (or shutdown) always ends it; a connector's timeout is data when fail-on-error is off.
  // A backend that is away ends it too: going on would answer 2xx for work that was not done (503 instead).
  if (info.failOnError || ctx.signal.aborted || isExecutionTimeout(error) || error.kind === 'BACKEND_UNAVAILABLE')
    throw error;
  ctx.log.warn(
    { step: info.label ?? info.connector, source: info.source, err: error.message, code: error.code },
    'step failed; continuing (fail-on-error is off)',
  );
  const output = toFailureOutput(error);
  if (info.label !== undefined) ctx.steps[info.label] = output;
  return output;
}

/** Reports the branch a choice took; one property read when no observer wants it. */
/**
 * `step` for a synchronous connector, in the generated code of a pipeline whose steps are all
 * synchronous (its `run` returns without a promise). The hooks keep a synchronous step synchronous
 * (mocks answer at once, tracing runs the connector inside its span's context).
 */
export function stepNow<P>(
  ctx: ExecutionContext,
  info: StepInfo,
  run: SyncConnectorRun<P>,
  params: StepParams<P>,
  message: Json,
): Json {
  const output = step(ctx, info, run, params, message, true);
  if (isPending(output)) {
    throw new PipeError(`step ${info.label ?? info.connector} (${info.source}) did not finish synchronously`, {
      code: 500,
      kind: 'INTERNAL',
    });
  }
  return output;
}

export function branch(ctx: ExecutionContext, info: ChoiceInfo, index: number): void {
  (ctx as ContextWithHooks).hooks?.branch?.(info, index, ctx);
}

function withStep(error: PipeError, info: StepInfo): PipeError {
  if (error.step !== undefined) return error;
  return new PipeError(error.message, {
    code: error.code,
    kind: error.kind,
    step: info.label ?? info.connector,
    ...(error.details ? { details: error.details } : {}),
    cause: error,
  });
}

/**
 * The error with every account value in its message masked. A connector's error may quote what a
 * server answered, and servers echo credentials (a model API repeating the key it refused, a driver
 * its connection string); the message reaches the caller's reply, the log and `{ success: false }`
 * outputs. The original stays the cause, which only a debugger sees (a PipeError cause is never logged).
 */
function withoutAccountValues(error: PipeError, accounts: ExecutionContext['accounts']): PipeError {
  const masked = maskSecrets(error.message, secretValues(accounts));
  if (masked === error.message) return error;
  return new PipeError(masked, {
    code: error.code,
    kind: error.kind,
    ...(error.step !== undefined ? { step: error.step } : {}),
    ...(error.details ? { details: error.details } : {}),
    permanent: error.permanent,
    cause: error,
  });
}

/** `respond STATUS body [headers]`. */
export function reply(status: number, body: Json, headers?: Readonly<Record<string, Json>>): Reply {
  if (!headers) return new Reply(status, body, NO_HEADERS);
  const stringHeaders: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) stringHeaders[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return new Reply(status, body, stringHeaders);
}

/** `fail [status] message`: the error to throw. */
export function fail(status: number, message: Json, source: string): PipeError {
  const text = typeof message === 'string' ? message : JSON.stringify(message);
  const details: JsonObject | undefined =
    message !== null && typeof message === 'object' && !Array.isArray(message) ? message : undefined;
  return new PipeError(text, { code: status, kind: 'FAIL', step: `fail (${source})`, ...(details ? { details } : {}) });
}

/** The message inside `catch` / `on-error`: the standard error object and the error's `kind`. */
export function caught(ctx: ExecutionContext, err: unknown): JsonObject {
  if (err instanceof Reply) throw err;
  const error = asPipeError(err);
  // The kind is what `catch` and `on-error` route on (`when {{ message.kind == "TIMEOUT" }}`).
  return { ...toErrorObject(error, ctx.executionId, ctx.services.clock.now()), kind: error.kind };
}

/** True for the `{ success: false, … }` output of a step whose fail-on-error is off. */
export function isFailure(message: Json): boolean {
  return message !== null && typeof message === 'object' && !Array.isArray(message) && message['success'] === false;
}

/**
 * An element's failure that ends the execution even when the for-each's fail-on-error is off, as
 * it would at a step (stepFailed): the execution's own timeout or shutdown, or a backend that is
 * away — going on would answer 2xx for work that was not done.
 */
function endsExecution(ctx: ExecutionContext, err: unknown): boolean {
  if (ctx.signal.aborted) return true;
  const error = asPipeError(err);
  return isExecutionTimeout(error) || error.kind === 'BACKEND_UNAVAILABLE';
}

/** A for-each's elements: arrays as they are, null as none, anything else as one element. */
export function asArray(value: unknown): Json[] {
  if (Array.isArray(value)) return value as Json[];
  if (value === null || value === undefined) return [];
  return [value as Json];
}

export interface ForEachInfo {
  readonly label?: string;
  readonly source: string;
  readonly parallel: number;
  readonly failOnError: boolean;
  /**
   * The body only computes in-process and publishes (fail-on-error on): its publishes are handed
   * to the broker together (runtime/publish-batch.ts) rather than one round trip each.
   */
  readonly pipelinedPublishes?: boolean;
}

/**
 * Runs `body` once per element (at most `parallel` at a time). Output: `{ total, success, failed }`.
 * A failing element counts as failed; with fail-on-error the first failure stops the loop, as does
 * one that ends the execution anyway (a backend away, the execution's timeout: `endsExecution`).
 */
export async function forEach(
  ctx: ExecutionContext,
  info: ForEachInfo,
  elements: readonly Json[],
  body: (element: Json, ctx: ExecutionContext) => Promise<Json>,
): Promise<JsonObject> {
  if (info.pipelinedPublishes === true && elements.length > 1) return forEachPublishing(ctx, info, elements, body);
  let success = 0;
  let failed = 0;
  let next = 0;
  let firstError: unknown;
  const worker = async (): Promise<void> => {
    while (next < elements.length && firstError === undefined) {
      const element = elements[next++] as Json;
      try {
        // Each element sees the labelled outputs from before the loop plus its own, never another
        // element's (they may run in parallel).
        const steps: Record<string, Json> = Object.assign(Object.create(null) as Record<string, Json>, ctx.steps);
        await body(element, derivedContext(ctx, { steps }));
        success++;
      } catch (err) {
        failed++;
        if (info.failOnError || endsExecution(ctx, err)) firstError ??= err;
        else
          ctx.log.warn(
            { step: info.label ?? 'for-each', source: info.source, err: asPipeError(err).message },
            'for-each element failed',
          );
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(info.parallel, elements.length)) }, worker);
  await Promise.all(workers);
  if (firstError !== undefined) throw asPipeError(firstError, info.label ?? 'for-each');
  const output: JsonObject = { total: elements.length, success, failed };
  if (info.label !== undefined) ctx.steps[info.label] = output;
  return output;
}

/**
 * `forEach` for a body that only computes and publishes: the elements run one after the other, each
 * publish queues its event, and the queue goes to the broker together (every MAX_QUEUED_PUBLISHES
 * events and at the end), so every event is stored before the for-each ends. An element fails when
 * its body threw or one of its publishes was not stored; with fail-on-error the first failed
 * element (in element order) fails the loop, and no element starts after a failure is known —
 * events of later elements already handed over with the failed one may have been stored.
 */
async function forEachPublishing(
  ctx: ExecutionContext,
  info: ForEachInfo,
  elements: readonly Json[],
  body: (element: Json, ctx: ExecutionContext) => Promise<Json>,
): Promise<JsonObject> {
  const batch = new PublishBatch(ctx.services.broker);
  const thrown = new Map<number, unknown>();
  let ran = 0;
  while (ran < elements.length) {
    const index = ran++;
    const steps: Record<string, Json> = Object.assign(Object.create(null) as Record<string, Json>, ctx.steps);
    try {
      await body(elements[index] as Json, derivedContext(ctx, { steps, publishes: batch.sinkFor(index) }));
    } catch (err) {
      thrown.set(index, err);
      if (info.failOnError || endsExecution(ctx, err)) break;
    }
    if (batch.size >= MAX_QUEUED_PUBLISHES) {
      await batch.flush();
      if ([...batch.failures.values()].some((err) => info.failOnError || endsExecution(ctx, err))) break;
    }
  }
  await batch.flush();
  let success = 0;
  let failed = 0;
  let firstError: unknown;
  let failedOnce = false;
  for (let index = 0; index < ran; index++) {
    const error = thrown.has(index) ? thrown.get(index) : batch.failures.get(index);
    if (!thrown.has(index) && !batch.failures.has(index)) {
      success++;
      continue;
    }
    failed++;
    if (info.failOnError || endsExecution(ctx, error)) {
      if (!failedOnce) firstError = error;
      failedOnce = true;
    } else
      ctx.log.warn(
        { step: info.label ?? 'for-each', source: info.source, err: asPipeError(error).message },
        'for-each element failed',
      );
  }
  if (failedOnce) throw asPipeError(firstError, info.label ?? 'for-each');
  const output: JsonObject = { total: elements.length, success, failed };
  if (info.label !== undefined) ctx.steps[info.label] = output;
  return output;
}

/**
 * `env("NAME", fallback)`: read when the service starts (accounts, globals) or at the step; when
 * NAME is unset, the content of the file `NAME_FILE` names (read once, then kept).
 */
export function env(name: string, fallback?: string): string | null {
  const value = process.env[name] ?? fromSecretFile(name);
  return value !== undefined && value !== '' ? value : (fallback ?? null);
}

const secretFiles = new Map<string, string | undefined>();

function fromSecretFile(name: string): string | undefined {
  if (!secretFiles.has(name)) secretFiles.set(name, envOrFile(process.env, name));
  return secretFiles.get(name);
}

/** The context of a capsule's steps: the caller's, plus the call's parameters (`capsule.<param>`). */
export function withCapsule(ctx: ExecutionContext, params: JsonObject): ExecutionContext {
  return derivedContext(ctx, { capsule: params });
}

/**
 * A context that is the given one with a few fields replaced. Built on the prototype chain, so the
 * engine's lazily computed fields (work folder, logger) keep working and stay shared.
 */
function derivedContext(ctx: ExecutionContext, fields: Readonly<Record<string, unknown>>): ExecutionContext {
  const derived = Object.create(ctx) as ExecutionContext;
  for (const [key, value] of Object.entries(fields)) Object.defineProperty(derived, key, { value, enumerable: true });
  return derived;
}

/** The parameters of the capsule whose steps are running (empty outside capsules). */
export function capsuleParams(ctx: ExecutionContext): JsonObject {
  return (ctx as ExecutionContext & { readonly capsule?: JsonObject }).capsule ?? {};
}

/** A capsule's output must satisfy its declared contract: a broken contract is the capsule's failure. */
export function checkContract(validate: CompiledValidator, message: Json, capsule: string): Json {
  if (validate(message)) return message;
  const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
  throw new PipeError(`capsule \`${capsule}\` broke its output contract: ${problems.join('; ')}`, {
    code: 500,
    kind: 'CAPSULE_CONTRACT',
    step: capsule,
    details: { violations: problems },
  });
}
