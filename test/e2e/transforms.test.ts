/** JOLT, JSLT and JSON Transformer in pipelines end to end, including hostile keys in the input. */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../../runtime/service/create-service.js';
import { createFakeBackends } from '../../runtime/service/test-support/fake-backends.js';
import { buildService } from './in-process.js';

describe('transformation connectors in a pipeline', () => {
  let service: Service;
  beforeAll(async () => {
    const built = await buildService([path.join(import.meta.dirname, 'fixtures/transforms.pipe')], 'transforms');
    service = await built.runtime.createService(built.definition, {
      backends: createFakeBackends(),
      startTriggers: false,
      dataDir: built.outDir,
    });
  }, 60_000);
  afterAll(async () => service?.stop(100));

  const post = async (route: string, body: string) => {
    const res = await service.app.request(route, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('chains JOLT → JSLT → JSON Transformer, with step outputs kept', async () => {
    const res = await post(
      '/reshape',
      JSON.stringify({
        orderId: 'o-1',
        customer: { name: 'Ana' },
        items: [
          { sku: 'a', qty: 2 },
          { sku: 'b', qty: 3 },
        ],
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body['shaped']).toEqual({
      id: 'o-1',
      client: { name: 'Ana' },
      lines: [
        { code: 'a', quantity: 2 },
        { code: 'b', quantity: 3 },
      ],
      currency: 'BRL',
    });
    expect(res.body['final']).toEqual({ id: 'o-1', count: 2, units: 5, label: 'order o-1' });
  });

  it('__proto__ / constructor / prototype keys in the input stay data through JOLT and JSLT', async () => {
    const res = await post(
      '/hostile-keys',
      '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "plain": 1}',
    );
    expect(res.status).toBe(200);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const body = res.body['body'] as { keys: string[]; all: Record<string, unknown> };
    expect(body.keys.sort()).toEqual(['__proto__', 'constructor', 'plain']);
    expect(Object.hasOwn(body.all, '__proto__')).toBe(true);
  });
});
