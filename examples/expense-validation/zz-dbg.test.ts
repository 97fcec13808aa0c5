import fs from 'node:fs';
import path from 'node:path';
import { it } from 'vitest';
import { buildService } from '../../test/e2e/in-process.js';
import { REPO_ROOT, tempDir } from '../../test/e2e/service-process.js';
it('dbg', async () => {
  const built = await buildService([path.join(REPO_ROOT, 'examples/expense-validation')], 'dbg');
  const service = await built.runtime.createService(built.definition, { env: { LOG_LEVEL: 'silent' }, dataDir: tempDir('dbg') });
  await service.start();
  const form = new FormData();
  form.append('report', new Blob([fs.readFileSync(path.join(REPO_ROOT, 'examples/expense-validation/sample-report.pdf'))], { type: 'application/pdf' }), 'x.pdf');
  const res = await service.app.request('/expense-validation/reports', { method: 'POST', body: form });
  console.log(res.status, await res.text());
  console.log(built.outDir);
  await service.stop(100);
});
