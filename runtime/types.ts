/**
 * The contracts between generated services and the runtime. Generated pipeline modules export a
 * `PipelineModule`; the service (service.ts) wires triggers to `run`, and every step receives the
 * `ExecutionContext` of its execution.
 */
import type { Logger } from 'pino';

/** A JSON value: what flows between steps. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

// ───────────────────────────── pipelines ─────────────────────────────

export interface PipelineOptions {
  /** Maximum simultaneous executions of this pipeline in one process (default 10). */
  readonly concurrency: number;
  /**
   * Executions that may wait for a slot (default 1000); one more is shed: 503 OVERLOADED with
   * Retry-After (an event is left with the broker for later). Absent (older modules): unbounded.
   */
  readonly queue?: number;
  /** Execution timeout in ms (default 30000). */
  readonly timeout: number;
}

/** What a generated pipeline module exports as `pipeline`. */
export interface PipelineModule {
  readonly name: string;
  /** `file.pipe:line` of the declaration, for logs and errors. */
  readonly source: string;
  readonly trigger: TriggerSpec;
  readonly options: PipelineOptions;
  /**
   * Runs the steps over the trigger's message. Returns the final message, or a `Reply` when a
   * `respond` step ended the execution. Throws a `PipeError` when the execution fails. A pipeline
   * whose steps are all synchronous returns (or throws) at once, without a promise.
   */
  readonly run: (message: Json, ctx: ExecutionContext) => Json | Reply | Promise<Json | Reply>;
}

/**
 * Trigger configuration, resolved at build time (schemas compiled to validators). Each trigger's
 * folder defines its own fields (HttpTriggerSpec in runtime/triggers/http/http.ts, …); the
 * service reads only these.
 */
export interface TriggerSpec {
  readonly kind: string;
  /** From the trigger schema's `x-pipe-span`: the kind of span an execution it starts opens (absent: internal). */
  readonly spanKind?: SpanKindName;
  readonly [field: string]: unknown;
}

/** OpenTelemetry span kinds besides internal, by name. */
export type SpanKindName = 'server' | 'client' | 'producer' | 'consumer';

/** The n-th wait is initialMs · multiplier^(n-1), at most maxMs, drawn from its upper half. */
export interface RedeliveryBackoff {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly multiplier: number;
}

/** An ajv standalone validate function: returns true or sets `.errors`. */
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: readonly ValidationErrorLike[] | null;
}

export interface ValidationErrorLike {
  readonly instancePath: string;
  readonly schemaPath: string;
  readonly keyword: string;
  readonly params: Record<string, unknown>;
  readonly message?: string;
}

// ───────────────────────────── execution ─────────────────────────────

/** The headers of every reply that sets none (shared: replies are read, never changed). */
export const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** Returned by a `respond` step: the HTTP status, body and headers of the reply. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: Json,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/** Metadata visible to Double Braces as `metadata.…`. */
export interface ExecutionMetadata {
  readonly pipeline: { readonly name: string };
  readonly execution: {
    readonly key: string;
    readonly startTimestamp: number;
    readonly timeout: number;
    readonly redelivery: boolean;
  };
}

/** Per-execution state handed to every step. Created by the service for each execution. */
export interface ExecutionContext {
  readonly executionId: string;
  readonly pipeline: string;
  readonly log: Logger;
  readonly metadata: ExecutionMetadata;
  /** Outputs of labelled steps, read by `{{ step.<label> }}`. */
  readonly steps: Record<string, Json>;
  readonly globals: Readonly<Record<string, Json>>;
  /** Account fields by account name, read by `{{ account.<name>.<field> }}` and connectors. */
  readonly accounts: Readonly<Record<string, Readonly<Record<string, Json>>>>;
  readonly services: ServiceServices;
  /** Aborted when the execution times out or the service shuts down. */
  readonly signal: AbortSignal;
  /** Per-execution scratch folder (uploads, files); removed when the execution ends. */
  readonly workDir: string;
  /**
   * When the execution's time is up (a `performance.now()` reading) and its timeout: synchronous
   * evaluation checks it cooperatively (runtime/work-meter.ts). Absent: no deadline.
   */
  readonly deadline?: number;
  readonly timeoutMs?: number;
}

/** What connectors reach beyond the message: backends, other pipelines, time. */
export interface ServiceServices {
  readonly clock: Clock;
  readonly store: ObjectStoreBackend;
  readonly broker: EventBroker;
  /** Runs another pipeline of this service (Pipeline Executor). */
  readonly execute: (
    pipeline: string,
    payload: Json,
    opts: { timeout: number; parent: ExecutionContext },
  ) => Promise<Json>;
  /** Clients of outside systems (database pools, broker channels), opened lazily, closed on stop. */
  readonly connections: Connections;
}

/**
 * Clients that connectors and triggers open to outside systems, kept once per service under a key
 * such as `postgres:orders-db` (runtime/service/connections.ts).
 */
/** A client and how to close it. */
export interface OpenedConnection<T> {
  readonly client: T;
  /** Called once, when the service stops (or the connection is dropped). */
  close(): Promise<void>;
}

export interface Connections {
  /**
   * The client kept under `key`, opened by `open` on first use. Concurrent first uses share one
   * open. A failed open is reported unavailable under `dependency` and not kept.
   */
  get<T>(key: string, dependency: string, open: () => Promise<OpenedConnection<T>>): Promise<T>;
  /** Closes and forgets the client under `key` (after a fatal client error); the next use reopens. */
  drop(key: string): Promise<void>;
  /** What a client saw of its dependency: /ready lists the unavailable ones. */
  report(dependency: string, available: boolean, cause?: unknown): void;
  /**
   * Runs one call to an outside system through the circuit breaker of `target` (a REST origin,
   * `postgres:<account>`, …): an open circuit throws 503 CIRCUIT_OPEN at once (runtime/policies/breakers.ts).
   * By default a non-permanent PipeError (or any other exception) counts against the target.
   */
  guard<T>(
    target: string,
    run: () => Promise<T>,
    opts?: {
      readonly failed?: (err: unknown) => boolean;
      readonly failedResult?: (result: T) => boolean;
    },
  ): Promise<T>;
}

/** Time, replaceable in tests (a controllable clock). */
export interface Clock {
  now(): number;
  /**
   * The wall time (epoch ms) at which `performance.now()` read `monotonic`, when the clock can
   * tell it without reading itself again (the system clock can; a manual test clock cannot).
   */
  wallTimeAt?(monotonic: number): number;
  /**
   * Waits `ms` (retries between attempts); rejects with the signal's reason when it aborts first.
   * Absent: the real timers. A test clock implements it to move its time on without sleeping.
   */
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
}

// ───────────────────────────── backends ─────────────────────────────

export interface StoreOptions {
  /** TTL of documents in seconds (0 = none). */
  readonly expireAfterSeconds?: number;
}

export interface FindOptions {
  readonly limit?: number;
  readonly skip?: number;
  /** Mongo-style: { field: 1 | -1 }. */
  readonly sort?: Readonly<Record<string, 1 | -1>>;
}

/** Object Store: JSON documents with `_oId`, Mongo-style queries (SQLite JSON1 or PostgreSQL JSONB). */
export interface ObjectStoreBackend {
  insert(store: string, docs: readonly JsonObject[], opts?: StoreOptions): Promise<{ ids: string[] }>;
  find(store: string, query: JsonObject, opts?: FindOptions): Promise<JsonObject[]>;
  findById(store: string, id: string): Promise<JsonObject | null>;
  update(
    store: string,
    query: JsonObject,
    update: JsonObject,
    opts?: { upsert?: boolean; multi?: boolean },
  ): Promise<number>;
  delete(store: string, query: JsonObject, opts?: { multi?: boolean }): Promise<number>;
  aggregate(store: string, pipeline: readonly JsonObject[]): Promise<JsonObject[]>;
  createIndex(store: string, fields: Readonly<Record<string, 1 | -1>>, opts?: { unique?: boolean }): Promise<void>;
  /** The built-in unique `_oId_` index first, then the created ones in creation order (Digibee's List Indexes). */
  listIndexes(store: string): Promise<StoreIndex[]>;
  /** Drops an index by name or by its key (`{ email: 1 }`); returns how many were dropped (0 when none). */
  dropIndex(store: string, index: string | Readonly<Record<string, 1 | -1>>): Promise<number>;
  close(): Promise<void>;
}

export interface StoreIndex {
  readonly name: string;
  readonly key: Record<string, 1 | -1>;
  readonly unique: boolean;
}

export interface EventEnvelope {
  readonly id: string;
  readonly name: string;
  readonly payload: Json;
  /** W3C trace context and other propagated headers. */
  readonly headers: Readonly<Record<string, string>>;
  readonly publishedAt: number;
}

export interface Delivery {
  readonly envelope: EventEnvelope;
  /** 1 on first delivery. */
  readonly attempt: number;
  readonly redelivery: boolean;
}

/** Durable at-least-once pub/sub: SQLite queue (embedded) or NATS JetStream (distributed). */
export interface EventBroker {
  publish(name: string, payload: Json, headers?: Readonly<Record<string, string>>): Promise<void>;
  /**
   * Publishes several events at once, each stored (or refused) as `publish` would; resolves when
   * every one is settled, with each one's error or null, in order. A broker that has a cheaper way
   * than one `publish` per event (SQLite: one transaction) offers it; without it, callers run the
   * publishes concurrently (runtime/publish-batch.ts).
   */
  publishMany?(events: readonly EventToPublish[]): Promise<Array<unknown | null>>;
  /**
   * One durable consumer per (subscriber, event): every subscriber gets every event; replicas of one
   * subscriber share it. The handler's promise resolving acks; rejecting leads to redelivery after
   * `backoff` until maxDeliveries, then to the dead letters — at once when the rejection is an
   * error with `permanent: true` (see DeliveryRefusal).
   */
  subscribe(
    subscriber: string,
    event: string,
    handler: (delivery: Delivery) => Promise<void>,
    opts: { maxDeliveries: number; ackTimeout: number; concurrency: number; backoff?: RedeliveryBackoff },
  ): Promise<Subscription>;
  close(): Promise<void>;
}

export interface EventToPublish {
  readonly name: string;
  readonly payload: Json;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Subscription {
  stop(): Promise<void>;
}

/**
 * What a delivery handler may reject with to say "do not retry": `permanent: true` sends the event
 * to the dead letters at once, with `deadLetterReason` ('expired', 'unreadable') when given.
 * PipeError carries `permanent` too (its classification of the failure).
 */
export interface DeliveryRefusal {
  readonly permanent: true;
  readonly deadLetterReason?: 'expired' | 'unreadable';
}

// ───────────────────────────── connectors ─────────────────────────────

/**
 * A connector's runtime implementation: `runtime/connectors/<name>/<name>.ts` exports `run`.
 * `params` are the step's parameters with every `{{ }}` already evaluated against `message`
 * (generated code does that); build-time artifacts (compiled JOLT, validators) arrive as params too.
 * Returns the next message. Throws `PipeError` on failure; generated code applies fail-on-error.
 */
export type ConnectorRun<P = JsonObject> = (params: P, message: Json, ctx: ExecutionContext) => Promise<Json>;
