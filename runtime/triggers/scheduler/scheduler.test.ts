import { afterEach, describe, expect, it } from 'vitest';
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
    expect(await t.service.fireSchedule('timer')).toMatchObject({ ok: true, result: { scheduledAt: 1_700_000_060_000 } });
  });

  it('skips a tick while the previous run is still running', async () => {
    const gate = deferred();
    t = await makeTestService([pipelineOf('timer', schedule(), async () => { await gate.promise; return 'done'; })]);
    const first = t.service.fireSchedule('timer');
    await new Promise((r) => setImmediate(r));
    const second = await t.service.fireSchedule('timer');
    expect(second).toMatchObject({ ok: false, error: { code: 409 } });
    expect(second.ok ? '' : String(second.error['error'])).toContain('previous run is still running');
    gate.resolve();
    expect(await first).toMatchObject({ ok: true, result: 'done' });
    expect(await (await t.service.app.request('/metrics')).text()).toMatch(/pipec_scheduler_ticks_total\{[^}]*outcome="overlap"[^}]*\} 1/);
  });

  it('runs overlapping ticks when allowConcurrent is set', async () => {
    const gate = deferred();
    t = await makeTestService([pipelineOf('timer', schedule({ allowConcurrent: true }), async () => { await gate.promise; return 'done'; })]);
    const first = t.service.fireSchedule('timer');
    const second = t.service.fireSchedule('timer');
    gate.resolve();
    expect((await Promise.all([first, second])).map((o) => o.ok)).toEqual([true, true]);
  });

  it('a timer tick runs once per tick time across replicas sharing a lock', async () => {
    let runs = 0;
    const timer = pipelineOf('timer', schedule({ allowConcurrent: true }), async () => { runs++; return null; });
    const lock = new FakeLock();
    const replica = (): ScheduleRunner => {
      const metrics = createServiceMetrics('replica');
      const logger = createLogger({ level: 'silent' });
      const backends = createFakeBackends();
      const engine = new ExecutionEngine({
        pipelines: [timer], logger, metrics, clock: { now: () => 0 }, dataDir: tmpdir(), globals: {}, accounts: {},
        store: backends.store, broker: backends.broker, createExecutor: createPipelineExecutor,
        connections: new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' })),
      });
      return new ScheduleRunner(timer, timer.trigger as SchedulerTriggerSpec, { engine, lock, clock: { now: () => 0 }, metrics, logger });
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
    t = await makeTestService([pipelineOf('timer', schedule({ cron: '* * * * * *' }), async (m) => {
      ticks.push((m as { scheduledAt: number }).scheduledAt);
      ticked.resolve();
      return null;
    })]);
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
      expect(job.nextRuns(2, new Date('2024-03-30T23:00:00Z')).map((d) => d.toISOString())).toEqual(['2024-04-01T09:30:00.000Z', '2024-04-08T09:30:00.000Z']);
      job.stop();
    }
  });
});
