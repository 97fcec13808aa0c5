/**
 * The reprocessing engine end to end, in process, on both backends (embedded SQLite; PostgreSQL +
 * NATS JetStream): the service runs with a ManualClock and the timer is fired by hand
 * (`fireSchedule`), so minutes pass without waiting. The demo flows record every attempt they
 * receive, and the engine logs every re-send; the tests read both.
 */
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json, JsonObject } from '../../runtime/types.js';
import type { Service } from '../../runtime/service/create-service.js';
import { buildService, ManualClock, postJson, type BuiltService } from '../../test/e2e/in-process.js';
import { REPO_ROOT } from '../../test/e2e/service-process.js';
import { createBackends } from '../../runtime/backends/index.js';
import {
  backendVariants,
  capturingLogger,
  eventually,
  isolatedBackend,
  settled,
  type IsolatedBackend,
  type LogRecord,
} from './test-support.js';

const MINUTE = 60_000;
const LEASE = 5 * MINUTE;
const variants = await backendVariants('reprocessing example');

let built: BuiltService;
beforeAll(async () => {
  built = await buildService([path.join(REPO_ROOT, 'examples/reprocessing')], 'reprocessing');
}, 60_000);

interface Attempt {
  readonly flow: string;
  readonly orderId: string;
  readonly current: number;
  readonly outcome: 'failed' | 'succeeded';
  readonly at: number;
  readonly reprocess: JsonObject | null;
  readonly resentFrom: string | null;
}

interface Status {
  readonly pending: number;
  readonly outcomes: Array<{ _id: string; n: number }>;
  readonly notifications: JsonObject[];
}

/** One running service over an isolated backend, with what it logged. */
class Harness {
  service!: Service;
  readonly log = capturingLogger();

  constructor(
    readonly backend: IsolatedBackend,
    readonly clock: ManualClock,
  ) {}

  async start(): Promise<void> {
    this.service = await built.runtime.createService(built.definition, {
      clock: this.clock,
      // The test's ticks only: a wall-clock tick at a real minute boundary would race them.
      scheduleTimers: false,
      dataDir: this.backend.dataDir,
      env: this.backend.env,
      logger: this.log.logger,
    });
    await this.service.start();
  }

  async get<T>(route: string): Promise<T> {
    const res = await this.service.app.request(route);
    expect(res.status, route).toBe(200);
    return (await res.json()) as T;
  }

  attempts(orderId: string): Promise<Attempt[]> {
    return this.get<{ attempts: Attempt[] }>(`/reprocessing/attempts/${orderId}`).then((r) => r.attempts);
  }

  status(): Promise<Status> {
    return this.get<Status>('/reprocessing/status');
  }

  /** One timer tick at the clock's current time; the page chain it starts runs on in the background. */
  async tick(): Promise<void> {
    const outcome = await this.service.fireSchedule('reprocess-timer');
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
  }

  /** `re-sent …` lines the engine logged: one per message it handed back to a flow. */
  resends(): LogRecord[] {
    return this.log
      .records()
      .filter((r) => r.pipeline === 'reprocessing-event' && typeof r.msg === 'string' && r.msg.startsWith('re-sent '));
  }
}

const order = (orderId: string, failTimes: number, maxRetry: number, intervalRetry: number): Json => ({
  orderId,
  failTimes,
  maxRetry,
  intervalRetry,
});

for (const variant of variants) {
  describe.runIf(variant.run)(`reprocessing example: ${variant.name}`, () => {
    const harnesses: Harness[] = [];
    const open = async (tag: string, clock = new ManualClock(Date.UTC(2026, 0, 1, 8, 0, 0))): Promise<Harness> => {
      const h = new Harness(await isolatedBackend(variant, `reprocessing-${tag}`), clock);
      await h.start();
      harnesses.push(h);
      return h;
    };

    afterAll(async () => {
      for (const h of harnesses) {
        await h.service?.stop(1000);
        await h.backend.dispose();
      }
    }, 30_000);

    it('re-sends a message that keeps failing exactly maxRetry times, on time, then notifies once', async () => {
      const h = await open('keeps-failing');
      const t0 = h.clock.now();
      expect((await postJson(h.service, '/reprocessing/orders', order('keep-1', 99, 3, 2))).status).toBe(202);
      await eventually('the first failure is stored', async () => (await h.status()).pending === 1);
      expect((await h.attempts('keep-1')).map((a) => [a.current, a.outcome])).toEqual([[0, 'failed']]);

      for (let k = 1; k <= 3; k++) {
        // One second early: nothing is due yet.
        h.clock.set(t0 + k * 2 * MINUTE - 1000);
        await h.tick();
        expect(await settled(async () => (await h.attempts('keep-1')).length)).toBe(k);
        // On time: re-sent with current = k.
        h.clock.set(t0 + k * 2 * MINUTE);
        await h.tick();
        await eventually(
          `re-send ${k}`,
          async () => (await h.attempts('keep-1')).length === k + 1 && (await h.status()).pending === 1,
        );
        const latest = (await h.attempts('keep-1'))[k] as Attempt;
        expect(latest).toMatchObject({ current: k, outcome: 'failed', at: t0 + k * 2 * MINUTE });
        expect(latest.reprocess).toEqual({
          forwardTo: { name: 'reprocessing-demo-order', type: 'event' },
          retry: { intervalRetry: 2, max: 3, current: k, lastRetry: t0 + k * 2 * MINUTE },
        });
        expect(latest.resentFrom).toMatch(/^[0-9a-f-]{36}$/);
      }

      // The third re-send failed too: the message is exhausted and due at once; the next tick gives up.
      await h.tick();
      await eventually('the notification', async () => (await h.status()).notifications.length === 1);
      const status = await settled(() => h.status());
      expect(status.pending).toBe(0);
      expect(status.notifications).toHaveLength(1);
      expect(status.notifications[0]).toMatchObject({
        reason: 'max-retry',
        pipeOrEventName: 'reprocessing-demo-order',
        pipeType: 'event',
        maxRetry: 3,
        current: 3,
        payload: { orderId: 'keep-1', failTimes: 99, maxRetry: 3, intervalRetry: 2 },
      });

      // Later ticks find nothing: no fourth re-send, no second notification.
      for (let extra = 1; extra <= 3; extra++) {
        h.clock.advance(2 * MINUTE);
        await h.tick();
      }
      const after = await settled(async () => ({
        attempts: (await h.attempts('keep-1')).map((a) => a.current),
        status: await h.status(),
      }));
      expect(after.attempts).toEqual([0, 1, 2, 3]);
      expect(after.status.notifications).toHaveLength(1);
      expect(after.status.pending).toBe(0);
      expect(h.resends()).toHaveLength(3);
    }, 60_000);

    it('stops re-sending a message that succeeds on its second attempt', async () => {
      const h = await open('second-attempt');
      const t0 = h.clock.now();
      await postJson(h.service, '/reprocessing/orders', order('twice-1', 1, 5, 1));
      await eventually('the first failure is stored', async () => (await h.status()).pending === 1);
      h.clock.set(t0 + MINUTE);
      await h.tick();
      await eventually('the second attempt', async () => (await h.attempts('twice-1')).length === 2);
      for (let extra = 1; extra <= 4; extra++) {
        h.clock.advance(MINUTE);
        await h.tick();
      }
      const attempts = await settled(() => h.attempts('twice-1'));
      expect(attempts.map((a) => [a.current, a.outcome])).toEqual([
        [0, 'failed'],
        [1, 'succeeded'],
      ]);
      const status = await h.status();
      expect(status.pending).toBe(0);
      expect(status.notifications).toEqual([]);
    }, 60_000);

    it('re-sends pipeline-based flows through the Pipeline Executor, and notifies when they run out of retries', async () => {
      const h = await open('pipeline-based');
      const t0 = h.clock.now();
      const first = await postJson(h.service, '/reprocessing/sync-orders', order('sync-ok', 2, 3, 1));
      expect(first).toEqual({ status: 202, body: { orderId: 'sync-ok', status: 'queued for reprocessing' } });
      expect((await postJson(h.service, '/reprocessing/sync-orders', order('sync-never', 99, 1, 3))).status).toBe(202);
      await eventually('both failures are stored', async () => (await h.status()).pending === 2);

      // A failed re-send queues the message again through an event handled in the background, and
      // the re-sent copy is deleted after it: the next tick finds it due only once both happened.
      const queuedAfterResends = (n: number): number =>
        h.log
          .records()
          .filter(
            (r) =>
              r.pipeline === 'add-reprocess-event' &&
              String(r.msg).includes('reprocessing-demo-sync') &&
              String(r.msg).includes(`re-sends so far: ${n})`),
          ).length;

      h.clock.set(t0 + MINUTE);
      await h.tick();
      await eventually('sync-ok attempt 1', async () => (await h.attempts('sync-ok')).length === 2);
      await eventually(
        'sync-ok queued again',
        async () => queuedAfterResends(1) === 1 && (await h.status()).pending === 2,
      );
      h.clock.set(t0 + 2 * MINUTE);
      await h.tick();
      await eventually('sync-ok attempt 2', async () => (await h.attempts('sync-ok')).length === 3);
      const ok = await h.attempts('sync-ok');
      expect(ok.map((a) => [a.flow, a.current, a.outcome, a.at])).toEqual([
        ['sync', 0, 'failed', t0],
        ['sync', 1, 'failed', t0 + MINUTE],
        ['sync', 2, 'succeeded', t0 + 2 * MINUTE],
      ]);
      expect(ok[2]?.reprocess).toMatchObject({
        forwardTo: { name: 'reprocessing-demo-sync', type: 'http' },
        retry: { max: 3, current: 2 },
      });

      // sync-never: one re-send (maxRetry 1) at +3 min, then a notification at the next tick.
      h.clock.set(t0 + 3 * MINUTE);
      await h.tick();
      await eventually('sync-never re-sent', async () => (await h.attempts('sync-never')).length === 2);
      await eventually(
        'sync-never queued again',
        async () => queuedAfterResends(1) === 2 && (await h.status()).pending === 1,
      );
      await h.tick();
      await eventually('sync-never notified', async () => (await h.status()).notifications.length === 1);
      const status = await settled(() => h.status());
      expect(status.pending).toBe(0);
      expect(status.notifications[0]).toMatchObject({
        reason: 'max-retry',
        pipeOrEventName: 'reprocessing-demo-sync',
        pipeType: 'http',
        current: 1,
      });
      expect((await h.attempts('sync-never')).map((a) => a.current)).toEqual([0, 1]);
    }, 60_000);

    it('refuses a reprocessing request that breaks the format, with a logged validation error', async () => {
      const h = await open('invalid-request');
      const outcome = await h.service.run('add-reprocess-event', {
        payload: { a: 1 },
        pipeType: 'event',
        maxRetry: 0,
        intervalRetry: 1,
      });
      expect(outcome.ok).toBe(true);
      const refused = h.log
        .records()
        .filter(
          (r) =>
            r.pipeline === 'add-reprocess-event' &&
            r.level === 50 &&
            String(r.msg).startsWith('reprocessing request refused'),
        );
      expect(refused).toHaveLength(1);
      expect(String(refused[0]?.msg)).toContain('pipeOrEventName');
      expect(String(refused[0]?.msg)).toContain('maxRetry');
      expect((await h.status()).pending).toBe(0);
    }, 30_000);

    it('notifies instead of dropping a message for a pipeline it has no route to', async () => {
      const h = await open('no-route');
      const t0 = h.clock.now();
      const request = {
        payload: { orderId: 'nr-1' },
        pipeOrEventName: 'some-unknown-pipeline',
        pipeType: 'http',
        maxRetry: 2,
        intervalRetry: 1,
      };
      expect((await h.service.run('add-reprocess-event', request)).ok).toBe(true);
      h.clock.set(t0 + MINUTE);
      await h.tick();
      await eventually('the notification', async () => (await h.status()).notifications.length === 1);
      const status = await settled(() => h.status());
      expect(status.notifications[0]).toMatchObject({
        reason: 'no-route',
        pipeOrEventName: 'some-unknown-pipeline',
        pipeType: 'http',
        current: 0,
        payload: { orderId: 'nr-1' },
      });
      expect(status.pending).toBe(0);
      expect(h.resends()).toEqual([]);
    }, 30_000);

    it('re-publishes a claim that was never processed once its lease runs out', async () => {
      const h = await open('lost-claim');
      const t0 = h.clock.now();
      await postJson(h.service, '/reprocessing/orders', order('lost-1', 1, 3, 1));
      await eventually('the failure is stored', async () => (await h.status()).pending === 1);
      // A timer that died right after claiming: the document is claimed, but no event was published.
      const backends = await createBackends({
        dataDir: h.backend.dataDir,
        env: h.backend.env,
        clock: h.clock,
        logger: pino({ level: 'silent' }),
      });
      try {
        const claimed = await backends.store.update(
          'reprocess',
          {},
          { $set: { claim: 'claim-of-a-dead-timer', retryAt: t0 + MINUTE + LEASE } },
          { upsert: false, multi: true },
        );
        expect(claimed).toBe(1);
        // The store declaration's indexes were created when the service started.
        expect((await backends.store.listIndexes('reprocess')).map((i) => i.key)).toEqual([
          { _oId: 1 },
          { retryAt: 1 },
          { claim: 1 },
        ]);
      } finally {
        await backends.close();
      }
      h.clock.set(t0 + MINUTE);
      await h.tick();
      h.clock.set(t0 + MINUTE + LEASE - 1000);
      await h.tick();
      expect(await settled(async () => (await h.attempts('lost-1')).length)).toBe(1);
      h.clock.set(t0 + MINUTE + LEASE);
      await h.tick();
      await eventually('re-sent after the lease', async () => (await h.attempts('lost-1')).length === 2);
      expect((await settled(() => h.attempts('lost-1'))).map((x) => [x.current, x.outcome, x.at])).toEqual([
        [0, 'failed', t0],
        [1, 'succeeded', t0 + MINUTE + LEASE],
      ]);
      expect((await h.status()).pending).toBe(0);
      expect(h.resends()).toHaveLength(1);
    }, 30_000);

    it('handles 500 failing messages page by page, once per attempt, across a restart without draining', async () => {
      const backendTag = '500';
      const a = await open(backendTag);
      const t0 = a.clock.now();
      const ids = Array.from({ length: 500 }, (_, i) => `bulk-${i}`);
      for (let i = 0; i < ids.length; i += 50) {
        const batch = ids.slice(i, i + 50).map((id) => postJson(a.service, '/reprocessing/orders', order(id, 1, 2, 1)));
        for (const res of await Promise.all(batch)) expect(res.status).toBe(202);
      }
      await eventually('500 failures stored', async () => (await a.status()).pending === 500, 60_000);

      // The first tick claims page one and chains the next pages; the service is stopped at once,
      // without waiting for in-flight work, and started again on the same data.
      a.clock.set(t0 + MINUTE);
      await a.tick();
      await a.service.stop(0);
      const b = new Harness(a.backend, a.clock);
      await b.start();
      harnesses.push(b);

      // Ticks continue: at the same minute (unclaimed pages), then after the lease (claims left unfinished).
      await b.tick();
      await settled(async () => (await b.status()).outcomes, 1000, 60_000);
      b.clock.set(t0 + MINUTE + LEASE + 1000);
      await b.tick();
      await eventually(
        'every order succeeded',
        async () => {
          const s = await b.status();
          return s.pending === 0 && s.outcomes.find((o) => o._id === 'succeeded')?.n === 500;
        },
        60_000,
      );
      b.clock.advance(MINUTE);
      await b.tick();
      const status = await settled(() => b.status(), 600);
      expect(status.pending).toBe(0);
      expect(status.notifications).toEqual([]);
      expect(status.outcomes).toEqual([
        { _id: 'failed', n: 500 },
        { _id: 'succeeded', n: 500 },
      ]);

      // The restart had work left: the stopped service had not re-sent everything.
      expect(a.resends().length).toBeLessThan(500);
      // Re-sends across both service lives: each stored message exactly once.
      const resent = [...a.resends(), ...b.resends()].map((r) => String(r.msg).split(' ')[1]);
      expect(resent).toHaveLength(500);
      expect(new Set(resent).size).toBe(500);
      // Pagination: full pages of 100 were claimed.
      const pages = [...a.log.records(), ...b.log.records()].filter((r) =>
        String(r.msg).startsWith('reprocess-timer claimed 100 of 100'),
      );
      expect(pages.length).toBeGreaterThanOrEqual(1);
      for (const id of ['bulk-0', 'bulk-250', 'bulk-499']) {
        expect((await b.attempts(id)).map((x) => [x.current, x.outcome])).toEqual([
          [0, 'failed'],
          [1, 'succeeded'],
        ]);
      }
      // A hang detector, not a measure: longer than the waits above may take together on a busy machine.
    }, 300_000);
  });
}
