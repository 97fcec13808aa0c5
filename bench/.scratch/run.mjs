import { service } from '/tmp/of-out/service.js';
import { createService } from '/tmp/of-out/runtime/index.js';
import fs from 'node:fs';
import pino from 'pino';
const body = JSON.parse(fs.readFileSync('/work/shared/bench/order-flow/order.json','utf8'));
const svc = await createService(service, { dataDir: '/tmp/of-data2', logger: pino({level: process.env.LVL ?? 'warn'}, fs.createWriteStream('/dev/null')) });
await svc.start();
const N = +process.argv[2] || 20000;
const env = () => ({ body, headers: {'content-type':'application/json'}, queryAndPath: {}, method: 'POST', path: '/order-flow/orders', contentType: 'application/json' });
for (let round=0; round<4; round++) {
  const c0 = process.cpuUsage();
  for (let i=0;i<N;i++) { const r = await svc.run('order-flow', env()); if (!r.ok) throw new Error(JSON.stringify(r)); }
  const cu = process.cpuUsage(c0);
  console.log('engine+pipeline cpu per exec us', ((cu.user+cu.system)/N).toFixed(1));
}
await svc.stop(100);
