/**
 * The scheduler lock with NATS alone (no PostgreSQL): replicas that share a NATS server but not a
 * file agree through two KV buckets. `tryLock(key)` creates `<hash of key>` in
 * `<stream>_SCHEDULE_LEDGER` — JetStream lets only one create succeed, and the entry stays a day
 * (the bucket's max age), so a replica arriving after the first finished does not fire again.
 * `<stream>_SCHEDULE_STATE` keeps each schedule's latest tick for catching up missed ticks.
 */
import { createHash } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import { Kvm } from '@nats-io/kv';
import { StorageType } from '@nats-io/jetstream';
import type { SchedulerLock } from '../locks.js';
import type { NatsLink } from './connection.js';
import { PipeError } from '../../errors.js';
import { isNoStream, openSession } from './jetstream.js';

const LEDGER_TTL_MS = 24 * 60 * 60 * 1000;

/** The key exists already: another replica took this tick. */
function isTaken(err: unknown): boolean {
  return /wrong last sequence|exists/i.test(err instanceof Error ? err.message : String(err));
}

function keyOf(text: string): string {
  return `k${createHash('sha256').update(text).digest('hex').slice(0, 40)}`;
}

export function createNatsLock(link: NatsLink, stream: string): SchedulerLock {
  let buckets: { nc: unknown; ready: Promise<{ ledger: KV; state: KV }> } | null = null;

  const open = async (): Promise<{ ledger: KV; state: KV }> => {
    const nc = link.connection();
    if (!nc) throw link.dependency.unavailable();
    if (buckets?.nc !== nc) {
      const attempt = {
        nc,
        ready: (async () => {
          const { js } = await openSession(nc, 5000);
          const kvm = new Kvm(js);
          const ledger = await kvm.create(`${stream}_SCHEDULE_LEDGER`, {
            history: 1,
            ttl: LEDGER_TTL_MS,
            storage: StorageType.File,
          });
          const state = await kvm.create(`${stream}_SCHEDULE_STATE`, { history: 1, storage: StorageType.File });
          return { ledger, state };
        })(),
      };
      buckets = attempt;
      attempt.ready.catch(() => {
        if (buckets === attempt) buckets = null;
      });
    }
    try {
      return await buckets.ready;
    } catch (err) {
      throw link.dependency.unavailable(err);
    }
  };

  const asUnavailable = (err: unknown): unknown =>
    err instanceof PipeError || isTaken(err) ? err : link.dependency.unavailable(err);

  /**
   * Runs `use` on the buckets; when the server lost them (its JetStream state), opens them again
   * once. Failures other than "key taken" are 503 (the scheduler tries again later).
   */
  const withBuckets = async <T>(use: (b: { ledger: KV; state: KV }) => Promise<T>): Promise<T> => {
    try {
      return await use(await open());
    } catch (err) {
      // A write to a bucket whose stream is gone may also go unanswered (a timeout) rather than refused.
      const maybeLost = isNoStream(err) || (err as { name?: unknown } | null)?.name === 'TimeoutError';
      if (!maybeLost || isTaken(err)) throw asUnavailable(err);
      buckets = null;
      try {
        return await use(await open());
      } catch (again) {
        throw asUnavailable(again);
      }
    }
  };

  return {
    async tryLock(key, fn) {
      try {
        await withBuckets(({ ledger }) => ledger.create(keyOf(key), String(Date.now())));
      } catch (err) {
        if (isTaken(err)) return false;
        throw err;
      }
      await fn();
      return true;
    },

    async lastTick(schedule) {
      const entry = await withBuckets(({ state }) => state.get(keyOf(schedule)));
      if (!entry || entry.operation !== 'PUT') return null;
      const tick = Number(entry.string());
      return Number.isFinite(tick) ? tick : null;
    },

    async recordTick(schedule, tick) {
      await withBuckets(({ state }) => keepLatest(state, keyOf(schedule), tick));
    },
  };
}

/** Compare-and-set: keeps the latest tick when replicas record at once. */
async function keepLatest(state: KV, key: string, tick: number): Promise<void> {
  for (let tries = 0; tries < 10; tries++) {
    const entry = await state.get(key);
    const current = entry && entry.operation === 'PUT' ? Number(entry.string()) : null;
    if (current !== null && current >= tick) return;
    try {
      if (current === null || !entry) await state.create(key, String(tick));
      else await state.update(key, String(tick), entry.revision);
      return;
    } catch (err) {
      // Another replica wrote first: read again.
      if (!isTaken(err)) throw err;
    }
  }
}
