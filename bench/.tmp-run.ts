import { benchJolt } from '/work/main/bench/jolt.ts';
const r = await benchJolt({ seconds: 2 });
for (const x of r) console.log(x.workload.padEnd(24), Math.round(x.opsPerSec), x.javaOpsPerSec, x.ratio.toFixed(2));
