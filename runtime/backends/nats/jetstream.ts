/**
 * JetStream objects of one NATS connection and the streams, consumers and buckets pipec keeps on
 * the server, (re)created whenever they are missing: at first use, after the server lost its
 * JetStream state, after an operator deleted a consumer.
 *
 *   <stream>                events, subjects `<prefix>.<event>`, interest retention, file storage
 *   <stream>_DEAD_LETTERS   dead letters, subjects `<prefix>-dead.<event token>.<id>`, one message
 *                           per subject (a rewrite replaces), kept until purged
 *   KV <stream>_ATTEMPTS    the error of each failed attempt of an event still being retried
 */
import {
  jetstream,
  jetstreamManager,
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { nanos, type NatsConnection } from '@nats-io/transport-node';

export interface StreamNames {
  readonly events: string;
  readonly subjectPrefix: string;
  readonly deadLetters: string;
  readonly deadLetterPrefix: string;
  readonly attempts: string;
  readonly schedules: string;
}

export function streamNames(stream: string, subjectPrefix: string): StreamNames {
  return {
    events: stream,
    subjectPrefix,
    deadLetters: `${stream}_DEAD_LETTERS`,
    deadLetterPrefix: `${subjectPrefix}-dead`,
    attempts: `${stream}_ATTEMPTS`,
    schedules: `${stream}_SCHEDULES`,
  };
}

/** An event name as one subject token (event names may hold dots; `~` is not in their alphabet). */
export function eventToken(event: string): string {
  return event.replace(/\./g, '~');
}

export function eventOfToken(token: string): string {
  return token.replace(/~/g, '.');
}

/** The JetStream handles of one connection. */
export interface Session {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
}

export async function openSession(nc: NatsConnection, timeoutMs: number): Promise<Session> {
  const jsm = await jetstreamManager(nc, { timeout: timeoutMs });
  return { nc, js: jetstream(nc, { timeout: timeoutMs }), jsm };
}

export async function ensureEventStream(jsm: JetStreamManager, names: StreamNames, maxAgeMs: number): Promise<void> {
  await ensureStream(jsm, names.events, {
    subjects: [`${names.subjectPrefix}.>`],
    retention: RetentionPolicy.Interest,
    storage: StorageType.File,
    max_age: nanos(maxAgeMs),
    duplicate_window: nanos(2 * 60 * 1000),
  });
}

export async function ensureDeadLetterStream(jsm: JetStreamManager, names: StreamNames): Promise<void> {
  await ensureStream(jsm, names.deadLetters, {
    subjects: [`${names.deadLetterPrefix}.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_msgs_per_subject: 1,
    discard: DiscardPolicy.Old,
    allow_direct: true,
  });
}

export async function openAttemptsBucket(js: JetStreamClient, names: StreamNames, maxAgeMs: number): Promise<KV> {
  return new Kvm(js).create(names.attempts, { history: 1, ttl: maxAgeMs, storage: StorageType.File });
}

export async function openSchedulesBucket(js: JetStreamClient, names: StreamNames): Promise<KV> {
  return new Kvm(js).create(names.schedules, { history: 1, storage: StorageType.File });
}

type StreamSettings = Parameters<JetStreamManager['streams']['add']>[0];

async function ensureStream(
  jsm: JetStreamManager,
  name: string,
  settings: Omit<StreamSettings, 'name'>,
): Promise<void> {
  try {
    await jsm.streams.info(name);
    return;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  try {
    await jsm.streams.add({ name, ...settings });
  } catch (err) {
    // Another replica may have created it meanwhile.
    await jsm.streams.info(name).catch(() => {
      throw err;
    });
  }
}

export interface ConsumerSettings {
  readonly durable: string;
  readonly filterSubject: string;
  readonly ackWaitMs: number;
}

/**
 * Creates the durable pull consumer, or brings an existing one to the wanted settings. Deliveries
 * are not limited by the server (`max_deliver: -1`): the broker counts them and dead-letters.
 */
export async function ensureConsumer(jsm: JetStreamManager, stream: string, settings: ConsumerSettings): Promise<void> {
  const wanted = { ack_wait: nanos(settings.ackWaitMs), max_deliver: -1 };
  try {
    const info = await jsm.consumers.info(stream, settings.durable);
    if (info.config.ack_wait !== wanted.ack_wait || info.config.max_deliver !== wanted.max_deliver) {
      await jsm.consumers.update(stream, settings.durable, wanted);
    }
    return;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  try {
    await jsm.consumers.add(stream, {
      durable_name: settings.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.New,
      filter_subject: settings.filterSubject,
      max_ack_pending: 10_000,
      ...wanted,
    });
  } catch (err) {
    await jsm.consumers.info(stream, settings.durable).catch(() => {
      throw err;
    });
  }
}

/** JetStream "stream not found" / "consumer not found" (API codes 10059 / 10014, or the message). */
export function isNotFound(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 10059 || code === 10014 || code === 404) return true;
  return /not found/i.test(err instanceof Error ? err.message : String(err));
}

/** The JetStream API said the stream does not exist (and nothing else: not a timeout, not an outage). */
export function isStreamNotFound(err: unknown): boolean {
  if (err === null || typeof err !== 'object' || (err as { name?: unknown }).name === 'PipeError') return false;
  const code = (err as { code?: unknown }).code;
  return (
    code === 10059 ||
    (err as { name?: unknown }).name === 'StreamNotFoundError' ||
    /stream not found/i.test((err as Error).message ?? '')
  );
}

/** No stream answers on the subject (it was deleted, or the server lost its JetStream state). */
export function isNoStream(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  const text = err instanceof Error ? err.message : String(err);
  return name === 'JetStreamNotEnabled' || /no responders|not enabled|stream not found/i.test(text) || isNotFound(err);
}

export function isPayloadTooLarge(err: unknown): boolean {
  return /max.?payload|message size exceeds/i.test(err instanceof Error ? err.message : String(err));
}
