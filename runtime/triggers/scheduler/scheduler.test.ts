import { afterEach, describe, expect, it } from 'vitest';
import { PipeError } from '../../errors.js';
import { tmpdir } from 'node:os';
import { ConnectionRegistry } from '../../service/connections.js';
import { ExecutionEngine } from '../../service/execution.js';
import { createPipelineExecutor } from '../../service/executor.js';
import { createLogger } from '../../service/logging.js';
import { createServiceMetrics } from '../../service/metrics.js';
import { createCron, ScheduleRunner, type SchedulerTriggerSpec } from './scheduler.js';
import { createFakeBackends, FakeLock } from '../../service/test-support/fake-backends.js';
import { deferred, makeTestService, pipelineOf, type TestService } from '../../service/test-support/test-service.js';

let t: TestService;
afterEach(async () => {
  await t?.service.stop(200);
});

function schedule(extra: Partial<SchedulerTriggerSpec> = {}): SchedulerTriggerSpec {
  return { kind: 'scheduler', cron: '* * * * *', timezone: 'UTC', allowConcurrent: false, ...extra };
}

describe('scheduler trigger', () => {
  it('fireSchedule runs the pipeline with { scheduledAt }', async () => {
    let clock = 1_700_000_000_000;
    t = await makeTestService([pipelineOf('timer', schedule(), async (m) => m)], {}, { clock: { now: () => clock } });
    const outcome = await t.service.fireSchedule('timer');
    expect(outcome).toMatchObject({ ok: true, result: { scheduledAt: 1_700_000_000_000 } });
    clock += 60_000;
    expect(await t.service.fireSchedule('timer')).toMatchObject({
      ok: true,
      result: { scheduledAt: 1_700_000_060_000 },
    });
  });

  it('with scheduleTimers: false, ticks only when fired (a manual clock drives it)', async () => {
    let runs = 0;
    const every = schedule({ cron: '* * * * * *' });
    t = await makeTestService(
      [
        pipelineOf('timer', every, async (m) => {
          runs++;
          return m;
        }),
      ],
      {},
      { scheduleTimers: false },
    );
    await t.service.start();
    // A schedule of every second: with timers on it would have ticked at least once by now.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(runs).toBe(0);
    expect((await t.service.fireSchedule('timer')).ok).toBe(true);
    expect(runs).toBe(1);
  });

  it('skips a tick while the previous run is still running', async () => {
    const gate = deferred();
    t = await makeTestService([
      pipelineOf('timer', schedule(), async () => {
        await gate.promise;
        return 'done';
      }),
    ]);
    const first = t.service.fireSchedule('timer');
    await new Promise((r) => setImmediate(r));
    const second = await t.service.fireSchedule('timer');
    expect(second).toMatchObject({ ok: false, error: { code: 409 } });
    expect(second.ok ? '' : String(second.error['error'])).toContain('previous run is still running');
    gate.resolve();
    expect(await first).toMatchObject({ ok: true, result: 'done' });
    expect(await (await t.service.app.request('/metrics')).text()).toMatch(
      /pipec_scheduler_ticks_total\{[^}]*outcome="overlap"[^}]*\} 1/,
    );
  });

  it('runs overlapping ticks when allowConcurrent is set', async () => {
    const gate = deferred();
    t = await makeTestService([
      pipelineOf('timer', schedule({ allowConcurrent: true }), async () => {
        await gate.promise;
        return 'done';
      }),
    ]);
    const first = t.service.fireSchedule('timer');
    const second = t.service.fireSchedule('timer');
    gate.resolve();
    expect((await Promise.all([first, second])).map((o) => o.ok)).toEqual([true, true]);
  });

  it('a timer tick runs once per tick time across replicas sharing a lock', async () => {
    let runs = 0;
    const timer = pipelineOf('timer', schedule({ allowConcurrent: true }), async () => {
      runs++;
      return null;
    });
    const lock = new FakeLock();
    const replica = (): ScheduleRunner => {
      const metrics = createServiceMetrics('replica');
      const logger = createLogger({ level: 'silent' });
      const backends = createFakeBackends();
      const engine = new ExecutionEngine({
        pipelines: [timer],
        logger,
        metrics,
        clock: { now: () => 0 },
        dataDir: tmpdir(),
        globals: {},
        accounts: {},
        store: backends.store,
        broker: backends.broker,
        createExecutor: createPipelineExecutor,
        connections: new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' })),
      });
      return new ScheduleRunner(timer, timer.trigger as SchedulerTriggerSpec, {
        engine,
        lock,
        clock: { now: () => 0 },
        metrics,
        logger,
      });
    };
    const [a, b] = [replica(), replica()];
    const results = await Promise.all([a.tick(1_700_000_000_000), b.tick(1_700_000_000_000)]);
    expect(results.map((r) => r.kind).sort()).toEqual(['ran', 'skipped']);
    expect(runs).toBe(1);
    expect((await a.tick(1_700_000_060_000)).kind).toBe('ran');
    expect(runs).toBe(2);
  });

  it('fires real ticks from croner with a 6-field expression', async () => {
    const ticks: number[] = [];
    const ticked = deferred();
    t = await makeTestService([
      pipelineOf('timer', schedule({ cron: '* * * * * *' }), async (m) => {
        ticks.push((m as { scheduledAt: number }).scheduledAt);
        ticked.resolve();
        return null;
      }),
    ]);
    await t.service.start();
    await ticked.promise;
    expect(ticks[0]! % 1000).toBe(0);
    expect(t.backends.lock.taken.has(`schedule:timer:${ticks[0]}`)).toBe(true);
  }, 5_000);

  it('rejects invalid cron expressions and accepts 5 or 6 fields in a time zone', () => {
    expect(() => createCron(schedule({ cron: '* * *' }))).toThrow();
    expect(() => createCron(schedule({ cron: '0 0 0 1 1 * 2030' }))).toThrow();
    const job = createCron(schedule({ cron: '0 9 * * *', timezone: 'America/Sao_Paulo' }));
    expect(job.nextRun(new Date('2024-01-01T00:00:00Z'))?.toISOString()).toBe('2024-01-01T12:00:00.000Z');
    job.stop();
  });

  it('runs in UTC when no time zone is given, whatever the machine zone', () => {
    for (const timezone of ['', 'UTC', 'Etc/UTC']) {
      const job = createCron(schedule({ cron: '30 9 * * 1', timezone }));
      expect(job.nextRuns(2, new Date('2024-03-30T23:00:00Z')).map((d) => d.toISOString())).toEqual([
        '2024-04-01T09:30:00.000Z',
        '2024-04-08T09:30:00.000Z',
      ]);
      job.stop();
    }
  });

  describe('missed ticks', () => {
    const HOURLY = schedule({ cron: '0 * * * *' });
    const T0 = Date.UTC(2025, 0, 1, 10, 30); // 10:30, the 10:00 tick is the latest due

    /** A replica of an hourly schedule on the shared lock, at the time `now()`. */
    const replica = (
      spec: SchedulerTriggerSpec,
      lock: FakeLock,
      now: () => number,
      seen: number[],
      onRun?: () => void,
    ): ScheduleRunner => {
      const timer = pipelineOf('hourly', spec, async (m) => {
        seen.push((m as { scheduledAt: number }).scheduledAt);
        onRun?.();
        return null;
      });
      const metrics = createServiceMetrics('replica');
      const logger = createLogger({ level: 'silent' });
      const backends = createFakeBackends();
      const engine = new ExecutionEngine({
        pipelines: [timer],
        logger,
        metrics,
        clock: { now },
        dataDir: tmpdir(),
        globals: {},
        accounts: {},
        store: backends.store,
        broker: backends.broker,
        createExecutor: createPipelineExecutor,
        connections: new ConnectionRegistry(logger),
      });
      return new ScheduleRunner(timer, spec, { engine, lock, clock: { now }, metrics, logger, catchUpRetryMs: 10 });
    };

    it('tries the catch-up again while the lock backend is away, and runs the missed tick once it is back', async () => {
      const lock = new FakeLock();
      const seen: number[] = [];
      await replica(HOURLY, lock, () => T0, seen).catchUp();
      let failures = 3;
      const read = lock.lastTick.bind(lock);
      lock.lastTick = async (schedule) => {
        if (failures-- > 0) throw new PipeError('postgres is unavailable', { code: 503, kind: 'BACKEND_UNAVAILABLE' });
        return read(schedule);
      };
      const ran = deferred();
      const runner = replica(
        HOURLY,
        lock,
        () => T0 + 3600_000,
        seen,
        () => ran.resolve(),
      );
      runner.start();
      await ran.promise;
      runner.stop();
      expect(seen).toEqual([Date.UTC(2025, 0, 1, 11)]);
      expect(failures).toBe(-1);
    });

    it('a first start records the latest due tick without running it', async () => {
      const lock = new FakeLock();
      const seen: number[] = [];
      expect(await replica(HOURLY, lock, () => T0, seen).catchUp()).toEqual({
        kind: 'first-start',
        latestDue: Date.UTC(2025, 0, 1, 10),
      });
      expect(seen).toEqual([]);
      expect(await lock.lastTick('schedule:hourly')).toBe(Date.UTC(2025, 0, 1, 10));
    });

    it('runs the latest missed tick once at start, once across replicas starting together', async () => {
      const lock = new FakeLock();
      const seen: number[] = [];
      await replica(HOURLY, lock, () => T0, seen).catchUp();
      // Every replica was down from 10:30 to 13:15: the 11:00, 12:00 and 13:00 ticks were missed.
      const later = T0 + 2 * 3600_000 + 45 * 60_000;
      const results = await Promise.all([
        replica(HOURLY, lock, () => later, seen).catchUp(),
        replica(HOURLY, lock, () => later, seen).catchUp(),
      ]);
      expect(seen).toEqual([Date.UTC(2025, 0, 1, 13)]);
      const kinds = results.map((r) => (r.kind === 'caught-up' ? r.result.kind : r.kind)).sort();
      expect(kinds).toEqual(['ran', 'skipped']);
      expect(await lock.lastTick('schedule:hourly')).toBe(Date.UTC(2025, 0, 1, 13));
      // A replica starting after that finds nothing missed.
      expect((await replica(HOURLY, lock, () => later + 60_000, seen).catchUp()).kind).toBe('none-missed');
      expect(seen).toHaveLength(1);
    });

    it('a tick that ran normally is not run again at the next start', async () => {
      const lock = new FakeLock();
      const seen: number[] = [];
      const runner = replica(HOURLY, lock, () => T0, seen);
      await runner.catchUp();
      expect((await runner.tick(Date.UTC(2025, 0, 1, 11))).kind).toBe('ran');
      expect((await replica(HOURLY, lock, () => Date.UTC(2025, 0, 1, 11, 20), seen).catchUp()).kind).toBe(
        'none-missed',
      );
      expect(seen).toEqual([Date.UTC(2025, 0, 1, 11)]);
    });

    it('with missed-ticks: skip, leaves them and moves the record on', async () => {
      const lock = new FakeLock();
      const seen: number[] = [];
      const skipping = schedule({ cron: '0 * * * *', missedTicks: 'skip' });
      await replica(skipping, lock, () => T0, seen).catchUp();
      const later = T0 + 5 * 3600_000;
      expect((await replica(skipping, lock, () => later, seen).catchUp()).kind).toBe('skipped');
      expect(seen).toEqual([]);
      expect(await lock.lastTick('schedule:hourly')).toBe(Date.UTC(2025, 0, 1, 15));
    });
  });
});
