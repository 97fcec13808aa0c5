/**
 * createService: a service definition (what generated `server.ts` passes) → a running service.
 * Wires the Hono app (HTTP and HTTP File trigger routes, /health, /ready, /metrics, JSON 404/500),
 * event subscriptions and schedulers to one execution engine, and owns the start/stop lifecycle
 * (graceful drain on stop). IO stays in the trigger modules and backends; this file only wires.
 */
import type { Tracer } from '@opentelemetry/api';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import { PipeError } from '../errors.js';
import { startTracingFromEnv, type Tracing } from '../observability/tracing.js';
import type { StepHooks } from '../steps.js';
import type { Clock, Json, JsonObject, PipelineModule, Reply, Subscription } from '../types.js';
import { loadDefaultBackends, type Backends } from './backends-port.js';
import { resolveAccounts, resolveEnvRecord } from './env-values.js';
import { subscribeEventTrigger } from './event-trigger.js';
import { ExecutionEngine, type EngineOutcome } from './execution.js';
import { pathAndQuery } from './envelope.js';
import { ADMIN_PREFIX, registerDeadLetterRoutes } from './dead-letter-routes.js';
import { createPipelineExecutor } from './executor.js';
import { OPERATIONAL_PATHS, registerHealthRoutes, type ServicePhase } from './health.js';
import { registerHttpFileTrigger } from './http-file-trigger.js';
import { refusalResponse } from './http-response.js';
import { registerHttpTrigger } from './http-trigger.js';
import { registerJwksRoute } from './jwks-route.js';
import { registerMcpRoute } from './mcp-route.js';
import { createLogger, routeProcessOutput } from './logging.js';
import { SystemClock } from './system-clock.js';
import { createServiceMetrics } from './metrics.js';
import { ScheduleRunner } from './scheduler-trigger.js';
import { settleWithin } from './shutdown.js';
import { withDeclaredStoreOptions } from './store-options.js';
import { validateTriggerMessage } from './validation.js';

export interface ServiceDefinition {
  readonly name: string;
  readonly pipelines: readonly PipelineModule[];
  /** Account fields by account name; values resolved from env at start (env() in .pipe). */
  readonly accounts: Readonly<Record<string, Readonly<Record<string, Json>>>>;
  readonly globals: Readonly<Record<string, Json>>;
  /** Declared stores with options (expire-after seconds). */
  readonly stores: Readonly<Record<string, { expireAfterSeconds?: number }>>;
}

export interface ServiceOptions {
  readonly clock?: Clock;
  readonly backends?: Backends;
  readonly logger?: Logger;
  readonly dataDir?: string;
  readonly startTriggers?: boolean;
  /** Where `{ $env }` values and defaults are read from; default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Traces executions and steps with this tracer (tests pass one with an in-memory exporter).
   * Absent: tracing follows the OTEL_* variables of `env` (off when none is set).
   */
  readonly tracer?: Tracer;
  /** Extra step observers (mocks, coverage), run alongside the service's metrics and spans. */
  readonly stepHooks?: StepHooks;
  /** Service processes: `console.*` and process warnings become JSON log records (logging.ts). */
  readonly routeProcessOutput?: boolean;
}

export interface Service {
  readonly app: Hono;
  run(pipeline: string, message: Json, opts?: { redelivery?: boolean }): Promise<ExecutionOutcome>;
  fireSchedule(pipeline: string): Promise<ExecutionOutcome>;
  start(): Promise<void>;
  stop(graceMs?: number): Promise<void>;
}

export type ExecutionOutcome =
  | { ok: true; executionId: string; result: Json | Reply }
  | { ok: false; executionId: string; error: JsonObject };

export const DEFAULT_GRACE_MS = 10_000;
/** After the grace period: how long aborted executions and subscriptions get to wind down. */
const WIND_DOWN_MS = 2_000;

function publicOutcome(outcome: EngineOutcome): ExecutionOutcome {
  return outcome.ok
    ? { ok: true, executionId: outcome.executionId, result: outcome.result }
    : { ok: false, executionId: outcome.executionId, error: outcome.errorObject };
}

/** Two pipelines answering the same method and path would shadow each other. */
function checkRoutes(pipelines: readonly PipelineModule[]): void {
  const seen = new Map<string, string>();
  for (const p of pipelines) {
    if (p.trigger.kind !== 'http' && p.trigger.kind !== 'http-file') continue;
    if (OPERATIONAL_PATHS.has(p.trigger.path) || p.trigger.path.startsWith(ADMIN_PREFIX)) {
      throw new Error(`pipeline "${p.name}" uses the reserved path ${p.trigger.path}`);
    }
    for (const method of p.trigger.methods) {
      const key = `${method.toUpperCase()} ${p.trigger.path}`;
      const other = seen.get(key);
      if (other) throw new Error(`pipelines "${other}" and "${p.name}" both handle ${key}`);
      seen.set(key, p.name);
    }
  }
}

export async function createService(def: ServiceDefinition, opts: ServiceOptions = {}): Promise<Service> {
  const env = opts.env ?? process.env;
  const clock = opts.clock ?? new SystemClock();
  const logger = opts.logger ?? createLogger({ level: env['LOG_LEVEL'] ?? 'info', service: def.name });
  const dataDir = opts.dataDir ?? env['PIPEC_DATA_DIR'] ?? './.pipec-data';
  if (opts.routeProcessOutput) routeProcessOutput(logger);
  checkRoutes(def.pipelines);
  const backends = opts.backends ?? (await loadDefaultBackends({ dataDir, env, clock, logger }));
  const metrics = createServiceMetrics(def.name);
  const accounts = resolveAccounts(def.accounts, env, logger);
  const tracing: Tracing | undefined = opts.tracer
    ? undefined
    : await startTracingFromEnv(env, { serviceName: def.name, warn: (message) => logger.warn(message) });
  const tracer = opts.tracer ?? tracing?.tracer;
  if (tracing) logger.info('tracing on (OpenTelemetry)');
  const engine = new ExecutionEngine({
    pipelines: def.pipelines, logger, metrics, clock, dataDir, accounts,
    globals: resolveEnvRecord(def.globals, env, 'globals', logger),
    store: withDeclaredStoreOptions(backends.store, def.stores),
    broker: backends.broker,
    createExecutor: createPipelineExecutor,
    ...(tracer ? { tracer } : {}),
    ...(opts.stepHooks ? { stepHooks: opts.stepHooks } : {}),
  });

  let phase: ServicePhase = 'created';
  const app = new Hono();
  // While draining, everything but the operational paths is refused. Checked in front of the
  // app's fetch rather than as a '*' middleware: with one matching handler per request Hono
  // calls it directly, without composing a middleware chain (every request's path).
  const dispatch = app.fetch;
  app.fetch = (request, ...rest) => {
    if ((phase === 'draining' || phase === 'stopped') && !OPERATIONAL_PATHS.has(pathAndQuery(request.url).path)) {
      return refusalResponse(new PipeError('Service is shutting down', { code: 503, kind: 'SHUTDOWN' }), clock.now());
    }
    return dispatch(request, ...rest);
  };
  registerHealthRoutes(app, {
    phase: () => phase,
    registry: () => metrics.registry(),
    ...(backends.availability ? { availability: backends.availability } : {}),
  });
  const deadLetters = backends.deadLetters;
  if (deadLetters) {
    metrics.deadLetters.collectFrom(() => deadLetters.countByEvent());
    const apiKey = env['PIPEC_ADMIN_API_KEY'];
    if (apiKey) registerDeadLetterRoutes(app, { deadLetters, apiKey, now: () => clock.now() });
  }

  const httpDeps = { engine, metrics, clock, accounts };
  const schedulers = new Map<string, ScheduleRunner>();
  for (const p of def.pipelines) {
    const trigger = p.trigger;
    if (trigger.kind === 'http') registerHttpTrigger(app, p, trigger, httpDeps);
    else if (trigger.kind === 'http-file') registerHttpFileTrigger(app, p, trigger, httpDeps);
    else if (trigger.kind === 'scheduler') {
      schedulers.set(p.name, new ScheduleRunner(p, trigger, { engine, lock: backends.lock, clock, metrics, logger }));
    }
  }
  registerMcpRoute(app, def.pipelines, { engine, clock, accounts });
  registerJwksRoute(app, accounts);
  app.notFound((c) => refusalResponse(
    new PipeError(`No route for ${c.req.method} ${c.req.path}`, { code: 404, kind: 'NOT_FOUND' }), clock.now()));
  app.onError((err, c) => {
    logger.error({ err, method: c.req.method, path: c.req.path }, 'unhandled error while serving a request');
    return refusalResponse(new PipeError('Internal error', { code: 500, kind: 'INTERNAL' }), clock.now());
  });

  const subscriptions: Subscription[] = [];
  let stopping: Promise<void> | undefined;

  const startTriggers = async (): Promise<void> => {
    for (const p of def.pipelines) {
      if (p.trigger.kind !== 'event') continue;
      subscriptions.push(await subscribeEventTrigger(p, p.trigger, { engine, broker: backends.broker, metrics, logger, clock }));
    }
    for (const runner of schedulers.values()) runner.start();
  };

  const stop = async (graceMs: number): Promise<void> => {
    phase = 'draining';
    engine.stopAccepting();
    logger.info({ inFlight: engine.inFlight, graceMs }, 'service draining');
    for (const runner of schedulers.values()) runner.stop();
    const unsubscribed = Promise.allSettled(subscriptions.splice(0).map((s) => s.stop()));
    if (!(await engine.drain(graceMs))) {
      logger.warn({ inFlight: engine.inFlight }, 'grace period over; aborting running executions');
      engine.abortAll();
      await engine.drain(WIND_DOWN_MS);
    }
    await settleWithin(unsubscribed, WIND_DOWN_MS);
    await backends.close().catch((err: unknown) => logger.error({ err }, 'closing backends failed'));
    await tracing?.shutdown().catch((err: unknown) => logger.error({ err }, 'flushing traces failed'));
    phase = 'stopped';
    logger.info('service stopped');
  };

  return {
    app,
    async run(pipeline, message, runOpts = {}) {
      const p = engine.pipeline(pipeline);
      if (!p) throw new Error(`unknown pipeline "${pipeline}"`);
      const outcome = await engine.execute({
        pipeline, message, validate: (m) => validateTriggerMessage(p.trigger, m),
        redelivery: runOpts.redelivery ?? false, trigger: 'run',
      });
      return publicOutcome(outcome);
    },
    async fireSchedule(pipeline) {
      const runner = schedulers.get(pipeline);
      if (!runner) throw new Error(`pipeline "${pipeline}" has no scheduler trigger`);
      const tick = await runner.fireNow();
      if (tick.kind === 'ran') return publicOutcome(tick.outcome);
      const message = tick.reason === 'overlap'
        ? 'scheduler tick skipped: the previous run is still running'
        : 'scheduler tick skipped: another replica runs it';
      return { ok: false, executionId: '', error: { timestamp: clock.now(), error: message, message, code: 409 } };
    },
    async start() {
      if (phase !== 'created') return;
      if (opts.startTriggers !== false) {
        try {
          await startTriggers();
        } catch (err) {
          for (const runner of schedulers.values()) runner.stop();
          await Promise.allSettled(subscriptions.splice(0).map((s) => s.stop()));
          throw err;
        }
      }
      phase = 'ready';
      logger.info({ pipelines: def.pipelines.map((p) => p.name) }, 'service started');
    },
    stop(graceMs = DEFAULT_GRACE_MS) {
      stopping ??= stop(graceMs);
      return stopping;
    },
  };
}
