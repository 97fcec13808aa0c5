/**
 * The consumer's puller on the real NATS server: a message the server sends to a pull the worker
 * stopped waiting for is still received — nats.js fetch() would have dropped it with the pull's
 * inbox while the server counted it as delivered — and acks, naks and progress reach JetStream.
 * The end of empty pulls (statuses 408, 409) is checked against a stand-in that answers the pull
 * requests itself, on an API prefix of its own.
 */
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, headers as natsHeaders, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_CI, NATS_URL, reachable } from '../../../test/support/servers.js';
import { parseAckSubject, Puller, PullFailed } from './puller.js';

const natsUp = await reachable(NATS_URL, 4222);
if (IN_CI && !natsUp) throw new Error(`CI=true requires NATS at ${NATS_URL}`);
if (!natsUp) console.warn('[puller.test] skipped: NATS unreachable');

const RUN_ID = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
/** A stream name of this run only (the stand-in's pull subjects are not shared). */
const STREAM = `S_${RUN_ID}`;

describe('parseAckSubject', () => {
  it('reads the delivery count, stream sequence and timestamp of both subject forms', () => {
    expect(parseAckSubject('$JS.ACK.EVENTS.worker.3.17.20.1700000000000000000.4')).toEqual({
      stream: 'EVENTS',
      deliveryCount: 3,
      streamSequence: 17,
      timestampNanos: 1700000000000000000,
    });
    expect(parseAckSubject('$JS.ACK.hub.ACCHASH.EVENTS.worker.2.9.11.1700000000000000000.0.r4nd0m')).toMatchObject({
      stream: 'EVENTS',
      deliveryCount: 2,
      streamSequence: 9,
    });
    expect(() => parseAckSubject('_INBOX.abc')).toThrow(/not a JetStream ack subject/);
  });
});

describe.runIf(natsUp || IN_CI)('Puller', () => {
  const prefix = `PIPECTEST.${RUN_ID}.API`;
  let nc: NatsConnection;
  let server: NatsConnection;

  beforeAll(async () => {
    nc = await connect({ servers: new URL(NATS_URL).host });
    server = await connect({ servers: new URL(NATS_URL).host });
  });
  afterAll(async () => {
    await nc?.close();
    await server?.close();
  });

  /** The pull requests the stand-in receives, in order. */
  const pulls = (): Msg[] => {
    const seen: Msg[] = [];
    server.subscribe(`${prefix}.CONSUMER.MSG.NEXT.${STREAM}.C`, { callback: (_err, msg) => void seen.push(msg) });
    return seen;
  };
  const until = async (check: () => boolean): Promise<void> => {
    const deadline = Date.now() + 5000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  const lateDelivery = 'receives what the server sends to a pull it stopped waiting for, and acks, naks and extends';
  it(lateDelivery, { timeout: 20_000 }, async () => {
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    const stream = `PIPECPULL_${RUN_ID}`;
    await jsm.streams.add({ name: stream, subjects: [`pipecpull.${RUN_ID}.>`] });
    try {
      await jsm.consumers.add(stream, { durable_name: 'C', ack_policy: AckPolicy.Explicit, ack_wait: 5_000_000_000 });
      const puller = new Puller(nc, stream, 'C', 1000, 5000);
      // The worker stops waiting (nats.js fetch() would drop the pull's inbox here)...
      const stopped = new AbortController();
      const waiting = puller.next(stopped.signal);
      await nc.flush();
      stopped.abort();
      expect(await waiting).toBeNull();
      // ...the server then hands the pull a message: it still reaches the worker, as delivery 1.
      await js.publish(`pipecpull.${RUN_ID}.a`, 'first');
      const signal = new AbortController().signal;
      const msg = await puller.next(signal);
      expect(msg).toMatchObject({ info: { stream, deliveryCount: 1 } });
      expect(new TextDecoder().decode(msg?.data)).toBe('first');
      msg?.working();
      msg?.nak(200);
      let again = await puller.next(signal);
      while (again === null) again = await puller.next(signal);
      expect(again).toMatchObject({ seq: msg?.seq, info: { deliveryCount: 2 } });
      expect(await again.ackAck()).toBe(true);
      const info = await jsm.consumers.info(stream, 'C');
      // Two deliveries in all, both received; nothing pending.
      expect(info.delivered.consumer_seq).toBe(2);
      expect(info.num_ack_pending).toBe(0);
      puller.close();
    } finally {
      await jsm.streams.delete(stream);
    }
  });

  it(
    'asks for the room the caller has and no more, topping up by at least minBatch while a pull is open',
    {
      timeout: 20_000,
    },
    async () => {
      const jsm = await jetstreamManager(nc);
      const js = jetstream(nc);
      const stream = `PIPECROOM_${RUN_ID}`;
      await jsm.streams.add({ name: stream, subjects: [`pipecroom.${RUN_ID}.>`] });
      try {
        await jsm.consumers.add(stream, { durable_name: 'C', ack_policy: AckPolicy.Explicit });
        // The batch of every pull request the puller sends.
        const batches: number[] = [];
        const spied = new Proxy(nc, {
          get(target, key) {
            if (key === 'publish') {
              return (subject: string, data: string, opts: object) => {
                if (subject.includes('.MSG.NEXT.')) batches.push((JSON.parse(data) as { batch: number }).batch);
                return target.publish(subject, data, opts);
              };
            }
            const value: unknown = Reflect.get(target, key);
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          },
        });
        const puller = new Puller(spied, stream, 'C', 1000, 5000, undefined, 2);
        const signal = new AbortController().signal;
        let room = 4;
        const first = puller.next(signal, () => room);
        await nc.flush();
        expect(batches).toEqual([4]);
        await js.publish(`pipecroom.${RUN_ID}.a`, 'a');
        const msg = await first;
        expect(msg).toMatchObject({ info: { deliveryCount: 1 } });
        msg?.ack();
        // Three still asked for and three slots free; then one more slot, fewer than minBatch: no pull.
        room = 3;
        const second = puller.next(signal, () => room);
        room = 4;
        puller.poke();
        await nc.flush();
        expect(batches).toEqual([4]);
        await new Promise((r) => setTimeout(r, 300));
        // Two more slots: one pull for both.
        room = 5;
        puller.poke();
        await nc.flush();
        expect(batches).toEqual([4, 2]);
        // The first pull expires, leaving 3 of its 4 (the server says so): the second's 2 are still asked for.
        expect(await second).toBeNull();
        const third = puller.next(signal, () => room);
        await nc.flush();
        expect(batches).toEqual([4, 2, 3]);
        puller.close();
        await third.catch(() => null);
      } finally {
        await jsm.streams.delete(stream);
      }
    },
  );

  it('ends an empty pull on 408, and pulls again only then', async () => {
    const requests = pulls();
    await server.flush();
    const puller = new Puller(nc, STREAM, 'C', 1000, 1000, prefix);
    const signal = new AbortController().signal;
    const first = puller.next(signal);
    await until(() => requests.length === 1);
    server.publish(requests[0]?.reply ?? '', '', { headers: natsHeaders(408, 'Request Timeout') });
    expect(await first).toBeNull();
    const second = puller.next(signal);
    await until(() => requests.length === 2);
    server.publish(requests[1]?.reply ?? '', '', { headers: natsHeaders(409, 'Consumer Deleted') });
    await expect(second).rejects.toMatchObject({ status: 409, description: 'Consumer Deleted' });
    puller.close();
  });
});
