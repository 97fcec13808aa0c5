/** Capsules end to end: parameters reach `capsule.<param>`, the contract types and guards the output. */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../../runtime/service/create-service.js';
import { createFakeBackends } from '../../runtime/service/test-support/fake-backends.js';
import { buildService, postJson } from './in-process.js';

describe('capsules', () => {
  let service: Service;
  beforeAll(async () => {
    const built = await buildService([path.join(import.meta.dirname, 'fixtures/capsules.pipe')], 'capsules');
    service = await built.runtime.createService(built.definition, {
      backends: createFakeBackends(),
      startTriggers: false,
      dataDir: built.outDir,
    });
  }, 60_000);
  afterAll(async () => service?.stop(100));

  it('runs the capsule with its parameters and hands its output to the next step', async () => {
    const res = await postJson(service, '/tag', { id: '42', kind: 'cust' });
    expect(res).toEqual({
      status: 200,
      body: { tagged: { id: 'cust-42', region: 'BR' }, region: 'BR', seen: 'cust-42' },
    });
  });

  it('an output that breaks the contract fails the call', async () => {
    const res = await postJson(service, '/broken', {});
    expect(res.status).toBe(500);
    expect(String((res.body as { error: string }).error)).toContain('broke its output contract');
  });
});
