/**
 * Exponential backoff with jitter, for redelivering failed events and for reconnecting to a
 * backend. The n-th wait is `initial · multiplier^(n-1)` capped at `max`, then drawn uniformly
 * from its upper half ("equal jitter"): replicas that failed together spread out, and no wait is
 * shorter than half its step.
 */
export interface BackoffPolicy {
  /** Wait before the second attempt, ms. */
  readonly initialMs: number;
  /** Longest wait, ms. */
  readonly maxMs: number;
  readonly multiplier: number;
}

/** The event trigger's default (`backoff` parameter): 1 s, 2 s, 4 s … up to 5 minutes. */
export const DEFAULT_REDELIVERY_BACKOFF: BackoffPolicy = { initialMs: 1000, maxMs: 300_000, multiplier: 2 };

/** Reconnecting to a broker or database: 250 ms doubling up to 5 s, so an outage's end is noticed within seconds. */
export const RECONNECT_BACKOFF: BackoffPolicy = { initialMs: 250, maxMs: 5000, multiplier: 2 };

/** The wait after the `failures`-th consecutive failure (1-based), in ms. */
export function backoffDelay(policy: BackoffPolicy, failures: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(failures - 1, 60));
  const step = Math.min(policy.maxMs, policy.initialMs * policy.multiplier ** exponent);
  return Math.round(step / 2 + random() * (step / 2));
}

/** A sequence of waits that grows with each failure and starts over after a success. */
export class Backoff {
  private failures = 0;

  constructor(
    private readonly policy: BackoffPolicy,
    private readonly random: () => number = Math.random,
  ) {}

  next(): number {
    this.failures += 1;
    return backoffDelay(this.policy, this.failures, this.random);
  }

  reset(): void {
    this.failures = 0;
  }
}

/** Resolves after `ms`, or at once when the signal aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
