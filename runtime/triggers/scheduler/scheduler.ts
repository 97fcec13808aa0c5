/**
 * The scheduler trigger: croner with 5 or 6 fields in the pipeline's time zone. A tick is skipped
 * while the previous run of the pipeline is still going (unless allowConcurrent), and runs under
 * the lock `schedule:<pipeline>:<tick ms>` so that, across replicas, one of them runs it.
 * The message is `{ scheduledAt: <tick ms> }`.
 *
 * Missed ticks: every tick that runs is recorded as the schedule's latest (`schedule:<pipeline>`
 * in the lock backend: SQLite file, PostgreSQL, or NATS KV). At start, when the latest tick due by
 * now is later than the recorded one, no replica was running at that time: with `missed-ticks:
 * run-once` (the default) that latest missed tick runs once, under its own tick lock (so replicas
 * starting together, or one already running it, do not run it twice); with `skip` it is left. A
 * schedule seen for the first time records the latest due tick without running it.
 */
import { Cron } from 'croner';
import type { Logger } from 'pino';
import { PipeError } from '../../errors.js';
import type { Clock, PipelineModule, TriggerSpec } from '../../types.js';
import type { LockBackend } from '../../service/backends-port.js';
import { publicOutcome, type ExecutionOutcome } from '../../service/create-service.js';
import type { EngineOutcome, ExecutionEngine } from '../../service/execution.js';
import type { ServiceMetrics } from '../../service/metrics.js';
import type { TriggerRuntime } from '../../service/trigger-host.js';

export interface SchedulerTriggerSpec extends TriggerSpec {
  readonly kind: 'scheduler';
  /** 5 or 6 fields (with seconds). */
  readonly cron: string;
  /** IANA zone, default UTC. */
  readonly timezone: string;
  readonly allowConcurrent: boolean;
  /**
   * Ticks whose time passed while no replica ran: 'run-once' (the default) runs the latest of them
   * once at start, 'skip' leaves them.
   */
  readonly missedTicks?: 'run-once' | 'skip';
}

/** One runner per pipeline; ticks from the start of the service until it drains. `fire` runs one now. */
export const trigger: TriggerRuntime<SchedulerTriggerSpec> = {
  attach(pipelines, host) {
    const runners = new Map(pipelines.map((p) => [p.name, new ScheduleRunner(p, p.trigger, host)]));
    return {
      async start() {
        // Driven by hand (a manual clock): ticks come only from `fire`.
        if (!host.scheduleTimers) return;
        for (const runner of runners.values()) runner.start();
      },
      async stop() {
        for (const runner of runners.values()) runner.stop();
      },
      fire(pipeline) {
        const runner = runners.get(pipeline);
        return runner ? runner.fireNow().then((tick) => tickOutcome(tick, host.clock)) : undefined;
      },
    };
  },
  testMessage: (_spec, given) =>
    given !== null && typeof given === 'object' && !Array.isArray(given)
      ? { scheduledAt: Date.now(), ...given }
      : { scheduledAt: Date.now() },
};

/** A tick fired by hand as an execution outcome: skipped ticks answer 409. */
function tickOutcome(tick: TickResult, clock: Clock): ExecutionOutcome {
  if (tick.kind === 'ran') return publicOutcome(tick.outcome);
  const message =
    tick.reason === 'overlap'
      ? 'scheduler tick skipped: the previous run is still running'
      : 'scheduler tick skipped: another replica runs it';
  return { ok: false, executionId: '', error: { timestamp: clock.now(), error: message, message, code: 409 } };
}

export interface SchedulerDeps {
  readonly engine: ExecutionEngine;
  readonly lock: LockBackend;
  readonly clock: Clock;
  readonly metrics: ServiceMetrics;
  readonly logger: Logger;
  /** How soon a start-up catch-up that met an unavailable backend is tried again (default 5 s). */
  readonly catchUpRetryMs?: number;
}

/** How soon a catch-up that met an unavailable backend is tried again. */
const CATCH_UP_RETRY_MS = 5000;

export type TickResult =
  | { readonly kind: 'ran'; readonly outcome: EngineOutcome }
  | { readonly kind: 'skipped'; readonly reason: 'overlap' | 'locked' };

/** What the start-up look at missed ticks did. */
export type CatchUp =
  | { readonly kind: 'first-start' | 'none-missed' | 'skipped'; readonly latestDue: number | null }
  | { readonly kind: 'caught-up'; readonly tick: number; readonly result: TickResult };

/** Parses a cron expression the way the trigger will (throws on an invalid one). */
export function createCron(spec: SchedulerTriggerSpec, onTick?: (tickTime: number) => void): Cron {
  const options = { ...zoneOptions(spec.timezone), mode: '5-or-6-parts' as const, paused: onTick === undefined };
  if (!onTick) return new Cron(spec.cron, options);
  return new Cron(spec.cron, options, (self: Cron) => onTick(scheduledTime(self)));
}

/**
 * UTC (the default) as a fixed offset: the same instants, without croner's time-zone arithmetic
 * through Intl, whose first use costs ~35 ms of start-up.
 */
function zoneOptions(timezone: string): { readonly timezone: string } | { readonly utcOffset: number } {
  return timezone === '' || timezone === 'UTC' || timezone === 'Etc/UTC' ? { utcOffset: 0 } : { timezone };
}

/** The tick's scheduled instant (croner reports when it actually fired, a few ms later). */
function scheduledTime(job: Cron): number {
  const fired = job.currentRun()?.getTime() ?? Date.now();
  return job.previousRuns(1, new Date(fired + 1))[0]?.getTime() ?? Math.floor(fired / 1000) * 1000;
}

export class ScheduleRunner {
  private running = 0;
  private job: Cron | undefined;

  constructor(
    private readonly pipeline: PipelineModule,
    private readonly spec: SchedulerTriggerSpec,
    private readonly deps: SchedulerDeps,
  ) {}

  start(): void {
    if (this.job) return;
    this.job = createCron(this.spec, (tickTime) => {
      void this.tick(tickTime).catch((err: unknown) =>
        this.deps.logger.error({ err, pipeline: this.pipeline.name }, 'scheduler tick failed'),
      );
    });
    void this.catchUpUntilDone();
  }

  /** The start-up catch-up, tried again every few seconds while its backend is away (until stopped). */
  private async catchUpUntilDone(): Promise<void> {
    let logged = false;
    const started = this.job;
    while (this.job === started && started !== undefined) {
      try {
        await this.catchUp();
        return;
      } catch (err) {
        const backendAway = err instanceof PipeError && err.code === 503;
        if (!logged || !backendAway)
          this.deps.logger.error({ err, pipeline: this.pipeline.name }, 'scheduler catch-up failed');
        logged = true;
        if (!backendAway) return;
        await new Promise((resolve) => setTimeout(resolve, this.deps.catchUpRetryMs ?? CATCH_UP_RETRY_MS).unref());
      }
    }
  }

  /** Runs the latest tick missed while no replica ran (see the top of this file). */
  async catchUp(): Promise<CatchUp> {
    const name = this.pipeline.name;
    const now = this.deps.clock.now();
    const latestDue =
      createCron(this.spec)
        .previousRuns(1, new Date(now + 1))[0]
        ?.getTime() ?? null;
    const recorded = await this.deps.lock.lastTick(scheduleKey(name));
    if (recorded === null) {
      if (latestDue !== null) await this.deps.lock.recordTick(scheduleKey(name), latestDue);
      return { kind: 'first-start', latestDue };
    }
    if (latestDue === null || latestDue <= recorded) return { kind: 'none-missed', latestDue };
    if ((this.spec.missedTicks ?? 'run-once') === 'skip') {
      this.deps.logger.info(
        { pipeline: name, lastTick: recorded, latestDue },
        'scheduler: ticks missed while no replica ran are skipped',
      );
      await this.deps.lock.recordTick(scheduleKey(name), latestDue);
      return { kind: 'skipped', latestDue };
    }
    this.deps.logger.info(
      { pipeline: name, lastTick: recorded, tick: latestDue },
      'scheduler: running the latest tick missed while no replica ran',
    );
    const result = await this.tick(latestDue);
    if (result.kind === 'ran') this.deps.metrics.schedulerTicks.inc({ pipeline: name, outcome: 'caught-up' });
    return { kind: 'caught-up', tick: latestDue, result };
  }

  stop(): void {
    this.job?.stop();
    this.job = undefined;
  }

  /** A timer tick: overlap check, then the cross-replica lock, then the execution. */
  tick(tickTime: number): Promise<TickResult> {
    return this.fire(tickTime, true);
  }

  /** Runs now, on this replica (tests, "fire now"): overlap check but no lock. */
  fireNow(): Promise<TickResult> {
    return this.fire(this.deps.clock.now(), false);
  }

  private async fire(tickTime: number, useLock: boolean): Promise<TickResult> {
    const name = this.pipeline.name;
    if (!this.spec.allowConcurrent && this.running > 0) {
      this.deps.metrics.schedulerTicks.inc({ pipeline: name, outcome: 'overlap' });
      this.deps.logger.warn({ pipeline: name, tickTime }, 'scheduler tick skipped: the previous run is still running');
      return { kind: 'skipped', reason: 'overlap' };
    }
    this.running++;
    try {
      let outcome: EngineOutcome | undefined;
      const run = async (): Promise<void> => {
        if (useLock) await this.deps.lock.recordTick(scheduleKey(name), tickTime);
        outcome = await this.deps.engine.execute({
          pipeline: name,
          message: { scheduledAt: tickTime },
          trigger: 'scheduler',
        });
      };
      const locked = useLock ? await this.deps.lock.tryLock(`schedule:${name}:${tickTime}`, run) : (await run(), true);
      if (!locked || !outcome) {
        this.deps.metrics.schedulerTicks.inc({ pipeline: name, outcome: 'locked' });
        this.deps.logger.debug({ pipeline: name, tickTime }, 'scheduler tick taken by another replica');
        return { kind: 'skipped', reason: 'locked' };
      }
      this.deps.metrics.schedulerTicks.inc({ pipeline: name, outcome: 'ran' });
      return { kind: 'ran', outcome };
    } finally {
      this.running--;
    }
  }
}

/** The key under which a schedule's latest tick is recorded. */
export function scheduleKey(pipeline: string): string {
  return `schedule:${pipeline}`;
}
