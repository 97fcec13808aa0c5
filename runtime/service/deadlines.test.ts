import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadlines } from './deadlines.js';

describe('Deadlines', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires deadlines in order, and never one that was cancelled', () => {
    const deadlines = new Deadlines();
    const expired: string[] = [];
    deadlines.add(100, performance.now(), () => expired.push('a'));
    vi.advanceTimersByTime(10);
    const b = deadlines.add(100, performance.now(), () => expired.push('b'));
    vi.advanceTimersByTime(10);
    deadlines.add(100, performance.now(), () => expired.push('c'));
    b.cancel();
    b.cancel();
    expect(deadlines.size).toBe(2);
    vi.advanceTimersByTime(85);
    expect(expired).toEqual(['a']);
    vi.advanceTimersByTime(20);
    expect(expired).toEqual(['a', 'c']);
    expect(deadlines.size).toBe(0);
  });

  it('a shorter timeout set later still fires first', () => {
    const deadlines = new Deadlines();
    const expired: string[] = [];
    deadlines.add(1000, performance.now(), () => expired.push('long'));
    deadlines.add(50, performance.now(), () => expired.push('short'));
    vi.advanceTimersByTime(60);
    expect(expired).toEqual(['short']);
    vi.advanceTimersByTime(1000);
    expect(expired).toEqual(['short', 'long']);
  });

  it('keeps the process alive only while something is pending', () => {
    vi.useRealTimers();
    const deadlines = new Deadlines();
    const first = deadlines.add(60_000, performance.now(), () => undefined);
    const second = deadlines.add(60_000, performance.now(), () => undefined);
    expect(deadlines.keepsProcessAlive).toBe(true);
    first.cancel();
    expect(deadlines.keepsProcessAlive).toBe(true);
    second.cancel();
    expect(deadlines.keepsProcessAlive).toBe(false);
    const third = deadlines.add(60_000, performance.now(), () => undefined);
    expect(deadlines.keepsProcessAlive).toBe(true);
    third.cancel();
    expect(deadlines.keepsProcessAlive).toBe(false);
  });

  it('stays exact under constant load (executions ending in turn)', () => {
    const deadlines = new Deadlines();
    const expired: number[] = [];
    // Ten running at a time, each ending before its deadline; then one is left to expire.
    const running = Array.from({ length: 10 }, (_, i) => deadlines.add(100, performance.now(), () => expired.push(i)));
    for (let i = 10; i < 5000; i++) {
      (running.shift() as { cancel(): void }).cancel();
      running.push(deadlines.add(100, performance.now(), () => expired.push(i)));
    }
    expect(deadlines.size).toBe(10);
    for (const deadline of running.slice(0, 9)) deadline.cancel();
    vi.advanceTimersByTime(101);
    expect(expired).toEqual([4999]);
  });
});
