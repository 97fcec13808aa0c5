/**
 * `npm run bench`: every benchmark in one run, printed as one table and written to
 * bench/results.json (with the machine it ran on). `--smoke` runs each section for a moment only
 * (bench.smoke.test.ts uses it so the benchmarks cannot rot); `--out FILE` writes elsewhere.
 * Sections: order flow (generated vs hand-written, under load), cold start, compiler speed,
 * Double Braces vs JSONata, JOLT (bench/jolt.ts) and the event/Object Store backends
 * (bench/backends.ts). See BENCHMARKS.md for what each measures. The JOLT workloads each run in a
 * fresh process of their own (see `fork` in bench/jolt.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchBackends } from './backends.js';
import { benchDriverPairs } from './driver-pairs.js';
import { benchScale } from './store-scale.js';
import { benchBraces, type BracesResult } from './braces.js';
import { benchColdStart, type ColdStartResult } from './cold-start.js';
import { benchCompiler, type CompilerResult } from './compiler-speed.js';
import { benchJolt } from './jolt.js';
import { benchOrderFlow, type OrderFlowResult } from './order-flow.js';
import { formatTable, type TableRow } from './support/table.js';
import { REPO_ROOT, runPipec } from './support/processes.js';

export interface BenchSettings {
  readonly smoke: boolean;
  readonly orderFlow: {
    readonly rounds: number;
    readonly durationSeconds: number;
    readonly connections: number;
    readonly warmupSeconds: number;
    readonly sideBySideRounds: number;
    readonly sideBySideSeconds: number;
  };
  readonly coldStartRuns: number;
  readonly checkRuns: number;
  readonly checkLines: number;
  readonly bracesSeconds: number;
  readonly joltSeconds: number;
  /** Fresh processes per JOLT workload (the median ratio is reported). */
  readonly joltForks: number;
  readonly backendsSeconds: number;
  /** Store sizes of the indexed-find scale case (the first is the reference). */
  readonly scaleSizes: readonly number[];
  readonly scaleSeconds: number;
  /** Seconds per operation pair (platform and driver in turns). */
  readonly pairsSeconds: number;
}

export const FULL: BenchSettings = {
  smoke: false,
  orderFlow: {
    rounds: 3,
    durationSeconds: 10,
    connections: 10,
    warmupSeconds: 3,
    sideBySideRounds: 6,
    sideBySideSeconds: 5,
  },
  coldStartRuns: 5,
  checkRuns: 5,
  checkLines: 10_000,
  bracesSeconds: 1,
  joltSeconds: 2,
  joltForks: 3,
  backendsSeconds: 2,
  scaleSizes: [1000, 100_000],
  scaleSeconds: 2,
  pairsSeconds: 4,
};

export const SMOKE: BenchSettings = {
  smoke: true,
  orderFlow: {
    rounds: 1,
    durationSeconds: 1,
    connections: 4,
    warmupSeconds: 1,
    sideBySideRounds: 1,
    sideBySideSeconds: 1,
  },
  coldStartRuns: 1,
  checkRuns: 1,
  checkLines: 500,
  bracesSeconds: 0.02,
  joltSeconds: 0.02,
  joltForks: 1,
  backendsSeconds: 0.2,
  scaleSizes: [100, 1000],
  scaleSeconds: 0.1,
  pairsSeconds: 0.2,
};

const BENCH_PG_URL = process.env['PIPEC_BENCH_POSTGRES'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const BENCH_NATS_URL = process.env['PIPEC_BENCH_NATS'] ?? 'nats://127.0.0.1:4222';

export interface Machine {
  readonly nproc: number;
  readonly cpu: string;
  readonly node: string;
  readonly platform: string;
  readonly memoryGb: number;
  readonly date: string;
}

export interface BenchResults {
  readonly machine: Machine;
  readonly settings: BenchSettings;
  readonly orderFlow: OrderFlowResult;
  readonly coldStart: ColdStartResult;
  readonly compiler: CompilerResult;
  readonly braces: BracesResult;
  readonly jolt: Awaited<ReturnType<typeof benchJolt>>;
  readonly backends: Awaited<ReturnType<typeof benchBackends>>;
  readonly scale: Awaited<ReturnType<typeof benchScale>>;
  readonly pairs: Awaited<ReturnType<typeof benchDriverPairs>>;
}

export function describeMachine(): Machine {
  return {
    nproc: os.availableParallelism(),
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    date: new Date().toISOString(),
  };
}

/** Builds the examples (or one of them) into `outDir` with the real CLI; returns the time it took. */
async function buildService(inputs: readonly string[], outDir: string, name: string): Promise<number> {
  const run = await runPipec(['build', ...inputs, '--out', outDir, '--name', name, '--color', 'never']);
  if (run.code !== 0) throw new Error(`pipec build ${inputs.join(' ')} failed:\n${run.output.slice(0, 4000)}`);
  return run.ms;
}

/** Runs every section; `log` receives progress lines. */
export async function runBench(
  settings: BenchSettings,
  log: (line: string) => void = () => undefined,
): Promise<BenchResults> {
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'pipec-bench-'));
  try {
    const examples = path.join(REPO_ROOT, 'examples');
    const allService = path.join(workDir, 'examples-service');
    log('building all examples …');
    const buildMs = await buildService([examples], allService, 'examples');
    let orderService = allService;
    if (!settings.smoke) {
      orderService = path.join(workDir, 'order-flow-service');
      await buildService([path.join(examples, 'order-flow')], orderService, 'order-flow');
    }
    log('order flow under load …');
    const orderFlow = await benchOrderFlow({ serviceDir: orderService, workDir, ...settings.orderFlow });
    log('cold start …');
    const coldStart = await benchColdStart({ serviceDir: allService, workDir, runs: settings.coldStartRuns });
    log('compiler …');
    const compiler = await benchCompiler({
      workDir,
      checkRuns: settings.checkRuns,
      checkLines: settings.checkLines,
      buildMs,
    });
    log('Double Braces vs JSONata …');
    const braces = await benchBraces({ seconds: settings.bracesSeconds });
    log('JOLT …');
    const jolt = await benchJolt({ seconds: settings.joltSeconds, fork: true, forks: settings.joltForks });
    log('backends …');
    const backends = await benchBackends({ seconds: settings.backendsSeconds });
    log(`Object Store scale (${settings.scaleSizes.join(', ')} documents) …`);
    const scale = await benchScale({ sizes: settings.scaleSizes, seconds: settings.scaleSeconds, pgUrl: BENCH_PG_URL });
    log('operations beside their drivers …');
    const pairs = await benchDriverPairs({
      seconds: settings.pairsSeconds,
      pgUrl: BENCH_PG_URL,
      natsUrl: BENCH_NATS_URL,
    });
    return {
      machine: describeMachine(),
      settings,
      orderFlow,
      coldStart,
      compiler,
      braces,
      jolt,
      backends,
      scale,
      pairs,
    };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

const number = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const orDash = (value: number | null, digits = 0): string => (value === null ? '–' : number(value, digits));

/** Issue 24, item 5: the order flow keeps ≥ 0.95× the hand-written service's throughput and p99. */
const ORDER_FLOW_TARGET = '≥ 0.95';

/** The rows of the printed table. */
export function tableRows(r: BenchResults): TableRow[] {
  const rows: TableRow[] = [];
  const of = r.orderFlow;
  rows.push([
    'order flow',
    'CPUs: load generator / each server',
    of.pinned ? 'CPU 0 / CPU 1 (taskset)' : 'not pinned',
    '',
  ]);
  for (const round of of.rounds) {
    rows.push([
      'order flow',
      `round ${round.round}: req/s generated / baseline`,
      `${number(round.generated.reqPerSec)} / ${number(round.baseline.reqPerSec)} (×${number(round.throughputRatio, 2)})`,
      ORDER_FLOW_TARGET,
    ]);
    rows.push([
      'order flow',
      `round ${round.round}: p50 / p99 ms generated | baseline`,
      `${round.generated.p50Ms} / ${round.generated.p99Ms} | ${round.baseline.p50Ms} / ${round.baseline.p99Ms} (×${number(round.p99Ratio, 2)})`,
      ORDER_FLOW_TARGET,
    ]);
    rows.push([
      'order flow',
      `round ${round.round}: server CPU µs/request generated / baseline`,
      `${orDash(round.generated.cpuMicrosPerRequest)} / ${orDash(round.baseline.cpuMicrosPerRequest)}`,
      '',
    ]);
  }
  rows.push([
    'order flow',
    'median throughput ratio (generated / baseline)',
    `×${number(of.median.throughputRatio, 2)}`,
    ORDER_FLOW_TARGET,
  ]);
  rows.push([
    'order flow',
    'median p99 ratio (baseline / generated)',
    `×${number(of.median.p99Ratio, 2)}`,
    ORDER_FLOW_TARGET,
  ]);
  const side = of.sideBySide;
  if (side.median) {
    const rounds = side.rounds
      .map((r) => `${number(r.generated)}/${number(r.baseline)}/${number(r.tunedBaseline)}`)
      .join(' · ');
    rows.push([
      'order flow',
      `side by side (loaded at once, ${side.rounds.length} rounds): CPU µs/request generated/baseline/baseline with V8 settings`,
      rounds,
      '',
    ]);
    rows.push([
      'order flow',
      'side by side, median: baseline CPU / generated CPU per request',
      `×${number(side.median.cpuRatio, 2)} (with V8 settings: ×${number(side.median.tunedCpuRatio, 2)})`,
      '',
    ]);
  }
  rows.push([
    'order flow',
    'peak RSS generated / baseline (MB)',
    `${orDash(of.peakRssMb.generated)} / ${orDash(of.peakRssMb.baseline)}`,
    '',
  ]);
  const cs = r.coldStart;
  const runs = cs.bundle.runsMs.length;
  rows.push([
    'cold start',
    `all examples, as built (bundle + code cache), median of ${runs}`,
    `${number(cs.bundle.medianMs)} ms`,
    '≤ 300 ms',
  ]);
  if (cs.bundleWithoutExtraCaCerts) {
    rows.push([
      'cold start',
      'the same without NODE_EXTRA_CA_CERTS (set on this machine)',
      `${number(cs.bundleWithoutExtraCaCerts.medianMs)} ms`,
      '≤ 300 ms',
    ]);
  }
  rows.push([
    'cold start',
    'the same service from its modules (PIPEC_BUNDLE=0)',
    `${number(cs.modules.medianMs)} ms`,
    '',
  ]);
  rows.push(['cold start', 'node -e 0 (spawn to exit), for reference', `${number(cs.nodeItself.medianMs)} ms`, '']);
  const cc = r.compiler;
  rows.push([
    'compiler',
    `check ${number(cc.check.lines)} lines (${cc.check.pipelines} pipelines), median of ${cc.check.runs.length}`,
    `${number(cc.check.ms)} ms (${number(cc.check.linesPerSecond)} lines/s)`,
    '≤ 1 s',
  ]);
  if (cc.checkWithoutExtraCaCerts !== null)
    rows.push([
      'compiler',
      'the same without NODE_EXTRA_CA_CERTS (set on this machine)',
      `${number(cc.checkWithoutExtraCaCerts)} ms`,
      '≤ 1 s',
    ]);
  rows.push([
    'compiler',
    'the same from the compiled modules (PIPEC_BUNDLE=0)',
    `${number(cc.checkFromModules)} ms`,
    '',
  ]);
  rows.push(['compiler', 'check examples/hello/hello.pipe (start-up)', `${number(cc.checkSmallFile)} ms`, '']);
  rows.push([
    'compiler',
    `build examples (${r.compiler.build.files} files, ${number(r.compiler.build.lines)} lines)`,
    `${number(r.compiler.build.ms)} ms (${number(r.compiler.build.linesPerSecond)} lines/s)`,
    '',
  ]);
  for (const c of r.braces.cases) {
    rows.push([
      'double braces',
      `${c.name}: evals/s braces / JSONata`,
      `${number(c.bracesPerSecond)} / ${number(c.jsonataPerSecond)} (×${number(c.ratio, 1)})`,
      '',
    ]);
  }
  rows.push(['double braces', 'geometric mean ratio to JSONata', `×${number(r.braces.ratio, 1)}`, '≥ ×10']);
  for (const j of r.jolt) {
    rows.push([
      'jolt',
      `${j.workload}: transforms/s (Java reference)`,
      `${number(j.opsPerSec)} (${number(j.javaOpsPerSec)}, ×${number(j.ratio, 2)})`,
      '',
    ]);
    if (j.handOpsPerSec !== undefined && j.ofHand !== undefined) {
      rows.push([
        'jolt',
        `${j.workload}: compiled / hand-written JavaScript, in turns`,
        `${number(j.opsPerSec)} / ${number(j.handOpsPerSec)} (×${number(j.ofHand, 2)})`,
        '≥ 0.9',
      ]);
    }
  }
  for (const b of r.backends) rows.push(['backends', b.case, `${number(b.perSec)} /s`, '']);
  for (const c of r.scale) {
    rows.push([
      'store scale',
      `${c.backend} find by an indexed field, ${number(c.documents)} documents (load ${number(c.loadSeconds, 1)} s)`,
      `${number(c.findsPerSec)} /${c.timing === 'cpu' ? 'CPU ' : ''}s (time per find ×${number(c.ofSmallest, 2)} of ${number(r.scale.find((x) => x.backend === c.backend)?.documents ?? 0)})`,
      c === r.scale.find((x) => x.backend === c.backend) ? '' : '≤ ×2',
    ]);
  }
  for (const p of r.pairs) {
    rows.push([
      'beside the driver',
      `${p.case}: platform / driver`,
      `${number(p.platformPerSec)} / ${number(p.driverPerSec)} /${p.timing === 'cpu' ? 'CPU ' : ''}s (×${number(p.ratio, 2)})`,
      p.reference ? '' : '≥ 0.8',
    ]);
  }
  return rows;
}

function parseArgs(argv: readonly string[]): { smoke: boolean; out: string; million: boolean } {
  let out = path.join(REPO_ROOT, 'bench', 'results.json');
  const at = argv.indexOf('--out');
  if (at >= 0) {
    const value = argv[at + 1];
    if (!value) throw new Error('--out needs a file name');
    out = path.resolve(value);
  }
  return { smoke: argv.includes('--smoke'), out, million: argv.includes('--scale-1m') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = parseArgs(process.argv.slice(2));
  // --scale-1m: the scale case also at 1,000,000 documents (loading them takes minutes).
  const settings = args.smoke ? SMOKE : args.million ? { ...FULL, scaleSizes: [...FULL.scaleSizes, 1_000_000] } : FULL;
  const results = await runBench(settings, (line) => process.stderr.write(`${line}\n`));
  const m = results.machine;
  console.log(
    `pipec benchmarks${args.smoke ? ' (smoke: numbers are not meaningful)' : ''} — ${m.nproc} × ${m.cpu}, Node ${m.node}, ${m.platform}\n`,
  );
  console.log(formatTable(['section', 'case', 'result', 'target'], tableRows(results)));
  writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nwritten to ${path.relative(process.cwd(), args.out) || args.out}`);
}
