/**
 * A bounded, seeded fuzz run of mutated `.pipe` files through `pipec check` (run-pipe-fuzz.ts) in
 * a child process, so a run that hangs is killed and reported with its input rather than holding
 * the test run. Every run must end with diagnostics or success: no crash, no internal error, no
 * hang. CI makes FUZZ_RUNS=1500 (default) runs from a fixed seed; `npm run fuzz` many more.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../e2e/service-process.js';
import { fuzzRuns, fuzzSeed } from './fuzz-support.js';

const RUNS = fuzzRuns(1500);
const SEED = fuzzSeed(25_2);
/** A hang guard, not a speed target: alone the default runs take ~45 s; a loaded 2-core machine takes
 *  over twice that. `npm run fuzz` scales it with the runs. */
const BOUND_MS = Math.max(240_000, RUNS * 160);

interface Summary {
  readonly runs: number;
  readonly failed: boolean;
  readonly withErrors: number;
  readonly clean: number;
  readonly problem?: string;
  readonly from?: string;
}

function runFuzz(dir: string): Promise<{ code: number | null; stdout: string; stderr: string; killed: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(REPO_ROOT, 'test/fuzz/run-pipe-fuzz.ts'),
        '--runs',
        String(RUNS),
        '--seed',
        String(SEED),
        '--dir',
        dir,
      ],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, BOUND_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, killed });
    });
  });
}

describe('.pipe fuzz run through pipec check', () => {
  it(
    `ends ${RUNS} mutated files (seed ${SEED}) with diagnostics or success, never a crash or a hang`,
    async () => {
      const dir = tempDir('pipe-fuzz');
      const run = await runFuzz(dir);
      const current = path.join(dir, 'current.pipe');
      const hung = fs.existsSync(current) ? fs.readFileSync(current, 'utf8').slice(0, 2000) : '';
      expect(run.killed, `a check did not end; its input is ${current}:\n${hung}`).toBe(false);
      const last = run.stdout.trim().split('\n').pop() ?? '';
      let summary: Summary | undefined;
      try {
        summary = JSON.parse(last) as Summary;
      } catch {
        summary = undefined;
      }
      expect(summary, `no summary; stderr:\n${run.stderr.slice(0, 3000)}`).toBeDefined();
      expect(
        summary?.problem,
        `seed ${SEED}, from ${summary?.from ?? ''}; input in ${path.join(dir, 'failure.pipe')}`,
      ).toBeUndefined();
      expect(run.code).toBe(0);
      expect(summary?.runs).toBe(RUNS);
      // Mutations mostly break files; some must still pass, or the run never reaches the checker's later phases.
      expect(summary?.clean ?? 0).toBeGreaterThan(0);
    },
    BOUND_MS + 20_000,
  );
});
