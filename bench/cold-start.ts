/**
 * Cold start: from spawning `node server.js` of the service built from all examples to its first
 * successful answer to a real pipeline (POST the order to the order-flow pipeline), each run with a
 * fresh data folder (a new SQLite file, as in a new container). Median of the runs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ORDER_DATA_DIR, ORDER_PATH } from './order-flow.js';
import { median, round } from './support/measure.js';
import { freePort, startServer } from './support/processes.js';

export interface ColdStartResult {
  readonly runsMs: readonly number[];
  readonly medianMs: number;
}

export async function benchColdStart(opts: { serviceDir: string; workDir: string; runs: number }): Promise<ColdStartResult> {
  const order = readFileSync(path.join(ORDER_DATA_DIR, 'order.json'), 'utf8');
  const probe = async (url: string): Promise<boolean> => {
    const res = await fetch(`${url}${ORDER_PATH}`, { method: 'POST', body: order, headers: { 'content-type': 'application/json' } });
    await res.arrayBuffer();
    return res.status === 200;
  };
  const runsMs: number[] = [];
  for (let i = 0; i < opts.runs; i++) {
    const started = performance.now();
    const server = await startServer({
      command: [process.execPath, path.join(opts.serviceDir, 'server.js')],
      env: { PIPEC_DATA_DIR: path.join(opts.workDir, `cold-start-${i}`), LOG_LEVEL: 'warn' },
      port: await freePort(),
      probe,
      pollMs: 5,
    });
    runsMs.push(performance.now() - started);
    await server.stop();
  }
  return { runsMs: runsMs.map((ms) => round(ms)), medianMs: round(median(runsMs)) };
}
