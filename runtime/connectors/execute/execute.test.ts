import { afterEach, describe, expect, it } from 'vitest';
import { PipeError } from '../../errors.js';
import type { Json } from '../../types.js';
import {
  deferred,
  httpTrigger,
  makeTestService,
  pipelineOf,
  type TestService,
} from '../../service/test-support/test-service.js';
import { run, type ExecuteParams } from './execute.js';

let t: TestService;
afterEach(async () => {
  await t?.service.stop(200);
});

/** A caller pipeline whose only step is the execute connector with `params`. */
function caller(params: ExecuteParams) {
  return pipelineOf('caller', httpTrigger('/call'), (message, ctx) => run(params, message, ctx));
}

const eventTrigger = {
  kind: 'event',
  event: 'unused',
  expiration: 600_000,
  maxTimeout: 30_000,
  maxDeliveries: 1,
} as const;

describe('execute connector (Pipeline Executor)', () => {
  it('SYNC returns the called pipeline response', async () => {
    const callee = pipelineOf('callee', eventTrigger, async (m, ctx) => ({
      doubled: (m as { n: number }).n * 2,
      parentSeen: ctx.executionId !== '',
    }));
    t = await makeTestService([caller({ pipeline: 'callee', payload: { n: 21 } }), callee]);
    const outcome = await t.service.run('caller', null);
    expect(outcome).toMatchObject({
      ok: true,
      result: {
        operation: 'SYNC',
        pipelineName: 'callee',
        success: true,
        payload: { n: 21 },
        pipelineResponse: { doubled: 42, parentSeen: true },
      },
    });
    const childLine = t.logs.records.find((r) => r['pipeline'] === 'callee' && r['msg'] === 'execution finished');
    expect(childLine?.['parentExecutionId']).toBe(outcome.executionId);
  });

  it('SYNC rethrows the called pipeline failure as a PipeError with its code', async () => {
    const callee = pipelineOf('callee', eventTrigger, async () => {
      throw new PipeError('no such customer', { code: 404, kind: 'NOT_FOUND' });
    });
    t = await makeTestService([caller({ pipeline: 'callee' }), callee]);
    const outcome = await t.service.run('caller', { x: 1 });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toMatchObject({ code: 404, error: 'no such customer', pipelineName: 'callee' });
    expect(typeof outcome.error['childExecutionId']).toBe('string');
  });

  it('SYNC fails with a timeout when the called pipeline is too slow', async () => {
    const callee = pipelineOf(
      'callee',
      eventTrigger,
      (_m, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(null))),
    );
    t = await makeTestService([caller({ pipeline: 'callee', timeout: 30 }), callee]);
    const outcome = await t.service.run('caller', null);
    expect(outcome).toMatchObject({ ok: false, error: { error: 'execution timed out', code: 500 } });
  });

  it('ASYNC returns at once and the called pipeline still runs', async () => {
    const gate = deferred();
    const received = deferred<Json>();
    const callee = pipelineOf('callee', eventTrigger, async (m) => {
      await gate.promise;
      received.resolve(m);
      return null;
    });
    t = await makeTestService([caller({ pipeline: 'callee', mode: 'async' }), callee]);
    const outcome = await t.service.run('caller', { order: 9 });
    expect(outcome).toMatchObject({
      ok: true,
      result: { operation: 'ASYNC', pipelineName: 'callee', success: true, payload: { order: 9 } },
    });
    gate.resolve();
    expect(await received.promise).toEqual({ order: 9 });
  });

  it('ASYNC failures are only logged', async () => {
    const failed = deferred();
    const callee = pipelineOf('callee', eventTrigger, async () => {
      setImmediate(() => failed.resolve());
      throw new PipeError('boom', { code: 500 });
    });
    t = await makeTestService([caller({ pipeline: 'callee', mode: 'async' }), callee]);
    const outcome = await t.service.run('caller', null);
    expect(outcome.ok).toBe(true);
    await failed.promise;
    await new Promise((r) => setTimeout(r, 20));
    expect(
      t.logs.records.some((r) => r['msg'] === 'asynchronous pipeline execution failed' && r['error'] === 'boom'),
    ).toBe(true);
  });

  it('respects the called pipeline concurrency limit', async () => {
    let active = 0;
    let peak = 0;
    const callee = pipelineOf(
      'callee',
      eventTrigger,
      async () => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 20));
        active--;
        return null;
      },
      { concurrency: 2 },
    );
    t = await makeTestService([caller({ pipeline: 'callee' }), callee]);
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => t.service.run('caller', null)));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(peak).toBe(2);
  });

  it('rejects invalid parameters with a PipeError', async () => {
    t = await makeTestService([caller({ pipeline: 'callee', mode: 'later' as 'sync' })]);
    const outcome = await t.service.run('caller', null);
    expect(outcome).toMatchObject({ ok: false, error: { code: 500, error: 'execute: unknown mode "later"' } });
  });
});
