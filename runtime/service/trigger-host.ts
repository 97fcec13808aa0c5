/**
 * The contract between the service and the run-time part of a trigger: a trigger kind is one
 * folder, and `runtime/triggers/<name>/<name>.ts` exports `trigger: TriggerRuntime`. The
 * generated service.ts imports the parts its pipelines use (ServiceDefinition `triggers`);
 * createService attaches each to its pipelines through a TriggerHost: HTTP routes at once,
 * consumers and schedules when the service starts, readiness dependencies for /ready.
 *
 * Example (a trigger answering GET requests):
 *   export const trigger: TriggerRuntime<PingTriggerSpec> = {
 *     attach(pipelines, host) {
 *       for (const p of pipelines) host.route(p.name, ['GET'], p.trigger.path, async (c) => …);
 *       return {};
 *     },
 *   };
 */
import type { Context } from 'hono';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import type { RateLimitStore } from '../security/rate-limit.js';
import type { Clock, Connections, EventBroker, Json, PipelineModule, TriggerSpec } from '../types.js';
import type { LockBackend, WatermarkStore } from './backends-port.js';
import type { ExecutionOutcome } from './create-service.js';
import type { ExecutionEngine } from './execution.js';
import type { ErrorDetail } from './http-response.js';
import type { Refuse } from './refusal.js';
import type { OriginPolicy } from '../security/origin.js';
import { isReservedPath } from './health.js';
import type { ServiceMetrics } from './metrics.js';
import type { Violation } from './validation.js';

/** A pipeline whose trigger has the spec type `S`. */
export type TriggeredPipeline<S extends TriggerSpec = TriggerSpec> = PipelineModule & { readonly trigger: S };

export interface TriggerRuntime<S extends TriggerSpec = TriggerSpec> {
  /**
   * Sets up every pipeline of this kind while the service is created (in the order their pipelines
   * are declared). Routes are served from then on; consumers and schedules start with `start`.
   */
  attach(pipelines: readonly TriggeredPipeline<S>[], host: TriggerHost): TriggerAttachment;
  /** Checks a message handed to `service.run` the way the trigger checks its own; null: nothing wrong. */
  validate?(spec: S, message: Json): Violation[] | null;
  /** The message a pipeline test starts with: `given`, completed with what the trigger always provides. */
  testMessage?(spec: S, given: Json | undefined): Json;
}

export interface TriggerAttachment {
  /** Starts taking work from outside HTTP (subscriptions, schedules); when the service starts. */
  start?(): Promise<void>;
  /** Stops taking new work, when the service drains (in-flight executions are the engine's). */
  stop?(): Promise<void>;
  /** Runs one of its pipelines now, as the trigger would (`service.fireSchedule`); undefined: not its pipeline. */
  fire?(pipeline: string): Promise<ExecutionOutcome> | undefined;
}

export type RouteHandler = (c: Context) => Response | Promise<Response>;

/** What a trigger may use of the service. */
export interface TriggerHost {
  readonly engine: ExecutionEngine;
  readonly metrics: ServiceMetrics;
  readonly clock: Clock;
  /** false: scheduler triggers fire only on demand (`fire`), never from the wall clock. */
  readonly scheduleTimers: boolean;
  readonly logger: Logger;
  /** Resolved account fields, for trigger authentication. */
  readonly accounts: Readonly<Record<string, Readonly<Record<string, Json>>>>;
  readonly broker: EventBroker;
  /** Answers a request refused before an execution (with an id, logged; runtime/service/refusal.ts). */
  readonly refuse: Refuse;
  /** How much of a failure a reply shows (PIPEC_DEBUG_ERRORS). */
  readonly errorDetail: ErrorDetail;
  /** Which browser origins may call endpoints that check Origin (/mcp; PIPEC_MCP_ALLOWED_ORIGINS). */
  readonly origins: OriginPolicy;
  /** Clients of outside systems, opened lazily and closed when the service stops (a consumer's channel). */
  readonly connections: Connections;
  /** The cross-replica lock (one replica runs a scheduler tick). */
  readonly lock: LockBackend;
  /** How far polling triggers have read, kept durably in pipec's backend (sql-poll). */
  readonly watermarks: WatermarkStore;
  /** Rate-limit counters shared by replicas (absent: each process counts alone). */
  readonly rateLimits?: RateLimitStore;
  /**
   * Serves `methods` (upper-case; `['*']`: every method) at a Hono path for `owner` (a pipeline, or
   * the trigger for a shared endpoint). Throws when another owner serves the same method and path
   * or the path is reserved (/health, /ready, /metrics, anything under /_pipec/).
   */
  route(owner: string, methods: readonly string[], path: string, handler: RouteHandler): void;
  /** A readiness dependency: /ready answers 503 naming it while `check` answers false. */
  readiness(name: string, check: () => boolean): void;
}

/** Routes and readiness checks of one service, with the conflicts the host refuses. */
export class RouteTable {
  private readonly owners = new Map<string, string>();
  readonly readinessChecks = new Map<string, () => boolean>();

  constructor(private readonly app: Hono) {}

  route(owner: string, methods: readonly string[], path: string, handler: RouteHandler): void {
    if (isReservedPath(path)) throw new Error(`pipeline "${owner}" uses the reserved path ${path}`);
    for (const method of methods) {
      const key = `${method.toUpperCase()} ${path}`;
      const other = this.owners.get(key) ?? (method === '*' ? this.anyOwnerOf(path) : this.owners.get(`* ${path}`));
      if (other !== undefined && other !== owner)
        throw new Error(`pipelines "${other}" and "${owner}" both handle ${key}`);
      this.owners.set(key, owner);
    }
    if (methods.includes('*')) this.app.all(path, handler);
    else this.app.on([...methods], path, handler);
  }

  /** True when a pipeline serves `method path` (or every method of path). */
  has(method: string, path: string): boolean {
    return this.owners.has(`${method.toUpperCase()} ${path}`) || this.owners.has(`* ${path}`);
  }

  /** The names of the readiness dependencies that are not ready. */
  notReady(): string[] {
    return [...this.readinessChecks].filter(([, check]) => !check()).map(([name]) => name);
  }

  private anyOwnerOf(path: string): string | undefined {
    for (const [key, owner] of this.owners) if (key.endsWith(` ${path}`)) return owner;
    return undefined;
  }
}
