/**
 * In-memory backends for tests: an at-least-once broker with redelivery and ack timeouts, a small
 * Object Store (equality and comparison queries, $set/$inc updates) and a tick lock. They model
 * the contracts of runtime/types.ts closely enough that the service's behaviour can be tested
 * without SQLite, PostgreSQL or NATS. Not for production use.
 */
import { randomUUID } from 'node:crypto';
import { PipeError } from '../../errors.js';
import type {
  Clock,
  Delivery,
  EventBroker,
  EventEnvelope,
  FindOptions,
  Json,
  JsonObject,
  ObjectStoreBackend,
  StoreIndex,
  StoreOptions,
  Subscription,
} from '../../types.js';
import type { Backends, LockBackend, WatermarkStore } from '../backends-port.js';

type Handler = (delivery: Delivery) => Promise<void>;
interface ConsumerOptions {
  maxDeliveries: number;
  ackTimeout: number;
  concurrency: number;
  backoff?: unknown;
}
interface Pending {
  readonly envelope: EventEnvelope;
  readonly attempt: number;
}
/** A dead-lettered event as the fake keeps it: the envelope, who failed and why. */
export interface FakeDeadLetter {
  readonly envelope: EventEnvelope;
  readonly subscriber: string;
  readonly reason: string;
  readonly error: string;
}

/** One durable consumer (subscriber, event): a queue, a concurrency bound and redelivery. */
class FakeConsumer {
  private readonly queue: Pending[] = [];
  private active = 0;
  stopped = false;

  constructor(
    readonly subscriber: string,
    readonly event: string,
    private readonly handler: Handler,
    private readonly opts: ConsumerOptions,
    private readonly onDeadLetter: (p: Pending, reason: string, error: string) => void,
    private readonly onSettled: () => void,
  ) {}

  get busy(): boolean {
    return this.queue.length > 0 || this.active > 0;
  }

  enqueue(p: Pending): void {
    if (this.stopped) return;
    this.queue.push(p);
    setImmediate(() => this.pump());
  }

  private pump(): void {
    while (!this.stopped && this.active < Math.max(1, this.opts.concurrency) && this.queue.length > 0) {
      const next = this.queue.shift() as Pending;
      this.active += 1;
      void this.deliver(next).finally(() => {
        this.active -= 1;
        this.pump();
        this.onSettled();
      });
    }
  }

  private async deliver(p: Pending): Promise<void> {
    const delivery: Delivery = { envelope: p.envelope, attempt: p.attempt, redelivery: p.attempt > 1 };
    let timer: NodeJS.Timeout | undefined;
    const ackTimedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('ack timeout')), Math.max(1, this.opts.ackTimeout));
    });
    try {
      await Promise.race([this.handler(delivery), ackTimedOut]);
    } catch (err) {
      if (this.stopped) return;
      const refusal = err as { permanent?: unknown; deadLetterReason?: unknown; message?: unknown };
      const error = String(refusal?.message ?? err);
      if (refusal?.permanent === true)
        this.onDeadLetter(
          p,
          typeof refusal.deadLetterReason === 'string' ? refusal.deadLetterReason : 'permanent-error',
          error,
        );
      else if (p.attempt < this.opts.maxDeliveries) this.queue.push({ envelope: p.envelope, attempt: p.attempt + 1 });
      else this.onDeadLetter(p, 'max-deliveries', error);
    } finally {
      clearTimeout(timer);
    }
  }
}

export class FakeBroker implements EventBroker {
  readonly published: EventEnvelope[] = [];
  /** Events that failed on every allowed delivery, or permanently. */
  readonly deadLetters: EventEnvelope[] = [];
  /** The same, with the subscriber and the reason. */
  readonly deadLetterRecords: FakeDeadLetter[] = [];
  /** The options each subscription was made with. */
  readonly subscribeOptions: ConsumerOptions[] = [];
  closed = false;
  private readonly consumers = new Map<string, FakeConsumer>();
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly clock: Clock = { now: () => Date.now() }) {}

  async publish(name: string, payload: Json, headers: Readonly<Record<string, string>> = {}): Promise<void> {
    if (this.closed) throw new Error('broker closed');
    const envelope: EventEnvelope = {
      id: randomUUID(),
      name,
      payload: structuredClone(payload),
      headers: { ...headers },
      publishedAt: this.clock.now(),
    };
    this.published.push(envelope);
    for (const consumer of this.consumers.values()) {
      if (consumer.event === name) consumer.enqueue({ envelope, attempt: 1 });
    }
  }

  async subscribe(subscriber: string, event: string, handler: Handler, opts: ConsumerOptions): Promise<Subscription> {
    const key = `${subscriber}\u0000${event}`;
    if (this.consumers.has(key)) throw new Error(`already subscribed: ${subscriber} → ${event}`);
    this.subscribeOptions.push(opts);
    const consumer = new FakeConsumer(
      subscriber,
      event,
      handler,
      opts,
      (p, reason, error) => {
        this.deadLetters.push(p.envelope);
        this.deadLetterRecords.push({ envelope: p.envelope, subscriber, reason, error });
      },
      () => this.checkIdle(),
    );
    this.consumers.set(key, consumer);
    return {
      stop: async () => {
        consumer.stopped = true;
        this.consumers.delete(key);
        this.checkIdle();
      },
    };
  }

  /** Number of active consumers (tests check that stop() unsubscribes). */
  get subscriptionCount(): number {
    return this.consumers.size;
  }

  /** Resolves once no event is queued or being handled. */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      setImmediate(() => this.checkIdle());
    });
  }

  private checkIdle(): void {
    const busy = [...this.consumers.values()].some((c) => c.busy);
    if (busy) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const c of this.consumers.values()) c.stopped = true;
    this.consumers.clear();
    this.checkIdle();
  }
}

// ───────────────────────────── store ─────────────────────────────

function pathValue(doc: JsonObject, path: string): Json | undefined {
  let current: Json | undefined = doc;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = Object.prototype.hasOwnProperty.call(current, part) ? current[part] : undefined;
  }
  return current;
}

function compare(a: Json | undefined, b: Json): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return Number.NaN;
}

function matchesCondition(value: Json | undefined, condition: Json): boolean {
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) {
    return JSON.stringify(value) === JSON.stringify(condition);
  }
  const ops = Object.entries(condition);
  if (!ops.every(([op]) => op.startsWith('$'))) return JSON.stringify(value) === JSON.stringify(condition);
  return ops.every(([op, arg]) => {
    switch (op) {
      case '$eq':
        return JSON.stringify(value) === JSON.stringify(arg);
      case '$ne':
        return JSON.stringify(value) !== JSON.stringify(arg);
      case '$lt':
        return compare(value, arg) < 0;
      case '$lte':
        return compare(value, arg) <= 0;
      case '$gt':
        return compare(value, arg) > 0;
      case '$gte':
        return compare(value, arg) >= 0;
      case '$in':
        return Array.isArray(arg) && arg.some((x) => JSON.stringify(x) === JSON.stringify(value));
      case '$exists':
        return (value !== undefined) === Boolean(arg);
      default:
        throw new Error(`fake store: unsupported operator ${op}`);
    }
  });
}

function matches(doc: JsonObject, query: JsonObject): boolean {
  return Object.entries(query).every(([path, condition]) => matchesCondition(pathValue(doc, path), condition));
}

interface StoredDoc {
  doc: JsonObject;
  expiresAt: number | null;
}

export class FakeStore implements ObjectStoreBackend {
  closed = false;
  /** Options seen by insert(), for tests of declared store options. */
  readonly insertOptions: Array<{ store: string; opts: StoreOptions | undefined }> = [];
  private readonly stores = new Map<string, Map<string, StoredDoc>>();

  constructor(private readonly clock: Clock = { now: () => Date.now() }) {}

  private collection(store: string): Map<string, StoredDoc> {
    let c = this.stores.get(store);
    if (!c) {
      c = new Map();
      this.stores.set(store, c);
    }
    const now = this.clock.now();
    for (const [id, d] of c) if (d.expiresAt !== null && d.expiresAt <= now) c.delete(id);
    return c;
  }

  async insert(store: string, docs: readonly JsonObject[], opts?: StoreOptions): Promise<{ ids: string[] }> {
    this.insertOptions.push({ store, opts });
    const c = this.collection(store);
    const ttl = opts?.expireAfterSeconds ?? 0;
    // As the real stores: a given `_oId` (string or number) is kept and must be new (409 DUPLICATE_KEY).
    const given = docs.map((d) =>
      typeof d['_oId'] === 'string' || typeof d['_oId'] === 'number' ? String(d['_oId']) : undefined,
    );
    const taken = given.find((id, i) => id !== undefined && (c.has(id) || given.indexOf(id) !== i));
    if (taken !== undefined)
      throw new PipeError(`duplicate key: _oId ${JSON.stringify(taken)}`, { code: 409, kind: 'DUPLICATE_KEY' });
    const ids = docs.map((d, i) => {
      const id = given[i] ?? randomUUID();
      const doc = structuredClone(d);
      doc['_oId'] = given[i] === undefined ? id : (d['_oId'] as Json);
      c.set(id, { doc, expiresAt: ttl > 0 ? this.clock.now() + ttl * 1000 : null });
      return id;
    });
    return { ids };
  }

  async find(store: string, query: JsonObject, opts: FindOptions = {}): Promise<JsonObject[]> {
    let found = [...this.collection(store).values()].map((d) => d.doc).filter((d) => matches(d, query));
    for (const [field, dir] of Object.entries(opts.sort ?? {}).reverse()) {
      found = [...found].sort((a, b) => (compare(pathValue(a, field), pathValue(b, field) ?? null) || 0) * dir);
    }
    const skip = opts.skip ?? 0;
    return found.slice(skip, opts.limit === undefined ? undefined : skip + opts.limit).map((d) => structuredClone(d));
  }

  async findById(store: string, id: string): Promise<JsonObject | null> {
    const d = this.collection(store).get(id);
    return d ? structuredClone(d.doc) : null;
  }

  async update(
    store: string,
    query: JsonObject,
    update: JsonObject,
    opts: { upsert?: boolean; multi?: boolean } = {},
  ): Promise<number> {
    const c = this.collection(store);
    const targets = [...c.values()].filter((d) => matches(d.doc, query));
    const chosen = opts.multi ? targets : targets.slice(0, 1);
    for (const t of chosen) t.doc = applyUpdate(t.doc, update);
    if (chosen.length === 0 && opts.upsert) {
      await this.insert(store, [applyUpdate(structuredClone(query), update)]);
      return 1;
    }
    return chosen.length;
  }

  async delete(store: string, query: JsonObject, opts: { multi?: boolean } = {}): Promise<number> {
    const c = this.collection(store);
    const ids = [...c.entries()].filter(([, d]) => matches(d.doc, query)).map(([id]) => id);
    const chosen = opts.multi ? ids : ids.slice(0, 1);
    for (const id of chosen) c.delete(id);
    return chosen.length;
  }

  async aggregate(): Promise<JsonObject[]> {
    throw new Error('fake store: aggregate is not supported');
  }

  /** Created indexes by store (recorded only: the fake never enforces uniqueness). */
  private readonly indexes = new Map<string, StoreIndex[]>();

  async createIndex(
    store: string,
    fields: Readonly<Record<string, 1 | -1>>,
    opts: { unique?: boolean } = {},
  ): Promise<void> {
    const name = Object.entries(fields)
      .map(([field, dir]) => `${field}_${dir}`)
      .join('_');
    const list = this.indexes.get(store) ?? [];
    if (!list.some((i) => i.name === name)) list.push({ name, key: { ...fields }, unique: opts.unique === true });
    this.indexes.set(store, list);
  }

  async listIndexes(store: string): Promise<StoreIndex[]> {
    return [{ name: '_oId_', key: { _oId: 1 }, unique: true }, ...(this.indexes.get(store) ?? [])];
  }

  async dropIndex(store: string, index: string | Readonly<Record<string, 1 | -1>>): Promise<number> {
    const list = this.indexes.get(store) ?? [];
    const key = typeof index === 'string' ? undefined : JSON.stringify(index);
    const kept = list.filter((i) => (key === undefined ? i.name !== index : JSON.stringify(i.key) !== key));
    this.indexes.set(store, kept);
    return list.length - kept.length;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

function applyUpdate(doc: JsonObject, update: JsonObject): JsonObject {
  const hasOperators = Object.keys(update).some((k) => k.startsWith('$'));
  if (!hasOperators) return { ...structuredClone(update), _oId: doc['_oId'] ?? null };
  const next = structuredClone(doc);
  for (const [op, fields] of Object.entries(update)) {
    if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) continue;
    for (const [field, value] of Object.entries(fields)) {
      if (op === '$set')
        Object.defineProperty(next, field, { value, enumerable: true, writable: true, configurable: true });
      else if (op === '$inc') {
        const old = next[field];
        const sum = (typeof old === 'number' ? old : 0) + (typeof value === 'number' ? value : 0);
        Object.defineProperty(next, field, { value: sum, enumerable: true, writable: true, configurable: true });
      } else throw new Error(`fake store: unsupported update operator ${op}`);
    }
  }
  return next;
}

// ───────────────────────────── lock ─────────────────────────────

/** Each key runs at most once: a tick key already taken (running or done) is refused. */
export class FakeLock implements LockBackend {
  readonly taken = new Set<string>();
  readonly ticks = new Map<string, number>();

  async lastTick(schedule: string): Promise<number | null> {
    return this.ticks.get(schedule) ?? null;
  }

  async recordTick(schedule: string, tick: number): Promise<void> {
    this.ticks.set(schedule, Math.max(tick, this.ticks.get(schedule) ?? tick));
  }

  async tryLock(key: string, fn: () => Promise<void>): Promise<boolean> {
    if (this.taken.has(key)) return false;
    this.taken.add(key);
    await fn();
    return true;
  }
}

/** Watermarks in memory: one holder per key at a time, values kept for the fake's life. */
export class FakeWatermarks implements WatermarkStore {
  readonly values = new Map<string, string>();
  private readonly held = new Set<string>();

  async withWatermark(
    key: string,
    fn: (current: string | null, advance: (value: string) => Promise<void>) => Promise<void>,
  ): Promise<boolean> {
    if (this.held.has(key)) return false;
    this.held.add(key);
    try {
      await fn(this.values.get(key) ?? null, async (value) => void this.values.set(key, value));
      return true;
    } finally {
      this.held.delete(key);
    }
  }
}

export interface FakeBackends extends Backends {
  readonly store: FakeStore;
  readonly broker: FakeBroker;
  readonly lock: FakeLock;
  readonly watermarks: FakeWatermarks;
  closed: boolean;
}

export function createFakeBackends(clock?: Clock): FakeBackends {
  const store = new FakeStore(clock);
  const broker = new FakeBroker(clock);
  const lock = new FakeLock();
  const backends: FakeBackends = {
    store,
    broker,
    lock,
    watermarks: new FakeWatermarks(),
    closed: false,
    async close() {
      backends.closed = true;
      await broker.close();
      await store.close();
    },
  };
  return backends;
}
