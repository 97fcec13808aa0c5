/**
 * Per-pipeline concurrency limit: at most `max` executions hold a slot; the rest wait in FIFO
 * order. Waiting is abortable (an execution whose timeout expires while queued leaves the queue).
 */

export type Release = () => void;

interface Waiter {
  readonly grant: (release: Release) => void;
}

export class ConcurrencyLimiter {
  private activeCount = 0;
  private readonly waiters: Waiter[] = [];

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be a positive integer, got ${max}`);
  }

  get active(): number {
    return this.activeCount;
  }

  get queued(): number {
    return this.waiters.length;
  }

  /** Resolves with a release function once a slot is free; rejects with `signal.reason` on abort. */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.activeCount < this.max) {
      this.activeCount += 1;
      return Promise.resolve(this.releaseOnce());
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const onAbort = (): void => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private releaseOnce(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      // The slot passes straight to the next waiter, so the active count stays the same.
      if (next) next.grant(this.releaseOnce());
      else this.activeCount -= 1;
    };
  }
}
