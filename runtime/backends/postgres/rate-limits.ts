/**
 * Rate-limit counters in PostgreSQL, shared by every replica on the same database: one row per
 * (trigger, client) in `pipec_rate_limits`, changed by compare-and-set on its `version`, so two
 * replicas counting at once never lose a request. Rows past their expiry are pruned now and then.
 */
import type { ClientWindow, RateLimitStore } from '../../security/rate-limit.js';
import type { Clock } from '../../types.js';
import type { PgPool } from './pool.js';

/** Tries before giving up on a key many replicas write at the very same moment. */
const MAX_TRIES = 50;
const PRUNE_EVERY = 1000;

export function createPgRateLimitStore(pool: PgPool, clock: Clock): RateLimitStore {
  let calls = 0;
  return {
    async update(key, ttlMs, step) {
      if (++calls % PRUNE_EVERY === 0)
        await pool.query('DELETE FROM pipec_rate_limits WHERE expires_at < $1', [clock.now()]);
      for (let tries = 0; tries < MAX_TRIES; tries++) {
        const found = await pool.query<{ state: ClientWindow; version: string; expires_at: string }>(
          'SELECT state, version, expires_at FROM pipec_rate_limits WHERE key = $1',
          [key],
        );
        const row = found.rows[0];
        const live = row && Number(row.expires_at) >= clock.now() ? row.state : undefined;
        const { state, result, changed } = step(live);
        if (!changed) return result;
        const expiresAt = clock.now() + ttlMs;
        const written = row
          ? await pool.query(
              'UPDATE pipec_rate_limits SET state = $2, version = version + 1, expires_at = $3 WHERE key = $1 AND version = $4',
              [key, JSON.stringify(state), expiresAt, row.version],
            )
          : await pool.query(
              'INSERT INTO pipec_rate_limits (key, state, version, expires_at) VALUES ($1, $2, 1, $3) ON CONFLICT (key) DO NOTHING',
              [key, JSON.stringify(state), expiresAt],
            );
        if (written.rowCount === 1) return result;
      }
      throw new Error(`rate limit ${key}: the counter kept changing under ${MAX_TRIES} tries`);
    },
  };
}
