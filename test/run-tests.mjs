#!/usr/bin/env node
// The test command (`npm test`, run by .ci/run): build the compiler and runtime, run every vitest
// suite, and end with the plain line `N passed, N failed` (plus skipped) that CI reads.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const scratch = path.join(root, 'test', '.tmp');
const report = path.join(scratch, 'vitest-report.json');
// Services built by earlier runs (each with its bundle) would otherwise pile up, ~200 MB a run.
fs.rmSync(scratch, { recursive: true, force: true });
fs.mkdirSync(scratch, { recursive: true });

const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(build.status ?? 1);
}

const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${report}`, ...process.argv.slice(2)];
const run = spawnSync('npx', args, { cwd: root, stdio: 'inherit' });

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const data = JSON.parse(fs.readFileSync(report, 'utf8'));
  passed = data.numPassedTests ?? 0;
  failed = (data.numFailedTests ?? 0) + (data.numFailedTestSuites ?? 0);
  skipped = (data.numPendingTests ?? 0) + (data.numTodoTests ?? 0);
} catch {
  failed += 1;
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(run.status === 0 && failed === 0 ? 0 : 1);
