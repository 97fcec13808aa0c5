/**
 * Shared by the fuzz runs and the attack tests: the fixture service built once per test file, how
 * many runs a fuzz run makes (`FUZZ_RUNS`, more under `npm run fuzz`) from which seed
 * (`FUZZ_SEED`, else a fixed one so CI repeats itself), what every answer must look like, and a
 * second client that measures whether the service still answers while an attack runs.
 */
import path from 'node:path';
import { REPO_ROOT, runCli, tempDir } from '../e2e/service-process.js';
import type { RawResponse } from './raw-http.js';

export const FIXTURE = path.join(REPO_ROOT, 'test/fuzz/fixtures/attack-surface.pipe');

/** Runs of a fuzz run: FUZZ_RUNS, else `ciRuns`. */
export function fuzzRuns(ciRuns: number): number {
  const given = Number(process.env['FUZZ_RUNS']);
  return Number.isInteger(given) && given > 0 ? given : ciRuns;
}

/** FUZZ_SEED, else a fixed seed: CI runs the same inputs every time; `npm run fuzz` picks new ones. */
export function fuzzSeed(fixed: number): number {
  const given = Number(process.env['FUZZ_SEED']);
  return Number.isInteger(given) ? given : fixed;
}

/** `pipec build` of the fixture into a fresh folder. */
export async function buildFixture(name: string): Promise<string> {
  const outDir = path.join(tempDir(name), 'out');
  const built = await runCli(['build', FIXTURE, '--out', outDir, '--name', name, '--no-bundle', '--color', 'never']);
  if (built.code !== 0) throw new Error(`pipec build failed:\n${built.output.err.join('\n')}`);
  return outDir;
}

/** Text that only a leak shows: a stack frame, a source location, a path on this machine. */
const LEAKS: readonly RegExp[] = [
  /\n\s+at \S.*:\d+:\d+/,
  /node_modules/,
  /\.pipe:\d+/,
  /file:\/\//,
  new RegExp(REPO_ROOT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
];

/** Why an answer breaks the rules (undefined when it keeps them): 5xx, unreadable JSON, leaks, no id. */
export function answerProblem(res: RawResponse): string | undefined {
  if (res.status >= 500) return `status ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`;
  const text = res.body.toString('utf8');
  for (const leak of LEAKS) if (leak.test(text)) return `the answer leaks ${leak}: ${text.slice(0, 300)}`;
  if (!(res.headers['content-type'] ?? '').includes('application/json') || res.body.length === 0) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return `content-type JSON but the body is not: ${text.slice(0, 200)}`;
  }
  // The service's own error objects carry the id that finds the log line.
  const obj =
    json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
  if (
    res.status >= 400 &&
    obj &&
    obj['code'] === res.status &&
    typeof obj['error'] === 'string' &&
    typeof obj['executionId'] !== 'string'
  ) {
    return `an error reply without executionId: ${text.slice(0, 200)}`;
  }
  return undefined;
}

export interface ProbeReport {
  readonly latenciesMs: readonly number[];
  readonly failures: readonly string[];
  readonly medianMs: number;
  readonly maxMs: number;
}

/**
 * Sends a trivial request (`GET /health`) every `everyMs` until `done` settles, from a client of
 * its own, and reports how long each took to answer.
 */
export async function probeWhile(url: string, done: Promise<unknown>, everyMs = 50): Promise<ProbeReport> {
  const latencies: number[] = [];
  const failures: string[] = [];
  let finished = false;
  void done
    .finally(() => {
      finished = true;
    })
    .catch(() => undefined);
  while (!finished) {
    const started = performance.now();
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      if (res.status !== 200) failures.push(`status ${res.status}`);
      latencies.push(performance.now() - started);
    } catch (err) {
      failures.push(err instanceof Error ? err.message : String(err));
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    latenciesMs: latencies,
    failures,
    medianMs: sorted[Math.floor(sorted.length / 2)] ?? Number.POSITIVE_INFINITY,
    maxMs: sorted[sorted.length - 1] ?? Number.POSITIVE_INFINITY,
  };
}
