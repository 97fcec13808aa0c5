/**
 * The execution engine: runs one pipeline over one message. It creates the execution id, the
 * child logger and the ExecutionContext, waits for a concurrency slot, applies the timeout
 * (abort signal + 500), validates the trigger message, records metrics and (when tracing is on)
 * the execution span, and turns every ending into an `EngineOutcome`. Triggers (HTTP, events,
 * scheduler, Pipeline Executor) all run through here.
 *
 * This is every request's path, so it allocates little: the execution id, the logger child, the
 * abort signal and the work folder are created only when something uses them, metric series are
 * resolved once per pipeline, and nothing tracing-related runs unless a tracer was configured. A
 * pipeline whose steps are all synchronous (its generated `run` returns a value) is finished in
 * the same call, without a deadline timer or a race.
 */
import { randomUUID } from 'node:crypto';
import { resolve as resolvePath } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Context, Span, Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { PipeError, toErrorObject } from '../errors.js';
import { loadOtelApi, otelApiLoaded } from '../observability/otel-api.js';
import { contextFromHeaders } from '../observability/propagation.js';
import { activeContext, endExecutionSpan, startExecutionSpan, withContext } from '../observability/spans.js';
import { isPending, type StepHooks } from '../steps.js';
import type {
  Clock,
  Connections,
  EventBroker,
  ExecutionContext,
  ExecutionMetadata,
  Json,
  JsonObject,
  ObjectStoreBackend,
  PipelineModule,
  Reply,
  ServiceServices,
} from '../types.js';
import { ConcurrencyLimiter, QueueFull, type Release } from './concurrency.js';
import { runIdempotent, type IdempotencySpec } from './idempotency.js';

/** An idempotency claim still `running` this long after its execution's timeout was abandoned (its replica died). */
const STALE_CLAIM_MARGIN_MS = 30_000;
import { Deadlines } from './deadlines.js';
import { ExecutionAbort } from './execution-abort.js';
import { PipelineSeries, type ExecutionOutcomeLabel, type ServiceMetrics } from './metrics.js';
import { InFlightTracker, settleWithin } from './shutdown.js';
import { createStepHooks, type StepClock } from './step-observer.js';
import { invalidMessageError, type Violation } from './validation.js';
import { enterDeadline, executionTimeoutError, leaveDeadline } from '../work-meter.js';
import { createWorkDir, type WorkDir } from './work-dir.js';

/** After an abort, how long a run that ignores its signal may keep its slot and work folder. */
const ABANDON_AFTER_MS = 5_000;

/** What a trigger may do inside the execution before the pipeline runs (e.g. store uploads). */
export interface ExecutionScope {
  readonly executionId: string;
  /** Reading it creates the execution's work folder. */
  readonly workDir: string;
  readonly signal: AbortSignal;
  readonly log: Logger;
}

/** Headers carrying a W3C trace context: web `Headers` or an event envelope's header record. */
export type TraceHeaders = { get(name: string): string | null } | Readonly<Record<string, string>>;

export interface ExecutionRequest {
  readonly pipeline: string;
  /** The message (ignored when `prepare` is given). */
  readonly message?: Json;
  /** Produces the message inside the execution; a thrown PipeError fails the execution. */
  readonly prepare?: (scope: ExecutionScope) => Promise<Json>;
  /** Trigger validation; violations end the execution with 422 before the pipeline runs. */
  readonly validate?: ((message: Json) => Violation[] | null) | undefined;
  readonly redelivery?: boolean;
  /** Overrides the pipeline's own timeout (Pipeline Executor calls). */
  readonly timeoutMs?: number;
  /** The calling execution (Pipeline Executor): links logs and abort signals. */
  readonly parent?: ExecutionContext;
  /** Trigger name, for logs and spans. */
  readonly trigger: string;
  /**
   * The caller's trace context (HTTP request headers, event envelope headers). Absent: the
   * execution's span is a child of the active context (the calling step, for Pipeline Executor).
   */
  readonly traceHeaders?: TraceHeaders;
}

export type EngineOutcome =
  | { readonly ok: true; readonly executionId: string; readonly result: Json | Reply }
  | {
      readonly ok: false;
      readonly executionId: string;
      readonly error: PipeError;
      readonly errorObject: JsonObject;
      readonly outcome: Exclude<ExecutionOutcomeLabel, 'success'>;
    };

export interface EngineDeps {
  readonly pipelines: readonly PipelineModule[];
  readonly logger: Logger;
  readonly metrics: ServiceMetrics;
  readonly clock: Clock;
  readonly dataDir: string;
  readonly globals: Readonly<Record<string, Json>>;
  readonly accounts: Readonly<Record<string, Readonly<Record<string, Json>>>>;
  readonly store: ObjectStoreBackend;
  readonly broker: EventBroker;
  readonly connections: Connections;
  /** Builds the Pipeline Executor function from the engine's `execute` (see executor.ts). */
  readonly createExecutor: (run: (request: ExecutionRequest) => Promise<EngineOutcome>) => ServiceServices['execute'];
  /** Set when tracing is on: every execution and step gets a span. */
  readonly tracer?: Tracer;
  /** The caller's step hooks (mocks, coverage), run alongside the service's own. */
  readonly stepHooks?: StepHooks;
}

/** A successful outcome; its execution id is read (and so made) only by whoever asks for it. */
class Succeeded {
  readonly ok = true;

  constructor(
    private readonly id: ExecutionId,
    readonly result: Json | Reply,
  ) {}

  get executionId(): string {
    return this.id.value;
  }
}

type Ending = { result: Json | Reply } | { error: unknown; label: Exclude<ExecutionOutcomeLabel, 'success'> };

/** What the start of one execution hands to its cleanup: the concurrency slot, the in-flight count, and whether the message was invalid. */
interface Slot {
  release: Release | undefined;
  /** Counted in the in-flight gauge (also a nested run in its caller's slot, which takes none). */
  counted: boolean;
  invalid: boolean;
}

/** One execution's parts, handed from its start to its settling. */
interface Run {
  readonly entry: PipelineEntry;
  readonly id: ExecutionId;
  readonly log: ExecutionLog;
  readonly abort: ExecutionAbort;
  readonly workDir: WorkDir;
  readonly timeoutMs: number;
  /** performance.now() at the start; the deadline and the duration count from here. */
  readonly startedAt: number;
  readonly slot: Slot;
  readonly span: Span | undefined;
}

const timeoutError = executionTimeoutError;

function shutdownError(): PipeError {
  return new PipeError('service is shutting down', { code: 503, kind: 'SHUTDOWN' });
}

/** A pipeline with what its executions share: the concurrency limit and metric series. */
interface PipelineEntry {
  readonly module: PipelineModule;
  readonly limiter: ConcurrencyLimiter;
  readonly series: PipelineSeries;
}

/**
 * The execution's id, made on first use: a successful execution that logs nothing, has no span
 * and answers without its id (the common HTTP case) never needs one.
 */
class ExecutionId {
  private id: string | undefined;

  get value(): string {
    this.id ??= randomUUID();
    return this.id;
  }
}

/** The execution's child logger, created on first use (most executions log nothing at info). */
class ExecutionLog {
  private child: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly levels: LevelGate,
    private readonly id: ExecutionId,
    private readonly pipeline: string,
    private readonly parentExecutionId: string | undefined,
  ) {}

  get logger(): Logger {
    const executionId = this.id.value;
    this.child ??= this.parent.child(
      this.parentExecutionId === undefined
        ? { executionId, pipeline: this.pipeline }
        : { executionId, pipeline: this.pipeline, parentExecutionId: this.parentExecutionId },
    );
    return this.child;
  }

  enabled(level: 'debug' | 'info'): boolean {
    return this.levels.enabled(level);
  }
}

/**
 * pino's `isLevelEnabled` answers, kept while the logger's level stays the same: asked twice per
 * execution, and pino's own check (a levels lookup and a comparator call) costs more than the rest
 * of an execution's bookkeeping.
 */
class LevelGate {
  private levelVal = Number.NaN;
  private debug = false;
  private info = false;

  constructor(private readonly logger: Logger) {}

  enabled(level: 'debug' | 'info'): boolean {
    const current = this.logger.levelVal;
    if (current !== this.levelVal) {
      this.debug = this.logger.isLevelEnabled('debug');
      this.info = this.logger.isLevelEnabled('info');
      this.levelVal = current;
    }
    return level === 'debug' ? this.debug : this.info;
  }
}

/** The execution's context with `hooks` for steps (runtime/steps.ts reads them). */
type ContextWithHooks = ExecutionContext & { readonly hooks: StepHooks };

/**
 * The ExecutionContext the engine hands to a pipeline (and, as an ExecutionScope, to a trigger's
 * `prepare`). The lazily created parts (logger, signal, work folder) are prototype getters rather
 * than per-execution closures; `steps` and `metadata` are made on first use (most executions read
 * neither, and a null-prototype record is one of the larger allocations of an execution). No base
 * class: a derived constructor's `super()` costs a lookup per execution.
 */
class EngineContext implements ContextWithHooks, StepClock {
  private labelled: Record<string, Json> | undefined;
  private meta: ExecutionMetadata | undefined;
  stepMark: number | undefined = undefined;

  constructor(
    private readonly id: ExecutionId,
    readonly pipeline: string,
    private readonly startTimestamp: number,
    readonly timeoutMs: number,
    /** performance.now() time at which the timeout expires (see runtime/work-meter.ts). */
    readonly deadline: number,
    private readonly redelivery: boolean,
    readonly globals: Readonly<Record<string, Json>>,
    readonly accounts: Readonly<Record<string, Readonly<Record<string, Json>>>>,
    readonly services: ServiceServices,
    readonly hooks: StepHooks,
    private readonly executionLog: ExecutionLog,
    private readonly abort: ExecutionAbort,
    private readonly folder: WorkDir,
  ) {}

  get executionId(): string {
    return this.id.value;
  }

  get log(): Logger {
    return this.executionLog.logger;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get workDir(): string {
    return this.folder.path;
  }

  get steps(): Record<string, Json> {
    this.labelled ??= Object.create(null) as Record<string, Json>;
    return this.labelled;
  }

  get metadata(): ExecutionMetadata {
    this.meta ??= {
      pipeline: { name: this.pipeline },
      execution: {
        key: this.executionId,
        startTimestamp: this.startTimestamp,
        timeout: this.timeoutMs,
        redelivery: this.redelivery,
      },
    };
    return this.meta;
  }
}

export class ExecutionEngine {
  readonly services: ServiceServices;
  private readonly entries = new Map<string, PipelineEntry>();
  private readonly tracker = new InFlightTracker();
  /** Aborts of running executions, so a shutdown can abort them all. */
  private readonly running = new Set<ExecutionAbort>();
  /** The pipeline timeouts of running executions (one timer for all). */
  private readonly deadlines = new Deadlines();
  private readonly dataDir: string;
  private readonly hooks: StepHooks;
  private readonly levels: LevelGate;
  private shutdownReason: PipeError | undefined;
  private accepting = true;

  constructor(private readonly deps: EngineDeps) {
    for (const p of deps.pipelines) {
      if (this.entries.has(p.name)) throw new Error(`duplicate pipeline name "${p.name}"`);
      const queueDepth = deps.metrics.queueDepth.series([p.name]);
      this.entries.set(p.name, {
        module: p,
        series: new PipelineSeries(deps.metrics, p.name),
        limiter: new ConcurrencyLimiter(
          p.options.concurrency,
          p.options.queue ?? Number.POSITIVE_INFINITY,
          (queued) => {
            queueDepth.value = queued;
          },
        ),
      });
    }
    this.dataDir = resolvePath(deps.dataDir);
    this.levels = new LevelGate(deps.logger);
    this.hooks = createStepHooks({
      metrics: deps.metrics,
      ...(deps.tracer ? { tracer: deps.tracer } : {}),
      ...(deps.stepHooks ? { extra: deps.stepHooks } : {}),
    });
    this.services = {
      clock: deps.clock,
      store: deps.store,
      broker: deps.broker,
      connections: deps.connections,
      execute: deps.createExecutor((request) => this.execute(request)),
    };
  }

  pipeline(name: string): PipelineModule | undefined {
    return this.entries.get(name)?.module;
  }

  get isAccepting(): boolean {
    return this.accepting;
  }

  /** Executions running or cleaning up (in-flight). */
  get inFlight(): number {
    return this.tracker.size;
  }

  /** From now on only executions started by running ones (Pipeline Executor) are accepted. */
  stopAccepting(): void {
    this.accepting = false;
  }

  /** Waits for in-flight executions; true when all finished within `graceMs`. */
  drain(graceMs: number): Promise<boolean> {
    return this.tracker.drain(graceMs);
  }

  /** Aborts every running execution (after the grace period ran out), and any started later. */
  abortAll(): void {
    this.shutdownReason ??= shutdownError();
    for (const abort of this.running) abort.abort(this.shutdownReason);
  }

  /** Runs one execution; never rejects except for an unknown pipeline name (a caller bug). */
  execute(request: ExecutionRequest): Promise<EngineOutcome> {
    const outcome = this.executeNow(request);
    return isPending(outcome) ? outcome : Promise.resolve(outcome);
  }

  /**
   * Like `execute`, but an execution that finished synchronously (every step of its pipeline
   * did) gives its outcome at once, so a trigger can answer without another promise turn.
   */
  executeNow(request: ExecutionRequest): EngineOutcome | Promise<EngineOutcome> {
    const entry = this.entries.get(request.pipeline);
    if (!entry) {
      return Promise.reject(
        new PipeError(`unknown pipeline "${request.pipeline}"`, { code: 500, kind: 'UNKNOWN_PIPELINE' }),
      );
    }
    const id = new ExecutionId();
    const log = new ExecutionLog(this.deps.logger, this.levels, id, entry.module.name, request.parent?.executionId);
    if (!this.accepting && !request.parent) {
      return this.finish(entry, id, log, 0, { error: shutdownError(), label: 'rejected' }, undefined);
    }
    this.tracker.enter();
    if (this.deps.tracer && !otelApiLoaded()) {
      return loadOtelApi().then(
        () => this.start(entry, id, log, request),
        (err: unknown) => {
          this.tracker.leave();
          throw err;
        },
      );
    }
    return this.start(entry, id, log, request);
  }

  /**
   * Starts one execution; it leaves the in-flight count as it ends. A pipeline whose steps all ran
   * synchronously is finished here and now: no deadline timer, no race, no further promise turns
   * (its timeout could not have fired while it ran). Anything else is settled by `settle`, with
   * the deadline counted from this start.
   */
  private start(
    entry: PipelineEntry,
    id: ExecutionId,
    log: ExecutionLog,
    request: ExecutionRequest,
  ): EngineOutcome | Promise<EngineOutcome> {
    let settling = false;
    try {
      const pipeline = entry.module;
      const startedAt = performance.now();
      const timeoutMs = request.timeoutMs ?? pipeline.options.timeout;
      const abort = this.startAbort(request.parent);
      const workDir = createWorkDir(this.dataDir, id);
      const traced = this.deps.tracer ? this.startSpan(this.deps.tracer, pipeline, id.value, request) : undefined;
      const slot: Slot = { release: undefined, counted: false, invalid: false };
      const run: Run = { entry, id, log, abort, workDir, timeoutMs, startedAt, slot, span: traced?.span };
      if (log.enabled('debug'))
        log.logger.debug({ trigger: request.trigger, redelivery: request.redelivery ?? false }, 'execution started');

      let work: Json | Reply | Promise<Json | Reply>;
      try {
        work = traced
          ? withContext(traced.context, () => this.runPipeline(run, request))
          : this.runPipeline(run, request);
      } catch (err) {
        work = Promise.reject(err);
      }
      if (isPending(work) || abort.aborted || workDir.created) {
        settling = true;
        // From here on a shutdown may abort it.
        this.running.add(abort);
        return this.settle(run, Promise.resolve(work));
      }
      // A run that ended synchronously was never registered: nothing could abort it meanwhile.
      abort.unfollow();
      this.releaseSlot(entry, slot);
      return this.finish(entry, id, log, performance.now() - startedAt, { result: work }, traced?.span);
    } finally {
      // settle() leaves the in-flight count itself, once the run is over.
      if (!settling) this.tracker.leave();
    }
  }

  /** Waits for a run that went asynchronous (or must clean up), within its deadline. */
  private async settle(run: Run, work: Promise<Json | Reply>): Promise<EngineOutcome> {
    const { entry, abort, workDir, slot, log, timeoutMs } = run;
    try {
      const deadline = this.deadlines.add(timeoutMs, run.startedAt, () => abort.abort(timeoutError(timeoutMs)));
      let ending: Ending;
      try {
        ending = { result: await abort.race(work) };
      } catch (err) {
        ending = { error: err, label: slot.invalid ? 'invalid' : 'error' };
      } finally {
        deadline.cancel();
      }

      if (abort.aborted) {
        // A run that was aborted may take a while to notice; answer now and clean up in the background.
        void this.tracker.track(this.cleanUpAborted(entry, log, abort, workDir, work, slot));
      } else {
        this.endAbort(abort);
        this.releaseSlot(entry, slot);
        if (workDir.created)
          await workDir.remove().catch((err: unknown) => log.logger.warn({ err }, 'could not remove the work folder'));
      }
      return this.finish(entry, run.id, log, performance.now() - run.startedAt, ending, run.span);
    } finally {
      this.tracker.leave();
    }
  }

  /**
   * Takes a slot, prepares and checks the message, and starts the pipeline's steps. In the usual
   * case (a free slot, no prepare) the steps start at once and what they return is handed back as
   * it is: a value when they all ran synchronously, else their promise.
   */
  private runPipeline(run: Run, request: ExecutionRequest): Json | Reply | Promise<Json | Reply> {
    const { entry, abort, slot } = run;
    if (abort.aborted) return Promise.reject(abort.reason);
    // A pipeline that executes itself runs the nested execution inside the caller's slot: waiting
    // for a slot of its own could deadlock once every slot holds a caller (N callers, N slots).
    if (!request.parent || request.parent.pipeline !== entry.module.name) {
      slot.release = entry.limiter.tryAcquire();
      if (!slot.release) {
        return entry.limiter.acquire(abort).then(
          (release) => {
            slot.release = release;
            return this.prepareAndRun(run, request, false);
          },
          (err: unknown) => {
            if (!(err instanceof QueueFull)) throw err;
            this.deps.metrics.shed.inc({ pipeline: entry.module.name, trigger: request.trigger });
            throw overloaded(entry.module.name, entry.limiter);
          },
        );
      }
    }
    return this.prepareAndRun(run, request, true);
  }

  /** `startedNow`: nothing waited since the execution's start (a free slot). */
  private prepareAndRun(
    run: Run,
    request: ExecutionRequest,
    startedNow: boolean,
  ): Json | Reply | Promise<Json | Reply> {
    run.entry.series.inFlight.value += 1;
    run.slot.counted = true;
    const ctx = this.createContext(run, request.redelivery ?? false);
    if (request.prepare) return request.prepare(ctx).then((message) => this.startSteps(run, request, message, ctx));
    // The first step of a synchronous pipeline starts where the execution did (one clock read less).
    if (startedNow) ctx.stepMark = run.startedAt;
    return this.startSteps(run, request, request.message ?? null, ctx);
  }

  /** Checks the message against the trigger's schema, then runs the pipeline's steps over it. */
  private startSteps(
    run: Run,
    request: ExecutionRequest,
    message: Json,
    ctx: ContextWithHooks,
  ): Json | Reply | Promise<Json | Reply> {
    const violations = request.validate?.(message) ?? null;
    if (violations) {
      run.slot.invalid = true;
      throw invalidMessageError(violations);
    }
    const idempotency = run.entry.module.trigger['idempotency'] as IdempotencySpec | undefined;
    if (idempotency && !request.parent) {
      const { module } = run.entry;
      return runIdempotent(
        idempotency,
        module.name,
        message,
        ctx,
        {
          store: this.deps.store,
          now: () => this.deps.clock.now(),
          staleMs: module.options.timeout + STALE_CLAIM_MARGIN_MS,
          replayed: () => this.deps.metrics.idempotentReplays.inc({ pipeline: module.name, trigger: request.trigger }),
        },
        () => this.runSteps(run, message, ctx),
      );
    }
    return this.runSteps(run, message, ctx);
  }

  private runSteps(run: Run, message: Json, ctx: ContextWithHooks): Json | Reply | Promise<Json | Reply> {
    // The pipeline's synchronous start runs under its deadline (steps after an await set it themselves).
    enterDeadline(ctx.deadline, ctx.timeoutMs);
    try {
      return run.entry.module.run(message, ctx);
    } finally {
      leaveDeadline();
    }
  }

  private releaseSlot(entry: PipelineEntry, slot: Slot): void {
    if (slot.counted) entry.series.inFlight.value -= 1;
    slot.counted = false;
    slot.release?.();
    slot.release = undefined;
  }

  /** After an abort: waits (bounded) for the run to notice before giving back its slot and folder. */
  private async cleanUpAborted(
    entry: PipelineEntry,
    log: ExecutionLog,
    abort: ExecutionAbort,
    workDir: WorkDir,
    work: Promise<unknown>,
    slot: Slot,
  ): Promise<void> {
    if (!(await settleWithin(work, ABANDON_AFTER_MS))) {
      log.logger.error('execution did not stop after its abort signal; releasing its slot anyway');
    }
    this.endAbort(abort);
    this.releaseSlot(entry, slot);
    await workDir.remove().catch((err: unknown) => log.logger.warn({ err }, 'could not remove the work folder'));
  }

  /**
   * The execution's abort, linked to the parent execution's signal. It joins `running` (what a
   * shutdown aborts) only if the run goes asynchronous: a synchronous run ends before a shutdown
   * could act, and a Set that grows and shrinks per request reallocates its table.
   */
  private startAbort(parent: ExecutionContext | undefined): ExecutionAbort {
    const abort = new ExecutionAbort();
    if (this.shutdownReason) abort.abort(this.shutdownReason);
    if (parent) abort.follow(parent.signal);
    return abort;
  }

  /** Undoes startAbort once the execution is over. */
  private endAbort(abort: ExecutionAbort): void {
    this.running.delete(abort);
    abort.unfollow();
  }

  private startSpan(
    tracer: Tracer,
    pipeline: PipelineModule,
    executionId: string,
    request: ExecutionRequest,
  ): { span: Span; context: Context } {
    // With tracing on the API is loaded, so headers always give a context (the root one when they carry none).
    const parent = (request.traceHeaders ? contextFromHeaders(request.traceHeaders) : undefined) ?? activeContext();
    // Started by its own trigger, the execution has the span kind of that trigger's schema; otherwise
    // (Pipeline Executor, `service.run`) it is internal.
    const kind = request.trigger === pipeline.trigger.kind ? pipeline.trigger.spanKind : undefined;
    return startExecutionSpan(tracer, {
      pipeline: pipeline.name,
      executionId,
      trigger: request.trigger,
      ...(kind ? { kind } : {}),
      parent,
    });
  }

  private createContext(run: Run, redelivery: boolean): EngineContext {
    const { clock } = this.deps;
    // The start was read on the monotonic clock already; the system clock turns it into wall time.
    const startTimestamp = clock.wallTimeAt ? clock.wallTimeAt(run.startedAt) : clock.now();
    return new EngineContext(
      run.id,
      run.entry.module.name,
      startTimestamp,
      run.timeoutMs,
      run.startedAt + run.timeoutMs,
      redelivery,
      this.deps.globals,
      this.deps.accounts,
      this.services,
      this.hooks,
      run.log,
      run.abort,
      run.workDir,
    );
  }

  /** Records metrics, the span's end and the final log line, and builds the outcome. */
  private finish(
    entry: PipelineEntry,
    id: ExecutionId,
    log: ExecutionLog,
    durationMs: number,
    ending: Ending,
    span: Span | undefined,
  ): EngineOutcome {
    const { clock } = this.deps;
    if ('result' in ending) {
      entry.series.finished('success', durationMs / 1000);
      if (span) endExecutionSpan(span, 'success');
      if (log.enabled('info'))
        log.logger.info({ outcome: 'success', durationMs: Math.round(durationMs) }, 'execution finished');
      return new Succeeded(id, ending.result);
    }
    const error = this.publicError(ending.error, log);
    const label = error.kind === 'TIMEOUT' ? 'timeout' : ending.label;
    entry.series.finished(label, durationMs / 1000);
    if (span) endExecutionSpan(span, label, { code: error.code, message: error.message });
    // Where it failed (the step, with its .pipe line for `fail`) and a server-side cause are for
    // the log only: replies show the public part of the error (http-response.ts).
    const fields = {
      outcome: label,
      code: error.code,
      kind: error.kind,
      error: error.message,
      durationMs: Math.round(durationMs),
      ...(error.step !== undefined ? { step: error.step } : {}),
      ...(serverSideCause(error) !== undefined ? { err: serverSideCause(error) } : {}),
    };
    if (error.code >= 500) log.logger.error(fields, 'execution failed');
    else log.logger.warn(fields, 'execution failed');
    const executionId = id.value;
    return {
      ok: false,
      executionId,
      error,
      errorObject: toErrorObject(error, executionId, clock.now()),
      outcome: label,
    };
  }

  /** PipeErrors pass through; anything else is logged with its stack and hidden behind a 500. */
  private publicError(err: unknown, log: ExecutionLog): PipeError {
    if (err instanceof PipeError) return err;
    log.logger.error({ err }, 'unexpected exception in execution');
    return new PipeError('Internal error', { code: 500, kind: 'INTERNAL', cause: err });
  }
}

/** The cause of a 5xx that is not itself a PipeError (a file-system error, a driver's): for the log. */
function serverSideCause(error: PipeError): unknown {
  if (error.code < 500 || error.kind === 'INTERNAL' || error.cause instanceof PipeError) return undefined;
  return error.cause;
}

/**
 * The failure of an execution shed because its pipeline's wait queue is full: 503 OVERLOADED with
 * Retry-After (1 s: a slot frees as soon as any running execution ends). Not permanent, so an
 * event is left with the broker and delivered again later.
 */
function overloaded(pipeline: string, limiter: ConcurrencyLimiter): PipeError {
  return new PipeError(
    `pipeline ${pipeline} is overloaded: ${limiter.max} running and ${limiter.queued} waiting; try again later`,
    {
      code: 503,
      kind: 'OVERLOADED',
      details: { retryAfter: 1 },
    },
  );
}
