/**
 * Order flow: examples/order-flow (generated service) against the same work hand-written on
 * Hono + ajv (bench/baseline/server.ts), both as separate processes on the same machine, loaded in
 * turn (A B A B …) with autocannon at fixed connections and duration. Per run: req/s, p50/p99
 * latency, server CPU per request; per server: peak RSS; per round: generated/baseline ratios.
 * Both servers are checked first: order.json → 200 with expected.json, bad-order.json → 400.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon, { type AutocannonResult } from 'autocannon';
import { ts } from 'ts-morph';
import { V8_TUNING } from '../runtime/launch.js';
import { median, round, sameJson } from './support/measure.js';
import {
  freePort,
  peakRssMb,
  processCpuMicros,
  REPO_ROOT,
  startServer,
  type ServerProcess,
} from './support/processes.js';

export const ORDER_DATA_DIR = path.join(REPO_ROOT, '..', 'shared', 'bench', 'order-flow');
export const ORDER_PATH = '/order-flow/orders';

export interface LoadRun {
  readonly reqPerSec: number;
  /**
   * Latency percentiles from every 2xx answer's own latency (autocannon measures each with
   * process.hrtime; its summary rounds them to whole milliseconds, too coarse at ~1 ms latencies).
   */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Server CPU time per request (µs); null where /proc is unavailable. */
  readonly cpuMicrosPerRequest: number | null;
  readonly requests: number;
}

export interface OrderFlowRound {
  readonly round: number;
  readonly generated: LoadRun;
  readonly baseline: LoadRun;
  /** generated / baseline req/s (≥ 0.95 is the target). */
  readonly throughputRatio: number;
  /** baseline p99 / generated p99, so that ≥ 0.95 is the target here too. */
  readonly p99Ratio: number;
}

export interface OrderFlowResult {
  readonly connections: number;
  readonly durationSeconds: number;
  readonly logLevel: string;
  /** Load generator on the first CPU, each server on the second (`taskset`); false where that was not possible. */
  readonly pinned: boolean;
  readonly rounds: readonly OrderFlowRound[];
  readonly peakRssMb: { readonly generated: number | null; readonly baseline: number | null };
  readonly median: {
    readonly throughputRatio: number;
    readonly p99Ratio: number;
    readonly generatedReqPerSec: number;
    readonly baselineReqPerSec: number;
  };
  /** The V8 flags a built service gives itself (runtime/launch.ts, tuneV8): the side-by-side reference's. */
  readonly serviceV8Flags: readonly string[];
  /** The servers loaded at the same time (see SideBySide); empty where CPU time is unavailable. */
  readonly sideBySide: SideBySide;
}

/**
 * CPU time per request of three servers loaded *at the same time*, all on one CPU, each by its
 * own connections — the generated service, the baseline, and for reference the baseline started
 * with the V8 settings a built service gives itself: whatever else the host does slows all of
 * them alike, so their ratios are much steadier than the req/s of runs taken one after the other.
 * Ratios are baseline CPU / generated CPU per request (so that, like the throughput ratio, more is
 * better for the service).
 */
export interface SideBySide {
  readonly rounds: readonly { readonly generated: number; readonly baseline: number; readonly tunedBaseline: number }[];
  readonly median: { readonly cpuRatio: number; readonly tunedCpuRatio: number } | null;
}

export interface OrderFlowOptions {
  /** A built service containing the order-flow pipeline (its folder holds server.js). */
  readonly serviceDir: string;
  /** Scratch folder for the compiled baseline and the data folder. */
  readonly workDir: string;
  readonly rounds: number;
  readonly durationSeconds: number;
  readonly connections: number;
  readonly warmupSeconds: number;
  /** Rounds and seconds of the side-by-side measurement (all servers loaded at once). */
  readonly sideBySideRounds: number;
  readonly sideBySideSeconds: number;
}

/**
 * The generated service's log level during the load: `warn`, so that neither server writes a line
 * per request (the baseline logs nothing); BENCH_LOG_LEVEL=info measures with the default
 * "execution finished" line per execution.
 */
const LOG_LEVEL = process.env['BENCH_LOG_LEVEL'] ?? 'warn';

/**
 * On a machine with two or more CPUs (Linux, `taskset` installed), the load generator (this
 * process, all its threads) runs on the first CPU and each server on the second: neither competes
 * with the other for a core, and a server's own helper threads (garbage collection, compilation)
 * count against that server alone. Where the scheduler would otherwise put them varied the
 * throughput of one and the same server by ±30 % from run to run on a shared 2-CPU machine.
 */
interface CpuPinning {
  /** Prefix of a server's command line. */
  readonly serverPrefix: readonly string[];
  restore(): void;
}

function pinCpus(): CpuPinning | null {
  if (process.platform !== 'linux' || os.availableParallelism() < 2 || process.env['BENCH_PIN'] === '0') return null;
  const current = spawnSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' });
  const mask = /:\s*([0-9a-f]+)\s*$/.exec(current.stdout ?? '')?.[1];
  if (current.status !== 0 || mask === undefined) return null;
  if (spawnSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)]).status !== 0) return null;
  return {
    serverPrefix: ['taskset', '-c', '1'],
    restore: () => void spawnSync('taskset', ['-a', '-p', mask, String(process.pid)]),
  };
}

export async function benchOrderFlow(opts: OrderFlowOptions): Promise<OrderFlowResult> {
  const pinning = pinCpus();
  try {
    return await runOrderFlow(opts, pinning?.serverPrefix ?? []);
  } finally {
    pinning?.restore();
  }
}

async function runOrderFlow(opts: OrderFlowOptions, serverPrefix: readonly string[]): Promise<OrderFlowResult> {
  const order = readFileSync(path.join(ORDER_DATA_DIR, 'order.json'), 'utf8');
  const badOrder = readFileSync(path.join(ORDER_DATA_DIR, 'bad-order.json'), 'utf8');
  const expected = JSON.parse(readFileSync(path.join(ORDER_DATA_DIR, 'expected.json'), 'utf8')) as unknown;
  const baselineScript = compileBaseline(opts.workDir);
  const probe = (url: string): Promise<boolean> => postOrder(url, order).then((r) => r.status === 200);

  const generated = await startServer({
    command: [...serverPrefix, process.execPath, path.join(opts.serviceDir, 'server.js')],
    env: { PIPEC_DATA_DIR: path.join(opts.workDir, 'data'), LOG_LEVEL },
    port: await freePort(),
    probe,
  });
  let baseline: ServerProcess | undefined;
  let tunedBaseline: ServerProcess | undefined;
  const serviceV8Flags = Object.entries(V8_TUNING).map(([flag, value]) => `--${flag}=${value}`);
  try {
    const baselineEnv = { ORDER_SCHEMA: path.join(REPO_ROOT, 'examples', 'order-flow', 'order.schema.json') };
    baseline = await startServer({
      command: [...serverPrefix, process.execPath, baselineScript],
      env: baselineEnv,
      port: await freePort(),
      probe,
    });
    tunedBaseline = await startServer({
      command: [...serverPrefix, process.execPath, ...serviceV8Flags, baselineScript],
      env: baselineEnv,
      port: await freePort(),
      probe,
    });
    for (const server of [generated, baseline, tunedBaseline]) await checkAnswers(server, order, badOrder, expected);
    const load = (server: ServerProcess, seconds: number): Promise<LoadRun> =>
      loadServer(server, order, opts.connections, seconds);
    await load(generated, opts.warmupSeconds);
    await load(baseline, opts.warmupSeconds);
    // The target's measurement: A B A B …, the generated service and the baseline in turn.
    const rounds: OrderFlowRound[] = [];
    for (let round = 1; round <= opts.rounds; round++) {
      const generatedRun = await load(generated, opts.durationSeconds);
      const baselineRun = await load(baseline, opts.durationSeconds);
      rounds.push({
        round,
        generated: generatedRun,
        baseline: baselineRun,
        throughputRatio: generatedRun.reqPerSec / baselineRun.reqPerSec,
        p99Ratio: baselineRun.p99Ms / Math.max(generatedRun.p99Ms, 0.001),
      });
    }
    await load(tunedBaseline, opts.warmupSeconds);
    const sideBySide = await measureSideBySide([generated, baseline, tunedBaseline], order, opts);
    return {
      connections: opts.connections,
      durationSeconds: opts.durationSeconds,
      logLevel: LOG_LEVEL,
      pinned: serverPrefix.length > 0,
      rounds,
      peakRssMb: { generated: peakRssMb(generated.pid), baseline: peakRssMb(baseline.pid) },
      median: {
        throughputRatio: median(rounds.map((r) => r.throughputRatio)),
        p99Ratio: median(rounds.map((r) => r.p99Ratio)),
        generatedReqPerSec: median(rounds.map((r) => r.generated.reqPerSec)),
        baselineReqPerSec: median(rounds.map((r) => r.baseline.reqPerSec)),
      },
      serviceV8Flags,
      sideBySide,
    };
  } finally {
    await generated.stop();
    await baseline?.stop();
    await tunedBaseline?.stop();
  }
}

/** Loads [generated, baseline, tuned baseline] at once, round by round; their CPU time per request. */
async function measureSideBySide(
  servers: readonly ServerProcess[],
  order: string,
  opts: OrderFlowOptions,
): Promise<SideBySide> {
  const rounds: { generated: number; baseline: number; tunedBaseline: number }[] = [];
  for (let round = 0; round < opts.sideBySideRounds; round++) {
    const runs = await Promise.all(
      servers.map((server) => loadServer(server, order, opts.connections, opts.sideBySideSeconds)),
    );
    const [generated, baseline, tunedBaseline] = runs.map((run) => run.cpuMicrosPerRequest);
    if (generated == null || baseline == null || tunedBaseline == null) return { rounds: [], median: null };
    rounds.push({ generated, baseline, tunedBaseline });
  }
  return {
    rounds,
    median:
      rounds.length === 0
        ? null
        : {
            cpuRatio: median(rounds.map((r) => r.baseline / r.generated)),
            tunedCpuRatio: median(rounds.map((r) => r.tunedBaseline / r.generated)),
          },
  };
}

/** Transpiles the baseline to plain JavaScript, so it runs without a TypeScript loader in its process. */
function compileBaseline(workDir: string): string {
  const source = readFileSync(path.join(REPO_ROOT, 'bench', 'baseline', 'server.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const dir = path.join(workDir, 'baseline');
  mkdirSync(dir, { recursive: true });
  // Resolve hono and ajv from the repository's node_modules.
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const script = path.join(dir, 'server.mjs');
  writeFileSync(script, outputText);
  return script;
}

async function postOrder(url: string, body: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${url}${ORDER_PATH}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as unknown) : null };
}

async function checkAnswers(server: ServerProcess, order: string, badOrder: string, expected: unknown): Promise<void> {
  const good = await postOrder(server.url, order);
  if (good.status !== 200 || !sameJson(good.json, expected)) {
    throw new Error(
      `${server.url}: order.json answered ${good.status} ${JSON.stringify(good.json)}, not expected.json`,
    );
  }
  const bad = await postOrder(server.url, badOrder);
  if (bad.status !== 400) throw new Error(`${server.url}: bad-order.json answered ${bad.status}, not 400`);
}

async function loadServer(server: ServerProcess, body: string, connections: number, seconds: number): Promise<LoadRun> {
  const cpuBefore = processCpuMicros(server.pid);
  const latenciesMs: number[] = [];
  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    const options = {
      url: `${server.url}${ORDER_PATH}`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      connections,
      duration: seconds,
    };
    autocannon(options, (err, done) => (err ? reject(err) : resolve(done))).on(
      'response',
      (_client, status, _bytes, ms) => {
        if (status >= 200 && status < 300) latenciesMs.push(ms);
      },
    );
  });
  const cpuAfter = processCpuMicros(server.pid);
  if (result.errors > 0 || result.non2xx > 0 || result.timeouts > 0) {
    throw new Error(
      `${server.url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers under load\n${server.stderr()}`,
    );
  }
  const requests = result.requests.total;
  return {
    reqPerSec: round(requests / result.duration, 1),
    p50Ms: round(percentile(latenciesMs, 0.5), 3),
    p99Ms: round(percentile(latenciesMs, 0.99), 3),
    cpuMicrosPerRequest:
      cpuBefore !== null && cpuAfter !== null && requests > 0 ? round((cpuAfter - cpuBefore) / requests, 1) : null,
    requests,
  };
}

/** The nearest-rank percentile (0 < q ≤ 1) of the samples; NaN for none. */
export function percentile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = Float64Array.from(samples).sort();
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}
