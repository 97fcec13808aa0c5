/**
 * Per-operation cost beside the driver: each platform operation measured in turns with the same
 * operation written directly on its driver, in one process and one run, one operation per call —
 * the ceiling a hand-written service would reach. Turns of `slice` ms alternate (store, driver,
 * store, …) so whatever else the host does hits both alike; the ratio is platform/driver (target
 * ≥ 0.8).
 *
 * - SQLite (better-sqlite3) and PostgreSQL (`pg`): insert of one document, find by an indexed field
 *   (limit 10), update of one document by `_oId`. The driver side uses a table of the same layout
 *   (JSONB document, store and id columns, the same kind of index) and the SQL one would write:
 *   INSERT, `SELECT … WHERE json_extract/-> = ? LIMIT 10`, `UPDATE … SET doc = jsonb_set(…)`.
 * - NATS: events published and consumed (publish → handler done) through the broker against a
 *   JetStream publish-and-consume loop on the `@nats-io/jetstream` client with the same in-flight
 *   window, a durable pull consumer with explicit acks.
 * - NATS, publish many: a for-each of 100 elements whose body publishes (the runtime's for-each and
 *   publish step, as generated code calls them), with its publishes handed over together and, for
 *   reference, one at a time; against 100 `js.publish` in flight at once, awaited together.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AckPolicy, RetentionPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import pino from 'pino';
// The runtime as services run it: compiled (dist/, built by `npm run bench`), not through tsx.
import { createBackends, type Backends } from '../dist/runtime/backends/index.js';
import type { JsonObject } from '../runtime/types.js';
import { reachable, removeNatsStreams } from '../test/support/servers.js';
import { run as runPublish, type PublishParams } from '../dist/runtime/connectors/publish/publish.js';
import { forEach, step, type ForEachInfo, type StepInfo } from '../dist/runtime/steps.js';
import type { EventBroker, ExecutionContext, Json } from '../runtime/types.js';

export interface PairResult {
  readonly case: string;
  readonly platformPerSec: number;
  readonly driverPerSec: number;
  /** platform / driver. */
  readonly ratio: number;
  /** Shown for comparison only (no target): what the platform did before a change, say. */
  readonly reference?: true;
  /** 'cpu': both sides timed in this process's CPU time (an in-process engine); wall time otherwise. */
  readonly timing?: 'cpu';
}

type Op = () => Promise<unknown> | unknown;

/** This process's CPU time in ms (user + system). */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Runs `platform` and `driver` in alternating turns for `seconds` in all; operations per second of each.
 * Turns last `slice` ms of wall time; what a turn counts is wall time, or with `timing: 'cpu'` this
 * process's CPU time: for SQLite, whose engine runs in this process on either side, CPU time is what other
 * load on a shared machine changes least (wall-clock ratios of the same code swung ×0.66–0.96 under a
 * load average of 7, as bench/store-scale.ts found for its SQLite finds).
 */
async function inTurns(
  label: string,
  seconds: number,
  platform: Op,
  driver: Op,
  timing: 'cpu' | 'wall' = 'wall',
): Promise<PairResult> {
  const turns = Math.max(2, Math.round(seconds / 0.25));
  const slice = (seconds * 1000) / turns;
  const count = { platform: 0, driver: 0 };
  const time = { platform: 0, driver: 0 };
  for (let turn = 0; turn < turns; turn++) {
    for (const side of turn % 2 === 0 ? (['platform', 'driver'] as const) : (['driver', 'platform'] as const)) {
      const op = side === 'platform' ? platform : driver;
      const started = performance.now();
      const cpuStarted = timing === 'cpu' ? cpuMs() : 0;
      while (performance.now() - started < slice) {
        await op();
        count[side] += 1;
      }
      time[side] += timing === 'cpu' ? cpuMs() - cpuStarted : performance.now() - started;
    }
  }
  const platformPerSec = (count.platform * 1000) / time.platform;
  const driverPerSec = (count.driver * 1000) / time.driver;
  return {
    case: label,
    platformPerSec: Math.round(platformPerSec),
    driverPerSec: Math.round(driverPerSec),
    ratio: platformPerSec / driverPerSec,
    ...(timing === 'cpu' ? { timing } : {}),
  };
}

const doc = (n: number): JsonObject => ({ n, group: n % 100, name: `item-${n}`, tags: ['a', 'b'] });
const SEED = 2000;

export async function benchDriverPairs(opts: {
  seconds: number;
  pgUrl: string;
  natsUrl: string;
  /** Leave the NATS case out (the standalone run's `--stores-only`). */
  storesOnly?: boolean;
}): Promise<PairResult[]> {
  const runId = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'pipec-bench-pairs-'));
  const logger = pino({ level: 'silent' });
  const clock = { now: () => Date.now() };
  const results: PairResult[] = [];
  const store = `bench_pairs_${runId}`;
  try {
    const sqlite = await createBackends({ dataDir, env: {}, clock, logger });
    const raw = new Database(join(dataDir, 'raw.db'));
    try {
      raw.pragma('journal_mode = WAL');
      raw.pragma('synchronous = NORMAL');
      raw.exec(`CREATE TABLE docs (seq INTEGER PRIMARY KEY AUTOINCREMENT, store TEXT NOT NULL, id TEXT NOT NULL, doc BLOB NOT NULL,
        created_at INTEGER NOT NULL, UNIQUE (store, id));
        CREATE INDEX docs_group ON docs (store, json_extract(doc, '$.group'))`);
      const insert = raw.prepare('INSERT INTO docs (store, id, doc, created_at) VALUES (?, ?, jsonb(?), ?)');
      const find = raw.prepare(
        "SELECT json(doc) AS doc FROM docs WHERE store = ? AND json_extract(doc, '$.group') = ? ORDER BY seq LIMIT 10",
      );
      const update = raw.prepare("UPDATE docs SET doc = jsonb_set(doc, '$.n', ?) WHERE store = ? AND id = ?");
      results.push(
        ...(await storePairs('sqlite', sqlite, store, opts.seconds, {
          timing: 'cpu',
          insert: (n) => insert.run(store, randomUUID(), JSON.stringify(doc(n)), Date.now()),
          find: (g) => (find.all(store, g) as Array<{ doc: string }>).map((r) => JSON.parse(r.doc) as unknown),
          update: (id, n) => update.run(n, store, id),
          ids: () =>
            (raw.prepare('SELECT id FROM docs WHERE store = ? LIMIT 1000').all(store) as Array<{ id: string }>).map(
              (r) => r.id,
            ),
        })),
      );
    } finally {
      raw.close();
      await sqlite.close();
    }
    if (await reachable(opts.pgUrl, 5432)) {
      const postgres = await createBackends({ dataDir, env: { PIPEC_STORE: opts.pgUrl }, clock, logger });
      // The platform's pool holds up to 10 connections; so does the driver's.
      const pool = new pg.Pool({ connectionString: opts.pgUrl, max: 10 });
      const table = `bench_raw_${runId}`;
      try {
        await pool.query(`CREATE TABLE ${table} (seq BIGSERIAL PRIMARY KEY, store TEXT NOT NULL, id TEXT NOT NULL, doc JSONB NOT NULL,
          created_at BIGINT NOT NULL, UNIQUE (store, id))`);
        await pool.query(`CREATE INDEX ${table}_group ON ${table} (store, (doc -> 'group'))`);
        results.push(
          ...(await storePairs(
            'postgres',
            postgres,
            store,
            opts.seconds,
            {
              timing: 'wall',
              insert: (n) =>
                pool.query(`INSERT INTO ${table} (store, id, doc, created_at) VALUES ($1, $2, $3::jsonb, $4)`, [
                  store,
                  randomUUID(),
                  JSON.stringify(doc(n)),
                  Date.now(),
                ]),
              find: async (g) =>
                (
                  await pool.query(
                    `SELECT doc FROM ${table} WHERE store = $1 AND doc -> 'group' = $2::jsonb ORDER BY seq LIMIT 10`,
                    [store, String(g)],
                  )
                ).rows,
              update: (id, n) =>
                pool.query(`UPDATE ${table} SET doc = jsonb_set(doc, '{n}', $1::jsonb) WHERE store = $2 AND id = $3`, [
                  String(n),
                  store,
                  id,
                ]),
              ids: async () =>
                (
                  await pool.query<{ id: string }>(`SELECT id FROM ${table} WHERE store = $1 LIMIT 1000`, [store])
                ).rows.map((r) => r.id),
            },
            // Both tables after the bulk load, as autovacuum would in time (bench/store-scale.ts does the same).
            async () => void (await pool.query(`ANALYZE ${table}, pipec_documents`)),
          )),
        );
      } finally {
        await pool.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
        await pool.end();
        await postgres.store.delete(store, {}).catch(() => undefined);
        await postgres.store.dropIndex(store, { group: 1 }).catch(() => undefined);
        await postgres.close();
      }
    } else {
      console.warn(`[bench/driver-pairs] PostgreSQL unreachable at ${opts.pgUrl}: postgres cases left out`);
    }
    if (opts.storesOnly) {
      // The Object Store cases only.
    } else if (await reachable(opts.natsUrl, 4222)) {
      results.push(await natsPair(opts.natsUrl, opts.seconds, runId, dataDir));
      results.push(...(await natsPublishManyPairs(opts.natsUrl, opts.seconds, runId, dataDir)));
    } else {
      console.warn(`[bench/driver-pairs] NATS unreachable at ${opts.natsUrl}: nats case left out`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}

interface DriverStore {
  /** How turns are timed: the engine in this process (SQLite) by CPU time, a server (PostgreSQL) by wall time. */
  readonly timing: 'cpu' | 'wall';
  insert(n: number): unknown;
  find(group: number): unknown;
  update(id: string, n: number): unknown;
  ids(): Promise<string[]> | string[];
}

async function storePairs(
  label: string,
  backends: Backends,
  store: string,
  seconds: number,
  driver: DriverStore,
  analyze?: () => Promise<void>,
): Promise<PairResult[]> {
  // Both sides start from the same documents and the same kind of index on `group`.
  for (let n = 0; n < SEED; n++) await driver.insert(n);
  await backends.store.insert(
    store,
    Array.from({ length: SEED }, (_, n) => doc(n)),
  );
  await backends.store.createIndex(store, { group: 1 });
  await analyze?.();
  const platformIds = (await backends.store.find(store, {}, { limit: 1000 })).map((d) => d['_oId'] as string);
  const driverIds = await driver.ids();
  let a = SEED;
  let b = SEED;
  const out: PairResult[] = [];
  out.push(
    await inTurns(
      `${label} store insert (1 document per call)`,
      seconds,
      () => backends.store.insert(store, [doc(a++)]),
      () => driver.insert(b++),
      driver.timing,
    ),
  );
  let f = 0;
  let g = 0;
  out.push(
    await inTurns(
      `${label} store find (indexed field, limit 10)`,
      seconds,
      () => backends.store.find(store, { group: f++ % 100 }, { limit: 10 }),
      () => driver.find(g++ % 100),
      driver.timing,
    ),
  );
  let u = 0;
  let v = 0;
  out.push(
    await inTurns(
      `${label} store update (one document by _oId)`,
      seconds,
      () => backends.store.update(store, { _oId: platformIds[u++ % platformIds.length] as string }, { $set: { n: u } }),
      () => driver.update(driverIds[v++ % driverIds.length] as string, v),
      driver.timing,
    ),
  );
  return out;
}

const WINDOW = 64;

/** The platform's backends on NATS, in a stream (returned, to remove after) and subjects of this run and case. */
async function natsBackends(
  natsUrl: string,
  name: string,
  runId: string,
  dataDir: string,
): Promise<{ backends: Awaited<ReturnType<typeof createBackends>>; platformStream: string }> {
  const platformStream = `PIPEC_${name.toUpperCase()}_${runId}`;
  const env = {
    PIPEC_BROKER: natsUrl,
    PIPEC_NATS_STREAM: platformStream,
    PIPEC_NATS_SUBJECT_PREFIX: `pipec${name}.${runId}`,
  };
  const logger = pino({ level: 'silent' });
  return { backends: await createBackends({ dataDir, env, clock: { now: () => Date.now() }, logger }), platformStream };
}

/** Publish → handled, with WINDOW publishes in flight, for `seconds / 2` each side (broker, then client, then again). */
export async function natsPair(natsUrl: string, seconds: number, runId: string, dataDir: string): Promise<PairResult> {
  const { backends, platformStream } = await natsBackends(natsUrl, 'pairs', runId, dataDir);
  const nc = await connect({ servers: natsUrl });
  const stream = `RAW_PAIRS_${runId}`;
  const subject = `rawpairs.${runId}`;
  try {
    // The broker: one subscriber with the bench's concurrency.
    let handledP = 0;
    const sub = await backends.broker.subscribe('bench', `pairs-${runId}`, async () => void (handledP += 1), {
      maxDeliveries: 3,
      ackTimeout: 30_000,
      concurrency: 16,
    });
    // The client: a durable pull consumer with explicit acks on a stream of its own.
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [subject] });
    await jsm.consumers.add(stream, { durable_name: 'C', ack_policy: AckPolicy.Explicit, max_ack_pending: 1000 });
    const js = jetstream(nc);
    const consumer = await js.consumers.get(stream, 'C');
    let handledD = 0;
    const messages = await consumer.consume({ max_messages: 256 });
    const consuming = (async () => {
      for await (const m of messages) {
        m.json();
        m.ack();
        handledD += 1;
      }
    })();
    const load = async (
      publish: (n: number) => Promise<unknown>,
      handled: () => number,
      ms: number,
    ): Promise<{ count: number; ms: number }> => {
      const start = handled();
      const started = performance.now();
      let published = 0;
      const inFlight = new Set<Promise<unknown>>();
      while (performance.now() - started < ms) {
        const p: Promise<unknown> = publish(published++).finally(() => inFlight.delete(p));
        inFlight.add(p);
        if (inFlight.size >= WINDOW) await Promise.race(inFlight);
      }
      await Promise.all(inFlight);
      while (handled() - start < published) await new Promise((r) => setTimeout(r, 1));
      return { count: published, ms: performance.now() - started };
    };
    const total = { platform: { count: 0, ms: 0 }, driver: { count: 0, ms: 0 } };
    const turns = Math.max(2, Math.round(seconds / 0.5));
    for (let turn = 0; turn < turns; turn++) {
      const slice = (seconds * 1000) / turns;
      const p = await load(
        (n) => backends.broker.publish(`pairs-${runId}`, { n }),
        () => handledP,
        slice,
      );
      const d = await load(
        (n) => js.publish(subject, JSON.stringify({ n })),
        () => handledD,
        slice,
      );
      total.platform.count += p.count;
      total.platform.ms += p.ms;
      total.driver.count += d.count;
      total.driver.ms += d.ms;
    }
    await sub.stop();
    messages.stop();
    await consuming;
    const platformPerSec = (total.platform.count * 1000) / total.platform.ms;
    const driverPerSec = (total.driver.count * 1000) / total.driver.ms;
    return {
      case: `nats events published and handled (window ${WINDOW})`,
      platformPerSec: Math.round(platformPerSec),
      driverPerSec: Math.round(driverPerSec),
      ratio: platformPerSec / driverPerSec,
    };
  } finally {
    await jetstreamManager(nc)
      .then((jsm) => jsm.streams.delete(stream))
      .catch(() => undefined);
    await nc.close();
    await backends.close();
    await removeNatsStreams(platformStream, natsUrl);
  }
}

export const MANY = 100;

/** An execution context as the service makes one, with what a for-each of publishes reads. */
export function benchContext(broker: EventBroker): ExecutionContext {
  const logger = pino({ level: 'silent' });
  return {
    executionId: 'bench',
    pipeline: 'bench-publish-many',
    log: logger,
    metadata: {
      pipeline: { name: 'bench-publish-many' },
      execution: { key: 'bench', startTimestamp: Date.now(), timeout: 60_000, redelivery: false },
    },
    steps: {},
    globals: {},
    accounts: {},
    services: {
      clock: { now: () => Date.now() },
      store: undefined as never,
      broker,
      execute: () => Promise.reject(new Error('not in this bench')),
      connections: undefined as never,
    },
    signal: new AbortController().signal,
    workDir: tmpdir(),
  };
}

/**
 * 100 events per operation: a for-each whose body is one publish step (pipelined as the compiler
 * marks such a body, and one at a time as before), against the client with 100 publishes in
 * flight awaited together. Both publish to an interest stream without consumers (stored, then
 * dropped: no consumer work on either side). Figures are events per second.
 */
export async function natsPublishManyPairs(
  natsUrl: string,
  seconds: number,
  runId: string,
  dataDir: string,
): Promise<PairResult[]> {
  const { backends, platformStream } = await natsBackends(natsUrl, 'many', runId, dataDir);
  const nc = await connect({ servers: natsUrl });
  const stream = `RAW_MANY_${runId}`;
  const subject = `rawmany.${runId}`;
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [subject], retention: RetentionPolicy.Interest });
    const js = jetstream(nc);
    const ctx = benchContext(backends.broker);
    const publishStep: StepInfo = { connector: 'publish', source: 'bench:1', failOnError: true };
    const params: PublishParams = { event: `many-${runId}` };
    const body = (message: Json, elementCtx: ExecutionContext): Promise<Json> =>
      Promise.resolve(step(elementCtx, publishStep, runPublish, params, message));
    const elements: Json[] = Array.from({ length: MANY }, (_, n) => ({ n }));
    const loop = (pipelined: boolean): ForEachInfo => ({
      source: 'bench:1',
      parallel: 1,
      failOnError: true,
      ...(pipelined ? { pipelinedPublishes: true } : {}),
    });
    const platform = (info: ForEachInfo) => () => forEach(ctx, info, elements, body);
    const driver = () => Promise.all(elements.map((e) => js.publish(subject, JSON.stringify(e))));
    const perEvent = (r: PairResult, label: string, reference?: true): PairResult => ({
      ...r,
      case: label,
      ...(reference ? { reference } : {}),
      platformPerSec: r.platformPerSec * MANY,
      driverPerSec: r.driverPerSec * MANY,
    });
    return [
      perEvent(
        await inTurns('', seconds, platform(loop(true)), driver),
        `nats publish many (${MANY} in a for-each, events/s), pipelined / client with ${MANY} in flight`,
      ),
      perEvent(
        await inTurns('', seconds, platform(loop(false)), driver),
        `nats publish many (${MANY} in a for-each, events/s), one at a time (for reference) / client with ${MANY} in flight`,
        true,
      ),
    ];
  } finally {
    await jetstreamManager(nc)
      .then((jsm) => jsm.streams.delete(stream))
      .catch(() => undefined);
    await nc.close();
    await backends.close();
    await removeNatsStreams(platformStream, natsUrl);
  }
}

/**
 * This section alone: `node --import tsx bench/driver-pairs.ts [--seconds N] [--stores-only]`
 * (PIPEC_BENCH_POSTGRES, PIPEC_BENCH_NATS as for `npm run bench`).
 */
if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--seconds');
  const seconds = at >= 0 ? Number(argv[at + 1]) : 4;
  if (!(seconds > 0)) throw new Error('--seconds takes a positive number');
  const pairs = await benchDriverPairs({
    seconds,
    pgUrl: process.env['PIPEC_BENCH_POSTGRES'] ?? 'postgres://postgres@127.0.0.1:5432/test',
    natsUrl: process.env['PIPEC_BENCH_NATS'] ?? 'nats://127.0.0.1:4222',
    storesOnly: argv.includes('--stores-only'),
  });
  for (const p of pairs)
    console.log(
      `${p.case}: ${p.platformPerSec} / ${p.driverPerSec} per ${p.timing === 'cpu' ? 'CPU ' : ''}s, ×${p.ratio.toFixed(2)}`,
    );
}
