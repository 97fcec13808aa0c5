/**
 * Codegen goldens: each test/codegen/<case>/input.pipe is built, and the generated TypeScript
 * (service.ts, server.ts, pipelines/*.ts, capsules/*.ts) is compared byte for byte with
 * <case>/expected/. The generated service is then started in-process and must answer /health, so a
 * golden that matches also runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { writeService } from '../../compiler/cli/build-command.js';
import { createFakeBackends } from '../../runtime/service/test-support/fake-backends.js';
import { compileForTest } from './compile-case.js';
import { expectGolden } from './golden.js';

const root = path.resolve(import.meta.dirname, '../codegen');
const cases = fs
  .readdirSync(root)
  .filter((c) => fs.existsSync(path.join(root, c, 'input.pipe')))
  .sort();

describe('codegen goldens', () => {
  it('has at least 3 cases', () => expect(cases.length).toBeGreaterThanOrEqual(3));

  for (const name of cases) {
    it(name, async () => {
      const dir = path.join(root, name);
      const result = compileForTest([path.join(dir, 'input.pipe')], { base: dir, emit: true, serviceName: name });
      expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const files = (result.files ?? []).filter((f) => f.path.endsWith('.ts') && !f.path.endsWith('.d.ts'));
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) expectGolden(path.join(dir, 'expected', file.path), file.text);

      const outDir = path.resolve(import.meta.dirname, '../.tmp', `codegen-${name}-${process.pid}`);
      writeService(outDir, result.files ?? []);
      const definition = ((await import(pathToFileURL(path.join(outDir, 'service.js')).href)) as { service: never })
        .service;
      const runtime = (await import(
        pathToFileURL(path.join(outDir, 'runtime', 'index.js')).href
      )) as typeof import('../../runtime/index.js');
      const service = await runtime.createService(definition, {
        backends: createFakeBackends(),
        startTriggers: false,
        dataDir: outDir,
      });
      const health = await service.app.request('/health');
      expect(health.status).toBe(200);
      await service.stop(100);
    });
  }
});
