import { readFileSync } from 'node:fs';
import * as J from '../runtime/jolt/index.js';
import { compileJoltChain } from '../compiler/jolt/index.js';
const w = process.argv[2] ?? 'shift-order';
const input = JSON.parse(readFileSync(`/work/shared/bench/jolt/${w}/input.json`,'utf8'));
const js = compileJoltChain(JSON.parse(readFileSync(`/work/shared/bench/jolt/${w}/spec.json`,'utf8')), () => ({file:'',start:0,end:0})).js;
const fNs = new Function('J','X', 'return ' + js)(J, {});
const fObj = new Function('J','X', 'return ' + js)({...J}, {});
for (const [name, f] of [['ns', fNs], ['obj', fObj], ['ns', fNs], ['obj', fObj]] as const) {
  const s = process.cpuUsage(); let n = 0;
  while (true) { for (let k = 0; k < 200; k++) f(input, {}); n += 200; const u = process.cpuUsage(s); if (u.user + u.system > 1e6) { console.log(name, Math.round(n / (u.user + u.system) * 1e6)); break; } }
}
