import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExecutionContext, Json, PipelineModule } from '../types.js';
import { deferred, httpTrigger, makeTestService, pipelineOf, type TestService } from './test-support/test-service.js';

let t: TestService;
afterEach(async () => {
  await t?.service.stop(200);
});

const post = (svc: TestService, path: string, init: RequestInit = {}): Promise<Response> =>
  Promise.resolve(svc.service.app.request(path, { method: 'POST', ...init }));

describe('execution context', () => {
  it('hands every step the context: metadata, steps, globals, accounts, services', async () => {
    let seen: ExecutionContext | undefined;
    const p = pipelineOf(
      'ctx',
      httpTrigger('/ctx'),
      async (_m, ctx) => {
        seen = ctx;
        return null;
      },
      { timeout: 1234 },
    );
    t = await makeTestService(
      [p],
      {
        globals: { region: 'br', apiBase: { $env: 'API_BASE', default: 'http://default' } },
        accounts: { openai: { key: { $env: 'OPENAI_KEY' }, org: 'acme' } },
      },
      { env: { OPENAI_KEY: 'sk-from-env-123' }, clock: { now: () => 42 } },
    );
    await post(t, '/ctx');
    expect(seen?.metadata).toEqual({
      pipeline: { name: 'ctx' },
      execution: { key: seen?.executionId, startTimestamp: 42, timeout: 1234, redelivery: false },
    });
    expect(Object.getPrototypeOf(seen?.steps)).toBeNull();
    expect(seen?.globals).toEqual({ region: 'br', apiBase: 'http://default' });
    expect(seen?.accounts['openai']).toEqual({ key: 'sk-from-env-123', org: 'acme' });
    expect(seen?.services.clock.now()).toBe(42);
  });

  it('warns about a missing env variable by name only', async () => {
    t = await makeTestService([], { accounts: { db: { password: { $env: 'DB_PASSWORD' } } } });
    expect(t.logs.records.find((r) => r['msg'] === 'environment variable is not set')).toMatchObject({
      variable: 'DB_PASSWORD',
    });
  });

  it('creates the work folder only when used and removes it at the end', async () => {
    const paths: string[] = [];
    const writer = pipelineOf('writer', httpTrigger('/write'), async (_m, ctx) => {
      const file = join(ctx.workDir, 'scratch.txt');
      writeFileSync(file, 'x');
      paths.push(file);
      return null;
    });
    const idle = pipelineOf('idle', httpTrigger('/idle'), async () => null);
    t = await makeTestService([writer, idle]);
    await post(t, '/write');
    expect(paths).toHaveLength(1);
    expect(existsSync(paths[0]!)).toBe(false);
    await post(t, '/idle');
    expect(existsSync(join(t.dataDir, 'tmp'))).toBe(true);
  });

  it('applies declared store options to inserts', async () => {
    const p = pipelineOf('saver', httpTrigger('/save'), async (_m, ctx) => {
      await ctx.services.store.insert('sessions', [{ a: 1 }]);
      await ctx.services.store.insert('other', [{ a: 1 }]);
      return null;
    });
    t = await makeTestService([p], { stores: { sessions: { expireAfterSeconds: 60 } } });
    await post(t, '/save');
    expect(t.backends.store.insertOptions).toEqual([
      { store: 'sessions', opts: { expireAfterSeconds: 60 } },
      { store: 'other', opts: undefined },
    ]);
  });
});

describe('concurrency', () => {
  it('queues executions beyond the pipeline concurrency', async () => {
    let active = 0;
    let peak = 0;
    const twoRunning = deferred();
    const release = deferred();
    const p = pipelineOf(
      'limited',
      httpTrigger('/limited'),
      async () => {
        active++;
        peak = Math.max(peak, active);
        if (active === 2) twoRunning.resolve();
        await release.promise;
        active--;
        return null;
      },
      { concurrency: 2 },
    );
    t = await makeTestService([p]);
    const answers = Promise.all(Array.from({ length: 6 }, () => post(t, '/limited').then((r) => r.status)));
    await twoRunning.promise;
    // In-process requests need no I/O: one turn of the event loop lets any execution the queue
    // wrongly admitted start too.
    await new Promise((resolve) => setImmediate(resolve));
    release.resolve();
    const statuses = await answers;
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    expect(peak).toBe(2);
  });

  it('times out an execution still waiting in the queue', async () => {
    const gate = deferred();
    const p = pipelineOf(
      'single',
      httpTrigger('/single'),
      async () => {
        await gate.promise;
        return null;
      },
      { concurrency: 1, timeout: 60 },
    );
    t = await makeTestService([p]);
    const first = post(t, '/single');
    const second = await post(t, '/single');
    expect(second.status).toBe(500);
    expect(await second.json()).toMatchObject({ error: 'execution timed out' });
    gate.resolve();
    await first;
  });
});

describe('run()', () => {
  it('returns outcomes and applies trigger validation', async () => {
    const validate = Object.assign((d: unknown) => typeof d === 'number', {
      errors: [
        {
          instancePath: '',
          schemaPath: '#/type',
          keyword: 'type',
          params: { type: 'number' },
          message: 'must be number',
        },
      ],
    });
    const p = pipelineOf(
      'ev',
      { kind: 'event', event: 'e', expiration: 1, maxTimeout: 1000, maxDeliveries: 1, validateBody: validate },
      async (m, ctx) => ({ m, redelivery: ctx.metadata.execution.redelivery }),
    );
    t = await makeTestService([p]);
    expect(await t.service.run('ev', 5, { redelivery: true })).toMatchObject({
      ok: true,
      result: { m: 5, redelivery: true },
    });
    expect(await t.service.run('ev', 'x')).toMatchObject({
      ok: false,
      error: { code: 422, kind: 'VALIDATION', violations: [{ path: '/', message: 'must be number' }] },
    });
    await expect(t.service.run('missing', null)).rejects.toThrow('unknown pipeline "missing"');
  });

  it('finishes a synchronous pipeline at once, with its execution id made only when asked for', async () => {
    const seen: string[] = [];
    const p = pipelineOf('now', httpTrigger('/now'), (m, ctx) => {
      if (m === 'boom') throw new Error('sync failure');
      if (m === 'id') seen.push(ctx.executionId);
      return { m };
    });
    t = await makeTestService([p]);
    const ok = await t.service.run('now', 1);
    expect(ok).toMatchObject({ ok: true, result: { m: 1 } });
    expect(ok.executionId).toMatch(/^[0-9a-f-]{36}$/);
    const asked = await t.service.run('now', 'id');
    expect(asked.executionId).toBe(seen[0]);
    const failed = await t.service.run('now', 'boom');
    expect(failed).toMatchObject({ ok: false, error: { code: 500, error: 'Internal error' } });
    expect(failed.executionId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await post(t, '/now', { body: '{"a":1}', headers: { 'content-type': 'application/json' } })).status).toBe(
      200,
    );
    // Nothing is left counted in flight: a shutdown drains at once.
    const text = await (await t.service.app.request('/metrics')).text();
    expect(text).toMatch(/pipec_executions_in_flight\{pipeline="now",service="test"\} 0/);
    expect(text).toMatch(/pipec_executions_total\{pipeline="now",outcome="success",service="test"\} 3/);
    expect(await t.service.stop(1)).toBeUndefined();
  });

  it('still queues an execution that would answer synchronously until a slot is free', async () => {
    const gate = deferred<void>();
    let running = 0;
    const p = pipelineOf(
      'slot',
      httpTrigger('/slot'),
      (m) => {
        running += 1;
        if (m === 'hold') return gate.promise.then(() => m);
        return m;
      },
      { concurrency: 1 },
    );
    t = await makeTestService([p]);
    const held = t.service.run('slot', 'hold');
    const queued = t.service.run('slot', 'next');
    // In-process runs need no I/O: one turn of the event loop would let a wrongly admitted one start.
    await new Promise((resolve) => setImmediate(resolve));
    expect(running).toBe(1);
    gate.resolve();
    expect(await held).toMatchObject({ ok: true, result: 'hold' });
    expect(await queued).toMatchObject({ ok: true, result: 'next' });
    expect(running).toBe(2);
  });

  it('refuses two pipelines on the same route', async () => {
    const a = pipelineOf('a', httpTrigger('/same'), async () => null);
    const b = pipelineOf('b', httpTrigger('/same'), async () => null);
    await expect(makeTestService([a, b])).rejects.toThrow('pipelines "a" and "b" both handle POST /same');
  });
});

describe('health, readiness and metrics', () => {
  it('/health is always 200; /ready follows the lifecycle', async () => {
    t = await makeTestService([pipelineOf('p', httpTrigger('/p'), async () => null)]);
    expect((await t.service.app.request('/health')).status).toBe(200);
    expect((await t.service.app.request('/ready')).status).toBe(503);
    await t.service.start();
    const ready = await t.service.app.request('/ready');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
    await t.service.stop(50);
    expect((await t.service.app.request('/ready')).status).toBe(503);
    expect((await t.service.app.request('/health')).status).toBe(200);
  });

  it('/metrics exposes executions, durations and in-flight from the service registry', async () => {
    let n = 0;
    const p = pipelineOf('counted', httpTrigger('/c'), async () => {
      if (++n === 2) throw new Error('x');
      return null;
    });
    t = await makeTestService([p]);
    await post(t, '/c');
    await post(t, '/c');
    const res = await t.service.app.request('/metrics');
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toMatch(/pipec_executions_total\{pipeline="counted",outcome="success",service="test"\} 1/);
    expect(text).toMatch(/pipec_executions_total\{pipeline="counted",outcome="error",service="test"\} 1/);
    expect(text).toContain('pipec_execution_duration_seconds_bucket');
    expect(text).toMatch(/pipec_executions_in_flight\{pipeline="counted",service="test"\} 0/);
    expect(text).not.toContain('process_cpu'); // not the global default registry
  });
});

describe('graceful shutdown', () => {
  it('lets an in-flight request finish, answers 503 to new ones, then closes backends', async () => {
    const gate = deferred();
    const started = deferred();
    const p = pipelineOf('slow', httpTrigger('/slow'), async () => {
      started.resolve();
      await gate.promise;
      return { done: true };
    });
    t = await makeTestService([p]);
    await t.service.start();
    const inFlight = post(t, '/slow');
    await started.promise;
    // stop() turns the service to draining before its first await.
    const stopping = t.service.stop(5_000);
    expect((await t.service.app.request('/ready')).status).toBe(503);
    const refused = await post(t, '/slow');
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: 503, error: 'Service is shutting down' });
    expect(t.backends.closed).toBe(false);
    gate.resolve();
    const finished = await inFlight;
    expect(finished.status).toBe(200);
    expect(await finished.json()).toEqual({ body: { done: true } });
    await stopping;
    expect(t.backends.closed).toBe(true);
  });

  it('aborts executions still running when the grace period ends', async () => {
    let aborted = false;
    const running = deferred();
    const p = pipelineOf(
      'stuck',
      httpTrigger('/stuck'),
      (_m, ctx) =>
        new Promise<Json>((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            resolve(null);
          });
          running.resolve();
        }),
    );
    t = await makeTestService([p]);
    const started = post(t, '/stuck');
    await running.promise;
    await t.service.stop(30);
    expect(aborted).toBe(true);
    expect((await started).status).toBe(503);
  });
});

describe('logs', () => {
  it('carry the execution id on every execution line and never secrets', async () => {
    const p: PipelineModule = pipelineOf('talk', httpTrigger('/talk'), async (_m, ctx) => {
      ctx.log.info({ headers: { authorization: 'Bearer from-step', accept: 'x' } }, 'step says hi');
      return null;
    });
    t = await makeTestService([p], { accounts: { api: { token: 'tok-SECRET-9876' } } });
    const res = await post(t, '/talk', { headers: { authorization: 'Bearer abc.def.ghi', cookie: 'sid=1' } });
    const { executionId } = {
      executionId: t.logs.records.find((r) => r['msg'] === 'execution finished')?.['executionId'],
    };
    expect(res.status).toBe(200);
    const executionLines = t.logs.records.filter((r) => r['pipeline'] === 'talk');
    expect(executionLines.length).toBeGreaterThanOrEqual(2);
    for (const line of executionLines) expect(line['executionId']).toBe(executionId);
    expect(t.logs.text).not.toContain('abc.def.ghi');
    expect(t.logs.text).not.toContain('from-step');
    expect(t.logs.text).not.toContain('tok-SECRET-9876');
    expect(t.logs.text).not.toContain('sid=1');
    expect(t.logs.records.find((r) => r['msg'] === 'step says hi')?.['headers']).toEqual({
      authorization: '[REDACTED]',
      accept: 'x',
    });
  });
});

describe('connections of connectors', () => {
  it('lists a dependency a client could not reach on /ready, and closes clients when the service stops', async () => {
    let up = false;
    let closed = 0;
    const p = pipelineOf('db', httpTrigger('/db'), async (_m, ctx) => {
      await ctx.services.connections.get('fake:orders', 'fake-db (account orders)', async () => {
        if (!up) throw new Error('connect ECONNREFUSED');
        return { client: {}, close: async () => void closed++ };
      });
      return null;
    });
    t = await makeTestService([p]);
    await t.service.start();
    expect((await t.service.app.request('/ready')).status).toBe(200);
    expect((await post(t, '/db')).status).toBe(500);
    const notReady = await t.service.app.request('/ready');
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({ status: 'waiting', waitingFor: ['fake-db (account orders)'] });
    up = true;
    expect((await post(t, '/db')).status).toBe(200);
    expect((await t.service.app.request('/ready')).status).toBe(200);
    await t.service.stop(200);
    expect(closed).toBe(1);
  });
});
