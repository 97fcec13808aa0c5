/**
 * The abort state of one execution (timeout, shutdown, a parent's abort). The web AbortSignal is
 * created only when something asks for it (a connector passing it to fetch, a step checking it):
 * on Node 20 an AbortController costs more than the whole engine bookkeeping of an execution,
 * and most executions end without ever reading their signal.
 */

type AbortListener = (reason: unknown) => void;

export class ExecutionAbort {
  private controller: AbortController | undefined;
  private listeners: AbortListener[] | undefined;
  private abortedWith: { readonly reason: unknown } | undefined;
  /** Rejects the pending `race`, if any (one per execution: no listener list for it). */
  private rejectRace: ((reason: unknown) => void) | undefined;
  /** Stops following a parent's signal (see `follow`). */
  private unfollowParent: (() => void) | undefined;

  get aborted(): boolean {
    return this.abortedWith !== undefined;
  }

  get reason(): unknown {
    return this.abortedWith?.reason;
  }

  /** The web signal; created on first use, already aborted when the execution was. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedWith) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  /** Aborts once; later calls are ignored (the first reason wins). */
  abort(reason: unknown): void {
    if (this.abortedWith) return;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
    const rejectRace = this.rejectRace;
    this.rejectRace = undefined;
    rejectRace?.(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener(reason);
  }

  /** Calls `listener` on abort (at once when already aborted); returns the unsubscribe function. */
  onAbort(listener: AbortListener): () => void {
    if (this.abortedWith) {
      listener(this.abortedWith.reason);
      return noop;
    }
    (this.listeners ??= []).push(listener);
    return () => {
      const index = this.listeners?.indexOf(listener) ?? -1;
      if (index >= 0) this.listeners?.splice(index, 1);
    };
  }

  /**
   * Settles like `work`, or rejects with the abort reason as soon as this aborts. Meant once per
   * execution (a later call takes over the abort from an earlier one that is still pending).
   */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.abortedWith) return Promise.reject(this.abortedWith.reason);
    return new Promise<T>((resolve, reject) => {
      this.rejectRace = reject;
      // Settling the promise again on a later abort is a no-op, so nothing needs unsubscribing.
      work.then(resolve, reject);
    });
  }

  /** Aborts with the parent's reason when `parent` aborts (a Pipeline Executor call), until `unfollow`. */
  follow(parent: AbortSignal): void {
    const onParentAbort = (): void => this.abort(parent.reason);
    if (parent.aborted) {
      onParentAbort();
      return;
    }
    parent.addEventListener('abort', onParentAbort, { once: true });
    this.unfollowParent = () => parent.removeEventListener('abort', onParentAbort);
  }

  unfollow(): void {
    this.unfollowParent?.();
    this.unfollowParent = undefined;
    this.rejectRace = undefined;
  }
}

function noop(): void {}
