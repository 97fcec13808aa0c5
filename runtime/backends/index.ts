/**
 * Chooses and opens the platform backends at run time:
 *   PIPEC_STORE=postgres://… → PostgreSQL Object Store + advisory-lock scheduler lock, else SQLite;
 *   PIPEC_BROKER=nats://…    → NATS JetStream broker (dead letters in JetStream), else the SQLite
 *                              durable queue (dead letters in the file);
 *   the scheduler lock: PostgreSQL when configured, else NATS KV when NATS is, else the SQLite file;
 *   watermarks of polling triggers (sql-poll): PostgreSQL when configured, else the SQLite file.
 * Any other scheme stops the start (config.ts), as does a mix PIPEC_REPLICAS says is not shared.
 * Embedded mode keeps everything in one SQLite file `<dataDir>/pipec.db`.
 *
 * The remote backends connect in the background and reconnect for as long as the service runs
 * (availability.ts): `createBackends` waits up to PIPEC_BACKENDS_START_WAIT_MS (default 10 s) for
 * them, then returns anyway — a service started during an outage serves `/health`, answers `/ready`
 * with 503 and calls that need the missing backend with 503, and heals when it comes back.
 * Optional env: PIPEC_STORE_MAX_DOC (bytes, default 1 MB), PIPEC_STORE_MAX_AGGREGATE (documents),
 * PIPEC_NATS_STREAM / PIPEC_NATS_SUBJECT_PREFIX (default PIPEC_EVENTS / pipec.events),
 * PIPEC_NATS_MAX_AGE_MS (how long NATS keeps an unacknowledged event, default 7 days),
 * PIPEC_SQLITE_SYNCHRONOUS (normal | full: commits that survive a machine crash too); connection
 * settings: postgres/pool.ts and nats/connection.ts.
 */
import type { Logger } from 'pino';
import type { RateLimitStore } from '../security/rate-limit.js';
import type { Clock, EventBroker, ObjectStoreBackend } from '../types.js';
import { Availability, Dependency } from './availability.js';
import { chooseBackends } from './config.js';
import type { DeadLetterStore } from './dead-letters.js';
import { guarded } from './guard.js';
import { maxDocumentBytes } from './json-safe.js';
import { createSqliteLock, type SchedulerLock } from './locks.js';
import { createSqliteWatermarks, type WatermarkStore } from './watermarks.js';
import type { NatsLink } from './nats/connection.js';
import type { PgPool } from './postgres/pool.js';
import type { PgSupervisor } from './postgres/supervisor.js';
import { createRegexTester } from './query/regex.js';
import { createSqliteBroker } from './sqlite/broker.js';
import { openSqlite, sqliteFile, type SqliteDatabase } from './sqlite/database.js';
import { createSqliteStore } from './sqlite/store.js';
import { maxAggregateDocs } from './store-input.js';

export interface Backends {
  readonly store: ObjectStoreBackend;
  readonly broker: EventBroker;
  /** Runs fn only if this process got the lock `key` (once across replicas); false when another holds it. */
  readonly lock: SchedulerLock;
  /** How far polling triggers have read (sql-poll), in PostgreSQL when configured, else in the SQLite file. */
  readonly watermarks: WatermarkStore;
  readonly deadLetters: DeadLetterStore;
  /** Which remote backends are unreachable now (for `/ready`). */
  readonly availability: Availability;
  /** Rate-limit counters every replica shares: PostgreSQL when configured, else NATS KV; absent embedded. */
  readonly rateLimits?: RateLimitStore;
  close(): Promise<void>;
}

export interface BackendOptions {
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Longest wait for the remote backends at start (default PIPEC_BACKENDS_START_WAIT_MS, else 10 s). */
  readonly startWaitMs?: number;
}

const DEFAULT_START_WAIT_MS = 10_000;

export async function createBackends(opts: BackendOptions): Promise<Backends> {
  const { env, clock, logger } = opts;
  // An unknown scheme throws (config.ts): never a silent fall-back to the embedded backends.
  const { storeUrl, brokerUrl } = chooseBackends(env);
  const usePostgres = storeUrl !== undefined;
  const useNats = brokerUrl !== undefined;
  const regex = createRegexTester();
  const limits = { maxDocumentBytes: maxDocumentBytes(env), maxAggregateDocs: maxAggregateDocs(env) };
  const availability = new Availability();

  let sqlite: SqliteDatabase | null = null;
  let pool: PgPool | null = null;
  let supervisor: PgSupervisor | null = null;
  let link: NatsLink | null = null;
  try {
    if (!usePostgres || !useNats) sqlite = openSqlite(sqliteFile(opts.dataDir), regex, sqliteSynchronous(env));
    // The distributed drivers (pg, nats) load only when configured: an embedded service starts faster.
    let store: ObjectStoreBackend;
    let lock: SchedulerLock;
    let watermarks: WatermarkStore;
    let rateLimits: RateLimitStore | undefined;
    if (usePostgres && storeUrl) {
      const postgres = await loadPostgres();
      const dependency = availability.add(new Dependency('postgres', logger));
      const settings = postgres.pgPoolOptionsFromEnv(storeUrl, env);
      const pgPool = postgres.createPgPool({ ...settings, onIdleError: (err) => supervisor?.lost(err) });
      pool = pgPool;
      const watch = new postgres.PgSupervisor(pgPool, dependency);
      supervisor = watch;
      const lost = (err: unknown): void => watch.lost(err);
      store = guarded(
        postgres.createPgStore({ pool: pgPool, clock, regex, ...limits }),
        dependency,
        postgres.isConnectionError,
        lost,
      );
      lock = guarded(postgres.createPgLock(pgPool, clock, logger), dependency, postgres.isConnectionError, lost);
      watermarks = guarded(
        postgres.createPgWatermarks(pgPool, () => clock.now()),
        dependency,
        postgres.isConnectionError,
        lost,
      );
      rateLimits = guarded(
        postgres.createPgRateLimitStore(pgPool, clock),
        dependency,
        postgres.isConnectionError,
        lost,
      );
    } else {
      store = createSqliteStore({ db: sqlite as SqliteDatabase, clock, regex, ...limits });
      lock = createSqliteLock(sqlite as SqliteDatabase, clock);
      watermarks = createSqliteWatermarks(sqlite as SqliteDatabase, () => clock.now());
    }

    let broker: EventBroker & { readonly deadLetters: DeadLetterStore };
    if (useNats && brokerUrl) {
      const nats = await loadNats();
      const dependency = availability.add(new Dependency('nats', logger));
      link = new nats.NatsLink(nats.natsConnectionOptions(brokerUrl, env), dependency, logger);
      const stream = env['PIPEC_NATS_STREAM'] || 'PIPEC_EVENTS';
      broker = nats.createNatsBroker({
        link,
        clock,
        logger,
        stream,
        ...(env['PIPEC_NATS_SUBJECT_PREFIX'] ? { subjectPrefix: env['PIPEC_NATS_SUBJECT_PREFIX'] } : {}),
        ...(maxAgeFrom(env) !== undefined ? { maxAgeMs: maxAgeFrom(env) } : {}),
      });
      if (!usePostgres) {
        lock = nats.createNatsLock(link, stream);
        rateLimits = nats.createNatsRateLimitStore(link, stream);
      }
    } else {
      broker = createSqliteBroker({ db: sqlite as SqliteDatabase, clock, logger });
    }

    await waitForBackends([link?.dependency, supervisor?.dependency], opts.startWaitMs ?? startWaitFrom(env));
    logger.info(
      {
        store: pool ? 'postgres' : 'sqlite',
        broker: useNats ? 'nats' : 'sqlite',
        unavailable: availability.unavailable().map((u) => u.backend),
      },
      'backends ready',
    );

    let closed = false;
    const openLink = link;
    const openSupervisor = supervisor;
    return {
      store,
      broker,
      lock,
      watermarks,
      deadLetters: broker.deadLetters,
      availability,
      ...(rateLimits ? { rateLimits } : {}),
      async close() {
        if (closed) return;
        closed = true;
        await broker.close();
        await store.close();
        await openLink?.close();
        await openSupervisor?.close();
        await releaseConnections(sqlite, pool);
      },
    };
  } catch (err) {
    await link?.close().catch(() => undefined);
    await supervisor?.close().catch(() => undefined);
    await releaseConnections(sqlite, pool);
    throw err;
  }
}

/** Waits until every remote backend is up, or `ms` passed (the service then starts unready). */
async function waitForBackends(dependencies: ReadonlyArray<Dependency | undefined>, ms: number): Promise<void> {
  const deadline = AbortSignal.timeout(ms);
  await Promise.all(dependencies.map((d) => d?.whenUp(deadline)));
}

function sqliteSynchronous(env: NodeJS.ProcessEnv): 'normal' | 'full' {
  const value = env['PIPEC_SQLITE_SYNCHRONOUS'];
  if (value === undefined || value === 'normal') return 'normal';
  if (value === 'full') return 'full';
  throw new Error(`PIPEC_SQLITE_SYNCHRONOUS must be normal or full, not ${JSON.stringify(value)}`);
}

function startWaitFrom(env: NodeJS.ProcessEnv): number {
  const value = Number(env['PIPEC_BACKENDS_START_WAIT_MS']);
  return Number.isInteger(value) && value >= 0 ? value : DEFAULT_START_WAIT_MS;
}

function maxAgeFrom(env: NodeJS.ProcessEnv): number | undefined {
  const value = Number(env['PIPEC_NATS_MAX_AGE_MS']);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

async function loadPostgres() {
  const [pool, store, locks, supervisor, watermarks, rateLimits] = await Promise.all([
    import('./postgres/pool.js'),
    import('./postgres/store.js'),
    import('./locks.js'),
    import('./postgres/supervisor.js'),
    import('./watermarks.js'),
    import('./postgres/rate-limits.js'),
  ]);
  return {
    createPgPool: pool.createPgPool,
    pgPoolOptionsFromEnv: pool.pgPoolOptionsFromEnv,
    isConnectionError: pool.isConnectionError,
    createPgStore: store.createPgStore,
    createPgLock: locks.createPgLock,
    createPgWatermarks: watermarks.createPgWatermarks,
    PgSupervisor: supervisor.PgSupervisor,
    createPgRateLimitStore: rateLimits.createPgRateLimitStore,
  };
}

async function loadNats() {
  const [connection, broker, lock, rateLimits] = await Promise.all([
    import('./nats/connection.js'),
    import('./nats/broker.js'),
    import('./nats/lock.js'),
    import('./nats/rate-limits.js'),
  ]);
  return {
    NatsLink: connection.NatsLink,
    natsConnectionOptions: connection.natsConnectionOptions,
    createNatsBroker: broker.createNatsBroker,
    createNatsLock: lock.createNatsLock,
    createNatsRateLimitStore: rateLimits.createNatsRateLimitStore,
  };
}

async function releaseConnections(sqlite: SqliteDatabase | null, pool: PgPool | null): Promise<void> {
  if (sqlite?.open) sqlite.close();
  if (pool) await pool.end();
}
