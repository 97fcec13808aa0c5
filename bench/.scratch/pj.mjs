import { parseJsonText, excessiveDepthAt, parseRequestBody } from '../../dist/runtime/service/envelope.js';
import fs from 'node:fs';
const text = fs.readFileSync('/work/shared/bench/order-flow/order.json','utf8');
const bytes = new Uint8Array(Buffer.from(text));
const N = 50000;
for (let k=0;k<3;k++){
let t = performance.now();
for (let i=0;i<N;i++) JSON.parse(text);
const a = (performance.now()-t)*1000/N; t = performance.now();
for (let i=0;i<N;i++) parseJsonText(text);
const b = (performance.now()-t)*1000/N; t = performance.now();
for (let i=0;i<N;i++) parseRequestBody(bytes, 'application/json');
const c = (performance.now()-t)*1000/N; t = performance.now();
for (let i=0;i<N;i++) excessiveDepthAt(text, 512);
const d = (performance.now()-t)*1000/N;
console.log(`JSON.parse ${a.toFixed(2)} parseJsonText ${b.toFixed(2)} parseRequestBody ${c.toFixed(2)} depthscan ${d.toFixed(2)}`);
}
