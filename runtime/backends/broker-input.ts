/**
 * Checks shared by both event brokers: event and subscriber names, JSON payloads, header maps and
 * subscribe options, and how a handler's failure is read (retry or dead-letter). Invalid input is
 * a PipeError 4xx and nothing is published or registered. The payload limits are runtime/limits.ts,
 * the same on every backend.
 */
import { createHash } from 'node:crypto';
import type { Json } from '../types.js';
import { PipeError } from '../errors.js';
import { MAX_EVENT_HEADER_BYTES, MAX_EVENT_PAYLOAD_BYTES, MAX_MESSAGE_DEPTH } from '../limits.js';
import { Backoff, DEFAULT_REDELIVERY_BACKOFF, pause, type BackoffPolicy } from './backoff.js';
import { assertJson, isPlainObject, validateEventName } from './json-safe.js';

const SUBSCRIBER_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$/;
const HEADER_NAME = /^[A-Za-z0-9-]{1,100}$/;

/** Set on a replayed dead letter: only this subscriber runs it; the event's other subscribers ack it unseen. */
export const HEADER_REPLAY_FOR = 'pipec-replay-for';
/** Set on a replayed dead letter: the id of the dead letter it came from. */
export const HEADER_REPLAY_OF = 'pipec-replay-of';

export interface SubscribeOptions {
  readonly maxDeliveries: number;
  readonly ackTimeout: number;
  readonly concurrency: number;
  /** Delay between a failed attempt and the next one (default DEFAULT_REDELIVERY_BACKOFF). */
  readonly backoff?: BackoffPolicy;
}

/** Validates a publish call and returns the serialized payload. */
export function preparePublish(
  name: string,
  payload: Json,
  headers: Readonly<Record<string, string>> | undefined,
): { body: string; headers: Record<string, string> } {
  validateEventName(name);
  assertJson(payload, 'event payload', 'BAD_PAYLOAD', { maxDepth: MAX_MESSAGE_DEPTH });
  const body = JSON.stringify(payload);
  const size = Buffer.byteLength(body, 'utf8');
  if (size > MAX_EVENT_PAYLOAD_BYTES) {
    throw new PipeError(`event payload of ${size} bytes exceeds the limit of ${MAX_EVENT_PAYLOAD_BYTES} bytes`, {
      code: 413,
      kind: 'PAYLOAD_TOO_LARGE',
      details: { limit: MAX_EVENT_PAYLOAD_BYTES },
    });
  }
  return { body, headers: checkHeaders(headers ?? {}) };
}

function checkHeaders(headers: unknown): Record<string, string> {
  if (!isPlainObject(headers))
    throw new PipeError('event headers must be an object of strings', { code: 400, kind: 'BAD_HEADERS' });
  const out: Record<string, string> = {};
  let bytes = 0;
  for (const key of Object.keys(headers)) {
    const value = headers[key];
    if (!HEADER_NAME.test(key) || typeof value !== 'string' || value.length > 4096 || /[\r\n\0]/.test(value)) {
      throw new PipeError(`invalid event header ${JSON.stringify(key.slice(0, 80))}`, {
        code: 400,
        kind: 'BAD_HEADERS',
      });
    }
    bytes += key.length + Buffer.byteLength(value, 'utf8');
    Object.defineProperty(out, key.toLowerCase(), { value, enumerable: true, writable: true, configurable: true });
  }
  if (bytes > MAX_EVENT_HEADER_BYTES) {
    throw new PipeError(`event headers exceed ${MAX_EVENT_HEADER_BYTES} bytes`, { code: 413, kind: 'BAD_HEADERS' });
  }
  return out;
}

export function validateSubscribe(subscriber: string, event: string, opts: SubscribeOptions): void {
  validateEventName(event);
  if (typeof subscriber !== 'string' || !SUBSCRIBER_NAME.test(subscriber)) {
    throw new PipeError(`invalid subscriber name ${JSON.stringify(String(subscriber).slice(0, 80))}`, {
      code: 400,
      kind: 'BAD_SUBSCRIBER',
    });
  }
  const positive = (n: number): boolean => Number.isInteger(n) && n >= 1;
  if (!positive(opts.maxDeliveries) || !positive(opts.ackTimeout) || !positive(opts.concurrency)) {
    throw new PipeError('maxDeliveries, ackTimeout and concurrency must be positive integers', {
      code: 400,
      kind: 'BAD_SUBSCRIBE',
    });
  }
}

export function redeliveryBackoff(opts: SubscribeOptions): BackoffPolicy {
  return opts.backoff ?? DEFAULT_REDELIVERY_BACKOFF;
}

/** A short, loggable description of a handler failure (no payloads). */
export function failureText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.slice(0, 500);
}

/** Why an event ended in the dead-letter store. */
export type DeadLetterReason = 'max-deliveries' | 'permanent-error' | 'expired' | 'ack-timeout' | 'unreadable';

/** How a handler's rejection is treated: retried later, or dead-lettered now. */
export interface FailureVerdict {
  readonly text: string;
  /** Set when the failure cannot pass on another attempt: dead-letter at once. */
  readonly deadLetterNow: DeadLetterReason | null;
}

/**
 * Reads a handler's rejection: an error with `permanent: true` (a PipeError classified permanent,
 * the event trigger's refusals) goes to the dead letters at once, with its `deadLetterReason` when
 * it names one (`expired`); anything else is retried.
 */
export function judgeFailure(err: unknown): FailureVerdict {
  const text = failureText(err);
  if (err === null || typeof err !== 'object' || (err as { permanent?: unknown }).permanent !== true) {
    return { text, deadLetterNow: null };
  }
  const reason = (err as { deadLetterReason?: unknown }).deadLetterReason;
  return { text, deadLetterNow: reason === 'expired' || reason === 'unreadable' ? reason : 'permanent-error' };
}

/**
 * True when a handler failed because a backend it needs is unavailable (503 BACKEND_UNAVAILABLE,
 * as the backends' guard and the event trigger report it): not the event's fault, and no reason to
 * use up one of its attempts.
 */
export function isOutage(err: unknown): boolean {
  return err !== null && typeof err === 'object' && (err as { kind?: unknown }).kind === 'BACKEND_UNAVAILABLE';
}

/** Waits between runs of a delivery held through an outage: 0.5 s doubling up to 5 s. */
export const OUTAGE_RETRY: BackoffPolicy = { initialMs: 500, maxMs: 5000, multiplier: 2 };

export interface HoldOptions {
  /**
   * Keeps the delivery claimed a while longer (extends its lease or ack deadline); false when it
   * cannot (the broker is away too, the claim was lost): the delivery is then given up as failed.
   */
  readonly keep: () => boolean | Promise<boolean>;
  /** How often `keep` must be called: well within the ack timeout. */
  readonly keepEveryMs: number;
  /** Aborted when the subscription stops: the held delivery is given up. */
  readonly signal: AbortSignal;
  readonly random?: () => number;
}

/** How often a held delivery is kept: a third of its ack timeout (at least 50 ms, at most 5 s). */
export function keepInterval(ackTimeoutMs: number): number {
  return Math.max(50, Math.min(5000, Math.floor(ackTimeoutMs / 3)));
}

/**
 * Runs a delivery's handler; while it fails because a backend it needs is unavailable, keeps the
 * delivery and runs it again after a backoff, for as long as the outage lasts — the consumer pauses
 * in place (its concurrency slots are busy with held deliveries, so it pulls nothing new) and no
 * attempt is used up: nothing is dead-lettered merely because a backend was away. `run(true)` is a
 * run again (the execution may have done part of its work). Rethrows the last failure when it is
 * not an outage, when the subscription stops, or when the delivery cannot be kept.
 */
export async function runThroughOutages(run: (again: boolean) => Promise<void>, opts: HoldOptions): Promise<void> {
  const retry = new Backoff(OUTAGE_RETRY, opts.random);
  for (let again = false; ; again = true) {
    try {
      return await run(again);
    } catch (err) {
      if (!isOutage(err) || opts.signal.aborted) throw err;
      let wait = retry.next();
      while (wait > 0) {
        if (opts.signal.aborted || !(await opts.keep())) throw err;
        const step = Math.min(wait, opts.keepEveryMs);
        await pause(step, opts.signal);
        wait -= step;
      }
      if (opts.signal.aborted || !(await opts.keep())) throw err;
    }
  }
}

/** One delivery attempt that failed, as the dead-letter store keeps it. */
export interface FailedAttempt {
  readonly attempt: number;
  readonly at: number;
  readonly error: string;
  /** Set when the attempt was given up during an outage (the service stopped, or the broker was away too): it does not count. */
  readonly outage?: boolean;
}

/** How many of the recorded attempts were outages (not counted against max-deliveries). */
export function outageCount(recorded: readonly FailedAttempt[]): number {
  return recorded.filter((a) => a.outage === true).length;
}

/** What an attempt that ended without an answer (ack timeout, crash) is recorded as. */
export const NO_ANSWER = 'no answer within the ack timeout (the execution took too long or its process stopped)';

/**
 * The attempts up to `attempt`, filling the ones no process recorded (they timed out or their
 * process died) with NO_ANSWER. Keeps the first 3 and the last 12 so a record stays small.
 */
export function completeAttempts(recorded: readonly FailedAttempt[], attempt: number): FailedAttempt[] {
  const byAttempt = new Map(recorded.map((a) => [a.attempt, a]));
  const all: FailedAttempt[] = [];
  for (let n = 1; n <= attempt; n++) all.push(byAttempt.get(n) ?? { attempt: n, at: 0, error: NO_ANSWER });
  return all.length <= 15 ? all : [...all.slice(0, 3), ...all.slice(-12)];
}

/** Keeps a bounded history while attempts are recorded one by one. */
export function appendAttempt(recorded: readonly FailedAttempt[], next: FailedAttempt): FailedAttempt[] {
  const all = [...recorded.filter((a) => a.attempt !== next.attempt), next].sort((a, b) => a.attempt - b.attempt);
  return all.length <= 15 ? all : [...all.slice(0, 3), ...all.slice(-12)];
}

/**
 * The dead letter of one event for one subscriber has one id on every backend, so writing it again
 * (a crash between storing it and acknowledging the delivery) replaces rather than duplicates it.
 */
export function deadLetterId(subscriber: string, eventId: string): string {
  return createHash('sha256').update(`${subscriber}\u0000${eventId}`).digest('hex').slice(0, 24);
}

/** True when a replayed event is meant for another subscriber (it acks without running). */
export function replayedForOther(headers: Readonly<Record<string, string>>, subscriber: string): boolean {
  const target = headers[HEADER_REPLAY_FOR];
  return target !== undefined && target !== subscriber;
}
