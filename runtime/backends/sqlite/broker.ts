/**
 * Durable event queue in the embedded SQLite file. Subscribers register a durable row
 * (`pipec_subscribers`) at subscribe time; `publish` stores the event and one delivery row per
 * registered subscriber of that event name in one transaction (its commit is the "stored" a 2xx
 * promises), so a subscriber that is down still receives what was published meanwhile. Consumers
 * claim rows with a lease (visibility timeout = ackTimeout): a crashed process's in-flight rows come
 * back when the lease expires. Ack deletes the row after the handler resolved; a rejection records
 * the attempt's error and makes the row visible again after the trigger's backoff (exponential,
 * with jitter) until maxDeliveries; then — or at once for a permanent failure — the event moves to
 * the dead letters (`pipec_dead_letters`, with every attempt's error). Polling finds other
 * processes' events; publishes in this process wake their local subscriptions at once.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock, Delivery, EventBroker, EventEnvelope, Json, Subscription } from '../../types.js';
import { backoffDelay } from '../backoff.js';
import {
  appendAttempt,
  completeAttempts,
  deadLetterId,
  failureText,
  HEADER_REPLAY_FOR,
  HEADER_REPLAY_OF,
  isOutage,
  judgeFailure,
  keepInterval,
  OUTAGE_RETRY,
  preparePublish,
  redeliveryBackoff,
  replayedForOther,
  runThroughOutages,
  validateSubscribe,
  type DeadLetterReason,
  type FailedAttempt,
  type SubscribeOptions,
} from '../broker-input.js';
import {
  checkDeadLetterId,
  notFound,
  pageOf,
  summaryOf,
  type DeadLetter,
  type DeadLetterStore,
} from '../dead-letters.js';
import type { SqliteDatabase } from './database.js';

export interface SqliteBrokerOptions {
  readonly db: SqliteDatabase;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How often idle subscriptions look for new or expired rows (default 100 ms). */
  readonly pollIntervalMs?: number;
  /** Jitter source for redelivery backoff (tests pin it). */
  readonly random?: () => number;
}

type ClaimedRow = { seq: number; event_id: string; attempt: number; errors: string };
type EventRow = { id: string; name: string; payload: string; headers: string; published_at: number };
type DeadRow = {
  id: string;
  event_id: string;
  subscriber: string;
  event: string;
  payload: string;
  headers: string;
  attempts: number;
  reason: string;
  errors: string;
  published_at: number;
  dead_at: number;
  replays: string;
};

export function createSqliteBroker(opts: SqliteBrokerOptions): EventBroker & { readonly deadLetters: DeadLetterStore } {
  const { db, clock, logger } = opts;
  const random = opts.random ?? Math.random;
  const pollIntervalMs = opts.pollIntervalMs ?? 100;
  /** Local wake-ups by event name: publish → subscriptions in this process. */
  const wakers = new Map<string, Set<() => void>>();
  const subscriptions = new Set<Subscription>();

  const statements = {
    subscribersOf: db.prepare('SELECT subscriber FROM pipec_subscribers WHERE event = ?'),
    isSubscriber: db.prepare('SELECT 1 FROM pipec_subscribers WHERE event = ? AND subscriber = ?'),
    insertEvent: db.prepare(
      'INSERT INTO pipec_events (id, name, payload, headers, published_at) VALUES (?, ?, ?, ?, ?)',
    ),
    insertDelivery: db.prepare('INSERT INTO pipec_deliveries (event_id, subscriber, event) VALUES (?, ?, ?)'),
    register: db.prepare(
      'INSERT INTO pipec_subscribers (subscriber, event, registered_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    ),
    claim: db.prepare(
      `UPDATE pipec_deliveries SET attempt = attempt + 1, lease_until = @lease
       WHERE seq IN (SELECT seq FROM pipec_deliveries INDEXED BY pipec_deliveries_queue WHERE subscriber = @subscriber AND event = @event AND lease_until <= @now ORDER BY seq LIMIT @n)
       RETURNING seq, event_id, attempt, errors`,
    ),
    event: db.prepare('SELECT id, name, payload, headers, published_at FROM pipec_events WHERE id = ?'),
    ack: db.prepare('DELETE FROM pipec_deliveries WHERE seq = ?'),
    release: db.prepare(
      'UPDATE pipec_deliveries SET lease_until = @until, last_error = @error, errors = @errors WHERE seq = @seq AND attempt = @attempt',
    ),
    extendLease: db.prepare('UPDATE pipec_deliveries SET lease_until = @until WHERE seq = @seq AND attempt = @attempt'),
    // A delivery given up during an outage (the subscription stopped while holding it): its attempt does not count.
    unclaim: db.prepare(
      'UPDATE pipec_deliveries SET attempt = attempt - 1, lease_until = @until WHERE seq = @seq AND attempt = @attempt',
    ),
    dropOrphan: db.prepare(
      'DELETE FROM pipec_events WHERE id = ? AND NOT EXISTS (SELECT 1 FROM pipec_deliveries WHERE event_id = ?)',
    ),
    deadLetter: db.prepare(
      `INSERT INTO pipec_dead_letters (id, event_id, subscriber, event, payload, headers, attempts, last_error, dead_at, reason, errors, published_at)
       SELECT @id, e.id, @subscriber, e.name, e.payload, e.headers, @attempts, @error, @now, @reason, @errors, e.published_at
       FROM pipec_events e WHERE e.id = @eventId
       ON CONFLICT (id) DO UPDATE SET attempts = excluded.attempts, last_error = excluded.last_error,
         dead_at = excluded.dead_at, reason = excluded.reason, errors = excluded.errors`,
    ),
    deadOne: db.prepare('SELECT * FROM pipec_dead_letters WHERE id = ?'),
    recordReplay: db.prepare('UPDATE pipec_dead_letters SET replays = ? WHERE id = ?'),
    countByEvent: db.prepare('SELECT event, count(*) AS n FROM pipec_dead_letters GROUP BY event'),
  };

  const finish = db.transaction((seq: number, eventId: string) => {
    statements.ack.run(seq);
    statements.dropOrphan.run(eventId, eventId);
  });
  /** The deliveries handled in one turn of the event loop, acknowledged in one transaction. */
  const finishMany = db.transaction((done: ReadonlyArray<readonly [seq: number, eventId: string]>) => {
    for (const [seq, eventId] of done) {
      statements.ack.run(seq);
      statements.dropOrphan.run(eventId, eventId);
    }
  });

  const bury = db.transaction(
    (row: ClaimedRow, subscriber: string, reason: DeadLetterReason, attempts: FailedAttempt[]) => {
      statements.deadLetter.run({
        id: deadLetterId(subscriber, row.event_id),
        subscriber,
        attempts: row.attempt,
        error: attempts.at(-1)?.error ?? null,
        now: clock.now(),
        reason,
        errors: JSON.stringify(attempts),
        eventId: row.event_id,
      });
      statements.ack.run(row.seq);
      statements.dropOrphan.run(row.event_id, row.event_id);
    },
  );

  /** Stores the event with one delivery row per subscriber (or only `only`, for a replay). */
  const storeEvent = (envelope: EventEnvelope, body: string, only: string | null): number => {
    const subscribers =
      only === null
        ? (statements.subscribersOf.all(envelope.name) as Array<{ subscriber: string }>).map((s) => s.subscriber)
        : statements.isSubscriber.get(envelope.name, only)
          ? [only]
          : [];
    if (subscribers.length === 0) return 0;
    statements.insertEvent.run(
      envelope.id,
      envelope.name,
      body,
      JSON.stringify(envelope.headers),
      envelope.publishedAt,
    );
    for (const subscriber of subscribers) statements.insertDelivery.run(envelope.id, subscriber, envelope.name);
    return subscribers.length;
  };
  const publishTxn = db.transaction(storeEvent);
  /** Several events in one transaction: stored together, or none of them. */
  const publishManyTxn = db.transaction((events: ReadonlyArray<{ envelope: EventEnvelope; body: string }>) => {
    for (const e of events) storeEvent(e.envelope, e.body, null);
  });

  const loadEnvelope = (eventId: string): EventEnvelope | null => {
    const row = statements.event.get(eventId) as EventRow | undefined;
    if (!row) return null;
    return {
      id: row.id,
      name: row.name,
      payload: JSON.parse(row.payload) as Json,
      headers: JSON.parse(row.headers) as Record<string, string>,
      publishedAt: row.published_at,
    };
  };

  const publishEnvelope = (
    name: string,
    payload: Json,
    headers: Readonly<Record<string, string>> | undefined,
    only: string | null,
  ): string => {
    const { envelope, body } = prepareEnvelope(name, payload, headers);
    const fanOut = publishTxn.immediate(envelope, body, only);
    if (fanOut === 0) logger.debug({ event: name }, 'event published without subscribers');
    wakeSubscribers(name);
    return envelope.id;
  };

  const prepareEnvelope = (
    name: string,
    payload: Json,
    headers: Readonly<Record<string, string>> | undefined,
  ): { envelope: EventEnvelope; body: string } => {
    const prepared = preparePublish(name, payload, headers);
    const envelope: EventEnvelope = {
      id: randomUUID(),
      name,
      payload,
      headers: prepared.headers,
      publishedAt: clock.now(),
    };
    return { envelope, body: prepared.body };
  };

  const wakeSubscribers = (name: string): void => {
    for (const wake of wakers.get(name) ?? []) wake();
  };

  const deadLetters: DeadLetterStore = {
    async list(query) {
      const { limit, offset } = pageOf(query);
      const rows = db
        .prepare(
          `SELECT * FROM pipec_dead_letters WHERE (@event IS NULL OR event = @event) AND (@subscriber IS NULL OR subscriber = @subscriber)
         ORDER BY seq LIMIT @limit OFFSET @offset`,
        )
        .all({ event: query?.event ?? null, subscriber: query?.subscriber ?? null, limit, offset }) as DeadRow[];
      return rows.map((row) => summaryOf(deadLetterOf(row)));
    },
    async get(id) {
      checkDeadLetterId(id);
      const row = statements.deadOne.get(id) as DeadRow | undefined;
      return row ? deadLetterOf(row) : null;
    },
    async replay(id) {
      checkDeadLetterId(id);
      const row = statements.deadOne.get(id) as DeadRow | undefined;
      if (!row) throw notFound(id);
      const letter = deadLetterOf(row);
      const headers = { ...letter.headers, [HEADER_REPLAY_FOR]: letter.subscriber, [HEADER_REPLAY_OF]: letter.id };
      const eventId = publishEnvelope(letter.event, letter.payload, headers, letter.subscriber);
      statements.recordReplay.run(JSON.stringify([...letter.replays, { at: clock.now(), eventId }]), id);
      return { eventId };
    },
    async purge(query) {
      if (query.id !== undefined) checkDeadLetterId(query.id);
      const result = db
        .prepare(
          `DELETE FROM pipec_dead_letters WHERE (@id IS NULL OR id = @id) AND (@event IS NULL OR event = @event)
         AND (@subscriber IS NULL OR subscriber = @subscriber)`,
        )
        .run({ id: query.id ?? null, event: query.event ?? null, subscriber: query.subscriber ?? null });
      return result.changes;
    },
    async countByEvent() {
      const counts: Record<string, number> = {};
      for (const row of statements.countByEvent.all() as Array<{ event: string; n: number }>) {
        Object.defineProperty(counts, row.event, {
          value: row.n,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return counts;
    },
  };

  return {
    deadLetters,

    async publish(name, payload, headers) {
      publishEnvelope(name, payload, headers, null);
    },

    async publishMany(events) {
      // Each event is checked on its own (a refused one fails alone); the rest share one transaction.
      const results: unknown[] = events.map(() => null);
      const accepted: Array<{ envelope: EventEnvelope; body: string }> = [];
      const acceptedAt: number[] = [];
      events.forEach((event, index) => {
        try {
          accepted.push(prepareEnvelope(event.name, event.payload, event.headers));
          acceptedAt.push(index);
        } catch (err) {
          results[index] = err;
        }
      });
      try {
        publishManyTxn.immediate(accepted);
      } catch (err) {
        for (const index of acceptedAt) results[index] = err;
        return results;
      }
      for (const name of new Set(accepted.map((e) => e.envelope.name))) wakeSubscribers(name);
      return results;
    },

    async subscribe(subscriber, event, handler, subOpts: SubscribeOptions) {
      validateSubscribe(subscriber, event, subOpts);
      statements.register.run(subscriber, event, clock.now());
      const backoff = redeliveryBackoff(subOpts);
      const inflight = new Set<Promise<void>>();
      let stopped = false;
      const stopping = new AbortController();
      const keepEveryMs = keepInterval(subOpts.ackTimeout);

      const toDeadLetters = (row: ClaimedRow, reason: DeadLetterReason, attempts: FailedAttempt[]): void => {
        bury(row, subscriber, reason, attempts);
        logger.error(
          { event, subscriber, eventId: row.event_id, attempts: row.attempt, reason, error: attempts.at(-1)?.error },
          'event moved to dead letters',
        );
      };

      /**
       * Handled deliveries wait for the end of the event loop's turn and are acknowledged together
       * (one commit for a burst, not one each). Until then their lease keeps them from being claimed
       * again; a process that dies meanwhile has them delivered again (at least once).
       */
      const handled: Array<readonly [number, string]> = [];
      const acknowledgeHandled = (): void => {
        if (handled.length === 0) return;
        const done = handled.splice(0);
        try {
          finishMany(done);
        } catch (err) {
          // The leases will expire and the rows will be delivered again: at-least-once still holds.
          logger.error({ event, subscriber, err: failureText(err) }, 'could not settle event delivery');
        }
      };

      const settle = (row: ClaimedRow, failure: unknown, failed: boolean): void => {
        try {
          if (!failed) {
            if (handled.push([row.seq, row.event_id]) === 1) setImmediate(acknowledgeHandled);
            return;
          }
          if (isOutage(failure)) {
            statements.unclaim.run({
              until: Date.now() + backoffDelay(OUTAGE_RETRY, 1, random),
              seq: row.seq,
              attempt: row.attempt,
            });
            return;
          }
          const verdict = judgeFailure(failure);
          const attempts = appendAttempt(completeAttempts(parseAttempts(row.errors), row.attempt - 1), {
            attempt: row.attempt,
            at: clock.now(),
            error: verdict.text,
          });
          if (verdict.deadLetterNow !== null) toDeadLetters(row, verdict.deadLetterNow, attempts);
          else if (row.attempt >= subOpts.maxDeliveries) toDeadLetters(row, 'max-deliveries', attempts);
          else {
            const until = Date.now() + backoffDelay(backoff, row.attempt, random);
            statements.release.run({
              until,
              error: verdict.text,
              errors: JSON.stringify(attempts),
              seq: row.seq,
              attempt: row.attempt,
            });
          }
        } catch (err) {
          // The lease will expire and the row will be delivered again: at-least-once still holds.
          logger.error({ event, subscriber, err: failureText(err) }, 'could not settle event delivery');
        }
      };

      const dispatch = (row: ClaimedRow): void => {
        const envelope = loadEnvelope(row.event_id);
        if (envelope === null) {
          statements.ack.run(row.seq);
          return;
        }
        if (replayedForOther(envelope.headers, subscriber)) {
          finish(row.seq, row.event_id);
          return;
        }
        const run = (again: boolean): Promise<void> =>
          handler({ envelope, attempt: row.attempt, redelivery: row.attempt > 1 || again } satisfies Delivery);
        const keep = (): boolean => {
          try {
            return (
              statements.extendLease.run({ until: Date.now() + subOpts.ackTimeout, seq: row.seq, attempt: row.attempt })
                .changes === 1
            );
          } catch {
            return false;
          }
        };
        const running: Promise<void> = Promise.resolve()
          .then(() => runThroughOutages(run, { keep, keepEveryMs, signal: stopping.signal, random }))
          .then(
            () => settle(row, null, false),
            (err: unknown) => settle(row, err, true),
          )
          .finally(() => {
            inflight.delete(running);
            schedulePump();
          });
        inflight.add(running);
      };

      const pump = (): void => {
        if (stopped) return;
        const free = subOpts.concurrency - inflight.size;
        if (free <= 0) return;
        let rows: ClaimedRow[];
        try {
          const now = Date.now();
          rows = (
            statements.claim.all({ lease: now + subOpts.ackTimeout, subscriber, event, now, n: free }) as ClaimedRow[]
          ).sort((a, b) => a.seq - b.seq);
        } catch (err) {
          logger.warn({ event, subscriber, err: failureText(err) }, 'event claim failed; retrying');
          return;
        }
        for (const row of rows) {
          // Claimed more often than allowed: the earlier attempts ended without an answer.
          if (row.attempt > subOpts.maxDeliveries) {
            toDeadLetters(
              { ...row, attempt: row.attempt - 1 },
              'ack-timeout',
              completeAttempts(parseAttempts(row.errors), row.attempt - 1),
            );
          } else {
            dispatch(row);
          }
        }
      };

      /**
       * One claim for however many wake-ups came meanwhile (each publish and each finished delivery
       * asks for one): a burst of publishes costs one claim query, not one per event.
       */
      let pumpScheduled = false;
      const schedulePump = (): void => {
        if (pumpScheduled || stopped) return;
        pumpScheduled = true;
        setImmediate(() => {
          pumpScheduled = false;
          pump();
        });
      };

      const timer = setInterval(pump, pollIntervalMs);
      const localWakers = wakers.get(event) ?? new Set<() => void>();
      localWakers.add(schedulePump);
      wakers.set(event, localWakers);
      schedulePump();

      const subscription: Subscription = {
        async stop() {
          if (stopped) return;
          stopped = true;
          stopping.abort();
          clearInterval(timer);
          localWakers.delete(schedulePump);
          subscriptions.delete(subscription);
          await Promise.allSettled([...inflight]);
          acknowledgeHandled();
        },
      };
      subscriptions.add(subscription);
      return subscription;
    },

    async close() {
      await Promise.all([...subscriptions].map((s) => s.stop()));
    },
  };
}

function parseAttempts(text: string | null | undefined): FailedAttempt[] {
  if (!text) return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? (parsed as FailedAttempt[]) : [];
  } catch {
    return [];
  }
}

function deadLetterOf(row: DeadRow): DeadLetter {
  return {
    id: row.id,
    event: row.event,
    subscriber: row.subscriber,
    eventId: row.event_id,
    payload: JSON.parse(row.payload) as Json,
    headers: JSON.parse(row.headers) as Record<string, string>,
    reason: row.reason as DeadLetterReason,
    attemptCount: row.attempts,
    attempts: parseAttempts(row.errors),
    publishedAt: row.published_at,
    deadAt: row.dead_at,
    replays: JSON.parse(row.replays) as DeadLetter['replays'],
  };
}
