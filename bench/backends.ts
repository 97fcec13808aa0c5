/**
 * Throughput of the platform backends: events/second end to end (publish → handler done) for the
 * SQLite queue and NATS JetStream, with one subscriber and with two replicas of it in one process,
 * and Object Store inserts/finds per second on SQLite and PostgreSQL. Distributed cases are left out
 * (with a console note) when their server is unreachable. Env: PIPEC_BENCH_POSTGRES, PIPEC_BENCH_NATS.
 */
import { reachable, removeNatsStreams } from '../test/support/servers.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { createBackends, type Backends } from '../runtime/backends/index.js';

export interface BenchResult {
  case: string;
  perSec: number;
}

const PG_URL = process.env['PIPEC_BENCH_POSTGRES'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const NATS_URL = process.env['PIPEC_BENCH_NATS'] ?? 'nats://127.0.0.1:4222';
const PUBLISH_WINDOW = 64;

export async function benchBackends(opts: { seconds: number }): Promise<BenchResult[]> {
  const runId = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'pipec-bench-'));
  const logger = pino({ level: 'silent' });
  const clock = { now: () => Date.now() };
  const results: BenchResult[] = [];
  const pgUp = await reachable(PG_URL, 5432);
  const natsUp = await reachable(NATS_URL, 4222);
  const distributedEnv = {
    PIPEC_STORE: PG_URL,
    PIPEC_BROKER: NATS_URL,
    PIPEC_NATS_STREAM: `PIPEC_BENCH_${runId}`,
    PIPEC_NATS_SUBJECT_PREFIX: `pipecbench.${runId}`,
  };
  const stores: string[] = [];
  try {
    const sqlite = await createBackends({ dataDir, env: {}, clock, logger });
    try {
      results.push(await benchEvents('sqlite events, 1 subscriber', sqlite, 1, opts.seconds, `e1-${runId}`));
      results.push(await benchEvents('sqlite events, 2 replicas', sqlite, 2, opts.seconds, `e2-${runId}`));
      results.push(...(await benchStore('sqlite', sqlite, opts.seconds, `bench_l_${runId}`)));
    } finally {
      await sqlite.close();
    }
    if (pgUp || natsUp) {
      const env = { ...(pgUp ? { PIPEC_STORE: distributedEnv.PIPEC_STORE } : {}), ...(natsUp ? distributedEnv : {}) };
      if (!pgUp) delete (env as Record<string, string>)['PIPEC_STORE'];
      const distributed = await createBackends({ dataDir, env, clock, logger });
      try {
        if (natsUp) {
          results.push(await benchEvents('nats events, 1 subscriber', distributed, 1, opts.seconds, `e1-${runId}`));
          results.push(await benchEvents('nats events, 2 replicas', distributed, 2, opts.seconds, `e2-${runId}`));
        }
        if (pgUp) {
          stores.push(`bench_p_${runId}`);
          results.push(...(await benchStore('postgres', distributed, opts.seconds, `bench_p_${runId}`)));
        }
      } finally {
        await distributed.close();
      }
    }
    if (!pgUp) console.warn(`[bench/backends] PostgreSQL unreachable at ${PG_URL}: postgres cases left out`);
    if (!natsUp) console.warn(`[bench/backends] NATS unreachable at ${NATS_URL}: nats cases left out`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    if (pgUp && stores.length > 0) {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query('DELETE FROM pipec_documents WHERE store = ANY($1::text[])', [stores]);
      await client.end();
    }
    if (natsUp) {
      await removeNatsStreams(distributedEnv.PIPEC_NATS_STREAM, NATS_URL);
    }
  }
  return results;
}

/** Publishes for `seconds` (at most PUBLISH_WINDOW in flight), then waits until every event was handled. */
async function benchEvents(
  label: string,
  backends: Backends,
  replicas: number,
  seconds: number,
  event: string,
): Promise<BenchResult> {
  let handled = 0;
  const subs = await Promise.all(
    Array.from({ length: replicas }, () =>
      backends.broker.subscribe('bench', event, async () => void (handled += 1), {
        maxDeliveries: 3,
        ackTimeout: 30_000,
        concurrency: 16,
      }),
    ),
  );
  const started = Date.now();
  let published = 0;
  const inFlight = new Set<Promise<void>>();
  while (Date.now() - started < seconds * 1000) {
    const p: Promise<void> = backends.broker.publish(event, { n: published++ }).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= PUBLISH_WINDOW) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  const deadline = Date.now() + 60_000;
  while (handled < published && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const elapsed = (Date.now() - started) / 1000;
  await Promise.all(subs.map((s) => s.stop()));
  return {
    case: `${label} (events handled/s end to end, ${handled}/${published})`,
    perSec: Math.round(handled / elapsed),
  };
}

async function benchStore(label: string, backends: Backends, seconds: number, store: string): Promise<BenchResult[]> {
  const half = (seconds * 1000) / 2;
  let inserted = 0;
  let started = Date.now();
  while (Date.now() - started < half) {
    await backends.store.insert(store, [
      { n: inserted, group: inserted % 100, name: `item-${inserted}`, tags: ['a', 'b'] },
    ]);
    inserted += 1;
  }
  const insertRate = inserted / ((Date.now() - started) / 1000);
  let finds = 0;
  started = Date.now();
  while (Date.now() - started < half) {
    await backends.store.find(store, { group: finds % 100, n: { $gte: 0 } }, { limit: 10 });
    finds += 1;
  }
  const findRate = finds / ((Date.now() - started) / 1000);
  return [
    { case: `${label} store insert (1 doc per call)`, perSec: Math.round(insertRate) },
    { case: `${label} store find (equality + range over ${inserted} docs, limit 10)`, perSec: Math.round(findRate) },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const seconds = Number(process.argv[2] ?? '3');
  for (const r of await benchBackends({ seconds })) console.log(`${String(r.perSec).padStart(8)} /s  ${r.case}`);
}
