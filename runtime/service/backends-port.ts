/**
 * The port between the service and its state/event backends. The backends module
 * (`runtime/backends/`) implements it with SQLite/PostgreSQL/NATS; tests use in-memory fakes
 * (`test-support/fake-backends.ts`). The service owns the backends it is given and closes them
 * on stop.
 */
import type { Logger } from 'pino';
import type { Clock, EventBroker, ObjectStoreBackend } from '../types.js';

/** A lock that makes one replica do a piece of work (a scheduler tick) while others skip it. */
export interface LockBackend {
  /** Runs `fn` when the lock for `key` is obtained and resolves true; resolves false otherwise. */
  tryLock(key: string, fn: () => Promise<void>): Promise<boolean>;
}

export interface Backends {
  readonly store: ObjectStoreBackend;
  readonly broker: EventBroker;
  readonly lock: LockBackend;
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
  const mod = (await import('../backends/index.js')) as { createBackends?: (o: CreateBackendsOptions) => Promise<Backends> };
  if (typeof mod.createBackends !== 'function') {
    throw new Error('runtime/backends/index.js does not export createBackends()');
  }
  return mod.createBackends(opts);
}
