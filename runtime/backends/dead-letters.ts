/**
 * The dead-letter store: every event a subscriber could not handle — out of attempts, failed
 * permanently, expired, unreadable — is kept here with its payload, headers, the error of each
 * attempt and the timestamps, until an operator replays or purges it (`pipec dead-letters`, the
 * admin endpoint). It lives with the broker: the SQLite queue keeps it in its file
 * (`pipec_dead_letters`), NATS in a JetStream stream (nats/dead-letters.ts), so a dead letter is
 * written exactly where its event was, whatever the store backend is.
 */
import type { Json } from '../types.js';
import { PipeError } from '../errors.js';
import type { DeadLetterReason, FailedAttempt } from './broker-input.js';

export interface DeadLetterReplay {
  readonly at: number;
  /** The id of the event published by the replay. */
  readonly eventId: string;
}

export interface DeadLetter {
  /** Stable per (subscriber, event id): see broker-input.ts deadLetterId. */
  readonly id: string;
  readonly event: string;
  /** The subscribing pipeline that failed on it. */
  readonly subscriber: string;
  readonly eventId: string;
  readonly payload: Json;
  readonly headers: Readonly<Record<string, string>>;
  readonly reason: DeadLetterReason;
  /** Deliveries made (the attempts below may leave out middle ones of a long series). */
  readonly attemptCount: number;
  readonly attempts: readonly FailedAttempt[];
  readonly publishedAt: number;
  readonly deadAt: number;
  readonly replays: readonly DeadLetterReplay[];
}

/** A listing row: everything but the payload and headers. */
export type DeadLetterSummary = Omit<DeadLetter, 'payload' | 'headers' | 'attempts'> & {
  readonly lastError: string | null;
};

export interface DeadLetterQuery {
  readonly event?: string;
  readonly subscriber?: string;
  /** At most this many (1..1000, default 100), oldest first. */
  readonly limit?: number;
  /** Skip this many (paging). */
  readonly offset?: number;
}

export interface PurgeQuery {
  readonly id?: string;
  readonly event?: string;
  readonly subscriber?: string;
}

export interface DeadLetterStore {
  list(query?: DeadLetterQuery): Promise<DeadLetterSummary[]>;
  get(id: string): Promise<DeadLetter | null>;
  /**
   * Publishes the payload again under its original event, for its subscriber only (header
   * `pipec-replay-for`), records the replay on the dead letter and returns the new event's id.
   * The dead letter stays until purged. PipeError 404 for an unknown id.
   */
  replay(id: string): Promise<{ readonly eventId: string }>;
  /** Deletes the matching dead letters (all of them with an empty query); returns how many. */
  purge(query: PurgeQuery): Promise<number>;
  /** Dead letters per event name (for the pipec_dead_letters gauge). */
  countByEvent(): Promise<Record<string, number>>;
}

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/** The page size of a listing, checked. */
export function pageOf(query: DeadLetterQuery | undefined): { limit: number; offset: number } {
  const limit = query?.limit ?? DEFAULT_LIMIT;
  const offset = query?.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT || !Number.isInteger(offset) || offset < 0) {
    throw new PipeError(`limit must be 1..${MAX_LIMIT} and offset ≥ 0`, { code: 400, kind: 'BAD_QUERY' });
  }
  return { limit, offset };
}

const ID = /^[0-9a-f]{24}$/;

export function checkDeadLetterId(id: string): void {
  if (typeof id !== 'string' || !ID.test(id))
    throw new PipeError('invalid dead letter id', { code: 400, kind: 'BAD_QUERY' });
}

export function notFound(id: string): PipeError {
  return new PipeError(`no dead letter ${id}`, { code: 404, kind: 'NOT_FOUND' });
}

export function summaryOf(letter: DeadLetter): DeadLetterSummary {
  const { payload: _payload, headers: _headers, attempts, ...rest } = letter;
  return { ...rest, lastError: attempts.at(-1)?.error ?? null };
}
