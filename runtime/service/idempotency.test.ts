import { describe, expect, it } from 'vitest';
import { PipeError } from '../errors.js';
import { Reply, type Json } from '../types.js';
import {
  claimId,
  IDEMPOTENCY_STORE,
  runIdempotent,
  type IdempotencyDeps,
  type IdempotencySpec,
} from './idempotency.js';
import { fakeContext } from './test-support/fake-context.js';

const byHeader: IdempotencySpec = {
  key: (message) => (message as { headers?: Record<string, Json> }).headers?.['idempotency-key'] ?? null,
  windowMs: 60_000,
};
const request = (key: string | undefined): Json => ({
  headers: key === undefined ? {} : { 'idempotency-key': key },
  body: null,
});

function setup() {
  const { ctx, backends } = fakeContext();
  let now = 1_000_000;
  let replays = 0;
  const deps: IdempotencyDeps = {
    store: backends.store,
    now: () => now,
    staleMs: 40_000,
    replayed: () => {
      replays += 1;
    },
  };
  let runs = 0;
  const run =
    (answer: () => Json | Reply = () => new Reply(201, { n: runs }, { location: '/x' })) =>
    (key: string | undefined) =>
      runIdempotent(byHeader, 'pay', request(key), ctx, deps, () => {
        runs += 1;
        return answer();
      });
  return {
    ctx,
    deps,
    store: backends.store,
    run,
    runs: () => runs,
    replays: () => replays,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('runIdempotent', () => {
  it('runs once per key and answers repeats with the first answer, marked as a replay', async () => {
    const t = setup();
    const first = (await t.run()('k1')) as Reply;
    const again = (await t.run()('k1')) as Reply;
    expect(t.runs()).toBe(1);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers).toEqual({ location: '/x', 'idempotent-replayed': 'true' });
    expect(t.replays()).toBe(1);
    await t.run()('k2');
    expect(t.runs()).toBe(2);
  });

  it('keeps a result that is not a reply as it was', async () => {
    const t = setup();
    await t.run(() => ({ total: 3 }))('k');
    expect(await t.run(() => ({ total: 4 }))('k')).toEqual({ total: 3 });
  });

  it('runs every message without a key', async () => {
    const t = setup();
    await t.run()(undefined);
    await t.run()(undefined);
    expect(t.runs()).toBe(2);
  });

  it('refuses a repeat while the first runs with 409 (not permanent: an event comes back later)', async () => {
    const t = setup();
    let finish: (r: Reply) => void = () => undefined;
    const first = t.run(
      () =>
        new Promise<Reply>((resolve) => {
          finish = resolve;
        }) as unknown as Reply,
    )('k');
    await new Promise((resolve) => setTimeout(resolve, 0));
    await expect(t.run()('k')).rejects.toMatchObject({
      code: 409,
      kind: 'IDEMPOTENCY_IN_PROGRESS',
      permanent: false,
      details: { retryAfter: 1 },
    });
    finish(new Reply(200, 'done'));
    await first;
    expect(((await t.run()('k')) as Reply).body).toBe('done');
  });

  it('gives the key back when the execution fails, so a retry runs', async () => {
    const t = setup();
    await expect(
      t.run(() => {
        throw new PipeError('down', { code: 503, kind: 'REST_SERVER_ERROR' });
      })('k'),
    ).rejects.toMatchObject({ code: 503 });
    expect(await t.store.findById(IDEMPOTENCY_STORE, claimId('pay', 'k'))).toBeNull();
    await t.run()('k');
    expect(t.runs()).toBe(2);
  });

  it('forgets a key after its window, and takes over a claim whose execution died', async () => {
    const t = setup();
    await t.run()('k');
    t.advance(60_000);
    await t.run()('k');
    expect(t.runs()).toBe(2);
    // A claim left running by a replica that died is taken over once it is older than staleMs.
    await t.store.insert(IDEMPOTENCY_STORE, [{ _oId: claimId('pay', 'dead'), state: 'running', at: t.deps.now() }]);
    await expect(t.run()('dead')).rejects.toMatchObject({ code: 409 });
    t.advance(40_000);
    await t.run()('dead');
    expect(t.runs()).toBe(3);
  });

  it('keeps the key out of the store (hashed per pipeline) and refuses a key over 1024 characters', async () => {
    const t = setup();
    await t.run()('secret-key');
    const stored = await t.store.find(IDEMPOTENCY_STORE, {});
    expect(JSON.stringify(stored)).not.toContain('secret-key');
    expect(claimId('pay', 'k')).not.toBe(claimId('other', 'k'));
    await expect(t.run()('x'.repeat(1025))).rejects.toMatchObject({ code: 400, kind: 'BAD_IDEMPOTENCY_KEY' });
  });
});
