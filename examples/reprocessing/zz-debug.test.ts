import path from 'node:path';
import { it } from 'vitest';
import { buildService, ManualClock, postJson } from '../../test/e2e/in-process.js';
import { REPO_ROOT } from '../../test/e2e/service-process.js';
import { capturingLogger, isolatedBackend, sleep } from './test-support.js';

it('debug', async () => {
  const built = await buildService([path.join(REPO_ROOT, 'examples/error-handling'), path.join(REPO_ROOT, 'examples/reprocessing')], 'dbg');
  const log = capturingLogger();
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 8));
  const backend = await isolatedBackend({ name: 'sqlite', run: true, missing: [] }, 'dbg');
  const s = await built.runtime.createService(built.definition, { clock, dataDir: backend.dataDir, env: { ERROR_HANDLING_ORDER_API_URL: 'http://127.0.0.1:9/orders' }, logger: log.logger });
  await s.start();
  console.log(await postJson(s, '/error-handling/orders', { pedidoId: 'cli-1', processoId: 'checkout' }));
  await sleep(1500);
  for (const r of log.records()) if (r.level >= 20) console.log(JSON.stringify({ l: r.level, p: r.pipeline, m: r.msg, e: r['err'] ?? r['error'], s: r['step'], v: r['violations'] }));
  await s.stop(100);
}, 60000);
