import { describe, expect, it } from 'vitest';
import { PipeError } from '../errors.js';
import type { Json } from '../types.js';
import { parseRetryAfter, runWithRetry, type Pacer, type RetrySpec } from './retry.js';

/** A clock that moves on by exactly what is slept, and records each wait. */
function manualPacer(random = 0.5): Pacer & { readonly waits: number[]; time: number } {
  const pacer = {
    time: 1_000_000,
    waits: [] as number[],
    now: () => pacer.time,
    sleep: async (ms: number, signal: AbortSignal) => {
      if (signal.aborted) throw signal.reason;
      pacer.waits.push(ms);
      pacer.time += ms;
    },
    random: () => random,
  };
  return pacer;
}

const SPEC: RetrySpec = {
  attempts: 5,
  initialMs: 100,
  maxDelayMs: 1000,
  multiplier: 2,
  budgetMs: 0,
  kinds: ['TIMEOUT', 'REST_UNREACHABLE'],
  statuses: [429, 503],
};

/** An attempt that fails with the given errors (or returns the given outputs) in turn, then answers `ok`. */
function script(...outcomes: (PipeError | Json)[]): { attempt: () => Promise<Json>; calls: () => number } {
  let calls = 0;
  return {
    calls: () => calls,
    attempt: async () => {
      const outcome = outcomes[calls++];
      if (outcome instanceof PipeError) throw outcome;
      return outcome === undefined ? 'ok' : outcome;
    },
  };
}

const timeout = (): PipeError => new PipeError('slow', { code: 504, kind: 'TIMEOUT' });
const signal = new AbortController().signal;

describe('runWithRetry', () => {
  it('retries the listed kinds with exponential waits (equal jitter, capped) until the attempt succeeds', async () => {
    const pacer = manualPacer(0.5);
    const run = script(timeout(), timeout(), timeout(), timeout());
    await expect(runWithRetry({ ...SPEC, maxDelayMs: 500 }, run.attempt, pacer, signal)).resolves.toBe('ok');
    expect(run.calls()).toBe(5);
    // step n: min(500, 100·2^(n-1)); wait = step/2 + 0.5·step/2
    expect(pacer.waits).toEqual([75, 150, 300, 375]);
  });

  it('keeps every wait within the upper half of its step, whatever the jitter', async () => {
    for (const random of [0, 0.999]) {
      const pacer = manualPacer(random);
      await runWithRetry(SPEC, script(timeout(), timeout(), timeout()).attempt, pacer, signal);
      pacer.waits.forEach((wait, i) => {
        const step = Math.min(1000, 100 * 2 ** i);
        expect(wait).toBeGreaterThanOrEqual(step / 2);
        expect(wait).toBeLessThanOrEqual(step);
      });
    }
  });

  it('gives up after `attempts` and throws the last failure as it was', async () => {
    const pacer = manualPacer();
    const last = new PipeError('down', { code: 502, kind: 'REST_UNREACHABLE' });
    const run = script(timeout(), timeout(), last);
    await expect(runWithRetry({ ...SPEC, attempts: 3 }, run.attempt, pacer, signal)).rejects.toBe(last);
    expect(run.calls()).toBe(3);
    expect(pacer.waits).toHaveLength(2);
  });

  it('does not retry a kind or status it was not told to', async () => {
    const refused = new PipeError('bad', { code: 400, kind: 'REST_CLIENT_ERROR' });
    const run = script(refused);
    await expect(runWithRetry(SPEC, run.attempt, manualPacer(), signal)).rejects.toBe(refused);
    expect(run.calls()).toBe(1);
  });

  it("retries by the status the other side answered as well as by kind, never by an error's own code", async () => {
    const run = script(new PipeError('busy', { code: 503, kind: 'REST_SERVER_ERROR', details: { status: 503 } }));
    await expect(runWithRetry(SPEC, run.attempt, manualPacer(), signal)).resolves.toBe('ok');
    expect(run.calls()).toBe(2);
    const ours = new PipeError('too large', { code: 503, kind: 'BACKEND_UNAVAILABLE' });
    const once = script(ours);
    await expect(runWithRetry(SPEC, once.attempt, manualPacer(), signal)).rejects.toBe(ours);
    expect(once.calls()).toBe(1);
  });

  it('waits what Retry-After says on a 429 (seconds or an HTTP date), not the backoff', async () => {
    const pacer = manualPacer();
    const date = new Date(pacer.time + 7000).toUTCString();
    const run = script(
      new PipeError('slow down', { code: 429, kind: 'RATE_LIMITED', details: { status: 429, retryAfter: '3' } }),
      new PipeError('slow down', { code: 429, kind: 'RATE_LIMITED', details: { status: 429, retryAfter: date } }),
    );
    await expect(runWithRetry(SPEC, run.attempt, pacer, signal)).resolves.toBe('ok');
    expect(pacer.waits[0]).toBe(3000);
    // An HTTP date has whole seconds: the wait is what is left until then.
    expect(pacer.waits[1]).toBeGreaterThan(3000);
    expect(pacer.waits[1]).toBeLessThanOrEqual(4000);
  });

  it('retries an output that carries a listed status (an HTTP error answered as data), honouring its retry-after header', async () => {
    const pacer = manualPacer();
    const busy = { status: 503, headers: { 'retry-after': '2' }, body: null };
    const run = script(busy, busy);
    const spec = { ...SPEC, attempts: 3, outputStatus: 'status', outputHeaders: 'headers' };
    // Attempts run out: the last output is the step's output, as without retry.
    await expect(runWithRetry(spec, run.attempt, pacer, signal)).resolves.toBe('ok');
    expect(pacer.waits).toEqual([2000, 2000]);
    const always = script(busy, busy, busy);
    await expect(runWithRetry(spec, always.attempt, manualPacer(), signal)).resolves.toEqual(busy);
  });

  it('stops when the next wait would pass the budget', async () => {
    const pacer = manualPacer(0.999);
    const run = script(timeout(), timeout(), timeout(), timeout());
    // waits ≈ 100, 200, 400: the third would end at ≈ 700 ms > 600 ms budget.
    await expect(runWithRetry({ ...SPEC, budgetMs: 600 }, run.attempt, pacer, signal)).rejects.toMatchObject({
      kind: 'TIMEOUT',
    });
    expect(run.calls()).toBe(3);
    expect(pacer.waits.reduce((a, b) => a + b, 0)).toBeLessThan(600);
  });

  it('gives up at once when Retry-After asks for longer than the budget has left', async () => {
    const pacer = manualPacer();
    const run = script(
      new PipeError('later', { code: 503, kind: 'REST_SERVER_ERROR', details: { status: 503, retryAfter: '120' } }),
    );
    await expect(runWithRetry({ ...SPEC, budgetMs: 30_000 }, run.attempt, pacer, signal)).rejects.toMatchObject({
      code: 503,
    });
    expect(pacer.waits).toEqual([]);
  });

  it('stops waiting when the execution is aborted', async () => {
    const controller = new AbortController();
    const run = script(timeout(), timeout());
    const pacer = manualPacer();
    const aborting: Pacer = {
      ...pacer,
      sleep: async () => {
        controller.abort(new Error('shutdown'));
        throw controller.signal.reason;
      },
    };
    await expect(runWithRetry(SPEC, run.attempt, aborting, controller.signal)).rejects.toThrow('shutdown');
    expect(run.calls()).toBe(1);
  });

  it('tells each retry (attempt, wait, kind, status, and whether Retry-After set the wait)', async () => {
    const notices: unknown[] = [];
    const run = script(
      new PipeError('slow down', { code: 429, kind: 'RATE_LIMITED', details: { status: 429, retryAfter: 1 } }),
    );
    await runWithRetry(SPEC, run.attempt, manualPacer(), signal, (n) => notices.push(n));
    expect(notices).toEqual([{ attempt: 1, delayMs: 1000, kind: 'RATE_LIMITED', status: 429, retryAfter: true }]);
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP dates; anything else is no Retry-After', () => {
    const now = Date.parse('2026-03-02T10:00:00Z');
    expect(parseRetryAfter('5', now)).toBe(5000);
    expect(parseRetryAfter('Mon, 02 Mar 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Mon, 02 Mar 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
  });
});
