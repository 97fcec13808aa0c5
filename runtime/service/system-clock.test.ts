import { describe, expect, it } from 'vitest';
import { SystemClock, type ClockSources } from './system-clock.js';

/** Clocks the test moves by hand: readings are exact and nothing depends on how fast the test runs. */
function handClocks(
  wall: number,
  monotonic: number,
): ClockSources & { advance(ms: number, wallAdjustMs?: number): void } {
  return {
    wall: () => wall,
    monotonic: () => monotonic,
    advance(ms, wallAdjustMs = 0) {
      monotonic += ms;
      wall += ms + wallAdjustMs;
    },
  };
}

describe('SystemClock', () => {
  it('tells the wall time of a monotonic reading, now and earlier, in whole milliseconds', () => {
    const clocks = handClocks(1_700_000_000_000, 5_000.25);
    const clock = new SystemClock(clocks);
    expect(clock.wallTimeAt(5_000.25)).toBe(1_700_000_000_000);
    expect(clock.wallTimeAt(5_000.25 - 4_000)).toBe(1_700_000_000_000 - 4_000);
    expect(clock.wallTimeAt(5_000.25 + 0.4)).toBe(1_700_000_000_000);
    expect(clock.wallTimeAt(5_000.25 + 0.6)).toBe(1_700_000_000_001);
  });

  it('counts from a new pair of readings after a second, so it follows adjustments of the wall clock', () => {
    const clocks = handClocks(1_700_000_000_000, 10_000);
    const clock = new SystemClock(clocks);
    // The wall clock is stepped 250 ms ahead (NTP) while 900 ms pass: the old pair still answers.
    clocks.advance(900, 250);
    expect(clock.wallTimeAt(10_900)).toBe(1_700_000_000_900);
    // Past a second since the pair was taken, a new pair is read and the adjustment shows.
    clocks.advance(200);
    expect(clock.wallTimeAt(11_100)).toBe(1_700_000_001_350);
    expect(clock.wallTimeAt(11_000)).toBe(1_700_000_001_250);
  });

  it('reads the system clocks by default', () => {
    const clock = new SystemClock();
    expect(Number.isInteger(clock.now())).toBe(true);
    expect(Number.isInteger(clock.wallTimeAt(performance.now()))).toBe(true);
  });
});
