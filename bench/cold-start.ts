/**
 * Cold start: from spawning `node server.js` of the service built from all examples to its first
 * successful answer to a real pipeline (POST the order to the order-flow pipeline), each run with a
 * fresh data folder (a new SQLite file, as in a new container). Median of the runs.
 *
 * Measured side by side, run by run in turn: the service as built (it starts from its bundle and
 * code cache, runtime/launch.ts), the same service from its modules (PIPEC_BUNDLE=0), and Node.js
 * itself (`node -e 0`, spawn to exit), the floor under any figure. When the environment sets
 * NODE_EXTRA_CA_CERTS (this machine does), Node reads that certificate file before running any
 * code; the service is then also measured without it, and both figures are reported.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ORDER_DATA_DIR, ORDER_PATH } from './order-flow.js';
import { median, round } from './support/measure.js';
import { freePort, startServer } from './support/processes.js';

export interface ColdStartSeries {
  readonly runsMs: readonly number[];
  readonly medianMs: number;
}

export interface ColdStartResult {
  /** The service as built (bundle + code cache), in this environment. */
  readonly bundle: ColdStartSeries;
  /** The same service from its modules (PIPEC_BUNDLE=0). */
  readonly modules: ColdStartSeries;
  /** `node -e 0`: spawn to exit. */
  readonly nodeItself: ColdStartSeries;
  /** The bundle again without NODE_EXTRA_CA_CERTS, when the environment sets it (else null). */
  readonly bundleWithoutExtraCaCerts: ColdStartSeries | null;
  readonly extraCaCerts: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

export async function benchColdStart(opts: {
  serviceDir: string;
  workDir: string;
  runs: number;
}): Promise<ColdStartResult> {
  const order = readFileSync(path.join(ORDER_DATA_DIR, 'order.json'), 'utf8');
  const probe = async (url: string): Promise<boolean> => {
    const res = await fetch(`${url}${ORDER_PATH}`, {
      method: 'POST',
      body: order,
      headers: { 'content-type': 'application/json' },
    });
    await res.arrayBuffer();
    return res.status === 200;
  };
  let runNumber = 0;
  const serviceStart = async (env: Env): Promise<number> => {
    const started = performance.now();
    const server = await startServer({
      command: [process.execPath, path.join(opts.serviceDir, 'server.js')],
      env: { PIPEC_DATA_DIR: path.join(opts.workDir, `cold-start-${runNumber++}`), LOG_LEVEL: 'warn', ...env },
      port: await freePort(),
      probe,
      pollMs: 2,
    });
    const ms = performance.now() - started;
    await server.stop();
    return ms;
  };
  const extraCaCerts = Boolean(process.env['NODE_EXTRA_CA_CERTS']);
  const withoutCa: Env = { NODE_EXTRA_CA_CERTS: undefined };
  const series = { bundle: [] as number[], modules: [] as number[], node: [] as number[], bundleNoCa: [] as number[] };
  for (let i = 0; i < opts.runs; i++) {
    series.bundle.push(await serviceStart({}));
    series.modules.push(await serviceStart({ PIPEC_BUNDLE: '0' }));
    series.node.push(await nodeItself());
    if (extraCaCerts) series.bundleNoCa.push(await serviceStart(withoutCa));
  }
  return {
    bundle: summarize(series.bundle),
    modules: summarize(series.modules),
    nodeItself: summarize(series.node),
    bundleWithoutExtraCaCerts: extraCaCerts ? summarize(series.bundleNoCa) : null,
    extraCaCerts,
  };
}

function summarize(runsMs: readonly number[]): ColdStartSeries {
  return { runsMs: runsMs.map((ms) => round(ms)), medianMs: round(median(runsMs)) };
}

/** Spawn to exit of `node -e 0` in this environment. */
function nodeItself(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(performance.now() - started));
  });
}
