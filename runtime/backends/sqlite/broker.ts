/**
 * Durable event queue in the embedded SQLite file. Subscribers register a durable row
 * (`pipec_subscribers`) at subscribe time; `publish` stores the event and one delivery row per
 * registered subscriber of that event name, so a subscriber that is down still receives what was
 * published meanwhile. Consumers claim rows with a lease (visibility timeout = ackTimeout): a crashed
 * process's in-flight rows come back when the lease expires. Ack deletes the row after the handler
 * resolved; a rejection makes it visible again (attempt + 1) until maxDeliveries, then it moves to
 * `pipec_dead_letters`. Polling finds other processes' events; publishes in this process wake their
 * local subscriptions at once.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock, Delivery, EventBroker, EventEnvelope, Json, Subscription } from '../../types.js';
import { failureText, preparePublish, validateSubscribe, type SubscribeOptions } from '../broker-input.js';
import type { SqliteDatabase } from './database.js';

export interface SqliteBrokerOptions {
  readonly db: SqliteDatabase;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How often idle subscriptions look for new or expired rows (default 100 ms). */
  readonly pollIntervalMs?: number;
}

type ClaimedRow = { seq: number; event_id: string; attempt: number };
type EventRow = { id: string; name: string; payload: string; headers: string; published_at: number };

export function createSqliteBroker(opts: SqliteBrokerOptions): EventBroker {
  const { db, clock, logger } = opts;
  const pollIntervalMs = opts.pollIntervalMs ?? 100;
  /** Local wake-ups by event name: publish → subscriptions in this process. */
  const wakers = new Map<string, Set<() => void>>();
  const subscriptions = new Set<Subscription>();

  const statements = {
    subscribersOf: db.prepare('SELECT subscriber FROM pipec_subscribers WHERE event = ?'),
    insertEvent: db.prepare('INSERT INTO pipec_events (id, name, payload, headers, published_at) VALUES (?, ?, ?, ?, ?)'),
    insertDelivery: db.prepare('INSERT INTO pipec_deliveries (event_id, subscriber, event) VALUES (?, ?, ?)'),
    register: db.prepare('INSERT INTO pipec_subscribers (subscriber, event, registered_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING'),
    claim: db.prepare(
      `UPDATE pipec_deliveries SET attempt = attempt + 1, lease_until = @lease
       WHERE seq IN (SELECT seq FROM pipec_deliveries WHERE subscriber = @subscriber AND event = @event AND lease_until <= @now ORDER BY seq LIMIT @n)
       RETURNING seq, event_id, attempt`,
    ),
    event: db.prepare('SELECT id, name, payload, headers, published_at FROM pipec_events WHERE id = ?'),
    ack: db.prepare('DELETE FROM pipec_deliveries WHERE seq = ?'),
    release: db.prepare('UPDATE pipec_deliveries SET lease_until = @now, last_error = @error WHERE seq = @seq AND attempt = @attempt'),
    dropOrphan: db.prepare('DELETE FROM pipec_events WHERE id = ? AND NOT EXISTS (SELECT 1 FROM pipec_deliveries WHERE event_id = ?)'),
    deadLetter: db.prepare(
      `INSERT INTO pipec_dead_letters (event_id, subscriber, event, payload, headers, attempts, last_error, dead_at)
       SELECT e.id, @subscriber, e.name, e.payload, e.headers, @attempts, @error, @now FROM pipec_events e WHERE e.id = @eventId`,
    ),
  };

  const finish = db.transaction((seq: number, eventId: string) => {
    statements.ack.run(seq);
    statements.dropOrphan.run(eventId, eventId);
  });

  const bury = db.transaction((row: ClaimedRow, subscriber: string, error: string) => {
    statements.deadLetter.run({ subscriber, attempts: row.attempt, error, now: Date.now(), eventId: row.event_id });
    statements.ack.run(row.seq);
    statements.dropOrphan.run(row.event_id, row.event_id);
  });

  const publishTxn = db.transaction((envelope: EventEnvelope, body: string) => {
    const subscribers = statements.subscribersOf.all(envelope.name) as Array<{ subscriber: string }>;
    if (subscribers.length === 0) return 0;
    statements.insertEvent.run(envelope.id, envelope.name, body, JSON.stringify(envelope.headers), envelope.publishedAt);
    for (const s of subscribers) statements.insertDelivery.run(envelope.id, s.subscriber, envelope.name);
    return subscribers.length;
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

  return {
    async publish(name, payload, headers) {
      const prepared = preparePublish(name, payload, headers);
      const envelope: EventEnvelope = { id: randomUUID(), name, payload, headers: prepared.headers, publishedAt: clock.now() };
      const fanOut = publishTxn.immediate(envelope, prepared.body);
      if (fanOut === 0) logger.debug({ event: name }, 'event published without subscribers');
      for (const wake of wakers.get(name) ?? []) setImmediate(wake);
    },

    async subscribe(subscriber, event, handler, subOpts: SubscribeOptions) {
      validateSubscribe(subscriber, event, subOpts);
      statements.register.run(subscriber, event, clock.now());
      const inflight = new Set<Promise<void>>();
      let stopped = false;

      const settle = (row: ClaimedRow, error: string | null): void => {
        try {
          if (error === null) finish(row.seq, row.event_id);
          else if (row.attempt >= subOpts.maxDeliveries) {
            bury(row, subscriber, error);
            logger.error({ event, subscriber, eventId: row.event_id, attempts: row.attempt, error }, 'event moved to dead letters');
          } else {
            statements.release.run({ now: Date.now(), error, seq: row.seq, attempt: row.attempt });
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
        const delivery: Delivery = { envelope, attempt: row.attempt, redelivery: row.attempt > 1 };
        const running: Promise<void> = Promise.resolve()
          .then(() => handler(delivery))
          .then(
            () => settle(row, null),
            (err: unknown) => settle(row, failureText(err)),
          )
          .finally(() => {
            inflight.delete(running);
            if (!stopped) setImmediate(pump);
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
          rows = (statements.claim.all({ lease: now + subOpts.ackTimeout, subscriber, event, now, n: free }) as ClaimedRow[]).sort((a, b) => a.seq - b.seq);
        } catch (err) {
          logger.warn({ event, subscriber, err: failureText(err) }, 'event claim failed; retrying');
          return;
        }
        for (const row of rows) {
          if (row.attempt > subOpts.maxDeliveries) {
            bury(row, subscriber, 'ack timeout');
            logger.error({ event, subscriber, eventId: row.event_id, attempts: row.attempt - 1 }, 'event moved to dead letters after ack timeouts');
          } else {
            dispatch(row);
          }
        }
      };

      const timer = setInterval(pump, pollIntervalMs);
      const localWakers = wakers.get(event) ?? new Set<() => void>();
      localWakers.add(pump);
      wakers.set(event, localWakers);
      setImmediate(pump);

      const subscription: Subscription = {
        async stop() {
          if (stopped) return;
          stopped = true;
          clearInterval(timer);
          localWakers.delete(pump);
          subscriptions.delete(subscription);
          await Promise.allSettled([...inflight]);
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
