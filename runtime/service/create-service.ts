/**
 * createService: a service definition (what generated `server.ts` passes) → a running service.
 * Wires the Hono app (/health, /ready, /metrics, JSON 404/500) and the triggers' run-time parts
 * (runtime/triggers/<name>/, attached through a TriggerHost: their routes, consumers, schedules and
 * readiness dependencies) to one execution engine, and owns the start/stop lifecycle (graceful
 * drain on stop). IO stays in the trigger modules and backends; this file only wires.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Tracer } from '@opentelemetry/api';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import { PipeError } from '../errors.js';
import { startTracingFromEnv, type Tracing } from '../observability/tracing.js';
import type { StepHooks } from '../steps.js';
import type { Clock, Json, JsonObject, PipelineModule, Reply } from '../types.js';
import { loadDefaultBackends, type Backends } from './backends-port.js';
import { resolveAccounts, resolveEnvRecord, withSecretFiles } from './env-values.js';
import { BackendConfigError, chooseBackends, replicaProblem } from '../backends/config.js';
import { withDevelopmentKeys, withOwnKeySet } from '../security/development-keys.js';
import { ExecutionEngine, type EngineOutcome } from './execution.js';
import { pathAndQuery } from './envelope.js';
import { ConnectionRegistry } from './connections.js';
import { breakerOptionsFromEnv, CIRCUIT_STATE_VALUE, CircuitBreakers } from '../policies/breakers.js';
import { registerDeadLetterRoutes } from './dead-letter-routes.js';
import { createPipelineExecutor } from './executor.js';
import { OPERATIONAL_PATHS, registerHealthRoutes, type ServicePhase } from './health.js';
import { errorDetailFromEnv } from './http-response.js';
import { createRefusals } from './refusal.js';
import { originPolicyFromEnv } from '../security/origin.js';
import { registerJwksRoute } from './jwks-route.js';
import { createLogger, routeProcessOutput } from './logging.js';
import { SystemClock } from './system-clock.js';
import { createServiceMetrics } from './metrics.js';
import { settleWithin } from './shutdown.js';
import { createDeclaredIndexes, withDeclaredStoreOptions, type DeclaredStore } from './store-options.js';
import { RouteTable, type TriggerAttachment, type TriggerHost, type TriggerRuntime } from './trigger-host.js';

export interface ServiceDefinition {
  readonly name: string;
  readonly pipelines: readonly PipelineModule[];
  /** Account fields by account name; values resolved from env at start (env() in .pipe). Absent: none. */
  readonly accounts?: Readonly<Record<string, Readonly<Record<string, Json>>>>;
  /** Absent: none. */
  readonly globals?: Readonly<Record<string, Json>>;
  /** Declared stores with options (expire-after seconds, indexes created at start). Absent: none declared. */
  readonly stores?: Readonly<Record<string, DeclaredStore>>;
  /** The run-time parts of the triggers the pipelines use, by kind (generated service.ts imports them). */
  readonly triggers: Readonly<Record<string, TriggerRuntime>>;
  /** The OpenAPI document of the HTTP routes (made by the compiler), served at GET /openapi.json. */
  readonly openapi?: Json;
}

export interface ServiceOptions {
  readonly clock?: Clock;
  readonly backends?: Backends;
  readonly logger?: Logger;
  readonly dataDir?: string;
  readonly startTriggers?: boolean;
  /**
   * false: scheduler triggers tick only through `fireSchedule` (tests that drive a manual clock,
   * where a wall-clock tick at a real minute boundary would race the test's own). Default true.
   */
  readonly scheduleTimers?: boolean;
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
  /**
   * Answers a Node request itself, onto the Node response, when a route can without Hono or
   * @hono/node-server (RouteTable.serveNode) and the service is not draining; false: serve it
   * through `app` (node-server.ts asks this first).
   */
  serveNode(incoming: IncomingMessage, outgoing: ServerResponse): boolean;
  /** The service's logger (node-server.ts logs the start and listen failures with it). */
  readonly logger: Logger;
  run(pipeline: string, message: Json, opts?: { redelivery?: boolean }): Promise<ExecutionOutcome>;
  fireSchedule(pipeline: string): Promise<ExecutionOutcome>;
  start(): Promise<void>;
  stop(graceMs?: number): Promise<void>;
}

export type ExecutionOutcome =
  { ok: true; executionId: string; result: Json | Reply } | { ok: false; executionId: string; error: JsonObject };

export const DEFAULT_GRACE_MS = 10_000;
/** After the grace period: how long aborted executions and subscriptions get to wind down. */
const WIND_DOWN_MS = 2_000;

export function publicOutcome(outcome: EngineOutcome): ExecutionOutcome {
  return outcome.ok
    ? { ok: true, executionId: outcome.executionId, result: outcome.result }
    : // The kind as `catch` and `on-error` see it (the error object itself stays what replies show).
      { ok: false, executionId: outcome.executionId, error: { ...outcome.errorObject, kind: outcome.error.kind } };
}

/** The pipelines of each trigger kind, kinds in the order their first pipeline is declared. */
function pipelinesByKind(def: ServiceDefinition): Map<string, PipelineModule[]> {
  const byKind = new Map<string, PipelineModule[]>();
  for (const p of def.pipelines) {
    if (!Object.hasOwn(def.triggers, p.trigger.kind)) {
      throw new Error(
        `pipeline "${p.name}" has a trigger of kind "${p.trigger.kind}", but the service has no run-time part for it`,
      );
    }
    byKind.set(p.trigger.kind, [...(byKind.get(p.trigger.kind) ?? []), p]);
  }
  return byKind;
}

/**
 * Refuses, before anything opens, backends the environment names wrongly or a mix that replicas
 * would not share for what this service uses (runtime/backends/config.ts); logged as one line.
 */
function checkBackendChoice(def: ServiceDefinition, env: NodeJS.ProcessEnv, logger: Logger): void {
  try {
    const problem = replicaProblem(chooseBackends(env), {
      stores: Object.keys(def.stores ?? {}),
      eventPipelines: def.pipelines.filter((p) => p.trigger.kind === 'event').map((p) => p.name),
    });
    if (problem) throw new BackendConfigError(problem);
  } catch (err) {
    if (err instanceof BackendConfigError) logger.fatal(err.message);
    throw err;
  }
}

export async function createService(def: ServiceDefinition, opts: ServiceOptions = {}): Promise<Service> {
  // Secrets given as NAME_FILE (container secret mounts) are read here, once.
  const env = withSecretFiles(opts.env ?? process.env);
  const clock = opts.clock ?? new SystemClock();
  const logger = opts.logger ?? createLogger({ level: env['LOG_LEVEL'] ?? 'info', service: def.name });
  const dataDir = opts.dataDir ?? env['PIPEC_DATA_DIR'] ?? './.pipec-data';
  if (opts.routeProcessOutput) routeProcessOutput(logger);
  const byKind = pipelinesByKind(def);
  if (!opts.backends) checkBackendChoice(def, env, logger);
  const backends = opts.backends ?? (await loadDefaultBackends({ dataDir, env, clock, logger }));
  const metrics = createServiceMetrics(def.name);
  const accounts = await withOwnKeySet(
    withDevelopmentKeys(resolveAccounts(def.accounts ?? {}, env, logger), {
      dataDir,
      env,
      onMadeKey: (account, file, created) =>
        logger.warn(
          { account, file },
          created
            ? 'account has no key: made a development key in the data folder (set its key for production)'
            : 'account has no key: using the development key in the data folder',
        ),
    }),
  );
  const circuitState = metrics.circuitState;
  const breakers = new CircuitBreakers(breakerOptionsFromEnv(env), (target, state) => {
    circuitState.series([target]).value = CIRCUIT_STATE_VALUE[state];
    if (state === 'open')
      logger.warn({ target }, 'circuit opened: calls fail fast with CIRCUIT_OPEN until a probe succeeds');
    else logger.info({ target, state }, 'circuit state changed');
  });
  const connections = new ConnectionRegistry(logger, breakers);
  const tracing: Tracing | undefined = opts.tracer
    ? undefined
    : await startTracingFromEnv(env, { serviceName: def.name, warn: (message) => logger.warn(message) });
  const tracer = opts.tracer ?? tracing?.tracer;
  if (tracing) logger.info('tracing on (OpenTelemetry)');
  const engine = new ExecutionEngine({
    pipelines: def.pipelines,
    logger,
    metrics,
    clock,
    dataDir,
    accounts,
    globals: resolveEnvRecord(def.globals ?? {}, env, 'globals', logger),
    store: withDeclaredStoreOptions(backends.store, def.stores ?? {}),
    broker: backends.broker,
    connections,
    createExecutor: createPipelineExecutor,
    ...(tracer ? { tracer } : {}),
    ...(opts.stepHooks ? { stepHooks: opts.stepHooks } : {}),
  });

  let phase: ServicePhase = 'created';
  const app = new Hono();
  const refuse = createRefusals({ clock, logger });
  // A throw that reached Hono is a bug of the HTTP layer: logged with its stack (refuse logs the cause of a 5xx).
  const internalError = (err: Error, request: Request): Response | Promise<Response> =>
    refuse(new PipeError('Internal error', { code: 500, kind: 'INTERNAL', cause: err }), request);
  const routes = new RouteTable(app, internalError);
  // While draining, everything but the operational paths is refused. Checked in front of the
  // app's fetch rather than as a '*' middleware: with one matching handler per request Hono
  // calls it directly, without composing a middleware chain (every request's path). Then a route
  // that can answer from the Node request alone does so without Hono (RouteTable.serveDirect).
  const dispatch = app.fetch;
  app.fetch = (request, env?: unknown, executionCtx?: Parameters<typeof dispatch>[2]) => {
    if ((phase === 'draining' || phase === 'stopped') && !OPERATIONAL_PATHS.has(pathAndQuery(request.url).path)) {
      return refuse(new PipeError('Service is shutting down', { code: 503, kind: 'SHUTDOWN' }), request);
    }
    return routes.serveDirect(request, env) ?? dispatch(request, env, executionCtx);
  };
  // One list of what the service waits for: trigger dependencies, connections, and the backends.
  const notReady = (): string[] => [
    ...routes.notReady(),
    ...connections.notReady(),
    ...(backends.availability?.unavailable() ?? []).map((u) => u.backend),
  ];
  registerHealthRoutes(app, { phase: () => phase, registry: () => metrics.registry(), notReady });
  const deadLetters = backends.deadLetters;
  if (deadLetters) {
    metrics.deadLetters.collectFrom(() => deadLetters.countByEvent());
    const apiKey = env['PIPEC_ADMIN_API_KEY'];
    if (apiKey) registerDeadLetterRoutes(app, { deadLetters, apiKey, refuse });
  }

  const host: TriggerHost = {
    engine,
    metrics,
    clock,
    scheduleTimers: opts.scheduleTimers !== false,
    logger,
    accounts,
    connections,
    broker: backends.broker,
    lock: backends.lock,
    watermarks: backends.watermarks,
    ...(backends.rateLimits ? { rateLimits: backends.rateLimits } : {}),
    refuse,
    errorDetail: errorDetailFromEnv(env),
    origins: originPolicyFromEnv(env),
    route: (owner, methods, path, handler, direct, node) => routes.route(owner, methods, path, handler, direct, node),
    readiness: (name, check) => void routes.readinessChecks.set(name, check),
  };
  let attachments: TriggerAttachment[];
  try {
    attachments = [...byKind].map(([kind, pipelines]) =>
      (def.triggers[kind] as TriggerRuntime).attach(pipelines, host),
    );
  } catch (err) {
    await backends.close().catch(() => undefined);
    await tracing?.shutdown().catch(() => undefined);
    throw err;
  }
  registerJwksRoute(app, accounts);
  // After the triggers: a pipeline of the service's own at /openapi.json keeps its route.
  const openapi = def.openapi;
  if (openapi !== undefined && !routes.has('GET', '/openapi.json')) app.get('/openapi.json', (c) => c.json(openapi));
  app.notFound((c) =>
    refuse(new PipeError(`No route for ${c.req.method} ${c.req.path}`, { code: 404, kind: 'NOT_FOUND' }), c.req.raw),
  );
  app.onError((err, c) => internalError(err, c.req.raw));

  let stopping: Promise<void> | undefined;
  const stopTriggers = (): Promise<unknown> => Promise.allSettled(attachments.map((a) => a.stop?.()));

  const stop = async (graceMs: number): Promise<void> => {
    phase = 'draining';
    engine.stopAccepting();
    logger.info({ inFlight: engine.inFlight, graceMs }, 'service draining');
    const unsubscribed = stopTriggers();
    if (!(await engine.drain(graceMs))) {
      logger.warn({ inFlight: engine.inFlight }, 'grace period over; aborting running executions');
      engine.abortAll();
      await engine.drain(WIND_DOWN_MS);
    }
    await settleWithin(unsubscribed, WIND_DOWN_MS);
    await connections.closeAll();
    await backends.close().catch((err: unknown) => logger.error({ err }, 'closing backends failed'));
    await tracing?.shutdown().catch((err: unknown) => logger.error({ err }, 'flushing traces failed'));
    phase = 'stopped';
    logger.info('service stopped');
  };

  return {
    app,
    logger,
    serveNode: (incoming, outgoing) =>
      phase !== 'draining' && phase !== 'stopped' && routes.serveNode(incoming, outgoing),
    async run(pipeline, message, runOpts = {}) {
      const p = engine.pipeline(pipeline);
      if (!p) throw new Error(`unknown pipeline "${pipeline}"`);
      const runtime = def.triggers[p.trigger.kind];
      const outcome = await engine.execute({
        pipeline,
        message,
        validate: runtime?.validate
          ? (m) => (runtime.validate as NonNullable<TriggerRuntime['validate']>)(p.trigger, m)
          : undefined,
        redelivery: runOpts.redelivery ?? false,
        trigger: 'run',
      });
      return publicOutcome(outcome);
    },
    async fireSchedule(pipeline) {
      for (const attachment of attachments) {
        const fired = attachment.fire?.(pipeline);
        if (fired) return fired;
      }
      throw new Error(`pipeline "${pipeline}" has no trigger that fires it on demand (a scheduler trigger)`);
    },
    async start() {
      if (phase !== 'created') return;
      // Declared indexes exist before any trigger runs a query (IF NOT EXISTS: replicas and restarts keep them).
      await createDeclaredIndexes(backends.store, def.stores ?? {});
      if (opts.startTriggers !== false) {
        try {
          for (const attachment of attachments) await attachment.start?.();
        } catch (err) {
          await stopTriggers();
          throw err;
        }
      }
      phase = 'ready';
      // "service started" is node-server's to say, once the port is bound too.
      logger.debug({ pipelines: def.pipelines.map((p) => p.name) }, 'triggers started');
    },
    stop(graceMs = DEFAULT_GRACE_MS) {
      stopping ??= stop(graceMs);
      return stopping;
    },
  };
}
