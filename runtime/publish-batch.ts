/**
 * The publishes of a `for-each` whose body only computes and publishes (the compiler says so:
 * ForEachInfo.pipelinedPublishes). Each publish step hands its event to the batch instead of
 * waiting for the broker, the loop goes on to the next element, and the batch goes to the broker
 * together — one SQLite transaction, or every JetStream publish in flight at once with their
 * acknowledgements awaited together — before the for-each ends (and every MAX_QUEUED_PUBLISHES
 * events). So every event is stored before the execution goes past the for-each, and a publish
 * that failed fails its element as it would have at its step.
 */
import type { EventBroker, EventToPublish } from './types.js';

/** What a publish step finds on its context inside such a loop (`ctx.publishes`). */
export interface PublishSink {
  /** Queues the event; `failure` turns the broker's error into the step's error. */
  add(event: EventToPublish, failure: (err: unknown) => unknown): void;
}

/** Events queued before the loop stops to hand them over: bounds memory and the broker's in-flight window. */
export const MAX_QUEUED_PUBLISHES = 256;

interface Queued {
  readonly event: EventToPublish;
  readonly failure: (err: unknown) => unknown;
  readonly element: number;
}

export class PublishBatch {
  private queued: Queued[] = [];
  /** The error of each element's first failed publish, by element index. */
  readonly failures = new Map<number, unknown>();

  constructor(private readonly broker: EventBroker) {}

  /** The sink of element `index`'s steps. */
  sinkFor(index: number): PublishSink {
    return { add: (event, failure) => void this.queued.push({ event, failure, element: index }) };
  }

  get size(): number {
    return this.queued.length;
  }

  /** Hands every queued event to the broker and waits until each is stored or refused. */
  async flush(): Promise<void> {
    const batch = this.queued;
    this.queued = [];
    if (batch.length === 0) return;
    const results = await publishAll(
      this.broker,
      batch.map((q) => q.event),
    );
    batch.forEach((q, i) => {
      const err = results[i];
      if (err !== null && err !== undefined && !this.failures.has(q.element))
        this.failures.set(q.element, q.failure(err));
    });
  }
}

/** Each event's error or null: the broker's own batch path, else every publish at once. */
async function publishAll(broker: EventBroker, events: readonly EventToPublish[]): Promise<unknown[]> {
  try {
    if (broker.publishMany) return await broker.publishMany(events);
    return await Promise.all(
      events.map((e) =>
        broker.publish(e.name, e.payload, e.headers).then(
          () => null,
          (err: unknown) => err ?? new Error('publish failed'),
        ),
      ),
    );
  } catch (err) {
    // The batch path itself failed (its transaction did not commit): nothing of it was stored.
    return events.map(() => err ?? new Error('publish failed'));
  }
}
