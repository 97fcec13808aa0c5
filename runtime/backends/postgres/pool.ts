/**
 * The PostgreSQL connection pool (PIPEC_STORE=postgres://…) and the schema shared by the Object Store
 * and the scheduler ledger. Schema creation runs under a transaction-scoped advisory lock so several
 * replicas starting together do not race on CREATE … IF NOT EXISTS.
 */
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
}

export async function openPgPool(opts: PgPoolOptions): Promise<PgPool> {
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.max ?? 10,
    statement_timeout: opts.statementTimeoutMs ?? 15_000,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  try {
    await withDdlLock(pool, (client) => client.query(SCHEMA).then(() => undefined));
  } catch (err) {
    await pool.end();
    throw err;
  }
  return pool;
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
