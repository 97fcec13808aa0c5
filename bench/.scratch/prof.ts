import { readFileSync } from 'node:fs';
import { joltToFunction } from '../../compiler/jolt/index.js';
const w = process.argv[2]!;
const secs = Number(process.argv[3] ?? 3);
const dir = `/work/shared/bench/jolt/${w}`;
const fn = joltToFunction(JSON.parse(readFileSync(`${dir}/spec.json`, 'utf8'))).fn!;
const input = JSON.parse(readFileSync(`${dir}/input.json`, 'utf8'));
const copies = w === 'cardinality-modify';
let ops = 0, ms = 0;
while (ms < secs * 1000) {
  const inputs = Array.from({ length: 200 }, () => (copies ? structuredClone(input) : input));
  const s = process.cpuUsage();
  for (const x of inputs) fn(x, {});
  const u = process.cpuUsage(s); ms += (u.user + u.system) / 1000; ops += 200;
}
console.log(w, Math.round(ops / ms * 1000));
