/**
 * Graceful shutdown support: tracks in-flight work so stop() can wait for it, bounded by a grace
 * period. Pure bookkeeping; the service decides what to stop and in which order.
 */

export class InFlightTracker {
  /** A count, not a set of promises: entering and leaving sit on every request's path. */
  private count = 0;
  private readonly idleWaiters = new Set<() => void>();

  get size(): number {
    return this.count;
  }

  /** Counts one piece of work in; `leave()` must follow exactly once. */
  enter(): void {
    this.count += 1;
  }

  leave(): void {
    this.count -= 1;
    if (this.count === 0 && this.idleWaiters.size > 0) for (const wake of [...this.idleWaiters]) wake();
  }

  /** Registers `work` until it settles; returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T> {
    this.enter();
    const leave = (): void => this.leave();
    work.then(leave, leave);
    return work;
  }

  /** Resolves true when everything tracked settled, false when `graceMs` ran out first. */
  drain(graceMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const wake = (): void => {
        this.idleWaiters.delete(wake);
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(
        () => {
          this.idleWaiters.delete(wake);
          resolve(this.count === 0);
        },
        Math.max(0, graceMs),
      );
      this.idleWaiters.add(wake);
    });
  }
}

/** Waits for `work`, but no longer than `ms`; never rejects. */
export async function settleWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  const done = work.then(
    () => true,
    () => true,
  );
  const result = await Promise.race([done, timedOut]);
  clearTimeout(timer);
  return result;
}
