/**
 * The execution engine: runs one pipeline over one message. It creates the execution id, the
 * child logger and the ExecutionContext, waits for a concurrency slot, applies the timeout
 * (abort signal + 500), validates the trigger message, and turns every ending into an
 * `EngineOutcome`. Triggers (HTTP, events, scheduler, Pipeline Executor) all run through here.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { PipeError, toErrorObject } from '../errors.js';
import type {
  Clock, EventBroker, ExecutionContext, Json, JsonObject, ObjectStoreBackend, PipelineModule, Reply,
  ServiceServices,
} from '../types.js';
import { ConcurrencyLimiter, type Release } from './concurrency.js';
import type { ExecutionOutcomeLabel, ServiceMetrics } from './metrics.js';
import { InFlightTracker, settleWithin } from './shutdown.js';
import { invalidMessageError, type Violation } from './validation.js';
import { createWorkDir } from './work-dir.js';

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

export interface ExecutionRequest {
  readonly pipeline: string;
  /** The message (ignored when `prepare` is given). */
  readonly message?: Json;
  /** Produces the message inside the execution; a thrown PipeError fails the execution. */
  readonly prepare?: (scope: ExecutionScope) => Promise<Json>;
  /** Trigger validation; violations end the execution with 422 before the pipeline runs. */
  readonly validate?: (message: Json) => Violation[] | null;
  readonly redelivery?: boolean;
  /** Overrides the pipeline's own timeout (Pipeline Executor calls). */
  readonly timeoutMs?: number;
  /** The calling execution (Pipeline Executor): links logs and abort signals. */
  readonly parent?: ExecutionContext;
  /** Trigger name, for logs. */
  readonly trigger: string;
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
  /** Builds the Pipeline Executor function from the engine's `execute` (see executor.ts). */
  readonly createExecutor: (run: (request: ExecutionRequest) => Promise<EngineOutcome>) => ServiceServices['execute'];
}

function timeoutError(ms: number): PipeError {
  return new PipeError('execution timed out', { code: 500, kind: 'TIMEOUT', details: { timeoutMs: ms } });
}

function shutdownError(): PipeError {
  return new PipeError('service is shutting down', { code: 503, kind: 'SHUTDOWN' });
}

/** Settles like `work`, or rejects with the signal's reason as soon as it aborts. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => { signal.removeEventListener('abort', onAbort); resolve(v); },
      (e) => { signal.removeEventListener('abort', onAbort); reject(e); },
    );
  });
}

export class ExecutionEngine {
  readonly services: ServiceServices;
  private readonly pipelines = new Map<string, PipelineModule>();
  private readonly limiters = new Map<string, ConcurrencyLimiter>();
  private readonly tracker = new InFlightTracker();
  private readonly shutdown = new AbortController();
  private accepting = true;

  constructor(private readonly deps: EngineDeps) {
    for (const p of deps.pipelines) {
      if (this.pipelines.has(p.name)) throw new Error(`duplicate pipeline name "${p.name}"`);
      this.pipelines.set(p.name, p);
      this.limiters.set(p.name, new ConcurrencyLimiter(p.options.concurrency));
    }
    this.services = {
      clock: deps.clock,
      store: deps.store,
      broker: deps.broker,
      execute: deps.createExecutor((request) => this.execute(request)),
    };
  }

  pipeline(name: string): PipelineModule | undefined {
    return this.pipelines.get(name);
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

  /** Aborts every running execution (after the grace period ran out). */
  abortAll(): void {
    this.shutdown.abort(shutdownError());
  }

  /** Runs one execution; never rejects except for an unknown pipeline name (a caller bug). */
  execute(request: ExecutionRequest): Promise<EngineOutcome> {
    const pipeline = this.pipelines.get(request.pipeline);
    if (!pipeline) {
      return Promise.reject(new PipeError(`unknown pipeline "${request.pipeline}"`, { code: 500, kind: 'UNKNOWN_PIPELINE' }));
    }
    const executionId = randomUUID();
    const log = this.deps.logger.child({
      executionId, pipeline: pipeline.name,
      ...(request.parent ? { parentExecutionId: request.parent.executionId } : {}),
    });
    if (!this.accepting && !request.parent) {
      return Promise.resolve(this.finish(pipeline, executionId, log, 0, { error: shutdownError(), label: 'rejected' }));
    }
    return this.tracker.track(this.run(pipeline, executionId, log, request));
  }

  private async run(pipeline: PipelineModule, executionId: string, log: Logger, request: ExecutionRequest): Promise<EngineOutcome> {
    const startedAt = performance.now();
    const timeoutMs = request.timeoutMs ?? pipeline.options.timeout;
    const timeoutController = new AbortController();
    const signal = AbortSignal.any([
      timeoutController.signal, this.shutdown.signal, ...(request.parent ? [request.parent.signal] : []),
    ]);
    const timer = setTimeout(() => timeoutController.abort(timeoutError(timeoutMs)), timeoutMs);
    const workDir = createWorkDir(this.deps.dataDir, executionId);
    const limiter = this.limiters.get(pipeline.name) as ConcurrencyLimiter;
    let release: Release | undefined;
    let invalid = false;
    log.debug({ trigger: request.trigger, redelivery: request.redelivery ?? false }, 'execution started');

    const work = (async (): Promise<Json | Reply> => {
      release = await limiter.acquire(signal);
      this.deps.metrics.inFlight.inc({ pipeline: pipeline.name });
      const scope: ExecutionScope = { executionId, get workDir() { return workDir.path; }, signal, log };
      const message = request.prepare ? await request.prepare(scope) : (request.message ?? null);
      const violations = request.validate?.(message) ?? null;
      if (violations) {
        invalid = true;
        throw invalidMessageError(violations);
      }
      const ctx = this.createContext(pipeline, executionId, log, signal, workDir, timeoutMs, request.redelivery ?? false);
      return pipeline.run(message, ctx);
    })();

    let ending: { result: Json | Reply } | { error: unknown; label: Exclude<ExecutionOutcomeLabel, 'success'> };
    try {
      ending = { result: await raceAbort(work, signal) };
    } catch (err) {
      ending = { error: err, label: invalid ? 'invalid' : 'error' };
    } finally {
      clearTimeout(timer);
    }

    const cleanup = async (): Promise<void> => {
      if (signal.aborted && !(await settleWithin(work, ABANDON_AFTER_MS))) {
        log.error('execution did not stop after its abort signal; releasing its slot anyway');
      }
      if (release) {
        this.deps.metrics.inFlight.dec({ pipeline: pipeline.name });
        release();
      }
      await workDir.remove().catch((err: unknown) => log.warn({ err }, 'could not remove the work folder'));
    };
    // A run that was aborted may take a while to notice; answer now and clean up in the background.
    if (signal.aborted) void this.tracker.track(cleanup());
    else await cleanup();

    const durationMs = performance.now() - startedAt;
    return this.finish(pipeline, executionId, log, durationMs, ending);
  }

  private createContext(
    pipeline: PipelineModule, executionId: string, log: Logger, signal: AbortSignal,
    workDir: { readonly path: string }, timeoutMs: number, redelivery: boolean,
  ): ExecutionContext {
    const { globals, accounts, clock } = this.deps;
    return {
      executionId,
      pipeline: pipeline.name,
      log,
      metadata: {
        pipeline: { name: pipeline.name },
        execution: { key: executionId, startTimestamp: clock.now(), timeout: timeoutMs, redelivery },
      },
      steps: Object.create(null) as Record<string, Json>,
      globals,
      accounts,
      services: this.services,
      signal,
      get workDir() { return workDir.path; },
    };
  }

  /** Records metrics and the final log line, and builds the outcome. */
  private finish(
    pipeline: PipelineModule, executionId: string, log: Logger, durationMs: number,
    ending: { result: Json | Reply } | { error: unknown; label: Exclude<ExecutionOutcomeLabel, 'success'> },
  ): EngineOutcome {
    const { metrics, clock } = this.deps;
    if ('result' in ending) {
      this.observe(metrics, pipeline.name, 'success', durationMs);
      log.info({ outcome: 'success', durationMs: Math.round(durationMs) }, 'execution finished');
      return { ok: true, executionId, result: ending.result };
    }
    const error = this.publicError(ending.error, log);
    const label = error.kind === 'TIMEOUT' ? 'timeout' : ending.label;
    this.observe(metrics, pipeline.name, label, durationMs);
    const fields = { outcome: label, code: error.code, kind: error.kind, error: error.message, durationMs: Math.round(durationMs) };
    if (error.code >= 500) log.error(fields, 'execution failed');
    else log.warn(fields, 'execution failed');
    return { ok: false, executionId, error, errorObject: toErrorObject(error, executionId, clock.now()), outcome: label };
  }

  private observe(metrics: ServiceMetrics, pipeline: string, outcome: ExecutionOutcomeLabel, durationMs: number): void {
    metrics.executions.inc({ pipeline, outcome });
    metrics.duration.observe({ pipeline, outcome }, durationMs / 1000);
  }

  /** PipeErrors pass through; anything else is logged with its stack and hidden behind a 500. */
  private publicError(err: unknown, log: Logger): PipeError {
    if (err instanceof PipeError) return err;
    log.error({ err }, 'unexpected exception in execution');
    return new PipeError('Internal error', { code: 500, kind: 'INTERNAL', cause: err });
  }
}
