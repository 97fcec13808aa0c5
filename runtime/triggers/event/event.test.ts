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
    requireId.errors = ok
      ? null
      : [
          {
            instancePath: '',
            schemaPath: '#/required',
            keyword: 'required',
            params: { missingProperty: 'id' },
            message: "must have required property 'id'",
          },
        ];
    return ok;
  },
  { errors: null },
);

describe('event trigger', () => {
  it('runs the pipeline with the payload as the message', async () => {
    const seen: Json[] = [];
    t = await makeTestService([
      pipelineOf('on-order', eventTrigger(), async (m) => {
        seen.push(m);
        return null;
      }),
    ]);
    await t.service.start();
    await t.backends.broker.publish('order-created', { id: 'o1' });
    await t.backends.broker.idle();
    expect(seen).toEqual([{ id: 'o1' }]);
    expect(await (await t.service.app.request('/metrics')).text()).toMatch(
      /pipec_events_consumed_total\{[^}]*pipeline="on-order"[^}]*outcome="success"[^}]*\} 1/,
    );
  });

  it('rejects a failed execution so the event is redelivered with redelivery=true', async () => {
    const attempts: boolean[] = [];
    t = await makeTestService([
      pipelineOf('on-order', eventTrigger(), async (_m, ctx) => {
        attempts.push(ctx.metadata.execution.redelivery);
        if (attempts.length === 1) throw new PipeError('database down', { code: 503 });
        return null;
      }),
    ]);
    await t.service.start();
    await t.backends.broker.publish('order-created', { id: 'o1' });
    await t.backends.broker.idle();
    expect(attempts).toEqual([false, true]);
    expect(t.backends.broker.deadLetters).toHaveLength(0);
    expect(await (await t.service.app.request('/metrics')).text()).toMatch(/pipec_events_redelivered_total\{[^}]*\} 1/);
  });

  it('stops after maxDeliveries', async () => {
    let attempts = 0;
    t = await makeTestService([
      pipelineOf('on-order', eventTrigger({ maxDeliveries: 2 }), async () => {
        attempts++;
        throw new PipeError('always');
      }),
    ]);
    await t.service.start();
    await t.backends.broker.publish('order-created', { id: 'o1' });
    await t.backends.broker.idle();
    expect(attempts).toBe(2);
    expect(t.backends.broker.deadLetters).toHaveLength(1);
  });

  it('dead-letters an invalid payload at once, without running or redelivering it', async () => {
    let runs = 0;
    t = await makeTestService([
      pipelineOf('on-order', eventTrigger({ validateBody: requireId }), async () => {
        runs++;
        return null;
      }),
    ]);
    await t.service.start();
    await t.backends.broker.publish('order-created', { nope: true });
    await t.backends.broker.idle();
    expect(runs).toBe(0);
    expect(t.backends.broker.deadLetterRecords).toHaveLength(1);
    expect(t.backends.broker.deadLetterRecords[0]).toMatchObject({ subscriber: 'on-order', reason: 'permanent-error' });
    expect(t.backends.broker.deadLetterRecords[0]?.error).toMatch(/invalid event payload.*\/id/);
    expect(await (await t.service.app.request('/metrics')).text()).toMatch(
      /pipec_events_consumed_total\{[^}]*outcome="invalid"[^}]*\} 1/,
    );
  });

  it('dead-letters a permanent failure (a 4xx) on the first attempt, retries a transient one', async () => {
    const attempts: Record<string, number> = { permanent: 0, transient: 0 };
    t = await makeTestService([
      pipelineOf('on-order', eventTrigger({ maxDeliveries: 3 }), async (m) => {
        const kind = (m as { kind: string }).kind;
        attempts[kind] = (attempts[kind] ?? 0) + 1;
        throw kind === 'permanent'
          ? new PipeError('the CRM answered 404', { code: 404, kind: 'REST_CLIENT_ERROR' })
          : new PipeError('the CRM answered 429', { code: 429, kind: 'REST_CLIENT_ERROR' });
      }),
    ]);
    await t.service.start();
    await t.backends.broker.publish('order-created', { kind: 'permanent' });
    await t.backends.broker.publish('order-created', { kind: 'transient' });
    await t.backends.broker.idle();
    expect(attempts).toEqual({ permanent: 1, transient: 3 });
    const reasons = t.backends.broker.deadLetterRecords.map((d) => [
      (d.envelope.payload as { kind: string }).kind,
      d.reason,
    ]);
    expect(reasons.sort()).toEqual([
      ['permanent', 'permanent-error'],
      ['transient', 'max-deliveries'],
    ]);
  });

  it("hands the trigger's backoff to the broker", async () => {
    const backoff = { initialMs: 250, maxMs: 4000, multiplier: 3 };
    t = await makeTestService([pipelineOf('on-order', eventTrigger({ backoff }), async () => null)]);
    await t.service.start();
    expect(t.backends.broker.subscribeOptions[0]).toMatchObject({ maxDeliveries: 3, backoff });
  });

  it('dead-letters events older than the expiration without running them', async () => {
    let now = 1_000_000;
    let runs = 0;
    t = await makeTestService(
      [
        pipelineOf('on-order', eventTrigger({ expiration: 1_000 }), async () => {
          runs++;
          return null;
        }),
      ],
      {},
      { clock: { now: () => now } },
    );
    await t.service.start();
    const published = t.backends.broker.publish('order-created', { id: 'old' });
    now += 5_000; // the event waits in the queue past its expiration before delivery
    await published;
    await t.backends.broker.idle();
    expect(runs).toBe(0);
    expect(t.backends.broker.deadLetterRecords.map((d) => d.reason)).toEqual(['expired']);
    expect(await (await t.service.app.request('/metrics')).text()).toMatch(
      /pipec_events_consumed_total\{[^}]*outcome="expired"[^}]*\} 1/,
    );
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
