/**
 * The `amqp` trigger and the `amqp-publish` connector against the real RabbitMQ server
 * (test/support/servers.ts), each test on queues and exchanges of its own: publisher confirms,
 * acknowledgement only after the pipeline succeeded, dead-lettering with the payload, a broker
 * that goes away mid-stream (test/support/tcp-proxy.ts), wrong credentials, a refused connection,
 * and a service that starts while the broker is down.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Channel, type ChannelModel, type GetMessage } from 'amqplib';
import { PipeError } from '../../errors.js';
import type { Json, JsonObject } from '../../types.js';
import { ConnectionRegistry } from '../../service/connections.js';
import { createLogger } from '../../service/logging.js';
import { fakeContext } from '../../service/test-support/fake-context.js';
import {
  BUILT_IN_TRIGGERS,
  makeTestService,
  pipelineOf,
  type TestService,
} from '../../service/test-support/test-service.js';
import type { TriggerRuntime } from '../../service/trigger-host.js';
import { AMQP_URL, serverAvailable, uniqueName } from '../../../test/support/servers.js';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.js';
import { freePort } from '../../../test/support/ports.js';
import { run as publish, type AmqpPublishParams } from '../../connectors/amqp-publish/amqp-publish.js';
import { decodeBody, trigger as amqpTrigger, type AmqpTriggerSpec } from './amqp.js';

const up = await serverAvailable('RabbitMQ', AMQP_URL, 5672);
const FAST = { initialMs: 20, maxMs: 50, multiplier: 2 };

/** Waits until `check` holds, polling (no fixed sleeps); fails after `tries` × 50 ms. */
async function until(check: () => boolean | Promise<boolean>, what: string, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function publishContext() {
  const connections = new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' }));
  const { ctx } = fakeContext({});
  return { ctx: { ...ctx, services: { ...ctx.services, connections } }, connections };
}

describe.runIf(up)('amqp (real RabbitMQ)', () => {
  let admin: ChannelModel;
  let ch: Channel;
  const made: { queues: string[]; exchanges: string[] } = { queues: [], exchanges: [] };
  let t: TestService | undefined;
  const proxies: TcpProxy[] = [];

  beforeAll(async () => {
    admin = await connect(AMQP_URL);
    ch = await admin.createChannel();
  });
  afterEach(async () => {
    await t?.service.stop(500);
    t = undefined;
    for (const p of proxies.splice(0)) await p.close();
  });
  afterAll(async () => {
    for (const q of made.queues) await ch.deleteQueue(q).catch(() => undefined);
    for (const e of made.exchanges) await ch.deleteExchange(e).catch(() => undefined);
    await admin.close();
  });

  async function queue(prefix = 'pipec-q'): Promise<string> {
    const name = uniqueName(prefix);
    made.queues.push(name);
    await ch.assertQueue(name, { durable: true });
    return name;
  }

  async function exchange(prefix = 'pipec-x'): Promise<string> {
    const name = uniqueName(prefix);
    made.exchanges.push(name);
    await ch.assertExchange(name, 'direct', { durable: false, autoDelete: false });
    return name;
  }

  /** Every message now in `q`, taken off it (acked). */
  async function drain(q: string): Promise<GetMessage[]> {
    const out: GetMessage[] = [];
    for (let m = await ch.get(q); m; m = await ch.get(q)) {
      out.push(m);
      ch.ack(m);
    }
    return out;
  }

  async function service(
    spec: Partial<AmqpTriggerSpec> & { queue: string },
    runIt: (m: Json) => Json | Promise<Json>,
    url = AMQP_URL,
    concurrency = 10,
  ): Promise<TestService> {
    const full: AmqpTriggerSpec = {
      kind: 'amqp',
      account: 'rabbit',
      declare: false,
      prefetch: 10,
      maxDeliveries: 3,
      backoff: FAST,
      maxSize: 1024 * 1024,
      ...spec,
    };
    t = await makeTestService([pipelineOf('consume', full, (m) => runIt(m), { concurrency })], {
      accounts: { rabbit: { url } },
      triggers: { ...BUILT_IN_TRIGGERS, amqp: amqpTrigger as TriggerRuntime },
    });
    await t.service.start();
    return t;
  }

  const send = (q: string, body: Json, headers: Record<string, string> = {}): boolean =>
    ch.sendToQueue(q, Buffer.from(JSON.stringify(body)), {
      contentType: 'application/json',
      persistent: true,
      headers,
    });

  describe('amqp-publish', () => {
    const { ctx, connections } = publishContext();
    afterAll(() => connections.closeAll());
    const params = (extra: Partial<AmqpPublishParams>): AmqpPublishParams => ({
      account: 'rabbit',
      accountFields: { url: AMQP_URL },
      ...extra,
    });

    it('returns after the broker confirmed: the message is in the queue, persistent, with headers and properties', async () => {
      const q = await queue();
      const message = { orderId: 'o-1', total: 12.5 };
      expect(
        await publish(
          params({ 'routing-key': q, headers: { source: 'test', n: 3 }, 'message-id': 'o-1' }),
          message,
          ctx,
        ),
      ).toEqual(message);
      // Confirmed means enqueued: no waiting needed before looking.
      const [got] = await drain(q);
      expect(JSON.parse(got!.content.toString())).toEqual(message);
      expect(got!.properties).toMatchObject({ deliveryMode: 2, contentType: 'application/json', messageId: 'o-1' });
      expect(got!.properties.headers).toMatchObject({ source: 'test', n: 3, 'x-pipec-source-pipeline': 'p' });
    });

    it('publishes to an exchange with a routing key; a string payload as text', async () => {
      const x = await exchange();
      const q = await queue();
      await ch.bindQueue(q, x, 'created');
      await publish(
        params({ exchange: x, 'routing-key': 'created', payload: 'plain text', persistent: false }),
        null,
        ctx,
      );
      const [got] = await drain(q);
      expect(got!.content.toString()).toBe('plain text');
      expect(got!.properties).toMatchObject({ contentType: 'text/plain; charset=utf-8', deliveryMode: 1 });
    });

    it('fails with UNROUTABLE when no queue takes it, NOT_FOUND for a missing exchange, and works afterwards', async () => {
      const x = await exchange();
      await expect(publish(params({ exchange: x, 'routing-key': 'nobody' }), { a: 1 }, ctx)).rejects.toMatchObject({
        kind: 'UNROUTABLE',
        code: 502,
      });
      await expect(
        publish(params({ exchange: uniqueName('missing'), 'routing-key': 'k' }), { a: 1 }, ctx),
      ).rejects.toMatchObject({ kind: 'NOT_FOUND', code: 502 });
      const q = await queue();
      await publish(params({ 'routing-key': q }), { after: true }, ctx);
      expect((await drain(q)).map((m) => JSON.parse(m.content.toString()))).toEqual([{ after: true }]);
    });

    it('fails with AUTHENTICATION_FAILED for wrong credentials, without the password in the message', async () => {
      const own = publishContext();
      const err = await publish(
        {
          account: 'bad',
          accountFields: { url: AMQP_URL, username: 'guest', password: 'not-the-password' },
          'routing-key': 'x',
        },
        {},
        own.ctx,
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PipeError);
      expect(err).toMatchObject({ kind: 'AUTHENTICATION_FAILED', code: 502 });
      expect((err as Error).message).not.toContain('not-the-password');
      expect(own.connections.notReady()).toEqual(['amqp:bad']);
      await own.connections.closeAll();
    });

    it('fails with CONNECTION_REFUSED when nothing listens', async () => {
      const own = publishContext();
      const port = await freePort();
      await expect(
        publish(
          {
            account: 'down',
            accountFields: { host: '127.0.0.1', port, username: 'guest', password: 'guest' },
            'routing-key': 'x',
          },
          {},
          own.ctx,
        ),
      ).rejects.toMatchObject({ kind: 'CONNECTION_REFUSED', code: 503 });
      await own.connections.closeAll();
    });

    it('fails at once with 503 while the broker is away, and publishes again once it is back', async () => {
      const target = new URL(AMQP_URL);
      const proxy = await startTcpProxy(target.hostname, Number(target.port || 5672));
      proxies.push(proxy);
      const own = publishContext();
      const q = await queue();
      const through = (payload: Json): Promise<Json> =>
        publish(
          { account: 'proxied', accountFields: { url: proxy.url(AMQP_URL) }, 'routing-key': q, payload },
          null,
          own.ctx,
        );
      await through({ n: 1 });
      proxy.cut();
      await expect(through({ n: 2 })).rejects.toMatchObject({ code: 503 });
      expect(own.connections.notReady()).toEqual(['amqp:proxied']);
      proxy.restore();
      await until(
        () =>
          through({ n: 3 }).then(
            () => true,
            () => false,
          ),
        'a publish after the broker came back',
      );
      expect(own.connections.notReady()).toEqual([]);
      expect((await drain(q)).map((m) => JSON.parse(m.content.toString()))).toEqual([{ n: 1 }, { n: 3 }]);
      await own.connections.closeAll();
    });
  });

  describe('amqp trigger', () => {
    it('runs the pipeline for each message with its body, headers and routing key, and acknowledges it', async () => {
      const q = await queue();
      const seen: JsonObject[] = [];
      await service({ queue: q }, (m) => {
        seen.push(m as JsonObject);
        return null;
      });
      send(q, { id: 1 }, { tenant: 'acme' });
      send(q, { id: 2 });
      await until(() => seen.length === 2, 'two executions');
      expect(seen[0]).toMatchObject({
        body: { id: 1 },
        headers: { tenant: 'acme' },
        exchange: '',
        routingKey: q,
        redelivered: false,
        contentType: 'application/json',
      });
      await t!.service.stop(500);
      t = undefined;
      // Acknowledged: nothing comes back once the consumer is gone.
      expect(await ch.checkQueue(q)).toMatchObject({ messageCount: 0 });
    });

    it('acknowledges only after success: a failed run runs again, marked as a redelivery', async () => {
      const q = await queue();
      const runs: Array<{ id: number; redelivered: boolean }> = [];
      await service({ queue: q }, (m) => {
        const msg = m as { body: { id: number }; redelivered: boolean };
        runs.push({ id: msg.body.id, redelivered: msg.redelivered });
        if (runs.length === 1) throw new PipeError('the CRM is down', { code: 503, kind: 'UNAVAILABLE' });
        return null;
      });
      send(q, { id: 7 });
      await until(() => runs.length === 2, 'the second run');
      expect(runs).toEqual([
        { id: 7, redelivered: false },
        { id: 7, redelivered: true },
      ]);
      await t!.service.stop(500);
      t = undefined;
      expect(await ch.checkQueue(q)).toMatchObject({ messageCount: 0 });
    });

    it('dead-letters a message that keeps failing to the dead-letter exchange, with its payload and error', async () => {
      const q = await queue();
      const dlx = await exchange('pipec-dlx');
      const dlq = await queue('pipec-dlq');
      await ch.bindQueue(dlq, dlx, q);
      let runs = 0;
      await service({ queue: q, maxDeliveries: 2, deadLetterExchange: dlx }, () => {
        runs++;
        throw new PipeError('always failing', { code: 500, kind: 'BROKEN' });
      });
      send(q, { id: 'poison' }, { tenant: 'acme' });
      let dead: GetMessage[] = [];
      await until(async () => (dead = [...dead, ...(await drain(dlq))]).length === 1, 'the dead letter');
      expect(runs).toBe(2);
      expect(JSON.parse(dead[0]!.content.toString())).toEqual({ id: 'poison' });
      expect(dead[0]!.properties.headers).toMatchObject({
        tenant: 'acme',
        'x-pipec-reason': 'max-deliveries',
        'x-pipec-attempts': 2,
        'x-pipec-queue': q,
        'x-pipec-pipeline': 'consume',
      });
      expect(String(dead[0]!.properties.headers?.['x-pipec-error'])).toContain('always failing');
      await t!.service.stop(500);
      t = undefined;
      expect(await ch.checkQueue(q)).toMatchObject({ messageCount: 0 });
    });

    it('dead-letters a permanent failure and an unreadable body at once', async () => {
      const q = await queue();
      const dlx = await exchange('pipec-dlx');
      const dlq = await queue('pipec-dlq');
      await ch.bindQueue(dlq, dlx, 'dead');
      let runs = 0;
      await service({ queue: q, deadLetterExchange: dlx, deadLetterRoutingKey: 'dead' }, () => {
        runs++;
        throw new PipeError('no such customer', { code: 404, kind: 'NOT_FOUND' });
      });
      send(q, { id: 'unknown' });
      ch.sendToQueue(q, Buffer.from('{not json'), { contentType: 'application/json' });
      let dead: GetMessage[] = [];
      await until(async () => (dead = [...dead, ...(await drain(dlq))]).length === 2, 'two dead letters');
      expect(runs).toBe(1);
      const reasons = dead.map((d) => d.properties.headers?.['x-pipec-reason']).sort();
      expect(reasons).toEqual(['permanent-error', 'unreadable']);
    });

    it('without a dead-letter exchange, gives a failed message back to the queue: it comes again', async () => {
      const q = await queue();
      const runs: boolean[] = [];
      await service({ queue: q, maxDeliveries: 1 }, (m) => {
        runs.push((m as { redelivered: boolean }).redelivered);
        if (runs.length < 3) throw new PipeError('not yet', { code: 503, kind: 'UNAVAILABLE' });
        return null;
      });
      send(q, { id: 'again' });
      await until(() => runs.length === 3, 'three runs');
      expect(runs).toEqual([false, true, true]);
    });

    it('loses nothing when the service stops while a message runs: the next consumer gets it', async () => {
      const q = await queue();
      let release!: () => void;
      const blocked = new Promise<void>((r) => {
        release = r;
      });
      let started = 0;
      await service({ queue: q }, async () => {
        started++;
        await blocked;
        return null;
      });
      send(q, { id: 'in-flight' });
      await until(() => started === 1, 'the first run');
      const stopping = t!.service.stop(50);
      t = undefined;
      await stopping;
      release();
      const seen: JsonObject[] = [];
      await service({ queue: q }, (m) => {
        seen.push(m as JsonObject);
        return null;
      });
      await until(() => seen.length === 1, 'the redelivery');
      expect(seen[0]).toMatchObject({ body: { id: 'in-flight' }, redelivered: true });
    });

    it('keeps consuming across a broker that goes away mid-stream: nothing lost, /ready 503 meanwhile', async () => {
      const q = await queue();
      const target = new URL(AMQP_URL);
      const proxy = await startTcpProxy(target.hostname, Number(target.port || 5672));
      proxies.push(proxy);
      const done = new Set<number>();
      let inFlightAtCut = 0;
      let cut!: () => void;
      const cutHappened = new Promise<void>((r) => {
        cut = r;
      });
      await service(
        { queue: q, prefetch: 2 },
        async (m) => {
          const id = (m as { body: { id: number } }).body.id;
          // From the fourth message on, runs wait for the cut: their acknowledgements cannot reach the broker.
          if (id >= 3 && inFlightAtCut >= 0) {
            inFlightAtCut++;
            await cutHappened;
          }
          done.add(id);
          return null;
        },
        proxy.url(AMQP_URL),
        2,
      );
      await until(async () => (await t!.service.app.request('/ready')).status === 200, 'ready');
      for (let i = 0; i < 10; i++) send(q, { id: i });
      await until(() => done.size === 3 && inFlightAtCut === 2, 'three messages handled, two running');
      proxy.cut();
      await until(async () => (await t!.service.app.request('/ready')).status === 503, '/ready 503 while cut');
      expect(await (await t!.service.app.request('/ready')).text()).toContain('amqp:rabbit');
      inFlightAtCut = -1; // later runs do not wait
      cut();
      for (let i = 10; i < 15; i++) send(q, { id: i });
      proxy.restore();
      await until(() => done.size === 15, 'every message handled after the broker came back');
      expect([...done].sort((a, b) => a - b)).toEqual(Array.from({ length: 15 }, (_, i) => i));
      await until(async () => (await t!.service.app.request('/ready')).status === 200, 'ready again');
      await t!.service.stop(500);
      t = undefined;
      // Everything was acknowledged in the end (the runs cut off were delivered again and acknowledged).
      expect(await ch.checkQueue(q)).toMatchObject({ messageCount: 0 });
    });

    it('starts while the broker is down, is not ready, and consumes once the broker is there', async () => {
      const q = await queue();
      const target = new URL(AMQP_URL);
      const proxy = await startTcpProxy(target.hostname, Number(target.port || 5672));
      proxies.push(proxy);
      proxy.cut();
      const seen: Json[] = [];
      await service(
        { queue: q },
        (m) => {
          seen.push((m as { body: Json }).body);
          return null;
        },
        proxy.url(AMQP_URL),
      );
      const res = await t!.service.app.request('/ready');
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('amqp:rabbit');
      send(q, { id: 'waiting' });
      proxy.restore();
      await until(() => seen.length === 1, 'the message after the broker came up');
      expect(seen).toEqual([{ id: 'waiting' }]);
    });

    it('waits (not ready) for a queue that does not exist, and declares it when asked', async () => {
      const missing = uniqueName('pipec-missing');
      await service({ queue: missing }, () => null);
      await until(async () => (await t!.service.app.request('/ready')).status === 503, 'not ready');
      await t!.service.stop(200);
      t = undefined;
      made.queues.push(missing);
      const seen: Json[] = [];
      await service({ queue: missing, declare: true }, (m) => {
        seen.push((m as { body: Json }).body);
        return null;
      });
      await until(async () => (await t!.service.app.request('/ready')).status === 200, 'ready with the declared queue');
      send(missing, { ok: true });
      await until(() => seen.length === 1, 'the message');
    });

    it('stays unready with wrong credentials and says why in the log', async () => {
      const q = await queue();
      const wrong = new URL(AMQP_URL);
      wrong.password = 'wrong-password';
      await service({ queue: q }, () => null, wrong.toString());
      await until(async () => (await t!.service.app.request('/ready')).status === 503, 'not ready');
      await until(() => t!.logs.text.includes('refused the credentials'), 'the log line');
      expect(t!.logs.text).not.toContain('wrong-password');
    });
  });
});

describe('amqp trigger without a broker', () => {
  const spec = { kind: 'amqp', queue: 'orders' } as AmqpTriggerSpec;

  it('completes a test input with what a first delivery from the queue has', () => {
    expect(amqpTrigger.testMessage?.(spec, { body: { id: 1 } })).toEqual({
      body: { id: 1 },
      headers: {},
      exchange: '',
      routingKey: 'orders',
      redelivered: false,
    });
    expect(amqpTrigger.testMessage?.(spec, undefined)).toMatchObject({ body: null, routingKey: 'orders' });
  });

  it('reads a body as JSON when it says or looks so, else as text', () => {
    expect(decodeBody(Buffer.from('{"a":1}'), 'application/json')).toEqual({ a: 1 });
    expect(decodeBody(Buffer.from('{"a":1}'), undefined)).toEqual({ a: 1 });
    expect(decodeBody(Buffer.from('plain'), undefined)).toBe('plain');
    expect(decodeBody(Buffer.from('{"a":1}'), 'text/plain')).toBe('{"a":1}');
    expect(() => decodeBody(Buffer.from('{broken'), 'application/json')).toThrow(/not the JSON/);
  });
});
