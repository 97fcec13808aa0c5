/**
 * Scheduler locks: `tryLock(key, fn)` runs fn at most once per key across every replica.
 * A ledger of fired keys makes "once" hold even for a replica that arrives after the first one
 * finished; while fn runs the key is also held (PostgreSQL advisory lock on a 64-bit hash of the key,
 * or an in-process set for the embedded SQLite mode, whose ledger lives in the shared file; NATS
 * alone: nats/lock.ts, a KV bucket). Ledger rows older than a day are pruned opportunistically.
 * Each schedule's latest tick is kept too (`lastTick` / `recordTick`, never pruned): a replica
 * starting after every replica was down knows which ticks were missed.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../types.js';
import type { PgPool } from './postgres/pool.js';
import type { SqliteDatabase } from './sqlite/database.js';

export interface SchedulerLock {
  tryLock(key: string, fn: () => Promise<void>): Promise<boolean>;
  /** The latest tick recorded for `schedule` (epoch ms), null when none was. */
  lastTick(schedule: string): Promise<number | null>;
  /** Records `tick` for `schedule` unless a later one is recorded already. */
  recordTick(schedule: string, tick: number): Promise<void>;
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
  const readTick = db.prepare('SELECT last_tick FROM pipec_schedule_state WHERE schedule = ?');
  const writeTick = db.prepare(
    'INSERT INTO pipec_schedule_state (schedule, last_tick) VALUES (?, ?) ON CONFLICT (schedule) DO UPDATE SET last_tick = max(last_tick, excluded.last_tick)',
  );
  let calls = 0;
  return {
    async lastTick(schedule) {
      return (readTick.get(schedule) as { last_tick: number } | undefined)?.last_tick ?? null;
    },
    async recordTick(schedule, tick) {
      writeTick.run(schedule, tick);
    },
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
    async lastTick(schedule) {
      const result = await pool.query<{ last_tick: string }>(
        'SELECT last_tick FROM pipec_schedule_state WHERE schedule = $1',
        [schedule],
      );
      const row = result.rows[0];
      return row ? Number(row.last_tick) : null;
    },
    async recordTick(schedule, tick) {
      await pool.query(
        `INSERT INTO pipec_schedule_state (schedule, last_tick) VALUES ($1, $2)
         ON CONFLICT (schedule) DO UPDATE SET last_tick = GREATEST(pipec_schedule_state.last_tick, EXCLUDED.last_tick)`,
        [schedule, tick],
      );
    },
    async tryLock(key, fn) {
      const client = await pool.connect();
      const lockKey = advisoryKey(key);
      let locked = false;
      try {
        const got = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [
          lockKey,
        ]);
        locked = got.rows[0]?.locked === true;
        if (!locked) return false;
        if (++calls % PRUNE_EVERY === 0) {
          await client.query('DELETE FROM pipec_lock_ledger WHERE fired_at < $1', [clock.now() - LEDGER_RETENTION_MS]);
        }
        const recorded = await client.query(
          'INSERT INTO pipec_lock_ledger (key, fired_at) VALUES ($1, $2) ON CONFLICT DO NOTHING',
          [key, clock.now()],
        );
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
