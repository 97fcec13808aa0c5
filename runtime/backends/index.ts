/**
 * Chooses and opens the platform backends at run time:
 *   PIPEC_STORE=postgres://… → PostgreSQL Object Store + advisory-lock scheduler lock, else SQLite;
 *   PIPEC_BROKER=nats://…    → NATS JetStream broker, else the SQLite durable queue.
 * Embedded mode keeps everything in one SQLite file `<dataDir>/pipec.db`.
 * Optional env: PIPEC_STORE_MAX_DOC (bytes, default 1 MB), PIPEC_STORE_MAX_AGGREGATE (documents),
 * PIPEC_NATS_STREAM / PIPEC_NATS_SUBJECT_PREFIX (default PIPEC_EVENTS / pipec.events).
 */
import type { Logger } from 'pino';
import type { Clock, EventBroker, ObjectStoreBackend } from '../types.js';
import { maxDocumentBytes } from './json-safe.js';
import { createSqliteLock, type SchedulerLock } from './locks.js';
import type { PgPool } from './postgres/pool.js';
import { createRegexTester } from './query/regex.js';
import { createSqliteBroker } from './sqlite/broker.js';
import { openSqlite, sqliteFile, type SqliteDatabase } from './sqlite/database.js';
import { createSqliteStore } from './sqlite/store.js';
import { maxAggregateDocs } from './store-input.js';

export interface Backends {
  readonly store: ObjectStoreBackend;
  readonly broker: EventBroker;
  /** Runs fn only if this process got the lock `key` (once across replicas); false when another holds it. */
  readonly lock: { tryLock(key: string, fn: () => Promise<void>): Promise<boolean> };
  close(): Promise<void>;
}

export interface BackendOptions {
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  readonly logger: Logger;
}

export async function createBackends(opts: BackendOptions): Promise<Backends> {
  const { env, clock, logger } = opts;
  const storeUrl = env['PIPEC_STORE'];
  const brokerUrl = env['PIPEC_BROKER'];
  const usePostgres = storeUrl !== undefined && /^postgres(ql)?:\/\//.test(storeUrl);
  const useNats = brokerUrl !== undefined && /^nats:\/\//.test(brokerUrl);
  const regex = createRegexTester();
  const limits = { maxDocumentBytes: maxDocumentBytes(env), maxAggregateDocs: maxAggregateDocs(env) };

  let sqlite: SqliteDatabase | null = null;
  let pool: PgPool | null = null;
  const closers: Array<() => Promise<void>> = [];
  try {
    if (!usePostgres || !useNats) sqlite = openSqlite(sqliteFile(opts.dataDir), regex);
    // The distributed drivers (pg, nats) load only when configured: an embedded service starts faster.
    const postgres = usePostgres ? await loadPostgres() : undefined;
    if (postgres && storeUrl) pool = await postgres.openPgPool({ connectionString: storeUrl });

    const store = pool && postgres
      ? postgres.createPgStore({ pool, clock, regex, ...limits })
      : createSqliteStore({ db: sqlite as SqliteDatabase, clock, regex, ...limits });
    const lock: SchedulerLock = pool && postgres ? postgres.createPgLock(pool, clock, logger) : createSqliteLock(sqlite as SqliteDatabase, clock);
    const broker = useNats
      ? await (await import('./nats/broker.js')).createNatsBroker({
          url: brokerUrl,
          clock,
          logger,
          ...(env['PIPEC_NATS_STREAM'] ? { stream: env['PIPEC_NATS_STREAM'] } : {}),
          ...(env['PIPEC_NATS_SUBJECT_PREFIX'] ? { subjectPrefix: env['PIPEC_NATS_SUBJECT_PREFIX'] } : {}),
        })
      : createSqliteBroker({ db: sqlite as SqliteDatabase, clock, logger });
    closers.push(() => broker.close(), () => store.close());
    logger.info({ store: pool ? 'postgres' : 'sqlite', broker: useNats ? 'nats' : 'sqlite' }, 'backends ready');

    let closed = false;
    return {
      store,
      broker,
      lock,
      async close() {
        if (closed) return;
        closed = true;
        for (const close of closers) await close();
        await releaseConnections(sqlite, pool);
      },
    };
  } catch (err) {
    await releaseConnections(sqlite, pool);
    throw err;
  }
}

async function loadPostgres() {
  const [pool, store, locks] = await Promise.all([import('./postgres/pool.js'), import('./postgres/store.js'), import('./locks.js')]);
  return { openPgPool: pool.openPgPool, createPgStore: store.createPgStore, createPgLock: locks.createPgLock };
}

async function releaseConnections(sqlite: SqliteDatabase | null, pool: PgPool | null): Promise<void> {
  if (sqlite?.open) sqlite.close();
  if (pool) await pool.end();
}
