import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { PipeError } from './errors.js';
import { enterDeadline, isExecutionTimeout, leaveDeadline, tick } from './work-meter.js';

describe('work meter', () => {
  const tickMany = (n: number): void => {
    for (let i = 0; i < n; i++) tick();
  };

  it('throws the execution timeout from inside evaluation once the deadline has passed', () => {
    enterDeadline(performance.now() - 1, 250);
    try {
      let thrown: unknown;
      try {
        tickMany(100_000);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(PipeError);
      expect(isExecutionTimeout(thrown)).toBe(true);
      expect((thrown as PipeError).details).toEqual({ timeoutMs: 250 });
    } finally {
      leaveDeadline();
    }
  });

  it('only counts when no deadline is set, and restores the enclosing deadline', () => {
    expect(() => tickMany(100_000)).not.toThrow();
    enterDeadline(performance.now() + 60_000, 60_000);
    enterDeadline(performance.now() - 1, 10);
    expect(() => tickMany(100_000)).toThrow(/timed out/);
    leaveDeadline();
    expect(() => tickMany(100_000)).not.toThrow();
    leaveDeadline();
  });
});
