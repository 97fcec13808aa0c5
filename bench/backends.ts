/**
 * Throughput of the platform backends: events/second end to end (publish → handler done) for the
 * SQLite queue and NATS JetStream, with one subscriber and with two replicas of it in one process;
 * a for-each of 100 publishes on SQLite, its events handed over together and one at a time; and
 * Object Store inserts/finds per second on SQLite and PostgreSQL. Distributed cases are left out
 * (with a console note) when their server is unreachable. Env: PIPEC_BENCH_POSTGRES, PIPEC_BENCH_NATS.
 */
import { reachable, removeNatsStreams } from '../test/support/servers.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
// The runtime as services run it: compiled (dist/, built by `npm run bench`), not through tsx.
import { createBackends, type Backends } from '../dist/runtime/backends/index.js';
import { run as runPublish, type PublishParams } from '../dist/runtime/connectors/publish/publish.js';
import { forEach, step, type ForEachInfo, type StepInfo } from '../dist/runtime/steps.js';
import type { ExecutionContext, Json } from '../runtime/types.js';
import { benchContext, MANY } from './driver-pairs.js';

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
      results.push(...(await benchPublishMany('sqlite', sqlite, opts.seconds, `many-${runId}`)));
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

/**
 * A for-each of 100 elements whose body is one publish step (the runtime's for-each and publish
 * step, as generated code calls them): its events handed to the broker together (one SQLite
 * transaction per loop), and one at a time as before — in turns. Events stored per second.
 */
async function benchPublishMany(
  label: string,
  backends: Backends,
  seconds: number,
  event: string,
): Promise<BenchResult[]> {
  // A registered subscriber (stopped: its deliveries wait), so each event is written with its delivery row.
  await (
    await backends.broker.subscribe('bench', event, async () => undefined, {
      maxDeliveries: 3,
      ackTimeout: 30_000,
      concurrency: 1,
    })
  ).stop();
  const ctx = benchContext(backends.broker);
  const publishStep: StepInfo = { connector: 'publish', source: 'bench:1', failOnError: true };
  const params: PublishParams = { event };
  const body = (message: Json, elementCtx: ExecutionContext): Promise<Json> =>
    Promise.resolve(step(elementCtx, publishStep, runPublish, params, message));
  const elements: Json[] = Array.from({ length: MANY }, (_, n) => ({ n }));
  const info = (pipelined: boolean): ForEachInfo => ({
    source: 'bench:1',
    parallel: 1,
    failOnError: true,
    ...(pipelined ? { pipelinedPublishes: true } : {}),
  });
  const turns = Math.max(2, Math.round(seconds / 0.25));
  const count = { pipelined: 0, single: 0 };
  const time = { pipelined: 0, single: 0 };
  for (let turn = 0; turn < turns; turn++) {
    for (const side of turn % 2 === 0 ? (['pipelined', 'single'] as const) : (['single', 'pipelined'] as const)) {
      const started = performance.now();
      while (performance.now() - started < (seconds * 1000) / turns) {
        await forEach(ctx, info(side === 'pipelined'), elements, body);
        count[side] += MANY;
      }
      time[side] += performance.now() - started;
    }
  }
  return [
    {
      case: `${label} publish many (${MANY} in a for-each), handed over together (events stored/s)`,
      perSec: Math.round((count.pipelined * 1000) / time.pipelined),
    },
    {
      case: `${label} publish many (${MANY} in a for-each), one at a time (events stored/s)`,
      perSec: Math.round((count.single * 1000) / time.single),
    },
  ];
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
