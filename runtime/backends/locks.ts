/**
 * Scheduler locks: `tryLock(key, fn)` runs fn at most once per key across every replica.
 * A ledger of fired keys makes "once" hold even for a replica that arrives after the first one
 * finished; while fn runs the key is also held (PostgreSQL advisory lock on a 64-bit hash of the key,
 * or an in-process set for the embedded SQLite mode, whose ledger lives in the shared file).
 * Ledger rows older than a day are pruned opportunistically.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../types.js';
import type { PgPool } from './postgres/pool.js';
import type { SqliteDatabase } from './sqlite/database.js';

export interface SchedulerLock {
  tryLock(key: string, fn: () => Promise<void>): Promise<boolean>;
}

const LEDGER_RETENTION_MS = 24 * 60 * 60 * 1000;
const PRUNE_EVERY = 100;

/** Signed 64-bit advisory-lock key (decimal text) from the SHA-256 of the lock key. */
export function advisoryKey(key: string): string {
  return createHash('sha256').update(key).digest().readBigInt64BE(0).toString();
}

export function createSqliteLock(db: SqliteDatabase, clock: Clock): SchedulerLock {
  const held = new Set<string>();
  const record = db.prepare('INSERT INTO pipec_lock_ledger (key, fired_at) VALUES (?, ?) ON CONFLICT DO NOTHING');
  const prune = db.prepare('DELETE FROM pipec_lock_ledger WHERE fired_at < ?');
  let calls = 0;
  return {
    async tryLock(key, fn) {
      if (held.has(key)) return false;
      if (++calls % PRUNE_EVERY === 0) prune.run(clock.now() - LEDGER_RETENTION_MS);
      if (record.run(key, clock.now()).changes !== 1) return false;
      held.add(key);
      try {
        await fn();
      } finally {
        held.delete(key);
      }
      return true;
    },
  };
}

export function createPgLock(pool: PgPool, clock: Clock, logger: Logger): SchedulerLock {
  let calls = 0;
  return {
    async tryLock(key, fn) {
      const client = await pool.connect();
      const lockKey = advisoryKey(key);
      let locked = false;
      try {
        const got = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [lockKey]);
        locked = got.rows[0]?.locked === true;
        if (!locked) return false;
        if (++calls % PRUNE_EVERY === 0) {
          await client.query('DELETE FROM pipec_lock_ledger WHERE fired_at < $1', [clock.now() - LEDGER_RETENTION_MS]);
        }
        const recorded = await client.query('INSERT INTO pipec_lock_ledger (key, fired_at) VALUES ($1, $2) ON CONFLICT DO NOTHING', [key, clock.now()]);
        if (recorded.rowCount !== 1) return false;
        await fn();
        return true;
      } finally {
        if (locked) {
          await client.query('SELECT pg_advisory_unlock($1::bigint)', [lockKey]).catch((err: unknown) => {
            logger.warn({ err: (err as Error).message }, 'advisory unlock failed; the session ends it');
          });
        }
        client.release();
      }
    },
  };
}
