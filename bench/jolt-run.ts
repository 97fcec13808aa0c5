/**
 * Command-line driver of bench/jolt.ts, also the target for `node --cpu-prof`:
 *   node --import tsx bench/jolt-run.ts [--fork] [--forks=N] [--json] [seconds] [workload… | jsonata]
 * Prints one line per workload: compiled and hand-written transforms per CPU second, the ratio to
 * the hand-written code, and the multiple of the Java reference. Without workloads: all of them and
 * JSONata; `jsonata` alone: only the JSONata case. `--fork`: each in a fresh process of its own (as
 * `npm run bench` does), in N processes per workload (default 3) reporting the one with the median
 * compiled/hand-written ratio; `--json`: the results as JSON (what a forked run hands back).
 */
import { benchJolt, JSONATA_CASE } from './jolt.js';

const args = process.argv.slice(2);
const json = args.includes('--json');
const fork = args.includes('--fork') || args.some((a) => a.startsWith('--forks='));
const forksArg = args.find((a) => a.startsWith('--forks='));
const [secondsArg, ...named] = args.filter((a) => !a.startsWith('--'));
const seconds = Number(secondsArg ?? '3');
const jsonataOnly = named.length === 1 && named[0] === JSONATA_CASE;
const workloads = named.filter((w) => w !== JSONATA_CASE);
const results = await benchJolt({
  seconds,
  fork,
  ...(forksArg === undefined ? {} : { forks: Number(forksArg.slice('--forks='.length)) }),
  ...(jsonataOnly ? { workloads: [] } : workloads.length > 0 ? { workloads, skipJsonata: true } : {}),
});
if (json) console.log(JSON.stringify(results));
else {
  for (const r of results) {
    const hand =
      r.handOpsPerSec === undefined
        ? ''
        : `  hand ${Math.round(r.handOpsPerSec).toLocaleString('en')}/s  compiled/hand ${(r.ofHand ?? 0).toFixed(3)}`;
    console.log(
      `${r.workload.padEnd(22)} ${Math.round(r.opsPerSec).toLocaleString('en').padStart(11)}/s  ×Java ${r.ratio.toFixed(2)}${hand}`,
    );
  }
}
