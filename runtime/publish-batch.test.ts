/**
 * A for-each whose body only computes and publishes (ForEachInfo.pipelinedPublishes): the body runs
 * for every element without waiting for the broker, the events go to it together, the loop ends
 * only once each is stored, and failures are reported per element as a loop waiting at each
 * publish reports them.
 */
import { describe, expect, it } from 'vitest';
import { run as publish, type PublishParams } from './connectors/publish/publish.js';
import { PipeError } from './errors.js';
import { fakeContext } from './service/test-support/fake-context.js';
import { forEach, step, type ForEachInfo, type StepInfo } from './steps.js';
import type { EventBroker, EventToPublish, ExecutionContext, Json } from './types.js';

const publishStep: StepInfo = { connector: 'publish', source: 'p.pipe:4', failOnError: true };
const params: PublishParams = { event: 'fanned' };
const body = (message: Json, ctx: ExecutionContext): Promise<Json> =>
  Promise.resolve(step(ctx, publishStep, publish, params, message));
const loop = (failOnError: boolean): ForEachInfo => ({
  source: 'p.pipe:3',
  parallel: 1,
  failOnError,
  pipelinedPublishes: true,
});
const elements = (count: number): Json[] => Array.from({ length: count }, (_, n) => ({ n }));

/** A broker with a batch path that stores when released and refuses the events `refuse` names. */
function batchBroker(refuse: (payload: Json) => Error | null = () => null) {
  const stored: Json[] = [];
  const batches: number[] = [];
  let release: () => void = () => undefined;
  let held = false;
  const broker: EventBroker = {
    publish: () => Promise.reject(new Error('the loop must use the batch path')),
    subscribe: () => Promise.reject(new Error('not here')),
    close: async () => undefined,
    async publishMany(events: readonly EventToPublish[]) {
      batches.push(events.length);
      if (held) await new Promise<void>((r) => (release = r));
      return events.map((e) => {
        const refused = refuse(e.payload);
        if (!refused) stored.push(e.payload);
        return refused;
      });
    },
  };
  return {
    broker,
    stored,
    batches,
    hold: () => void (held = true),
    release: () => release(),
  };
}

const withBroker = (broker: EventBroker): ExecutionContext => {
  const { ctx } = fakeContext();
  return { ...ctx, services: { ...ctx.services, broker } };
};

describe('for-each with pipelined publishes', () => {
  it('hands every event over in one batch and ends only once they are stored, in element order', async () => {
    const b = batchBroker();
    b.hold();
    let ended = false;
    const running = forEach(withBroker(b.broker), loop(true), elements(100), body).then((out) => {
      ended = true;
      return out;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(b.batches).toEqual([100]);
    expect(ended).toBe(false);
    b.release();
    expect(await running).toEqual({ total: 100, success: 100, failed: 0 });
    expect(b.stored).toEqual(elements(100));
  });

  it('hands over every 256 events on a long loop', async () => {
    const b = batchBroker();
    await forEach(withBroker(b.broker), loop(true), elements(600), body);
    expect(b.batches).toEqual([256, 256, 88]);
  });

  it('counts an element whose event was refused as failed when the loop goes on after failures', async () => {
    const b = batchBroker((p) =>
      (p as { n: number }).n === 3 ? new PipeError('too big', { code: 413, kind: 'PAYLOAD_TOO_LARGE' }) : null,
    );
    expect(await forEach(withBroker(b.broker), loop(false), elements(5), body)).toEqual({
      total: 5,
      success: 4,
      failed: 1,
    });
  });

  it('fails the loop with the first failed element’s error, as the publish step reports it', async () => {
    const b = batchBroker((p) =>
      (p as { n: number }).n >= 2
        ? new PipeError(`refused ${(p as { n: number }).n}`, { code: 413, kind: 'PAYLOAD_TOO_LARGE' })
        : null,
    );
    await expect(forEach(withBroker(b.broker), loop(true), elements(5), body)).rejects.toMatchObject({
      code: 413,
      kind: 'PAYLOAD_TOO_LARGE',
      message: expect.stringContaining('could not publish event "fanned": refused 2'),
    });
  });

  it('ends the run on a broker that is away even when the loop goes on after failures', async () => {
    const b = batchBroker((p) =>
      (p as { n: number }).n === 1 ? new PipeError('broker away', { code: 503, kind: 'BACKEND_UNAVAILABLE' }) : null,
    );
    await expect(forEach(withBroker(b.broker), loop(false), elements(5), body)).rejects.toMatchObject({
      code: 503,
      kind: 'BACKEND_UNAVAILABLE',
    });
  });

  it('uses concurrent publishes on a broker without a batch path', async () => {
    const stored: Json[] = [];
    let inFlight = 0;
    let most = 0;
    const broker: EventBroker = {
      async publish(_name, payload) {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 1));
        stored.push(payload);
        inFlight--;
      },
      subscribe: () => Promise.reject(new Error('not here')),
      close: async () => undefined,
    };
    await forEach(withBroker(broker), loop(true), elements(10), body);
    expect(stored).toHaveLength(10);
    expect(most).toBe(10);
  });
});
