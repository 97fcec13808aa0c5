// Compare the generated chain under textual variants, alternating, CPU time.
import { readFileSync } from 'node:fs';
import * as J from '../../runtime/jolt/index.js';
import { compileJoltChain, locateInJson } from '../../compiler/jolt/index.js';
const w = process.argv[2]!;
const dir = `/work/shared/bench/jolt/${w}`;
const js = compileJoltChain(JSON.parse(readFileSync(`${dir}/spec.json`, 'utf8')), locateInJson('x', '')).js;
const input = JSON.parse(readFileSync(`${dir}/input.json`, 'utf8'));
const copies = w === 'cardinality-modify';
const variants: Record<string, (x: unknown) => unknown> = {};
const mk = (src: string, j: unknown) => (new Function('J', 'X', `return ${src};`)(j, {}) as (x: unknown) => unknown);
variants.base = mk(js, J);
variants.plainJ = mk(js, { ...J });
const extra = process.argv[3];
if (extra) {
  let src = js;
  for (const e of extra.split('||')) { const [from, to] = e.split('=>'); if (!src.includes(from!)) throw new Error('no ' + from); src = src.split(from!).join(to!); }
  variants.edit = mk(src, J);
  if (process.env.SHOW) console.log(src);
}
const totals: Record<string, [number, number]> = {};
for (let round = 0; round < 6; round++) for (const [name, fn] of Object.entries(variants)) {
  let ops = 0, ms = 0;
  while (ms < 500) {
    const inputs = Array.from({ length: 100 }, () => (copies ? structuredClone(input) : input));
    const s = process.cpuUsage(); for (const x of inputs) fn(x); const u = process.cpuUsage(s);
    ms += (u.user + u.system) / 1000; ops += 100;
  }
  if (round > 0) { const t = totals[name] ?? [0, 0]; t[0] += ops; t[1] += ms; totals[name] = t; }
}
for (const [name, [ops, ms]] of Object.entries(totals)) console.log(w, name, Math.round(ops / ms * 1000));
