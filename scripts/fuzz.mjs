#!/usr/bin/env node
// `npm run fuzz`: the fuzz runs of test/fuzz (HTTP requests against a built service, mutated .pipe
// files through `pipec check`) and the attack tests, with many more runs than CI makes and a new
// seed each time. FUZZ_RUNS (default 20000) and FUZZ_SEED repeat a run; the seed is printed first.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const runs = process.env.FUZZ_RUNS ?? '20000';
const seed = process.env.FUZZ_SEED ?? String(Date.now() % 2 ** 31);
console.log(`fuzz: ${runs} runs per fuzz test, seed ${seed}`);
console.log(`repeat with: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run fuzz`);

const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const run = spawnSync('npx', ['vitest', 'run', 'test/fuzz', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, FUZZ_RUNS: runs, FUZZ_SEED: seed, FUZZ_REPORT: '1' },
});
process.exit(run.status ?? 1);
