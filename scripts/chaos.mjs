#!/usr/bin/env node
// `npm run chaos`: the fault-injection suite (test/chaos) in full — link cuts of 5 s, 30 s and
// 120 s (PIPEC_CHAOS_LONG_CUT_MS, unless set otherwise), SIGKILLs, poison, expiry — against the real
// PostgreSQL and NATS (PIPEC_TEST_POSTGRES, PIPEC_TEST_NATS), then the table of results. Builds
// first (the services under test are built with the compiled runtime). Takes several minutes.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const results = path.join(root, 'test', '.tmp', 'chaos-results.json');
fs.mkdirSync(path.dirname(results), { recursive: true });
fs.rmSync(results, { force: true });

const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const env = {
  ...process.env,
  PIPEC_CHAOS_LONG_CUT_MS: process.env.PIPEC_CHAOS_LONG_CUT_MS ?? '120000',
  PIPEC_CHAOS_RESULTS: results,
};
const run = spawnSync('npx', ['vitest', 'run', 'test/chaos', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env,
});

if (!fs.existsSync(results)) {
  console.error('no results were written (the suite did not run: are PostgreSQL and NATS reachable?)');
  process.exit(run.status || 1);
}
const { longCutMs, table, results: rows } = JSON.parse(fs.readFileSync(results, 'utf8'));
console.log(`\nFault injection, long cut ${longCutMs / 1000} s (${new Date().toISOString()}):\n\n${table}`);
const lost = rows.reduce((sum, r) => sum + r.lost, 0);
console.log(
  `\n${rows.length} scenario(s), ${lost} event(s) lost${run.status === 0 ? '' : ' — some checks FAILED, see above'}`,
);
process.exit(run.status ?? 1);
