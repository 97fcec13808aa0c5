/**
 * The port between the service and its state/event backends. The backends module
 * (`runtime/backends/`) implements it with SQLite/PostgreSQL/NATS; tests use in-memory fakes
 * (`test-support/fake-backends.ts`). The service owns the backends it is given and closes them
 * on stop.
 */
import type { Logger } from 'pino';
import type { DeadLetterStore } from '../backends/dead-letters.js';
import type { WatermarkStore } from '../backends/watermarks.js';
import type { RateLimitStore } from '../security/rate-limit.js';
import type { Clock, EventBroker, ObjectStoreBackend } from '../types.js';

export type { DeadLetterStore, WatermarkStore };

/** A lock that makes one replica do a piece of work (a scheduler tick) while others skip it. */
export interface LockBackend {
  /** Runs `fn` when the lock for `key` is obtained and resolves true; resolves false otherwise. */
  tryLock(key: string, fn: () => Promise<void>): Promise<boolean>;
  /** The latest tick recorded for a schedule (epoch ms), null when none was. */
  lastTick(schedule: string): Promise<number | null>;
  /** Records a schedule's tick unless a later one is recorded already. */
  recordTick(schedule: string, tick: number): Promise<void>;
}

/** Which remote backends are unreachable now, with why (empty when all answer). */
export interface BackendAvailability {
  unavailable(): ReadonlyArray<{ readonly backend: string; readonly reason: string }>;
}

export interface Backends {
  readonly store: ObjectStoreBackend;
  readonly broker: EventBroker;
  readonly lock: LockBackend;
  /** How far polling triggers have read (sql-poll), durable across restarts, one poller per key across replicas. */
  readonly watermarks: WatermarkStore;
  /** Events no subscriber could handle (absent in test fakes without one). */
  readonly deadLetters?: DeadLetterStore;
  readonly availability?: BackendAvailability;
  /** Where rate-limit counters shared by replicas live; absent: each process counts alone. */
  readonly rateLimits?: RateLimitStore;
  close(): Promise<void>;
}

export interface CreateBackendsOptions {
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Loads the real backends module only when needed, so tests and tools never open databases. */
export async function loadDefaultBackends(opts: CreateBackendsOptions): Promise<Backends> {
  // Imported here, on first need, so that tests and tools never load the database drivers.
  const mod = (await import('../backends/index.js')) as {
    createBackends?: (o: CreateBackendsOptions) => Promise<Backends>;
  };
  if (typeof mod.createBackends !== 'function') {
    throw new Error('runtime/backends/index.js does not export createBackends()');
  }
  return mod.createBackends(opts);
}
