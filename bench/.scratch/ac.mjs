const N = 200000;
for (let k=0;k<3;k++){
let t = performance.now(); let x=0;
for (let i=0;i<N;i++) { const a = new AbortController(); x += a.signal.aborted ? 1 : 0; }
const ta = (performance.now()-t)*1000/N; t = performance.now();
for (let i=0;i<N;i++) { const a = new AbortController(); a.signal.addEventListener('abort', ()=>{}, {once:true}); }
const tl = (performance.now()-t)*1000/N; t = performance.now();
for (let i=0;i<N;i++) { const o = {aborted:false, l: null}; o.l = ()=>{}; x+= o.aborted?1:0; }
const to = (performance.now()-t)*1000/N;
console.log(`ac ${ta.toFixed(3)} ac+listener ${tl.toFixed(3)} obj ${to.toFixed(3)}`);
}
