/**
 * Per-pipeline concurrency limit: at most `max` executions hold a slot; up to `maxQueued` more wait
 * in FIFO order, and beyond that `acquire` refuses at once (QueueFull: the caller sheds the work
 * instead of queueing it without end). Waiting is abortable (an execution whose timeout expires
 * while queued leaves the queue).
 */

export type Release = () => void;

/** What can abort a wait: a web AbortSignal or an execution's lazy abort (execution-abort.ts). */
export type AbortSource =
  | AbortSignal
  | { readonly aborted: boolean; readonly reason: unknown; onAbort(listener: (reason: unknown) => void): () => void };

/** Subscribes to `source`; returns the unsubscribe function. */
function listen(source: AbortSource, listener: (reason: unknown) => void): () => void {
  if ('onAbort' in source) return source.onAbort(listener);
  const onAbort = (): void => listener(source.reason);
  source.addEventListener('abort', onAbort, { once: true });
  return () => source.removeEventListener('abort', onAbort);
}

/** Thrown by `acquire` when `maxQueued` executions already wait. */
export class QueueFull extends Error {
  constructor(readonly queued: number) {
    super(`the wait queue is full (${queued} waiting)`);
    this.name = 'QueueFull';
  }
}

interface Waiter {
  readonly grant: (release: Release) => void;
}

export class ConcurrencyLimiter {
  private activeCount = 0;
  private readonly waiters: Waiter[] = [];

  /** `onQueue` is told the number waiting whenever it changes (the queue-depth metric). */
  constructor(
    readonly max: number,
    readonly maxQueued = Number.POSITIVE_INFINITY,
    private readonly onQueue?: (queued: number) => void,
  ) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be a positive integer, got ${max}`);
    if (maxQueued < 0) throw new RangeError(`queue must not be negative, got ${maxQueued}`);
  }

  get active(): number {
    return this.activeCount;
  }

  get queued(): number {
    return this.waiters.length;
  }

  /** A slot at once when one is free (no promise, no wait), else undefined: then use acquire(). */
  tryAcquire(): Release | undefined {
    if (this.activeCount >= this.max) return undefined;
    this.activeCount += 1;
    return this.releaseOnce();
  }

  /** Resolves with a release function once a slot is free; rejects with the abort reason on abort. */
  acquire(abort?: AbortSource): Promise<Release> {
    if (abort?.aborted) return Promise.reject(abort.reason);
    if (this.activeCount < this.max) {
      this.activeCount += 1;
      return Promise.resolve(this.releaseOnce());
    }
    if (this.waiters.length >= this.maxQueued) return Promise.reject(new QueueFull(this.waiters.length));
    return new Promise<Release>((resolve, reject) => {
      let unsubscribe: (() => void) | undefined;
      const waiter: Waiter = {
        grant: (release) => {
          unsubscribe?.();
          resolve(release);
        },
      };
      this.waiters.push(waiter);
      this.onQueue?.(this.waiters.length);
      if (abort) {
        unsubscribe = listen(abort, (reason) => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          this.onQueue?.(this.waiters.length);
          reject(reason);
        });
      }
    });
  }

  private releaseOnce(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      // The slot passes straight to the next waiter, so the active count stays the same.
      if (next) {
        this.onQueue?.(this.waiters.length);
        next.grant(this.releaseOnce());
      } else this.activeCount -= 1;
    };
  }
}
