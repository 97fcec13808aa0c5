/**
 * Retries for the `rest` connector: the backoff schedule (pure) and a loop that re-runs an attempt
 * while its outcome asks for it, sleeping between attempts and stopping at once when the execution
 * is aborted.
 *
 * Backoff: exponential with "equal jitter" — attempt n waits between half and all of
 * min(cap, base·2ⁿ), so simultaneous failures do not retry in lockstep yet every wait grows.
 */

/** Longest wait between two attempts, whatever the base and attempt number. */
export const MAX_BACKOFF_MS = 30_000;

/**
 * @param attempt 0 for the wait after the first failure.
 * @param random a number in [0, 1) (Math.random in production, fixed in tests).
 * @example backoffDelay(0, 200, () => 0) → 100; backoffDelay(3, 200, () => 0.999) → ~1600
 */
export function backoffDelay(attempt: number, baseMs: number, random: () => number): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/** What made an attempt fail: the result it gave or the error it threw. */
export type RetriedOutcome<T> = { readonly result: T } | { readonly error: unknown };

export interface RetryPolicy<T> {
  /** Extra attempts after the first. */
  readonly retries: number;
  readonly baseMs: number;
  readonly signal: AbortSignal;
  /** A result that should be retried (e.g. a 5xx response); returned as is when attempts run out. */
  readonly retryResult: (result: T) => boolean;
  /** An error that should be retried; thrown as is when attempts run out. */
  readonly retryError: (err: unknown) => boolean;
  /** Told before each wait (for logs). */
  readonly onRetry?: (attempt: number, delayMs: number, outcome: RetriedOutcome<T>) => void;
  readonly random?: () => number;
}

/** Runs `attempt` until it gives a result or error the policy does not retry, or attempts run out. */
export async function withRetries<T>(policy: RetryPolicy<T>, attempt: () => Promise<T>): Promise<T> {
  for (let n = 0; ; n++) {
    const last = n >= policy.retries;
    let outcome: RetriedOutcome<T>;
    try {
      const result = await attempt();
      if (last || !policy.retryResult(result)) return result;
      outcome = { result };
    } catch (err) {
      if (last || policy.signal.aborted || !policy.retryError(err)) throw err;
      outcome = { error: err };
    }
    const delay = backoffDelay(n, policy.baseMs, policy.random ?? Math.random);
    policy.onRetry?.(n + 1, delay, outcome);
    await sleep(delay, policy.signal);
  }
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
