/**
 * Object Store scale: a find by an indexed field (`{ key: "k…" }`, one document each) at growing
 * store sizes on SQLite and PostgreSQL. Per size: a fresh store filled through `insert` in batches
 * of 1,000, `createIndex({ key: 1 })`, PostgreSQL `ANALYZE` (what autovacuum does after a bulk load,
 * done here so the figure does not wait on its timing), then finds of random keys for the given
 * time, one per call. The ratio is the time per find at each size over the one at the smallest
 * (target: 100k within 2× of 1k, also 1M with `--scale-1m`). SQLite's time is this process's CPU
 * time (the engine runs in it; other load on a shared machine changes CPU time least), PostgreSQL's
 * the wall clock's (its work is the server's).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
// The runtime as services run it: compiled (dist/, built by `npm run bench`), not through tsx.
import { createBackends, type Backends } from '../dist/runtime/backends/index.js';
import { reachable } from '../test/support/servers.js';

export interface ScaleResult {
  readonly backend: 'sqlite' | 'postgres';
  readonly documents: number;
  /** Finds per second of the clock `timing` names. */
  readonly findsPerSec: number;
  /**
   * What a find's time is: this process's CPU time for SQLite (the engine runs in the process, and
   * CPU time is what other load on a shared machine changes least), wall time for PostgreSQL (the
   * work is the server's).
   */
  readonly timing: 'cpu' | 'wall';
  /** Time per find / the time per find at the smallest size. */
  readonly ofSmallest: number;
  readonly loadSeconds: number;
}

const BATCH = 1000;

export async function benchScale(opts: {
  sizes: readonly number[];
  seconds: number;
  pgUrl: string;
}): Promise<ScaleResult[]> {
  const runId = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'pipec-bench-scale-'));
  const logger = pino({ level: 'silent' });
  const clock = { now: () => Date.now() };
  const results: ScaleResult[] = [];
  try {
    const sqlite = await createBackends({ dataDir, env: {}, clock, logger });
    try {
      results.push(...(await scaleOn('sqlite', sqlite, opts.sizes, opts.seconds, runId, async () => undefined)));
    } finally {
      await sqlite.close();
    }
    if (await reachable(opts.pgUrl, 5432)) {
      const postgres = await createBackends({ dataDir, env: { PIPEC_STORE: opts.pgUrl }, clock, logger });
      try {
        const analyze = async (): Promise<void> => {
          const client = new pg.Client({ connectionString: opts.pgUrl });
          await client.connect();
          await client.query('ANALYZE pipec_documents').finally(() => client.end());
        };
        results.push(...(await scaleOn('postgres', postgres, opts.sizes, opts.seconds, runId, analyze)));
      } finally {
        await postgres.close();
      }
    } else {
      console.warn(`[bench/store-scale] PostgreSQL unreachable at ${opts.pgUrl}: postgres cases left out`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}

async function scaleOn(
  backend: 'sqlite' | 'postgres',
  backends: Backends,
  sizes: readonly number[],
  seconds: number,
  runId: string,
  analyze: () => Promise<void>,
): Promise<ScaleResult[]> {
  const out: ScaleResult[] = [];
  let smallestMs = 0;
  for (const size of sizes) {
    const store = `bench_scale_${runId}_${size}`;
    try {
      const loadStarted = Date.now();
      for (let from = 0; from < size; from += BATCH) {
        const docs = Array.from({ length: Math.min(BATCH, size - from) }, (_, k) => {
          const n = from + k;
          return { key: `k${n}`, group: n % 1000, n, name: `item-${n}`, tags: ['a', 'b'] };
        });
        await backends.store.insert(store, docs);
      }
      await backends.store.createIndex(store, { key: 1 });
      await analyze();
      const loadSeconds = (Date.now() - loadStarted) / 1000;
      // Warm up (statement caches, buffer pool), then time.
      for (let i = 0; i < 50; i++) await backends.store.find(store, { key: `k${Math.floor(Math.random() * size)}` });
      let finds = 0;
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      while (performance.now() - started < seconds * 1000) {
        const found = await backends.store.find(store, { key: `k${Math.floor(Math.random() * size)}` });
        if (found.length !== 1) throw new Error(`find by key returned ${found.length} documents`);
        finds += 1;
      }
      const cpu = process.cpuUsage(cpuStarted);
      const timing = backend === 'sqlite' ? 'cpu' : 'wall';
      const perFindMs = (timing === 'cpu' ? (cpu.user + cpu.system) / 1000 : performance.now() - started) / finds;
      if (smallestMs === 0) smallestMs = perFindMs;
      out.push({
        backend,
        documents: size,
        findsPerSec: Math.round(1000 / perFindMs),
        timing,
        ofSmallest: perFindMs / smallestMs,
        loadSeconds,
      });
    } finally {
      await backends.store.delete(store, {});
      await backends.store.dropIndex(store, { key: 1 });
    }
  }
  return out;
}

/**
 * This section alone: `node --import tsx bench/store-scale.ts [--scale-1m] [--seconds N]`
 * (sizes 1,000 and 100,000, or 1,000 and 1,000,000 with `--scale-1m`; PIPEC_BENCH_POSTGRES as for
 * `npm run bench`).
 */
if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--seconds');
  const seconds = at >= 0 ? Number(argv[at + 1]) : 2;
  if (!(seconds > 0)) throw new Error('--seconds takes a positive number');
  const results = await benchScale({
    sizes: argv.includes('--scale-1m') ? [1000, 1_000_000] : [1000, 100_000],
    seconds,
    pgUrl: process.env['PIPEC_BENCH_POSTGRES'] ?? 'postgres://postgres@127.0.0.1:5432/test',
  });
  for (const r of results)
    console.log(
      `${r.backend} ${r.documents} documents: ${r.findsPerSec} finds per ${r.timing === 'cpu' ? 'CPU ' : ''}s, ×${r.ofSmallest.toFixed(2)} of the smallest (load ${r.loadSeconds.toFixed(0)} s)`,
    );
}
