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

  /** Settles like `work`, or rejects with the abort reason as soon as this aborts. */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.abortedWith) return Promise.reject(this.abortedWith.reason);
    return new Promise<T>((resolve, reject) => {
      const unsubscribe = this.onAbort(reject);
      work.then(
        (value) => { unsubscribe(); resolve(value); },
        (error: unknown) => { unsubscribe(); reject(error); },
      );
    });
  }
}

function noop(): void {}
