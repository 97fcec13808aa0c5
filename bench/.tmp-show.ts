import { compileJoltChain } from '/work/main/compiler/jolt/index.ts';
import { readFileSync } from 'node:fs';
const w = process.argv[2];
console.log(compileJoltChain(JSON.parse(readFileSync(`/work/shared/bench/jolt/${w}/spec.json`,'utf8')), () => ({file:'',start:0,end:0})).js);
