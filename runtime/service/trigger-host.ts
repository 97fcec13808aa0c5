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
import type { IncomingMessage, ServerResponse } from 'node:http';
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
import { unreadIncoming } from './envelope.js';
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

/**
 * A route's answer straight from the Node request (`request` is the one Hono would hand on as
 * `c.req.raw`), for a route that needs nothing of Hono's Context: see RouteTable.serveDirect. A
 * failure of its own it answers with `onError`, as Hono's onError would answer the route's
 * handler throwing: what it returns does not reject (no promise is chained onto it per request).
 */
export type DirectHandler = (
  request: Request,
  incoming: IncomingMessage,
  onError: RouteErrorHandler,
) => Response | Promise<Response>;

/**
 * A route's answer written straight onto the Node response, for a request that did not go through
 * @hono/node-server at all (RouteTable.serveNode): no web Request, no Response object for a
 * success, no promise chain of the adapter. False: it declined the request before reading any of
 * it (the adapter and Hono then serve it as usual); true: it answers it, failures included.
 */
export type NodeHandler = (incoming: IncomingMessage, outgoing: ServerResponse, onError: RouteErrorHandler) => boolean;

/** Serves a route of the service (TriggerHost.route). */
export type RouteRegistrar = (
  owner: string,
  methods: readonly string[],
  path: string,
  handler: RouteHandler,
  direct?: DirectHandler,
  node?: NodeHandler,
) => void;

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
   * or the path is reserved (/health, /ready, /metrics, anything under /_pipec/). `direct`, when
   * given, answers like `handler` does, from the Node request alone (RouteTable.serveDirect);
   * `node`, when given too, answers it onto the Node response (RouteTable.serveNode).
   */
  readonly route: RouteRegistrar;
  /** A readiness dependency: /ready answers 503 naming it while `check` answers false. */
  readiness(name: string, check: () => boolean): void;
}

/** A route that may be served without Hono, and whether Hono would pick it alone (known at its first request). */
interface DirectRoute {
  readonly method: string;
  readonly path: string;
  readonly handler: RouteHandler;
  readonly direct: DirectHandler;
  readonly node: NodeHandler | undefined;
  routedAlone: boolean | undefined;
}

/** What Hono answers when a handler throws (the service's onError), for a direct route too. */
export type RouteErrorHandler = (err: Error, request: Request) => Response | Promise<Response>;

/**
 * A path Hono matches only as itself, byte for byte: no parameters, wildcards or patterns, no
 * percent-escapes, and the same once parsed as a URL (no dot segments or characters a URL escapes).
 */
function isLiteralPath(path: string): boolean {
  if (!/^\/[A-Za-z0-9\-._~!$&'()+,;=@/]*$/.test(path)) return false;
  try {
    return new URL(path, 'http://host').pathname === path;
  } catch {
    return false;
  }
}

/**
 * A Host header the adapter takes as it is, without parsing a URL: lower-case letters, digits, dots
 * and hyphens, with no port or one of 1000–59999 (anything else is left to its checks).
 */
const PLAIN_HOST = /^[a-z0-9.-]+(?::[1-9][0-9]{3}|:[1-5][0-9]{4})?$/;

/** Routes and readiness checks of one service, with the conflicts the host refuses. */
export class RouteTable {
  private readonly owners = new Map<string, string>();
  /** Routes with a DirectHandler: by literal path, then by method. */
  private readonly directRoutes = new Map<string, Map<string, DirectRoute>>();
  readonly readinessChecks = new Map<string, () => boolean>();

  constructor(
    private readonly app: Hono,
    private readonly onError?: RouteErrorHandler,
  ) {}

  route(
    owner: string,
    methods: readonly string[],
    path: string,
    handler: RouteHandler,
    direct?: DirectHandler,
    node?: NodeHandler,
  ): void {
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
    // Hono answers HEAD with its GET route and `*` with whatever matches: those stay Hono's.
    if (direct && this.onError && isLiteralPath(path) && !methods.includes('*')) {
      const byMethod = this.directRoutes.get(path) ?? new Map<string, DirectRoute>();
      for (const method of methods.filter((m) => m !== 'HEAD')) {
        byMethod.set(method, { method, path, handler, direct, node, routedAlone: undefined });
      }
      this.directRoutes.set(path, byMethod);
    }
  }

  /**
   * Answers a Node request for a route registered with a DirectHandler, without Hono: no URL
   * parsed again for its path, no router, no Context, no promise chain around the handler (a few
   * per cent of a small request's CPU time). Only where Hono would do the same: the request's path is
   * the route's literal path and Hono's router, asked once per route, matches that handler alone
   * for it (no other route or middleware). A throw is answered as Hono's onError would (the
   * handler answers its asynchronous failures so itself). Undefined: Hono serves the request as
   * usual (no Node request, another path, or another route involved).
   */
  serveDirect(request: Request, env: unknown): Response | Promise<Response> | undefined {
    if (this.directRoutes.size === 0) return undefined;
    const incoming = unreadIncoming(env);
    if (incoming === undefined) return undefined;
    const url = incoming.url ?? '';
    const query = url.indexOf('?');
    const route = this.directRoutes.get(query < 0 ? url : url.slice(0, query))?.get(request.method);
    if (route === undefined || !this.routedAlone(route)) return undefined;
    const onError = this.onError as RouteErrorHandler;
    try {
      return route.direct(request, incoming, onError);
    } catch (err) {
      if (err instanceof Error) return onError(err, request);
      throw err;
    }
  }

  /**
   * Answers a Node request of a direct route with a NodeHandler onto the Node response, before
   * @hono/node-server builds its Request, promise chain and close handler for it. Only a request the
   * adapter would hand on unchanged: origin-form target that is exactly the route's literal path
   * (no query, which the adapter validates), a plain Host (PLAIN_HOST). False: not taken (the adapter, then serveDirect or Hono, serve it).
   */
  serveNode(incoming: IncomingMessage, outgoing: ServerResponse): boolean {
    if (this.directRoutes.size === 0) return false;
    const route = this.directRoutes.get(incoming.url ?? '')?.get(incoming.method ?? '');
    if (route?.node === undefined || incoming.httpVersionMajor !== 1 || !this.routedAlone(route)) return false;
    const host = incoming.headers.host;
    if (host === undefined || !PLAIN_HOST.test(host)) return false;
    return route.node(incoming, outgoing, this.onError as RouteErrorHandler);
  }

  /** Hono's router, once every route is in (it is built at the first request), picks this handler alone. */
  private routedAlone(route: DirectRoute): boolean {
    if (route.routedAlone === undefined) {
      const [matched] = this.app.router.match(route.method, route.path);
      route.routedAlone = matched.length === 1 && matched[0]?.[0][0] === route.handler;
    }
    return route.routedAlone;
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
