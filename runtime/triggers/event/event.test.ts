import { afterEach, describe, expect, it } from 'vitest';
import { PipeError } from '../../errors.js';
import type { CompiledValidator, Json } from '../../types.js';
import type { EventTriggerSpec } from './event.js';
import { makeTestService, pipelineOf, type TestService } from '../../service/test-support/test-service.js';

let t: TestService;
afterEach(async () => {
  await t?.service.stop(200);
});

function eventTrigger(extra: Partial<EventTriggerSpec> = {}): EventTriggerSpec {
  return { kind: 'event', event: 'order-created', expiration: 600_000, maxTimeout: 5_000, maxDeliveries: 3, ...extra };
}

const requireId: CompiledValidator = Object.assign(
  (data: unknown): boolean => {
    const ok = typeof data === 'object' && data !== null && typeof (data as Record<string, unknown>)['id'] === 'string';
    requireId.errors = ok ? null : [{ instancePath: '', schemaPath: '#/required', keyword: 'required', params: { missingProperty: 'id' }, message: "must have required property 'id'" }];
    return ok;
  },
  { errors: null },
);

describe('event trigger', () => {
  it('runs the pipeline with the payload as the message', async () => {
    const seen: Json[] = [];
    t = await makeTestService([pipelineOf('on-order', eventTrigger(), async (m) => { seen.push(m); return null; })]);
    await t.service.start();
    await t.backends.broker.publish('order-created', { id: 'o1' });
    await t.backends.broker.idle();
    expect(seen).toEqual([{ id: 'o1' }]);
    expect(await (await t.service.app.request('/metrics')).text())
      .toMatch(/pipec_events_consumed_total\{[^}]*pipeline="on-order"[^}]*outcome="success"[^}]*\} 1/);
  });

  it('rejects a failed execution so the event is redelivered with redelivery=true', async () => {
    const attempts: boolean[] = [];
    t = await makeTestService([pipelineOf('on-order', eventTrigger(), async (_m, ctx) => {
      attempts.push(ctx.metadata.execution.redelivery);
      if (attempts.length === 1) throw new PipeError('database down', { code: 503 });
      return null;
    })]);
    await t.service.start();
    await t.backends.broker.publish('order-created', { id: 'o1' });
    await t.backends.broker.idle();
    expect(attempts).toEqual([false, true]);
    expect(t.backends.broker.deadLetters).toHaveLength(0);
    expect(await (await t.service.app.request('/metrics')).text()).toMatch(/pipec_events_redelivered_total\{[^}]*\} 1/);
  });

  it('stops after maxDeliveries', async () => {
    let attempts = 0;
    t = await makeTestService([pipelineOf('on-order', eventTrigger({ maxDeliveries: 2 }), async () => { attempts++; throw new PipeError('always'); })]);
    await t.service.start();
    await t.backends.broker.publish('order-created', { id: 'o1' });
    await t.backends.broker.idle();
    expect(attempts).toBe(2);
    expect(t.backends.broker.deadLetters).toHaveLength(1);
  });

  it('acknowledges an invalid payload without running or redelivering it', async () => {
    let runs = 0;
    t = await makeTestService([pipelineOf('on-order', eventTrigger({ validateBody: requireId }), async () => { runs++; return null; })]);
    await t.service.start();
    await t.backends.broker.publish('order-created', { nope: true });
    await t.backends.broker.idle();
    expect(runs).toBe(0);
    expect(t.backends.broker.deadLetters).toHaveLength(0);
    const warning = t.logs.records.find((r) => r['msg'] === 'invalid event payload acknowledged without redelivery');
    expect(warning).toMatchObject({ pipeline: 'on-order', violations: [{ path: '/id' }] });
    expect(await (await t.service.app.request('/metrics')).text()).toMatch(/pipec_events_consumed_total\{[^}]*outcome="invalid"[^}]*\} 1/);
  });

  it('acknowledges events older than the expiration without running them', async () => {
    let now = 1_000_000;
    let runs = 0;
    t = await makeTestService([pipelineOf('on-order', eventTrigger({ expiration: 1_000 }), async () => { runs++; return null; })], {}, { clock: { now: () => now } });
    await t.service.start();
    const published = t.backends.broker.publish('order-created', { id: 'old' });
    now += 5_000; // the event waits in the queue past its expiration before delivery
    await published;
    await t.backends.broker.idle();
    expect(runs).toBe(0);
    expect(t.backends.broker.deadLetters).toHaveLength(0);
    expect(await (await t.service.app.request('/metrics')).text()).toMatch(/pipec_events_consumed_total\{[^}]*outcome="expired"[^}]*\} 1/);
  });

  it('does not subscribe when triggers are not started, and unsubscribes on stop', async () => {
    t = await makeTestService([pipelineOf('on-order', eventTrigger(), async () => null)], {}, { startTriggers: false });
    await t.service.start();
    expect(t.backends.broker.subscriptionCount).toBe(0);
    const t2 = await makeTestService([pipelineOf('on-order', eventTrigger(), async () => null)]);
    await t2.service.start();
    expect(t2.backends.broker.subscriptionCount).toBe(1);
    await t2.service.stop(100);
    expect(t2.backends.broker.subscriptionCount).toBe(0);
    expect(t2.backends.closed).toBe(true);
  });
});
