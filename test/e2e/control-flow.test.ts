/**
 * Control flow semantics, in process: choice order, for-each (sequential, parallel, counting),
 * try/catch with the error object, fail-on-error on and off, on-error, result mapping, and a
 * hostile JSONPath over a large document staying within a time bound.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../../runtime/service/create-service.js';
import type { Json } from '../../runtime/types.js';
import { createFakeBackends, type FakeBackends } from '../../runtime/service/test-support/fake-backends.js';
import { buildService, postJson } from './in-process.js';

describe('control flow', () => {
  let service: Service;
  let backends: FakeBackends;
  beforeAll(async () => {
    const built = await buildService([path.join(import.meta.dirname, 'fixtures/control-flow.pipe')], 'control-flow');
    backends = createFakeBackends();
    service = await built.runtime.createService(built.definition, {
      backends,
      startTriggers: false,
      dataDir: built.outDir,
    });
  }, 60_000);
  afterAll(async () => service?.stop(100));

  it('choice: first match wins, JSONPath and {{ }} conditions, otherwise', async () => {
    const route = async (total: Json) => ((await postJson(service, '/route', { total })).body as { path: string }).path;
    expect(await route(100)).toBe('auto-approve');
    expect(await route(500)).toBe('manager-approval');
    expect(await route(2500)).toBe('director-approval');
    expect(await route(-1)).toBe('auto-approve');
    expect(await route(null)).toBe('auto-approve'); // JSONPath filters compare like JavaScript: null < 500
    // Ordering a string against a number is an error, not a silent false.
    const odd = await postJson(service, '/route', { total: 'n/a' });
    expect(odd.status).toBe(500);
    expect(String((odd.body as { error: string }).error)).toContain('cannot order');
  });

  it("choice: Jayway's word operators (in, noneof, size, empty) in a JSONPath condition", async () => {
    const route = async (body: Json) =>
      ((await postJson(service, '/route-status', body)).body as { path: string }).path;
    expect(await route({ status: 'PAID', tags: ['vip'] })).toBe('open');
    expect(await route({ status: 'PAID', tags: ['blocked'], items: [] })).toBe('empty');
    expect(await route({ status: 'DONE', tags: [] })).toBe('empty');
    expect(await route({ status: 'DONE', tags: ['x'], items: [1] })).toBe('other');
    expect(await route({})).toBe('other'); // missing fields: no match, no error
  });

  it('for-each runs the body once per element and reports { total, success, failed }', async () => {
    const res = await postJson(service, '/loop', { items: ['a', 'b', 'c'] });
    expect(res).toEqual({ status: 200, body: { body: { total: 3, success: 3, failed: 0 } } });
    const stored = await backends.store.find('visits', { item: { $exists: true } });
    expect(stored.map((d) => d['item']).sort()).toEqual(['a', 'b', 'c']);
  });

  it('parallel for-each counts failed elements without stopping the loop', async () => {
    const res = await postJson(service, '/loop-parallel', { items: ['a', 'bad', 'c', 'd', 'bad'] });
    expect(res).toEqual({ status: 200, body: { total: 5, success: 3, failed: 2 } });
  });

  it('labelled steps inside a parallel for-each are private to each element', async () => {
    await postJson(service, '/loop-labels', { items: [1, 2, 3, 4] });
    const stored = await backends.store.find('visits', { kind: 'label' });
    expect(stored.map((d) => d['own']).sort()).toEqual([1, 2, 3, 4]);
  });

  it('try/catch: the caught message is the error object', async () => {
    const res = await postJson(service, '/catch', { zero: 0 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ caught: expect.stringContaining('division by zero'), code: 500 });
  });

  it('fail-on-error off: the flow continues with success: false', async () => {
    const res = await postJson(service, '/soft', { zero: 0 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ continued: true, previous: { success: false, code: 500 } });
  });

  it('on-error runs, then the execution still fails with the original error', async () => {
    const res = await postJson(service, '/on-error', {});
    expect(res.status).toBe(409);
    expect((res.body as { error: string }).error).toBe('conflict');
    const recorded = await backends.store.find('visits', { failed: 'conflict' });
    expect(recorded).toHaveLength(1);
  });

  it('result mapping: { code, body, Content-Type } and { code, error }', async () => {
    const created = await service.app.request('/mapped', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ created: true });
    const teapot = await postJson(service, '/mapped-error', {});
    expect(teapot.status).toBe(418);
  });

  it('a hostile JSONPath ($..* on a ~1 MB document) stays within a time bound', async () => {
    const big = {
      levels: Array.from({ length: 2000 }, (_, i) => ({
        id: i,
        tags: Array.from({ length: 20 }, (_, j) => `t${j}`),
        nested: { a: { b: { c: i } } },
      })),
    };
    const started = Date.now();
    const res = await postJson(service, '/hostile', big);
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 20_000);
});
