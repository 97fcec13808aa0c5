/**
 * The wall clock a service runs on when none is given. It can also tell the wall time of a
 * `performance.now()` reading already taken, without reading the clock again: the engine reads
 * the monotonic clock as an execution starts, and an execution's start timestamp (metadata) then
 * costs no second read (on some virtual machines a clock read costs about as much as a small
 * step). The pair of readings it counts from is taken again every second, so the answer follows
 * adjustments of the wall clock and stays within a millisecond of `Date.now()`.
 */
import { performance } from 'node:perf_hooks';
import type { Clock } from '../types.js';

/** How long (ms of the monotonic clock) one pair of readings is used. */
const REBASE_AFTER_MS = 1000;

/** Where the readings come from (the system's clocks; tests give clocks of their own). */
export interface ClockSources {
  readonly wall: () => number;
  readonly monotonic: () => number;
}

const SYSTEM_SOURCES: ClockSources = { wall: () => Date.now(), monotonic: () => performance.now() };

export class SystemClock implements Clock {
  private wallBase: number;
  private monotonicBase: number;

  constructor(private readonly sources: ClockSources = SYSTEM_SOURCES) {
    this.wallBase = sources.wall();
    this.monotonicBase = sources.monotonic();
  }

  now(): number {
    return Date.now();
  }

  /** The wall time (epoch ms, whole) at which performance.now() read `monotonic`. */
  wallTimeAt(monotonic: number): number {
    const sinceBase = monotonic - this.monotonicBase;
    if (sinceBase > REBASE_AFTER_MS || sinceBase < -REBASE_AFTER_MS) {
      this.wallBase = this.sources.wall();
      this.monotonicBase = this.sources.monotonic();
    }
    return Math.round(this.wallBase + (monotonic - this.monotonicBase));
  }
}
