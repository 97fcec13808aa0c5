// Runs vitest with the summary reporter (summary-reporter.ts) and returns its summary: the part of
// `npm test` (test/run-tests.mjs) that test/runner/summary.test.ts runs on fixtures.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const reporter = path.join(import.meta.dirname, 'summary-reporter.ts');

/**
 * @param {readonly string[]} args vitest arguments after `run`
 * @param {{ cwd: string, summaryFile: string, stdio?: 'inherit' | 'pipe', env?: Record<string, string> }} opts
 * @returns {{ status: number, summary: { passed: number, failed: number, skipped: number, failures: string[], line: string } }}
 */
export function runVitest(args, opts) {
  fs.rmSync(opts.summaryFile, { force: true });
  const run = spawnSync('npx', ['vitest', 'run', '--reporter=default', `--reporter=${reporter}`, ...args], {
    cwd: opts.cwd,
    stdio: opts.stdio ?? 'inherit',
    env: { ...process.env, ...opts.env, PIPEC_TEST_SUMMARY: opts.summaryFile },
  });
  let summary;
  try {
    summary = JSON.parse(fs.readFileSync(opts.summaryFile, 'utf8'));
  } catch {
    // vitest ended before its reporters ran (a broken config, a crash): one failure.
    summary = {
      passed: 0,
      failed: 1,
      skipped: 0,
      failures: ['vitest did not finish its run'],
      line: '0 passed, 1 failed',
    };
  }
  const status = run.status ?? 1;
  if (status !== 0 && summary.failed === 0) {
    // vitest failed for a reason none of its tests or suites carries (no test files found, …).
    const failures = [...summary.failures, `vitest exited with status ${status}`];
    summary = { ...summary, failed: 1, failures, line: summary.line.replace(/ 0 failed/, ' 1 failed') };
  }
  return { status, summary };
}
