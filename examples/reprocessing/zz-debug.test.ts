import path from 'node:path';
import { it } from 'vitest';
import { buildService, ManualClock, postJson } from '../../test/e2e/in-process.js';
import { REPO_ROOT } from '../../test/e2e/service-process.js';
import { capturingLogger, isolatedBackend, sleep } from '../../examples/reprocessing/test-support.js';

it('debug', async () => {
  const built = await buildService([path.join(REPO_ROOT, 'examples/reprocessing')], 'dbg');
  const log = capturingLogger();
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 8));
  const backend = await isolatedBackend({ name: 'sqlite', run: true, missing: [] }, 'dbg');
  const s = await built.runtime.createService(built.definition, { clock, dataDir: backend.dataDir, env: {}, logger: log.logger });
  await s.start();
  console.log(await postJson(s, '/reprocessing/orders', { orderId: 'x', failTimes: 99, maxRetry: 3, intervalRetry: 1 }));
  await sleep(1000);
  clock.advance(60000);
  console.log(JSON.stringify(await s.fireSchedule('reprocess-timer')));
  await sleep(1500);
  for (const r of log.records()) if (r.level >= 20) console.log(JSON.stringify({ l: r.level, p: r.pipeline, m: r.msg, e: r['err'] ?? r['error'], s: r['step'] }));
  await s.stop(100);
}, 60000);
