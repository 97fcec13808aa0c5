import { readFileSync } from 'node:fs';
import { joltToFunction } from '../compiler/jolt/index.js';
const w = process.argv[2] ?? 'cardinality-modify';
const spec = JSON.parse(readFileSync(`/work/shared/bench/jolt/${w}/spec.json`,'utf8'));
const input = JSON.parse(readFileSync(`/work/shared/bench/jolt/${w}/input.json`,'utf8'));
const fn = joltToFunction(spec).fn!;
const inPlace = w === 'cardinality-modify';
for (let round = 0; round < 4; round++) {
  const copies = Array.from({length: 1000}, () => inPlace ? structuredClone(input) : input);
  const t = performance.now();
  for (const c of copies) fn(c, {});
  console.log(w, 'ops/s', Math.round(1000 / (performance.now() - t) * 1000));
}
