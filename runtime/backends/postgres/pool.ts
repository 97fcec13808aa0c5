/**
 * The PostgreSQL connection pool (PIPEC_STORE=postgres://…) and the schema shared by the Object Store
 * and the scheduler ledger. Schema creation runs under a transaction-scoped advisory lock so several
 * replicas starting together do not race on CREATE … IF NOT EXISTS.
 *
 * Settings from the environment (README "Running a service"):
 *   PIPEC_STORE_POOL_SIZE   connections per process (default 10)
 *   PIPEC_STORE_TLS         disable | require (encrypted, server not verified) | verify-ca |
 *                           verify-full (certificate and host name checked); default: as the URL's
 *                           `sslmode`, else no TLS
 *   PIPEC_STORE_TLS_CA, PIPEC_STORE_TLS_CERT, PIPEC_STORE_TLS_KEY   PEM files: the CA to trust, and
 *                           a client certificate and key (a CA alone implies verify-full)
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import pg from 'pg';

export type PgPool = pg.Pool;
export type PgClient = pg.PoolClient;

/** Advisory-lock key serializing pipec DDL across replicas (an arbitrary fixed 64-bit value). */
const DDL_LOCK_KEY = '7311585914245312001';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS pipec_documents (
  seq BIGSERIAL PRIMARY KEY,
  store TEXT NOT NULL,
  id TEXT NOT NULL,
  doc JSONB NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT,
  UNIQUE (store, id)
);
CREATE INDEX IF NOT EXISTS pipec_documents_store_seq ON pipec_documents (store, seq);
CREATE INDEX IF NOT EXISTS pipec_documents_expiry ON pipec_documents (store, expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS pipec_stores (
  store TEXT PRIMARY KEY,
  expire_after_ms BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS pipec_lock_ledger (
  key TEXT PRIMARY KEY,
  fired_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS pipec_schedule_state (
  schedule TEXT PRIMARY KEY,
  last_tick BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS pipec_watermarks (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS pipec_rate_limits (
  key TEXT PRIMARY KEY,
  state JSONB NOT NULL,
  version BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS pipec_indexes (
  seq BIGSERIAL,
  store TEXT NOT NULL,
  name TEXT NOT NULL,
  fields TEXT NOT NULL,
  is_unique BOOLEAN NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (store, name)
);
`;

export interface PgPoolOptions {
  readonly connectionString: string;
  readonly max?: number;
  /** Server-side limit per statement (ms), so no query (e.g. a hostile regex) runs unbounded. */
  readonly statementTimeoutMs?: number;
  /** TLS for the connections; false or absent: as the connection string says. */
  readonly ssl?: ConnectionOptions | false;
  /** Called when a pooled connection fails, idle or checked out (the pool drops it). */
  readonly onIdleError?: (err: Error) => void;
}

const TLS_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;

/** The pool's settings from PIPEC_STORE and the PIPEC_STORE_* variables; throws on invalid values. */
export function pgPoolOptionsFromEnv(url: string, env: NodeJS.ProcessEnv): PgPoolOptions {
  const sizeText = env['PIPEC_STORE_POOL_SIZE'];
  const max = sizeText === undefined ? 10 : Number(sizeText);
  if (!Number.isInteger(max) || max < 1 || max > 1000)
    throw new Error(`PIPEC_STORE_POOL_SIZE must be an integer 1..1000, not ${JSON.stringify(sizeText)}`);
  const ca = env['PIPEC_STORE_TLS_CA'];
  const cert = env['PIPEC_STORE_TLS_CERT'];
  const key = env['PIPEC_STORE_TLS_KEY'];
  if ((cert === undefined) !== (key === undefined))
    throw new Error('PIPEC_STORE_TLS_CERT and PIPEC_STORE_TLS_KEY go together');
  const modeText = env['PIPEC_STORE_TLS'] ?? (ca !== undefined || cert !== undefined ? 'verify-full' : undefined);
  if (modeText === undefined) return { connectionString: url, max };
  const mode = TLS_MODES.find((m) => m === modeText);
  if (mode === undefined)
    throw new Error(`PIPEC_STORE_TLS must be one of ${TLS_MODES.join(', ')}, not ${JSON.stringify(modeText)}`);
  if (mode === 'disable') return { connectionString: withoutSslParams(url), max, ssl: false };
  const files: ConnectionOptions = {
    ...(ca !== undefined ? { ca: readFileSync(ca, 'utf8') } : {}),
    ...(cert !== undefined ? { cert: readFileSync(cert, 'utf8') } : {}),
    ...(key !== undefined ? { key: readFileSync(key, 'utf8') } : {}),
  };
  const ssl: ConnectionOptions =
    mode === 'require'
      ? { ...files, rejectUnauthorized: false }
      : mode === 'verify-ca'
        ? { ...files, rejectUnauthorized: true, checkServerIdentity: () => undefined }
        : { ...files, rejectUnauthorized: true };
  return { connectionString: withoutSslParams(url), max, ssl };
}

/** The URL's own ssl parameters would override the `ssl` option in pg: the environment decides. */
function withoutSslParams(url: string): string {
  const parsed = new URL(url);
  for (const name of ['ssl', 'sslmode', 'sslrootcert', 'sslcert', 'sslkey']) parsed.searchParams.delete(name);
  return parsed.toString();
}

/** A pool that has not connected yet (connections open on first use); see createPgSchema. */
export function createPgPool(opts: PgPoolOptions): PgPool {
  const statementTimeout = opts.statementTimeoutMs ?? 15_000;
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.max ?? 10,
    statement_timeout: statementTimeout,
    // A link that goes silent (no reset, no answer) must not hold a caller for ever.
    query_timeout: statementTimeout + 5000,
    connectionTimeoutMillis: 5000,
    keepAlive: true,
    ...(opts.ssl !== undefined ? { ssl: opts.ssl } : {}),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (err) => opts.onIdleError?.(err));
  // pg-pool listens for 'error' only while a client is idle: a connection that breaks while it is
  // checked out (between the queries of a transaction, or while its caller awaits something else)
  // would emit 'error' with no listener — an uncaught exception that ends the process. The caller's
  // next query on that client fails with a connection error, and release() drops the client.
  pool.on('connect', (client) => {
    client.on('error', (err) => opts.onIdleError?.(err));
  });
  return pool;
}

export async function createPgSchema(pool: PgPool): Promise<void> {
  await withDdlLock(pool, (client) => client.query(SCHEMA).then(() => undefined));
}

/** Opens a pool and creates the schema (tools and tests; the service uses PgSupervisor). */
export async function openPgPool(opts: PgPoolOptions): Promise<PgPool> {
  const pool = createPgPool(opts);
  try {
    await createPgSchema(pool);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return pool;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNABORTED',
]);
const CONNECTION_TEXT =
  /connection terminated|terminating connection|timeout exceeded when trying to connect|query read timeout|not queryable|client was closed|connection refused|socket|server closed the connection/i;

/**
 * True when a failure says the database cannot be reached (network, server restarting or shut
 * down, too many connections) rather than that the query was wrong.
 */
export function isConnectionError(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return false;
  if ((err as { name?: unknown }).name === 'PipeError') return false;
  const code = pgErrorCode(err);
  if (code !== undefined) {
    if (CONNECTION_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return code.startsWith('08') || code.startsWith('57P') || code === '53300';
  }
  return CONNECTION_TEXT.test((err as Error).message ?? '');
}

/** Runs DDL in a transaction holding the pipec DDL advisory lock. */
export async function withDdlLock(pool: PgPool, fn: (client: PgClient) => Promise<void>): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [DDL_LOCK_KEY]);
    await fn(client);
  });
}

export async function withTransaction<T>(pool: PgPool, fn: (client: PgClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

export function pgErrorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
