import { service } from '/tmp/of-out/service.js';
import { createService } from '/tmp/of-out/runtime/index.js';
import fs from 'node:fs';
import pino from 'pino';
const body = fs.readFileSync('/work/shared/bench/order-flow/order.json','utf8');
const svc = await createService(service, { dataDir: '/tmp/of-data2', logger: pino({level:'warn'}) });
await svc.start();
const N = +process.argv[2] || 2000;
for (let round=0; round<3; round++) {
  const t0 = performance.now(); const c0 = process.cpuUsage();
  for (let i=0;i<N;i++) { const r = await svc.app.request('/order-flow/orders',{method:'POST',body,headers:{'content-type':'application/json'}}); await r.text(); }
  const cu = process.cpuUsage(c0);
  console.log('wall per req us', ((performance.now()-t0)*1000/N).toFixed(0), 'cpu per req us', ((cu.user+cu.system)/N).toFixed(0));
}
await svc.stop(100);
