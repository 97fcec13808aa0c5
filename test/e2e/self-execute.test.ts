/** A self-executing pipeline under load: more callers than slots, and every call still completes. */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../../runtime/service/create-service.js';
import { createFakeBackends } from '../../runtime/service/test-support/fake-backends.js';
import { buildService, postJson } from './in-process.js';

describe('self-execution', () => {
  let service: Service;
  beforeAll(async () => {
    const built = await buildService([path.join(import.meta.dirname, 'fixtures/self-execute.pipe')], 'self-execute');
    service = await built.runtime.createService(built.definition, {
      backends: createFakeBackends(),
      startTriggers: false,
      dataDir: built.outDir,
    });
  }, 60_000);
  afterAll(async () => service?.stop(100));

  it('8 simultaneous callers of a concurrency-2 pipeline that executes itself all succeed', async () => {
    const started = Date.now();
    const results = await Promise.all(Array.from({ length: 8 }, () => postJson(service, '/sign', {})));
    for (const r of results) expect(r).toEqual({ status: 200, body: { result: { signed: true } } });
    expect(Date.now() - started).toBeLessThan(2900); // well under the 3 s execute timeout: no slot waits
  });
});
