import { createLogger } from '../../dist/runtime/service/logging.js';
import fs from 'node:fs';
const l = createLogger({ level: 'info', service: 'x', destination: fs.createWriteStream('/dev/null') });
const N = 100000;
for (let k=0;k<3;k++){
let t = performance.now();
for (let i=0;i<N;i++) { const c = l.child({ executionId: 'abc-def', pipeline: 'order-flow' }); }
const tc = (performance.now()-t)*1000/N; t = performance.now();
for (let i=0;i<N;i++) { l.info({ executionId: 'abc-def', pipeline: 'order-flow', outcome: 'success', durationMs: 1 }, 'execution finished'); }
const ti = (performance.now()-t)*1000/N; t = performance.now();
for (let i=0;i<N;i++) { l.child({ executionId: 'abc-def', pipeline: 'order-flow' }).info({ outcome: 'success', durationMs: 1 }, 'execution finished'); }
const tci = (performance.now()-t)*1000/N;
console.log(`child ${tc.toFixed(2)} info ${ti.toFixed(2)} child+info ${tci.toFixed(2)}`);
}
