import { readFileSync } from 'node:fs';
const [file, fname, srcFile] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const src = srcFile ? readFileSync(srcFile, 'utf8').split('\n') : [];
const ticks = new Map();
for (const n of p.nodes) if (n.callFrame.functionName === fname) for (const t of n.positionTicks ?? []) ticks.set(t.line, (ticks.get(t.line) ?? 0) + t.ticks);
const total = [...ticks.values()].reduce((a, b) => a + b, 0);
for (const [line, t] of [...ticks].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(String(t).padStart(6), (100 * t / total).toFixed(1).padStart(5), line, (src[line - 3] ?? '').trim().slice(0, 110));
