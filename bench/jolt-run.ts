/**
 * Command-line driver of bench/jolt.ts, also the target for `node --cpu-prof`:
 *   node --import tsx bench/jolt-run.ts [seconds] [workload…]
 * Prints one line per workload: compiled and hand-written transforms per CPU second, the ratio to
 * the hand-written code, and the multiple of the Java reference.
 */
import { benchJolt } from './jolt.js';

const [secondsArg, ...workloads] = process.argv.slice(2);
const seconds = Number(secondsArg ?? '3');
const results = await benchJolt({ seconds, ...(workloads.length > 0 ? { workloads, skipJsonata: true } : {}) });
for (const r of results) {
  const hand =
    r.handOpsPerSec === undefined
      ? ''
      : `  hand ${Math.round(r.handOpsPerSec).toLocaleString('en')}/s  compiled/hand ${(r.ofHand ?? 0).toFixed(3)}`;
  console.log(
    `${r.workload.padEnd(22)} ${Math.round(r.opsPerSec).toLocaleString('en').padStart(11)}/s  ×Java ${r.ratio.toFixed(2)}${hand}`,
  );
}
