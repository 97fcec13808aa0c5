import { describe, expect, it } from 'vitest';
import { backoffDelay, MAX_BACKOFF_MS, sleep, withRetries } from './retry.js';

const never = new AbortController().signal;

describe('backoffDelay', () => {
  it('doubles per attempt with jitter between half and all of the ceiling', () => {
    expect([0, 1, 2, 3].map((n) => backoffDelay(n, 200, () => 0))).toEqual([100, 200, 400, 800]);
    expect([0, 1, 2, 3].map((n) => backoffDelay(n, 200, () => 0.9999))).toEqual([200, 400, 800, 1600]);
  });

  it('is capped whatever the attempt number', () => {
    expect(backoffDelay(40, 60_000, () => 0.99999)).toBe(MAX_BACKOFF_MS);
    expect(backoffDelay(1000, 1, () => 0)).toBe(MAX_BACKOFF_MS / 2);
  });
});

describe('withRetries', () => {
  const policy = { baseMs: 0, signal: never, random: () => 0 };

  it('retries results and errors the policy names, then returns or throws the last one', async () => {
    let calls = 0;
    const result = await withRetries(
      { ...policy, retries: 2, retryResult: (r: number) => r >= 500, retryError: () => true },
      async () => {
        calls++;
        return 503;
      },
    );
    expect({ result, calls }).toEqual({ result: 503, calls: 3 });
    calls = 0;
    await expect(
      withRetries({ ...policy, retries: 1, retryResult: () => false, retryError: () => true }, async () => {
        calls++;
        throw new Error(`boom ${calls}`);
      }),
    ).rejects.toThrow('boom 2');
  });

  it('throws an error the policy does not retry at once and reports each retry', async () => {
    const seen: unknown[] = [];
    let calls = 0;
    await expect(
      withRetries(
        {
          ...policy,
          retries: 5,
          retryResult: () => false,
          retryError: (e) => e instanceof RangeError,
          onRetry: (attempt, _delay, outcome) => seen.push([attempt, 'error' in outcome]),
        },
        async () => {
          calls++;
          throw calls === 1 ? new RangeError('again') : new TypeError('final');
        },
      ),
    ).rejects.toThrow('final');
    expect(seen).toEqual([[1, true]]);
  });

  it('stops waiting when the signal aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 20);
    const started = Date.now();
    await expect(
      withRetries(
        { baseMs: 10_000, signal: controller.signal, retries: 3, retryResult: () => true, retryError: () => true },
        async () => 1,
      ),
    ).rejects.toThrow('stop');
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(sleep(10, controller.signal)).rejects.toThrow('stop');
  });
});
