import { readFileSync } from 'node:fs';
import { compileJoltChain, locateInJson } from '../../compiler/jolt/index.js';
const w = process.argv[2]!;
const spec = JSON.parse(readFileSync(`/work/shared/bench/jolt/${w}/spec.json`, 'utf8'));
console.log(compileJoltChain(spec, locateInJson('x', '')).js);
