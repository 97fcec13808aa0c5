/**
 * Graceful shutdown support: tracks in-flight work so stop() can wait for it, bounded by a grace
 * period. Pure bookkeeping; the service decides what to stop and in which order.
 */

export class InFlightTracker {
  private readonly pending = new Set<Promise<unknown>>();

  get size(): number {
    return this.pending.size;
  }

  /** Registers `work` until it settles; returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T> {
    const settled = work.then(() => undefined, () => undefined);
    this.pending.add(settled);
    void settled.then(() => this.pending.delete(settled));
    return work;
  }

  /** Resolves true when everything tracked settled, false when `graceMs` ran out first. */
  async drain(graceMs: number): Promise<boolean> {
    const deadline = Date.now() + Math.max(0, graceMs);
    while (this.pending.size > 0) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), remaining);
      });
      const result = await Promise.race([Promise.all([...this.pending]), timedOut]);
      clearTimeout(timer);
      if (result === 'timeout') return this.pending.size === 0;
    }
    return true;
  }
}

/** Waits for `work`, but no longer than `ms`; never rejects. */
export async function settleWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  const done = work.then(() => true, () => true);
  const result = await Promise.race([done, timedOut]);
  clearTimeout(timer);
  return result;
}
