#!/usr/bin/env node
// The test command (`npm test`, run by .ci/run): build the compiler and runtime, run every vitest
// suite, and end with the plain line `N passed, N failed` (plus skipped) that CI reads. Each
// failure counts once (test/support/summary-reporter.ts says how).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runVitest } from './support/run-vitest.mjs';

const root = path.resolve(import.meta.dirname, '..');
const scratch = path.join(root, 'test', '.tmp');
// Services built by earlier runs (each with its bundle) would otherwise pile up, ~200 MB a run.
fs.rmSync(scratch, { recursive: true, force: true });
fs.mkdirSync(scratch, { recursive: true });

const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(build.status ?? 1);
}

const { status, summary } = runVitest(process.argv.slice(2), {
  cwd: root,
  summaryFile: path.join(scratch, 'summary.json'),
});
if (summary.failures.length > 0)
  console.log(`\nFailures (each counted once):\n${summary.failures.map((f) => `  ${f}`).join('\n')}\n`);
console.log(summary.line);
process.exit(status === 0 && summary.failed === 0 ? 0 : 1);
