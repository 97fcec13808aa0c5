import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { SystemClock } from './system-clock.js';

describe('SystemClock', () => {
  it('tells the wall time of a monotonic reading, now and earlier', () => {
    const clock = new SystemClock();
    const monotonic = performance.now();
    const wall = Date.now();
    expect(Math.abs(clock.wallTimeAt(monotonic) - wall)).toBeLessThanOrEqual(2);
    expect(Math.abs(clock.wallTimeAt(monotonic - 5_000) - (wall - 5_000))).toBeLessThanOrEqual(2);
    expect(Number.isInteger(clock.wallTimeAt(monotonic + 0.4))).toBe(true);
  });

  it('counts from a new pair of readings after a second, so it follows the wall clock', async () => {
    const clock = new SystemClock();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const monotonic = performance.now();
    expect(Math.abs(clock.wallTimeAt(monotonic) - Date.now())).toBeLessThanOrEqual(2);
    expect(Math.abs(clock.now() - Date.now())).toBeLessThanOrEqual(1);
  });
});
