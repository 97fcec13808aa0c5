/**
 * Event broker on NATS JetStream (PIPEC_BROKER=nats://…). One stream (default `PIPEC_EVENTS` on
 * `pipec.events.>`, interest retention: an event is kept until every subscriber acked it) and one
 * durable pull consumer per (subscriber, event), shared by all replicas of that subscriber; each
 * subscription pulls as many messages as it has free concurrency slots.
 *
 * A publish resolves once JetStream acknowledged the event (stored); while NATS is away it fails at
 * once with 503. Consumers run for as long as the service does: after an outage, a deleted
 * consumer or a lost stream they recreate what is missing and go on. The handler's success acks;
 * a failure records the attempt's error (KV bucket `<stream>_ATTEMPTS`) and naks with the trigger's
 * backoff delay; after `maxDeliveries` attempts, or at once for a permanent failure, the event is
 * written to the dead letters (nats/dead-letters.ts) and only then acked. The server does not limit
 * deliveries (`max_deliver: -1`): a delivery beyond maxDeliveries (its earlier attempts timed out)
 * is dead-lettered by the consumer, so no event is ever dropped by the server unseen.
 */
import { randomUUID } from 'node:crypto';
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { KV } from '@nats-io/kv';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import type { Clock, Delivery, EventBroker, EventEnvelope, Json, Subscription } from '../../types.js';
import { PipeError } from '../../errors.js';
import { MAX_EVENT_PAYLOAD_BYTES, MAX_MESSAGE_DEPTH } from '../../limits.js';
import { Backoff, backoffDelay, pause, RECONNECT_BACKOFF } from '../backoff.js';
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
  outageCount,
  preparePublish,
  redeliveryBackoff,
  replayedForOther,
  runThroughOutages,
  validateSubscribe,
  type DeadLetterReason,
  type FailedAttempt,
  type SubscribeOptions,
} from '../broker-input.js';
import type { DeadLetter, DeadLetterStore } from '../dead-letters.js';
import { assertJson } from '../json-safe.js';
import { errorText, type NatsLink } from './connection.js';
import { createNatsDeadLetters } from './dead-letters.js';
import {
  ensureConsumer,
  ensureDeadLetterStream,
  ensureEventStream,
  isNoStream,
  isNotFound,
  isPayloadTooLarge,
  openAttemptsBucket,
  openSession,
  streamNames,
  type Session,
  type StreamNames,
} from './jetstream.js';
import { Puller, type PulledMsg } from './puller.js';

export interface NatsBrokerOptions {
  readonly link: NatsLink;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly stream?: string;
  readonly subjectPrefix?: string;
  /** How long the stream keeps unacknowledged events (default 7 days). */
  readonly maxAgeMs?: number;
  /** Jitter source for redelivery backoff (tests pin it). */
  readonly random?: () => number;
}

/** The event id, in events published before it travelled as `Nats-Msg-Id` alone (still read). */
const HEADER_EVENT_ID = 'Pipec-Event-Id';
/** JetStream's de-duplication id, kept with the stored message: pipec's event id. */
const HEADER_MSG_ID = 'Nats-Msg-Id';
const HEADER_PUBLISHED_AT = 'Pipec-Published-At';
/** Longest a pull waits for a message before asking again. */
const PULL_EXPIRES_MS = 1000;
/** Longest a JetStream request (publish ack, stream info) may take before the call fails with 503. */
const REQUEST_TIMEOUT_MS = 5000;
export const DEFAULT_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
const utf8 = new TextEncoder();
const utf8Text = new TextDecoder();

/** One connection's JetStream handles, with pipec's streams and bucket in place. */
interface Ready extends Session {
  readonly attempts: KV;
}

export function createNatsBroker(
  opts: NatsBrokerOptions,
): EventBroker & { readonly streamName: string; readonly deadLetters: DeadLetterStore } {
  const names = streamNames(opts.stream ?? 'PIPEC_EVENTS', opts.subjectPrefix ?? 'pipec.events');
  const maxAgeMs = opts.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const { link, logger, clock } = opts;
  const random = opts.random ?? Math.random;
  const dependency = link.dependency;
  const subscriptions = new Set<Subscription>();
  /** The consumers this process needs, recreated at once when the stream had to be recreated. */
  const consumerSetups = new Set<(session: Session) => Promise<void>>();
  /**
   * This process's consumers not yet known to exist on the server (subscribe could not create
   * them: NATS was away or slow). A publish sets them up first and fails with 503 if it cannot:
   * an event this service accepts must not reach the stream before its own subscribers' consumers
   * exist, or a consumer created afterwards ("deliver new") would never see it.
   */
  const unconfirmed = new Set<(session: Session) => Promise<void>>();
  const confirmConsumers = async (session: Session): Promise<void> => {
    await Promise.all(
      [...unconfirmed].map(async (setup) => {
        await setup(session);
        unconfirmed.delete(setup);
      }),
    );
  };

  let prepared: { nc: NatsConnection; ready: Promise<Ready> } | null = null;
  link.onConnect((nc) => checkMaxPayload(nc, logger));

  const setUp = async (nc: NatsConnection): Promise<Ready> => {
    const session = await openSession(nc, REQUEST_TIMEOUT_MS);
    await ensureEventStream(session.jsm, names, maxAgeMs);
    await ensureDeadLetterStream(session.jsm, names);
    const attempts = await openAttemptsBucket(session.js, names, maxAgeMs);
    return { ...session, attempts };
  };

  /** The ready session of the current connection; 503 while NATS is away or JetStream refuses. */
  const ready = async (): Promise<Ready> => {
    const nc = link.connection();
    if (!nc) throw dependency.unavailable();
    if (prepared?.nc !== nc) {
      const attempt = { nc, ready: setUp(nc) };
      prepared = attempt;
      attempt.ready.catch(() => {
        if (prepared === attempt) prepared = null;
      });
    }
    try {
      return await prepared.ready;
    } catch (err) {
      throw err instanceof PipeError ? err : dependency.unavailable(err);
    }
  };

  /** After JetStream lost the stream: set everything up again, this process's consumers first. */
  let recovering: Promise<Ready> | null = null;
  const recover = (): Promise<Ready> => {
    // One recovery at a time: a publish and a consumer that both found the stream gone share it
    // (two would each drop the other's half-made session and race to create the same objects).
    recovering ??= (async () => {
      prepared = null;
      const session = await ready();
      await Promise.allSettled([...consumerSetups].map((setup) => setup(session)));
      return session;
    })().finally(() => {
      recovering = null;
    });
    return recovering;
  };

  const publishMessage = async (
    subject: string,
    body: Uint8Array,
    headers: ReturnType<typeof natsHeaders>,
    msgID: string,
  ): Promise<void> => {
    const send = async (session: Ready): Promise<void> => {
      await session.js.publish(subject, body, { msgID, headers, timeout: REQUEST_TIMEOUT_MS });
    };
    let session = await ready();
    if (unconfirmed.size > 0)
      await confirmConsumers(session).catch((err: unknown) => {
        throw err instanceof PipeError ? err : dependency.unavailable(err);
      });
    try {
      await send(session);
    } catch (err) {
      if (isPayloadTooLarge(err)) {
        throw new PipeError(`event is larger than the broker accepts: ${failureText(err)}`, {
          code: 413,
          kind: 'PAYLOAD_TOO_LARGE',
          cause: err,
        });
      }
      if (!isNoStream(err)) throw dependency.unavailable(err);
      try {
        session = await recover();
        await send(session);
      } catch (retryErr) {
        throw retryErr instanceof PipeError ? retryErr : dependency.unavailable(retryErr);
      }
    }
  };

  const publishEvent = async (
    name: string,
    payload: Json,
    headers: Readonly<Record<string, string>> | undefined,
  ): Promise<string> => {
    const checked = preparePublish(name, payload, headers);
    const id = randomUUID();
    const h = natsHeaders();
    for (const [k, v] of Object.entries(checked.headers)) h.set(k, v);
    h.set(HEADER_PUBLISHED_AT, String(clock.now()));
    await publishMessage(`${names.subjectPrefix}.${name}`, utf8.encode(checked.body), h, id);
    return id;
  };

  const deadLetters = createNatsDeadLetters({
    names,
    clock,
    session: ready,
    recover,
    publishReplay: (letter: DeadLetter) =>
      publishEvent(letter.event, letter.payload, {
        ...letter.headers,
        [HEADER_REPLAY_FOR]: letter.subscriber,
        [HEADER_REPLAY_OF]: letter.id,
      }),
  });

  return {
    streamName: names.events,
    deadLetters,

    async publish(name, payload, headers) {
      await publishEvent(name, payload, headers);
    },

    async subscribe(subscriber, event, handler, subOpts: SubscribeOptions) {
      validateSubscribe(subscriber, event, subOpts);
      const durable = durableName(subscriber, event);
      const settings = { durable, filterSubject: `${names.subjectPrefix}.${event}`, ackWaitMs: subOpts.ackTimeout };
      const setupConsumer = (session: Session): Promise<void> => ensureConsumer(session.jsm, names.events, settings);
      const backoff = redeliveryBackoff(subOpts);
      const stopping = new AbortController();
      /** Whether the consumer loop is failing, and whether that was logged (a 'resumed' line then follows). */
      let failing: boolean | 'logged' = false;

      const historyKey = (msg: PulledMsg): string => `${durable}.${msg.seq}`;

      const readHistory = async (session: Ready, msg: PulledMsg): Promise<FailedAttempt[]> => {
        try {
          const entry = await session.attempts.get(historyKey(msg));
          if (!entry || entry.operation !== 'PUT') return [];
          return entry.json<FailedAttempt[]>();
        } catch {
          return [];
        }
      };

      const forget = (session: Ready, msg: PulledMsg): void => {
        session.attempts.purge(historyKey(msg)).catch(() => undefined);
      };

      /** Writes the dead letter, then acks; if the write fails the event comes back later. */
      const bury = async (
        session: Ready,
        msg: PulledMsg,
        envelope: EventEnvelope,
        payloadJson: string,
        reason: DeadLetterReason,
        attempts: FailedAttempt[],
        attemptCount: number,
      ): Promise<void> => {
        try {
          await deadLetters.write(
            {
              id: deadLetterId(subscriber, envelope.id),
              event,
              subscriber,
              eventId: envelope.id,
              headers: envelope.headers,
              reason,
              attemptCount,
              attempts,
              publishedAt: envelope.publishedAt,
              deadAt: clock.now(),
              replays: [],
            },
            payloadJson,
          );
        } catch (err) {
          logger.warn(
            { event, subscriber, eventId: envelope.id, err: failureText(err) },
            'could not store a dead letter; the event will come back',
          );
          msg.nak(backoffDelay(RECONNECT_BACKOFF, 4, random));
          return;
        }
        // Confirmed by the server: an ack lost on the way would bring the event back, and its second
        // dead letter (same id) would replace this one with a poorer record of the attempts.
        if (await msg.ackAck().catch(() => false)) forget(session, msg);
        logger.error(
          { event, subscriber, eventId: envelope.id, attempts: attemptCount, reason, error: attempts.at(-1)?.error },
          'event moved to dead letters',
        );
      };

      /** Extends the delivery's ack deadline; false while NATS is away (the server redelivers it then). */
      const keepInProgress = (msg: PulledMsg): boolean => {
        if (!link.connection()) return false;
        try {
          msg.working();
          return true;
        } catch {
          return false;
        }
      };

      const handle = async (session: Ready, msg: PulledMsg): Promise<void> => {
        const attempt = msg.info.deliveryCount;
        const payloadJson = utf8Text.decode(msg.data);
        const read = readEnvelope(msg, event, payloadJson);
        const envelope = read.envelope;
        if (read.problem !== null) {
          const attempts = [{ attempt, at: clock.now(), error: read.problem }];
          return bury(session, msg, envelope, JSON.stringify(payloadJson), 'unreadable', attempts, attempt);
        }
        if (replayedForOther(envelope.headers, subscriber)) return msg.ack();
        // Deliveries given up during an outage (recorded with `outage`) do not count as attempts.
        const recorded = attempt > 1 ? await readHistory(session, msg) : [];
        const counted = attempt - outageCount(recorded);
        if (counted > subOpts.maxDeliveries) {
          const attempts = completeAttempts(recorded, attempt - 1);
          return bury(session, msg, envelope, payloadJson, 'ack-timeout', attempts, attempt - 1);
        }
        try {
          await runThroughOutages(
            (again) => handler({ envelope, attempt, redelivery: attempt > 1 || again } satisfies Delivery),
            {
              keep: () => keepInProgress(msg),
              keepEveryMs: keepInterval(subOpts.ackTimeout),
              signal: stopping.signal,
              random,
            },
          );
        } catch (err) {
          const verdict = judgeFailure(err);
          const outage = isOutage(err);
          const history = attempt > 1 ? completeAttempts(recorded, attempt - 1) : [];
          const attempts = appendAttempt(history, {
            attempt,
            at: clock.now(),
            error: verdict.text,
            ...(outage ? { outage } : {}),
          });
          const reason =
            verdict.deadLetterNow ?? (!outage && counted >= subOpts.maxDeliveries ? 'max-deliveries' : null);
          if (reason !== null) return bury(session, msg, envelope, payloadJson, reason, attempts, attempt);
          await session.attempts.put(historyKey(msg), JSON.stringify(attempts)).catch(() => undefined);
          msg.nak(backoffDelay(backoff, Math.max(1, counted), random));
          return;
        }
        msg.ack();
        if (attempt > 1) forget(session, msg);
      };

      /** The consumer, created if missing; shared by the slots of this subscription. */
      let attached: Promise<void> | null = null;
      const attach = (session: Ready): Promise<void> => {
        if (attached) return attached;
        const setup = setupConsumer(session);
        attached = setup;
        setup.then(
          () => unconfirmed.delete(setupConsumer),
          () => {
            if (attached === setup) attached = null;
          },
        );
        return setup;
      };

      /** Deliveries being handled, at most `concurrency` at once. */
      const inFlight = new Set<Promise<void>>();
      let puller: Puller | null = null;
      const room = (): number => subOpts.concurrency - inFlight.size;
      /**
       * Pulls ask for the free slots plus as many again, so the next deliveries are already here
       * when slots free up (a pull's round trip does not stall a busy subscription). One of those
       * waits for at most one handler to finish; its ack wait is renewed as it starts when the
       * wait was long enough to matter.
       */
      const wanted = (): number => room() + subOpts.concurrency;
      const renewAfterMs = Math.min(1000, subOpts.ackTimeout / 10);
      const start = (session: Ready, msg: PulledMsg): void => {
        if (Date.now() - msg.receivedAt > renewAfterMs) keepInProgress(msg);
        const running = handle(session, msg)
          .catch((err: unknown) => {
            // The delivery was not settled (the connection closed under it): the server sends it again.
            logger.debug({ event, subscriber, err: failureText(err) }, 'event delivery left unsettled');
          })
          .finally(() => {
            inFlight.delete(running);
            puller?.poke();
          });
        inFlight.add(running);
      };

      /**
       * One loop per subscription pulls for its free concurrency slots (and as many again, see
       * `wanted`) on one inbox (nats/puller.ts: no delivery is lost to a pull the client gave up)
       * and starts a handler per message, every message of a burst at once. Any failure (outage, missing consumer or stream, a pull nobody
       * answers) → wait with backoff, then set up again and go on; logged once per spell of failures.
       */
      const pump = async (): Promise<void> => {
        const retry = new Backoff(RECONNECT_BACKOFF, random);
        try {
          while (!stopping.signal.aborted) {
            if (room() <= 0) {
              await Promise.race(inFlight);
              continue;
            }
            if (!(await link.connected(stopping.signal))) break;
            try {
              const session = await ready();
              await attach(session);
              if (puller?.nc !== session.nc) {
                puller?.close();
                puller = new Puller(
                  session.nc,
                  names.events,
                  durable,
                  PULL_EXPIRES_MS,
                  subOpts.ackTimeout,
                  undefined,
                  Math.max(1, Math.floor(subOpts.concurrency / 2)),
                );
              }
              const msg = await puller.next(stopping.signal, wanted);
              // Stopping while the message arrived: hand it straight back for another replica.
              if (msg && stopping.signal.aborted) msg.nak();
              else if (msg) {
                start(session, msg);
                for (let more = room() > 0 ? puller.poll() : null; more; more = room() > 0 ? puller.poll() : null) {
                  start(session, more);
                }
              }
              if (failing === 'logged') logger.info({ event, subscriber }, 'event consumer resumed');
              failing = false;
              retry.reset();
            } catch (err) {
              if (stopping.signal.aborted) break;
              attached = null;
              // A lost consumer or stream is worth a line; a lost connection is the dependency's (logged once).
              // A pull ended by "consumer deleted" is set up again after the pause, like any failure.
              const stateLost = isNoStream(err) || isNotFound(err);
              if (stateLost) await recover().catch(() => undefined);
              if (failing === false && stateLost) {
                logger.warn(
                  { event, subscriber, err: failureText(err) },
                  'event consumer lost its server state; recreating it',
                );
                failing = 'logged';
              } else if (failing === false) {
                logger.debug({ event, subscriber, err: failureText(err) }, 'event consumer interrupted; retrying');
                failing = true;
              }
              await pause(retry.next(), stopping.signal);
            }
          }
        } finally {
          await Promise.allSettled(inFlight);
          puller?.close();
        }
      };

      consumerSetups.add(setupConsumer);
      unconfirmed.add(setupConsumer);
      // The consumer exists before subscribe resolves (events published from then on are kept for
      // it); while NATS is away the pump creates it once it is back.
      if (link.connection()) {
        await ready()
          .then(attach)
          .catch((err: unknown) => {
            logger.warn(
              { event, subscriber, err: failureText(err) },
              'could not create the event consumer yet; retrying',
            );
          });
      }
      const pumping = pump();

      const subscription: Subscription = {
        async stop() {
          if (stopping.signal.aborted) return;
          stopping.abort();
          await pumping;
          consumerSetups.delete(setupConsumer);
          unconfirmed.delete(setupConsumer);
          subscriptions.delete(subscription);
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

/** Warns once per connection when the server would refuse events this service accepts. */
function checkMaxPayload(nc: NatsConnection, logger: Logger): void {
  const max = nc.info?.max_payload;
  if (max !== undefined && max < MAX_EVENT_PAYLOAD_BYTES + 64 * 1024) {
    logger.error(
      { maxPayload: max, needed: MAX_EVENT_PAYLOAD_BYTES + 64 * 1024 },
      'the NATS server max_payload is below what events may carry; raise it to 1 MiB or more',
    );
  }
}

/** A durable name NATS accepts (no `.`, `*`, `>`, spaces), unique per (subscriber, event). */
export function durableName(subscriber: string, event: string): string {
  const clean = (s: string): string => s.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60);
  const digest = createHash('sha256').update(`${subscriber}\u0000${event}`).digest('hex').slice(0, 10);
  return `${clean(subscriber)}__${clean(event)}_${digest}`;
}

/**
 * The envelope of a delivered message. `problem` is set when the payload is not what a publisher
 * may send (not JSON, too deep, text no backend stores): such an event is dead-lettered at once.
 */
function readEnvelope(
  msg: PulledMsg,
  event: string,
  payloadJson: string,
): { envelope: EventEnvelope; problem: string | null } {
  const headers: Record<string, string> = {};
  let id: string | null = null;
  let idFromMsgId: string | null = null;
  let publishedAt = msg.info.timestampNanos ? Math.floor(msg.info.timestampNanos / 1e6) : 0;
  for (const [key, values] of msg.headers ?? []) {
    const value = values[0] ?? '';
    const lower = key.toLowerCase();
    if (lower === HEADER_EVENT_ID.toLowerCase()) id = value;
    else if (lower === HEADER_MSG_ID.toLowerCase()) idFromMsgId = value;
    else if (lower === HEADER_PUBLISHED_AT.toLowerCase()) publishedAt = Number(value);
    else if (!lower.startsWith('nats-'))
      Object.defineProperty(headers, lower, { value, enumerable: true, writable: true, configurable: true });
  }
  let payload: Json = null;
  let problem: string | null = null;
  try {
    payload = JSON.parse(payloadJson) as Json;
    assertJson(payload, 'event payload', 'BAD_PAYLOAD', { maxDepth: MAX_MESSAGE_DEPTH });
  } catch (err) {
    problem = `unreadable event payload: ${errorText(err)}`;
    payload = null;
  }
  const eventId = id ?? idFromMsgId ?? `${msg.info.stream}:${msg.seq}`;
  return { envelope: { id: eventId, name: event, payload, headers, publishedAt }, problem };
}
