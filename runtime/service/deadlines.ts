/**
 * Execution timeouts without a Node timer per execution. The executions of one pipeline share
 * one timeout, so their deadlines come due in the order they were set: one FIFO queue per timeout
 * length, and one timer for the earliest deadline of all queues. Setting a deadline is an object
 * and an array push, cancelling it a flag (plus dropping finished entries from the queue's head);
 * the timer is set again only when it fires or when an earlier deadline arrives (a shorter
 * timeout). While a deadline is pending the timer keeps the process alive, as a timer per
 * execution did; with none pending it is unref'd.
 *
 * @example
 *   const deadlines = new Deadlines();
 *   const deadline = deadlines.add(30_000, performance.now(), () => abort.abort(timeoutError()));
 *   … // the execution ends
 *   deadline.cancel();
 */
/** Node fires timers on the loop's millisecond clock, which may run up to 1 ms behind `performance.now()`. */
const CLOCK_SLACK_MS = 1;

export interface Deadline {
  /** The execution ended first: the deadline will not fire. Idempotent. */
  cancel(): void;
}

class Entry implements Deadline {
  done = false;

  constructor(
    readonly due: number,
    readonly onExpire: () => void,
    private readonly owner: Deadlines,
    readonly queue: Fifo,
  ) {}

  cancel(): void {
    if (this.done) return;
    this.done = true;
    this.owner.settled(this);
  }
}

/** Entries of one timeout length, oldest (earliest due) first; finished ones are dropped lazily. */
class Fifo {
  private items: Entry[] = [];
  private head = 0;

  push(entry: Entry): void {
    this.items.push(entry);
  }

  /** The oldest entry still pending; finished entries in front of it are dropped. */
  first(): Entry | undefined {
    while (this.head < this.items.length && (this.items[this.head] as Entry).done) this.head++;
    if (this.head === this.items.length) {
      this.items.length = 0;
      this.head = 0;
      return undefined;
    }
    // Keep the array from growing without end under constant load: cut what was dropped.
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return this.items[this.head];
  }
}

export class Deadlines {
  private readonly queues = new Map<number, Fifo>();
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer is due (performance.now() time); Infinity when none is armed. */
  private armedFor = Number.POSITIVE_INFINITY;
  private pending = 0;

  /** Calls `onExpire` once `timeoutMs` have passed since `startedAt` (a `performance.now()` reading). */
  add(timeoutMs: number, startedAt: number, onExpire: () => void): Deadline {
    let queue = this.queues.get(timeoutMs);
    if (!queue) {
      queue = new Fifo();
      this.queues.set(timeoutMs, queue);
    }
    const entry = new Entry(startedAt + timeoutMs, onExpire, this, queue);
    queue.push(entry);
    this.pending += 1;
    if (entry.due < this.armedFor) this.arm(entry.due);
    else if (this.pending === 1) this.timer?.ref();
    return entry;
  }

  /** How many deadlines are pending (for tests and diagnostics). */
  get size(): number {
    return this.pending;
  }

  /** True while the timer holds the process open (something is pending). */
  get keepsProcessAlive(): boolean {
    return this.timer?.hasRef() ?? false;
  }

  /** @internal An entry was cancelled. */
  settled(entry: Entry): void {
    this.pending -= 1;
    entry.queue.first();
    // Nothing pending: the timer stays armed (one execution after another would otherwise clear
    // and create a timer each) but no longer keeps the process alive.
    if (this.pending === 0) this.timer?.unref();
  }

  private arm(due: number): void {
    this.disarm();
    this.armedFor = due;
    this.timer = setTimeout(() => this.fire(), Math.max(0, Math.ceil(due - performance.now())));
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
  }

  /** Expires every entry that is due, then arms the timer for the earliest one left. */
  private fire(): void {
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    const now = performance.now() + CLOCK_SLACK_MS;
    let next = Number.POSITIVE_INFINITY;
    for (const queue of this.queues.values()) {
      for (let entry = queue.first(); entry !== undefined; entry = queue.first()) {
        if (entry.due > now) {
          next = Math.min(next, entry.due);
          break;
        }
        entry.done = true;
        this.pending -= 1;
        entry.onExpire();
      }
    }
    // An onExpire callback may have added a deadline (and armed the timer) meanwhile.
    if (next < this.armedFor) this.arm(next);
  }
}
