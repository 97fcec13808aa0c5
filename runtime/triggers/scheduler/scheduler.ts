/**
 * The scheduler trigger: croner with 5 or 6 fields in the pipeline's time zone. A tick is skipped
 * while the previous run of the pipeline is still going (unless allowConcurrent), and runs under
 * the lock `schedule:<pipeline>:<tick ms>` so that, across replicas, one of them runs it.
 * The message is `{ scheduledAt: <tick ms> }`.
 */
import { Cron } from 'croner';
import type { Logger } from 'pino';
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
}

/** One runner per pipeline; ticks from the start of the service until it drains. `fire` runs one now. */
export const trigger: TriggerRuntime<SchedulerTriggerSpec> = {
  attach(pipelines, host) {
    const runners = new Map(pipelines.map((p) => [p.name, new ScheduleRunner(p, p.trigger, host)]));
    return {
      async start() {
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
  testMessage: (_spec, given) => (given !== null && typeof given === 'object' && !Array.isArray(given) ? { scheduledAt: Date.now(), ...given } : { scheduledAt: Date.now() }),
};

/** A tick fired by hand as an execution outcome: skipped ticks answer 409. */
function tickOutcome(tick: TickResult, clock: Clock): ExecutionOutcome {
  if (tick.kind === 'ran') return publicOutcome(tick.outcome);
  const message = tick.reason === 'overlap'
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
}

export type TickResult =
  | { readonly kind: 'ran'; readonly outcome: EngineOutcome }
  | { readonly kind: 'skipped'; readonly reason: 'overlap' | 'locked' };

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
      void this.tick(tickTime).catch((err: unknown) => this.deps.logger.error({ err, pipeline: this.pipeline.name }, 'scheduler tick failed'));
    });
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
        outcome = await this.deps.engine.execute({ pipeline: name, message: { scheduledAt: tickTime }, trigger: 'scheduler' });
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
