/**
 * Watermarks: how far a polling trigger has read (`sql-poll`: the last watermark column value it
 * handed to a pipeline that succeeded), kept durably in pipec's own backend so that nothing is
 * read twice or skipped across restarts — the SQLite file when embedded, PostgreSQL when
 * distributed (PIPEC_STORE=postgres://…). `withWatermark` runs one poll while this process holds
 * the key: across replicas through a PostgreSQL advisory lock held by the session that also
 * writes the value (a replica that loses its connection loses the lock and cannot write), in
 * the embedded mode through an in-process set (one process owns the file).
 *
 * Example:
 *   await watermarks.withWatermark('sql-poll:orders', async (current, advance) => {
 *     for (const row of await newRowsAfter(current)) { await handle(row); await advance(row.id); }
 *   });
 */
import type { PgPool } from './postgres/pool.js';
import { advisoryKey } from './locks.js';
import type { SqliteDatabase } from './sqlite/database.js';

/** A poll: gets the recorded value (null: none yet) and `advance`, which records a new one durably. */
export type WatermarkWork = (current: string | null, advance: (value: string) => Promise<void>) => Promise<void>;

export interface WatermarkStore {
  /**
   * Runs `fn` while this process holds `key`, with the recorded value (null: none yet) and
   * `advance`, which records a new value durably before it resolves. Resolves false, without
   * running `fn`, while another process (or another poll of this one) holds the key.
   */
  withWatermark(key: string, fn: WatermarkWork): Promise<boolean>;
}

export function createSqliteWatermarks(db: SqliteDatabase, now: () => number): WatermarkStore {
  const held = new Set<string>();
  const read = db.prepare('SELECT value FROM pipec_watermarks WHERE key = ?');
  const write = db.prepare(
    'INSERT INTO pipec_watermarks (key, value, updated_at) VALUES (?, ?, ?) ' +
      'ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
  );
  return {
    async withWatermark(key, fn) {
      if (held.has(key)) return false;
      held.add(key);
      try {
        const current = (read.get(key) as { value: string } | undefined)?.value ?? null;
        await fn(current, async (value) => void write.run(key, value, now()));
        return true;
      } finally {
        held.delete(key);
      }
    },
  };
}

export function createPgWatermarks(pool: PgPool, now: () => number): WatermarkStore {
  return {
    async withWatermark(key, fn) {
      const client = await pool.connect();
      const lockKey = advisoryKey(`watermark:${key}`);
      let locked = false;
      let broken: Error | undefined;
      const onError = (err: Error): void => {
        broken = err;
      };
      client.on('error', onError);
      try {
        const got = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [
          lockKey,
        ]);
        locked = got.rows[0]?.locked === true;
        if (!locked) return false;
        const row = await client.query<{ value: string }>('SELECT value FROM pipec_watermarks WHERE key = $1', [key]);
        await fn(row.rows[0]?.value ?? null, async (value) => {
          await client.query(
            `INSERT INTO pipec_watermarks (key, value, updated_at) VALUES ($1, $2, $3)
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
            [key, value, now()],
          );
        });
        return true;
      } catch (err) {
        broken ??= err instanceof Error && /Connection terminated|ECONNRESET|EPIPE/.test(err.message) ? err : undefined;
        throw err;
      } finally {
        if (locked && !broken) {
          await client.query('SELECT pg_advisory_unlock($1::bigint)', [lockKey]).catch(() => undefined);
        }
        client.off('error', onError);
        client.release(broken);
      }
    },
  };
}
