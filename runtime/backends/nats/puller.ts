/**
 * Pulls messages for all the concurrency slots of one subscription from a JetStream pull consumer,
 * on one inbox that stays subscribed for as long as the subscription runs.
 *
 * Pulls are sized to the room the caller says it has: the messages asked for and not yet received,
 * plus those received and not yet taken, never exceed it, so what waits in the local buffer is
 * bounded (each message says when it arrived: its ack wait runs from then). A pull asks for several
 * messages at once (at least `minBatch` while another pull is open), so a busy subscription sends
 * one pull request per several events rather than one per event.
 *
 * Why not nats.js `consumer.fetch()`: it subscribes a fresh inbox for each pull and drops it as soon
 * as the client thinks the pull is over — also when two idle heartbeats seem missed, which under
 * load happens before the server expired the pull. A message the server hands to that pull in the
 * meantime reaches nobody, yet counts as a delivery: it comes back only after the ack wait, with
 * one attempt used up (seen as attempts [1, 3] instead of [1, 2] in backends.test.ts "redelivers
 * when the handler exceeds ackTimeout"). Here every message any pull brings is received and
 * handled: a pull that seems to hang is simply followed by another one on the same inbox, and a
 * late message of the earlier one is still read from it. (nats.js `consume()` buffers messages
 * beyond what the handlers can take; their ack wait would run while they wait.)
 */
import { createInbox, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/transport-node';

/** The JetStream API prefix (pipec uses the account's default JetStream, no domain). */
export const DEFAULT_API_PREFIX = '$JS.API';
/** On a pull's end status: how many of the messages it asked for it did not bring. */
const PENDING_MESSAGES_HEADER = 'Nats-Pending-Messages';

/** What the consumer loop needs of a delivered message (a subset of nats.js JsMsg). */
export interface PulledMsg {
  readonly seq: number;
  /** When it arrived (Date.now()): its ack wait has been running since about then. */
  readonly receivedAt: number;
  readonly data: Uint8Array;
  readonly headers: MsgHdrs | undefined;
  readonly info: { readonly stream: string; readonly deliveryCount: number; readonly timestampNanos: number };
  ack(): void;
  /** Asks for redelivery, after `delayMs` when given. */
  nak(delayMs?: number): void;
  /** Extends the ack deadline. */
  working(): void;
  /** Acks and waits for the server's confirmation; false when it did not come. */
  ackAck(): Promise<boolean>;
}

/**
 * A pull that ended with a status the consumer loop must act on (consumer gone, no JetStream), or
 * that the server did not answer at all (status 0: the link is down, or the consumer is missing).
 */
export class PullFailed extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
  ) {
    super(`pull failed: ${status} ${description}`);
    this.name = 'PullFailed';
  }
}

export class Puller {
  private readonly sub: Subscription;
  private readonly inbox: string;
  /** What arrived on the inbox and was not taken yet, with when it arrived. */
  private readonly queue: Array<{ readonly msg: Msg; readonly at: number }> = [];
  private wake: (() => void) | null = null;
  /** Messages asked for by pulls not yet ended, and not yet received. */
  private requested = 0;
  /** When a pull was last sent or the server last sent anything on the inbox. */
  private lastHeard = 0;

  /**
   * @param minBatch the fewest messages a pull asks for while another pull is still open (a pull
   *   is always sent when none is open and there is room).
   */
  constructor(
    readonly nc: NatsConnection,
    private readonly stream: string,
    private readonly consumer: string,
    private readonly expiresMs: number,
    private readonly ackTimeoutMs: number,
    private readonly apiPrefix = DEFAULT_API_PREFIX,
    private readonly minBatch = 1,
  ) {
    this.inbox = createInbox();
    this.sub = nc.subscribe(this.inbox, {
      callback: (err, msg) => {
        if (err) return;
        this.lastHeard = Date.now();
        this.queue.push({ msg, at: this.lastHeard });
        this.wake?.();
      },
    });
  }

  /**
   * The next message, or null when a pull ended without one (after about `expiresMs`). `room`
   * says how many messages the caller can take now (at least 1); pulls keep what is asked for
   * within it, and are topped up when `poke()` says room was made. A pull the server never
   * answered is given up after twice its expiry with PullFailed status 0 (a late message of it
   * still arrives here).
   */
  async next(signal: AbortSignal, room: () => number = () => 1): Promise<PulledMsg | null> {
    // Asked before taking what already arrived, so the next messages are on their way meanwhile.
    if (!signal.aborted) this.topUp(room());
    for (;;) {
      const entry = this.queue.shift();
      if (entry) {
        const pulled = this.read(entry.msg, entry.at);
        if (pulled === 'ended') return null;
        if (pulled !== 'heartbeat') return pulled;
        continue;
      }
      if (signal.aborted) return null;
      this.topUp(room());
      const left = this.lastHeard + 2 * this.expiresMs - Date.now();
      if (left <= 0) {
        this.requested = 0;
        throw new PullFailed(0, 'the server did not answer the pull');
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        signal.addEventListener('abort', done, { once: true });
        this.wake = done;
        function done(): void {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
      });
      this.wake = null;
    }
  }

  /**
   * A message that already arrived, without waiting; null when none did. The caller takes every
   * message of a burst at once, so their handlers start together and their acks leave together.
   */
  poll(): PulledMsg | null {
    for (let entry = this.queue.shift(); entry; entry = this.queue.shift()) {
      const pulled = this.read(entry.msg, entry.at);
      if (pulled !== 'ended' && pulled !== 'heartbeat') return pulled;
    }
    return null;
  }

  /** Room was made (a handler finished): a waiting `next` tops the pulls up. */
  poke(): void {
    this.wake?.();
  }

  /** Messages that arrived but were not taken (stopping): handed back at once for another replica. */
  close(): void {
    this.sub.unsubscribe();
    for (const { msg, at } of this.queue.splice(0)) {
      if (msg.reply?.startsWith('$JS.ACK.')) this.message(msg, at).nak();
    }
  }

  private topUp(room: number): void {
    const missing = room - this.requested - this.queue.length;
    if (missing <= 0 || (this.requested > 0 && missing < this.minBatch)) return;
    this.requested += missing;
    this.lastHeard = Date.now();
    const request = { batch: missing, expires: this.expiresMs * 1_000_000 };
    const subject = `${this.apiPrefix}.CONSUMER.MSG.NEXT.${this.stream}.${this.consumer}`;
    this.nc.publish(subject, JSON.stringify(request), { reply: this.inbox });
  }

  private read(msg: Msg, at: number): PulledMsg | 'ended' | 'heartbeat' {
    if (msg.reply?.startsWith('$JS.ACK.')) {
      this.requested = Math.max(0, this.requested - 1);
      return this.message(msg, at);
    }
    const code = msg.headers?.code ?? 0;
    if (code === 100) return 'heartbeat';
    // A pull that ends before it brought all it asked for says how many it leaves; without that
    // header, assume every open pull ended (the worst is a pull too many, never a starved slot).
    const left = Number(msg.headers?.get(PENDING_MESSAGES_HEADER) || NaN);
    this.requested = Number.isFinite(left) ? Math.max(0, this.requested - left) : 0;
    // 404 no messages, 408 request expired: the pull ended empty. Anything else says the consumer
    // or JetStream cannot serve (409 consumer deleted, 503 no responders…).
    if (code === 404 || code === 408) return 'ended';
    throw new PullFailed(code, msg.headers?.description ?? '');
  }

  private message(msg: Msg, receivedAt: number): PulledMsg {
    const info = parseAckSubject(msg.reply ?? '');
    const nc = this.nc;
    const ackTimeoutMs = this.ackTimeoutMs;
    return {
      seq: info.streamSequence,
      receivedAt,
      data: msg.data,
      headers: msg.headers,
      info: { stream: info.stream, deliveryCount: info.deliveryCount, timestampNanos: info.timestampNanos },
      ack: () => msg.respond('+ACK'),
      nak: (delayMs) =>
        msg.respond(delayMs === undefined ? '-NAK' : `-NAK ${JSON.stringify({ delay: delayMs * 1_000_000 })}`),
      working: () => msg.respond('+WPI'),
      ackAck: () =>
        nc.request(msg.reply ?? '', '+ACK', { timeout: Math.min(ackTimeoutMs, 5000) }).then(
          () => true,
          () => false,
        ),
    };
  }
}

/**
 * The delivery facts in a JetStream ack subject: `$JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.
 * <dseq>.<ts>.<pending>` (9 tokens), or with `<domain>.<account hash>` after `ACK` and possibly a
 * random token at the end (11 or 12 tokens).
 */
export function parseAckSubject(subject: string): {
  stream: string;
  deliveryCount: number;
  streamSequence: number;
  timestampNanos: number;
} {
  const tokens = subject.split('.');
  const at = tokens.length === 9 ? 2 : tokens.length >= 11 ? 4 : -1;
  if (tokens[0] !== '$JS' || tokens[1] !== 'ACK' || at < 0) {
    throw new Error(`not a JetStream ack subject: ${subject.slice(0, 200)}`);
  }
  return {
    stream: tokens[at] ?? '',
    deliveryCount: Number(tokens[at + 2]),
    streamSequence: Number(tokens[at + 3]),
    timestampNanos: Number(tokens[at + 5]),
  };
}
