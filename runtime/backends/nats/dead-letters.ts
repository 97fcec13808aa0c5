/**
 * Dead letters on NATS: one JetStream message per dead letter in `<stream>_DEAD_LETTERS`, subject
 * `<prefix>-dead.<event token>.<id>` and at most one message per subject, so writing a dead letter
 * again (a crash between storing it and acking the event; a replay being recorded) replaces it.
 * The body is the record as JSON with the event's payload inside it verbatim.
 *
 * Why JetStream rather than a PostgreSQL table: a dead letter must be writable whenever its event
 * can be delivered, and with NATS as the broker that is exactly when NATS is reachable — a table in
 * another system would add a second dependency to the moment of dead-lettering, and a PostgreSQL
 * table would not exist at all in the NATS-with-SQLite-store mix, where every replica has its own
 * file. Here every replica, and `pipec dead-letters`, sees the same dead letters whatever the store.
 */
import type { Json } from '../../types.js';
import type { FailedAttempt } from '../broker-input.js';
import {
  checkDeadLetterId,
  notFound,
  pageOf,
  summaryOf,
  type DeadLetter,
  type DeadLetterQuery,
  type DeadLetterReplay,
  type DeadLetterStore,
  type DeadLetterSummary,
  type PurgeQuery,
} from '../dead-letters.js';
import { eventOfToken, eventToken, isNoStream, isStreamNotFound, type Session, type StreamNames } from './jetstream.js';

/** Keeps a record under the broker's max_payload: the attempt errors are cut before anything else. */
const RECORD_RESERVE_BYTES = 2048;

export interface NatsDeadLetterDeps {
  readonly names: StreamNames;
  /** The JetStream session with the dead-letter stream ensured; throws 503 while NATS is away. */
  readonly session: () => Promise<Session>;
  /** Sets the streams up again (after the server lost them) and returns the new session. */
  readonly recover: () => Promise<Session>;
  /** Publishes a replay for one subscriber; returns the new event id. */
  readonly publishReplay: (letter: DeadLetter) => Promise<string>;
  readonly clock: { now(): number };
}

export function deadLetterSubject(names: StreamNames, event: string, id: string): string {
  return `${names.deadLetterPrefix}.${eventToken(event)}.${id}`;
}

/**
 * The record as stored: JSON with `payloadJson` (the event's payload text, verbatim) spliced in, and
 * attempt errors shortened until it fits `maxBytes`.
 */
export function encodeDeadLetter(
  letter: Omit<DeadLetter, 'payload'>,
  payloadJson: string,
  maxBytes: number,
): Uint8Array {
  const encoder = new TextEncoder();
  let attempts = letter.attempts;
  for (let cut = 500; ; cut = Math.floor(cut / 2)) {
    const meta = JSON.stringify({ v: 1, ...letter, attempts });
    const text = `${meta.slice(0, -1)},"payload":${payloadJson}}`;
    const bytes = encoder.encode(text);
    if (bytes.length + RECORD_RESERVE_BYTES <= maxBytes || cut < 8) return bytes;
    attempts = attempts.map((a) => ({ ...a, error: a.error.slice(0, cut) }));
  }
}

export function decodeDeadLetter(data: Uint8Array): DeadLetter {
  const record = JSON.parse(new TextDecoder().decode(data)) as DeadLetter & { v?: number };
  const { v: _version, ...letter } = record;
  return letter;
}

export function createNatsDeadLetters(deps: NatsDeadLetterDeps): DeadLetterStore & {
  write(letter: Omit<DeadLetter, 'payload'>, payloadJson: string): Promise<void>;
} {
  const { names } = deps;
  const allSubjects = `${names.deadLetterPrefix}.>`;

  /** Messages matching `filter` in stream order, from `fromSeq`; null at the end. */
  const nextMatching = async (
    session: Session,
    filter: string,
    fromSeq: number,
  ): Promise<{ seq: number; letter: DeadLetter } | null> => {
    // The server answers "next message at or after seq on these subjects" (`next_by_subj`), which
    // the client's typings do not list for this API.
    const request = { seq: fromSeq, next_by_subj: filter } as unknown as { seq: number };
    const stored = await session.jsm.streams.getMessage(names.deadLetters, request);
    return stored ? { seq: stored.seq, letter: decodeDeadLetter(stored.data) } : null;
  };

  const find = async (session: Session, id: string): Promise<DeadLetter | null> => {
    const stored = await session.jsm.streams.getMessage(names.deadLetters, {
      last_by_subj: `${names.deadLetterPrefix}.*.${id}`,
    });
    return stored ? decodeDeadLetter(stored.data) : null;
  };

  const write = async (letter: Omit<DeadLetter, 'payload'>, payloadJson: string): Promise<void> => {
    const send = async (session: Session): Promise<void> => {
      const maxBytes = session.nc.info?.max_payload ?? 1024 * 1024;
      await session.js.publish(
        deadLetterSubject(names, letter.event, letter.id),
        encodeDeadLetter(letter, payloadJson, maxBytes),
      );
    };
    try {
      await send(await deps.session());
    } catch (err) {
      // The dead-letter stream was lost (deleted, or the server's JetStream state): set it up again once.
      if (!isNoStream(err)) throw err;
      await send(await deps.recover());
    }
  };

  /** A read of a dead-letter stream that does not exist (yet, or any more) finds nothing. */
  const orNothing = async <T>(nothing: T, read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (err) {
      if (isStreamNotFound(err)) return nothing;
      throw err;
    }
  };

  return {
    write,

    list: (query) => orNothing([], () => list(query)),
    async get(id) {
      checkDeadLetterId(id);
      return orNothing(null, async () => find(await deps.session(), id));
    },
    purge: (query) => orNothing(0, () => purge(query)),
    countByEvent: () => orNothing({}, countByEvent),

    async replay(id) {
      checkDeadLetterId(id);
      const session = await deps.session();
      const letter = await orNothing(null, () => find(session, id));
      if (!letter) throw notFound(id);
      const eventId = await deps.publishReplay(letter);
      const replays: DeadLetterReplay[] = [...letter.replays, { at: deps.clock.now(), eventId }];
      const { payload, ...rest } = letter;
      await write({ ...rest, replays }, JSON.stringify(payload as Json));
      return { eventId };
    },
  };

  async function list(query: DeadLetterQuery | undefined): Promise<DeadLetterSummary[]> {
    const { limit, offset } = pageOf(query);
    const session = await deps.session();
    const filter = query?.event ? `${names.deadLetterPrefix}.${eventToken(query.event)}.*` : allSubjects;
    const out: DeadLetter[] = [];
    let skipped = 0;
    let seq = 1;
    while (out.length < limit) {
      const next = await nextMatching(session, filter, seq);
      if (next === null) break;
      seq = next.seq + 1;
      if (query?.subscriber !== undefined && next.letter.subscriber !== query.subscriber) continue;
      if (skipped < offset) skipped += 1;
      else out.push(next.letter);
    }
    return out.map(summaryOf);
  }

  async function purge(query: PurgeQuery): Promise<number> {
    const session = await deps.session();
    if (query.id !== undefined) checkDeadLetterId(query.id);
    const event = query.event === undefined ? '*' : eventToken(query.event);
    const id = query.id ?? '*';
    if (query.subscriber === undefined) {
      const filter = event === '*' && id === '*' ? allSubjects : `${names.deadLetterPrefix}.${event}.${id}`;
      return (await session.jsm.streams.purge(names.deadLetters, { filter })).purged;
    }
    // By subscriber: read the matching ones, purge each by its subject.
    let purged = 0;
    let seq = 1;
    const filter = `${names.deadLetterPrefix}.${event}.${id}`;
    for (;;) {
      const next = await nextMatching(session, filter, seq);
      if (next === null) return purged;
      seq = next.seq + 1;
      if (next.letter.subscriber !== query.subscriber) continue;
      const subject = deadLetterSubject(names, next.letter.event, next.letter.id);
      purged += (await session.jsm.streams.purge(names.deadLetters, { filter: subject })).purged;
    }
  }

  async function countByEvent(): Promise<Record<string, number>> {
    const session = await deps.session();
    const info = await session.jsm.streams.info(names.deadLetters, { subjects_filter: allSubjects });
    const counts: Record<string, number> = {};
    for (const [subject, n] of Object.entries(info.state.subjects ?? {})) {
      const tokens = subject.slice(names.deadLetterPrefix.length + 1).split('.');
      const event = eventOfToken(tokens[0] ?? '');
      Object.defineProperty(counts, event, {
        value: (counts[event] ?? 0) + n,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return counts;
  }
}

export type { FailedAttempt };
