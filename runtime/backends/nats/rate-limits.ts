/**
 * Rate-limit counters in NATS KV, shared by every replica on the same NATS: one key per (trigger,
 * client) in a bucket per window length, `<stream>_RATE_LIMITS_<window ms>`, whose entries expire
 * after two windows. Changed by compare-and-set on the entry's revision (create when absent,
 * update at the revision read), so two replicas counting at once never lose a request.
 */
import { createHash } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import { Kvm } from '@nats-io/kv';
import { StorageType } from '@nats-io/jetstream';
import { PipeError } from '../../errors.js';
import type { ClientWindow, RateLimitStore } from '../../security/rate-limit.js';
import type { NatsLink } from './connection.js';
import { isNoStream, openSession } from './jetstream.js';

const MAX_TRIES = 50;

/** Another replica wrote the key first. */
function isConflict(err: unknown): boolean {
  return /wrong last sequence|exists/i.test(err instanceof Error ? err.message : String(err));
}

/** KV keys allow few characters: the hash of (trigger, client). */
function keyOf(text: string): string {
  return `k${createHash('sha256').update(text).digest('hex').slice(0, 40)}`;
}

export function createNatsRateLimitStore(link: NatsLink, stream: string): RateLimitStore {
  const buckets = new Map<number, { nc: unknown; ready: Promise<KV> }>();

  const open = (ttlMs: number): Promise<KV> => {
    const nc = link.connection();
    if (!nc) throw link.dependency.unavailable();
    const known = buckets.get(ttlMs);
    if (known?.nc === nc) return known.ready;
    const ready = (async () => {
      const { js } = await openSession(nc, 5000);
      return new Kvm(js).create(`${stream}_RATE_LIMITS_${ttlMs}`, {
        history: 1,
        ttl: ttlMs,
        storage: StorageType.File,
      });
    })();
    buckets.set(ttlMs, { nc, ready });
    ready.catch(() => {
      if (buckets.get(ttlMs)?.ready === ready) buckets.delete(ttlMs);
    });
    return ready;
  };

  return {
    async update(key, ttlMs, step) {
      const id = keyOf(key);
      try {
        for (let tries = 0; tries < MAX_TRIES; tries++) {
          const kv = await open(ttlMs);
          const entry = await kv.get(id);
          const live = entry && entry.operation === 'PUT' ? entry.json<ClientWindow>() : undefined;
          const { state, result, changed } = step(live);
          if (!changed) return result;
          try {
            // A deleted or expired-and-purged entry still has a revision to update at.
            if (entry) await kv.update(id, JSON.stringify(state), entry.revision);
            else await kv.create(id, JSON.stringify(state));
            return result;
          } catch (err) {
            if (!isConflict(err)) throw err;
          }
        }
        throw new Error(`rate limit: the counter kept changing under ${MAX_TRIES} tries`);
      } catch (err) {
        if (err instanceof PipeError) throw err;
        // A bucket the server lost is made again on the next request.
        if (isNoStream(err)) buckets.delete(ttlMs);
        throw link.dependency.unavailable(err);
      }
    },
  };
}
