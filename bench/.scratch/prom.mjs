import { Counter, Histogram, Gauge, Registry } from 'prom-client';
const r = new Registry();
const c = new Counter({ name: 'c', help: 'h', labelNames: ['pipeline','outcome'], registers: [r] });
const h = new Histogram({ name: 'h', help: 'h', labelNames: ['pipeline','outcome'], registers: [r], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300] });
const g = new Gauge({ name: 'g', help: 'h', labelNames: ['pipeline'], registers: [r] });
const N = 1e6;
for (let k=0;k<3;k++){
let t = performance.now();
for (let i=0;i<N;i++) c.inc({pipeline:'order-flow', outcome:'success'});
const tc = (performance.now()-t)*1000/N; t = performance.now();
for (let i=0;i<N;i++) h.observe({pipeline:'order-flow', outcome:'success'}, 0.0002);
const th = (performance.now()-t)*1000/N; t = performance.now();
for (let i=0;i<N;i++) { g.inc({pipeline:'order-flow'}); g.dec({pipeline:'order-flow'}); }
const tg = (performance.now()-t)*1000/N; t = performance.now();
const ac = []; for (let i=0;i<N/10;i++) { const a = new AbortController(); ac.push(a.signal.aborted); }
const ta = (performance.now()-t)*1000/(N/10); t = performance.now();
for (let i=0;i<N/10;i++) { const a = new AbortController(); AbortSignal.any([a.signal]); }
const tany = (performance.now()-t)*1000/(N/10); t = performance.now();
for (let i=0;i<N/10;i++) { clearTimeout(setTimeout(()=>{}, 30000)); }
const tt = (performance.now()-t)*1000/(N/10);
console.log(`counter ${tc.toFixed(3)}us hist ${th.toFixed(3)}us gauge inc+dec ${tg.toFixed(3)}us abortcontroller ${ta.toFixed(3)} any ${tany.toFixed(3)} timer ${tt.toFixed(3)}`);
}
