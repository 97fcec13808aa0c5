/**
 * Event broker on NATS JetStream (PIPEC_BROKER=nats://…). One stream (default `PIPEC_EVENTS` on
 * `pipec.events.>`, interest retention: an event is kept until every subscriber acked it) and one
 * durable pull consumer per (subscriber, event), shared by all replicas of that subscriber; each
 * concurrency slot pulls one message at a time.
 * ack_wait = ackTimeout and max_deliver = maxDeliveries; the handler's success acks, failure naks
 * (or terms and logs on the last attempt); the server's MAX_DELIVERIES advisory is logged too.
 * Envelope headers travel as NATS headers (traceparent…), the payload as JSON.
 */
import { createHash } from 'node:crypto';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  AckPolicy,
  connect,
  DeliverPolicy,
  headers as natsHeaders,
  nanos,
  RetentionPolicy,
  StorageType,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type NatsConnection,
  type Subscription as NatsSubscription,
} from 'nats';
import type { Clock, Delivery, EventBroker, EventEnvelope, Json, Subscription } from '../../types.js';
import { PipeError } from '../../errors.js';
import { failureText, preparePublish, validateSubscribe, type SubscribeOptions } from '../broker-input.js';

export interface NatsBrokerOptions {
  /** `nats://[user:pass@]host:port`, several separated by commas. */
  readonly url: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly stream?: string;
  readonly subjectPrefix?: string;
  /** How long the stream keeps unacknowledged events (default 7 days). */
  readonly maxAgeMs?: number;
}

const HEADER_EVENT_ID = 'Pipec-Event-Id';
const HEADER_PUBLISHED_AT = 'Pipec-Published-At';
/** Longest a fetch waits for messages before asking again (nats.js minimum is 1 s). */
const FETCH_EXPIRES_MS = 1000;

export async function createNatsBroker(opts: NatsBrokerOptions): Promise<EventBroker & { readonly streamName: string }> {
  const stream = opts.stream ?? 'PIPEC_EVENTS';
  const prefix = opts.subjectPrefix ?? 'pipec.events';
  const { logger, clock } = opts;
  const nc: NatsConnection = await connect(connectionOptions(opts.url));
  let jsm: JetStreamManager;
  try {
    jsm = await nc.jetstreamManager();
    await ensureStream(jsm, stream, `${prefix}.>`, opts.maxAgeMs ?? 7 * 24 * 3600 * 1000);
  } catch (err) {
    await nc.close();
    throw err;
  }
  const js: JetStreamClient = nc.jetstream();
  const subscriptions = new Set<Subscription>();

  return {
    streamName: stream,

    async publish(name, payload, headers) {
      const prepared = preparePublish(name, payload, headers);
      const id = randomUUID();
      const h = natsHeaders();
      for (const [k, v] of Object.entries(prepared.headers)) h.set(k, v);
      h.set(HEADER_EVENT_ID, id);
      h.set(HEADER_PUBLISHED_AT, String(clock.now()));
      try {
        await js.publish(`${prefix}.${name}`, new TextEncoder().encode(prepared.body), { msgID: id, headers: h });
      } catch (err) {
        throw new PipeError(`event broker unavailable: ${failureText(err)}`, { code: 503, kind: 'BROKER_UNAVAILABLE', cause: err });
      }
    },

    async subscribe(subscriber, event, handler, subOpts: SubscribeOptions) {
      validateSubscribe(subscriber, event, subOpts);
      const durable = durableName(subscriber, event);
      await ensureConsumer(jsm, stream, durable, `${prefix}.${event}`, subOpts);
      const consumer = await js.consumers.get(stream, durable);
      const advisory: NatsSubscription = nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${stream}.${durable}`, {
        callback: (err, msg) => {
          if (err) return;
          const info = safeJson(msg.data) as { stream_seq?: number; deliveries?: number } | null;
          logger.error({ event, subscriber, streamSeq: info?.stream_seq, attempts: info?.deliveries }, 'event dropped after max deliveries (ack timeouts)');
        },
      });
      let stopped = false;
      const batches = new Set<ConsumerMessages>();

      const handle = async (msg: JsMsg): Promise<void> => {
        const attempt = msg.info.redeliveryCount;
        const delivery: Delivery = { envelope: toEnvelope(msg, event), attempt, redelivery: attempt > 1 };
        try {
          await handler(delivery);
        } catch (err) {
          if (attempt >= subOpts.maxDeliveries) {
            msg.term(failureText(err));
            logger.error({ event, subscriber, eventId: delivery.envelope.id, attempts: attempt, error: failureText(err) }, 'event dropped after max deliveries');
          } else {
            msg.nak();
          }
          return;
        }
        msg.ack();
      };

      /**
       * One worker per concurrency slot, each with a single outstanding pull of one message: a fetch
       * of 1 returns as soon as a message exists, and nothing waits in a local buffer while its
       * ack_wait runs.
       */
      const worker = async (): Promise<void> => {
        while (!stopped) {
          try {
            const batch = await consumer.fetch({ max_messages: 1, expires: FETCH_EXPIRES_MS });
            batches.add(batch);
            try {
              for await (const msg of batch) {
                // Stopping mid-fetch: hand the message straight back for another replica.
                if (stopped) msg.nak();
                else await handle(msg);
              }
            } finally {
              batches.delete(batch);
            }
          } catch (err) {
            if (stopped) break;
            logger.warn({ event, subscriber, err: failureText(err) }, 'event fetch failed; retrying');
            await new Promise((r) => setTimeout(r, 500));
          }
        }
      };
      const workers = Array.from({ length: subOpts.concurrency }, () => worker());

      const subscription: Subscription = {
        async stop() {
          if (stopped) return;
          stopped = true;
          for (const batch of batches) batch.stop();
          await Promise.allSettled(workers);
          advisory.unsubscribe();
          subscriptions.delete(subscription);
        },
      };
      subscriptions.add(subscription);
      return subscription;
    },

    async close() {
      await Promise.all([...subscriptions].map((s) => s.stop()));
      await nc.drain();
    },
  };
}

function connectionOptions(url: string): Parameters<typeof connect>[0] {
  const servers: string[] = [];
  let user: string | undefined;
  let pass: string | undefined;
  for (const part of url.split(',')) {
    const parsed = new URL(part.trim());
    servers.push(`${parsed.hostname}:${parsed.port || '4222'}`);
    if (parsed.username) user = decodeURIComponent(parsed.username);
    if (parsed.password) pass = decodeURIComponent(parsed.password);
  }
  if (user !== undefined && pass === undefined) return { servers, token: user, name: 'pipec' };
  return { servers, name: 'pipec', ...(user !== undefined ? { user, pass } : {}) };
}

async function ensureStream(jsm: JetStreamManager, name: string, subject: string, maxAgeMs: number): Promise<void> {
  try {
    await jsm.streams.info(name);
  } catch {
    try {
      await jsm.streams.add({
        name,
        subjects: [subject],
        retention: RetentionPolicy.Interest,
        storage: StorageType.File,
        max_age: nanos(maxAgeMs),
        duplicate_window: nanos(2 * 60 * 1000),
      });
    } catch (err) {
      // Another replica may have created it meanwhile.
      await jsm.streams.info(name).catch(() => {
        throw err;
      });
    }
  }
}

async function ensureConsumer(jsm: JetStreamManager, stream: string, durable: string, subject: string, opts: SubscribeOptions): Promise<void> {
  const wanted = { ack_wait: nanos(opts.ackTimeout), max_deliver: opts.maxDeliveries };
  try {
    const info = await jsm.consumers.info(stream, durable);
    if (info.config.ack_wait !== wanted.ack_wait || info.config.max_deliver !== wanted.max_deliver) {
      await jsm.consumers.update(stream, durable, wanted);
    }
    return;
  } catch (err) {
    if (!/consumer not found/i.test(failureText(err))) throw err;
  }
  await jsm.consumers.add(stream, {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.New,
    filter_subject: subject,
    max_ack_pending: 10_000,
    ...wanted,
  });
}

/** A durable name NATS accepts (no `.`, `*`, `>`, spaces), unique per (subscriber, event). */
export function durableName(subscriber: string, event: string): string {
  const clean = (s: string): string => s.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60);
  const digest = createHash('sha256').update(`${subscriber}\u0000${event}`).digest('hex').slice(0, 10);
  return `${clean(subscriber)}__${clean(event)}_${digest}`;
}

function toEnvelope(msg: JsMsg, event: string): EventEnvelope {
  const headers: Record<string, string> = {};
  let id = `${msg.info.stream}:${msg.seq}`;
  let publishedAt = msg.info.timestampNanos ? Math.floor(msg.info.timestampNanos / 1e6) : 0;
  for (const [key, values] of msg.headers ?? []) {
    const value = values[0] ?? '';
    const lower = key.toLowerCase();
    if (lower === HEADER_EVENT_ID.toLowerCase()) id = value;
    else if (lower === HEADER_PUBLISHED_AT.toLowerCase()) publishedAt = Number(value);
    else if (!lower.startsWith('nats-')) Object.defineProperty(headers, lower, { value, enumerable: true, writable: true, configurable: true });
  }
  return { id, name: event, payload: (safeJson(msg.data) ?? null) as Json, headers, publishedAt };
}

function safeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data)) as unknown;
  } catch {
    return null;
  }
}
