/**
 * The `mqtt` trigger and the `mqtt-publish` connector against the real Mosquitto broker
 * (test/support/servers.ts), on topics and client ids of their own: QoS 1 acknowledgement, retain,
 * acknowledgement only after the pipeline succeeded (a message whose run was cut off comes back in
 * the persistent session), dead-lettering with the payload, a broker that goes away mid-stream
 * (test/support/tcp-proxy.ts), wrong credentials (a private Mosquitto with a password file), a
 * refused connection, and a service that starts while the broker is down.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectAsync, type IPublishPacket, type MqttClient } from 'mqtt';
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
import { IN_CI, MQTT_URL, serverAvailable, uniqueName } from '../../../test/support/servers.js';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.js';
import { freePort } from '../../../test/support/ports.js';
import { mosquittoAvailable, startMosquitto, type PrivateMosquitto } from '../../../test/support/mosquitto.js';
import { run as publish, type MqttPublishParams } from '../../connectors/mqtt-publish/mqtt-publish.js';
import { decodePayload, trigger as mqttTrigger, type MqttTriggerSpec } from './mqtt.js';

const up = await serverAvailable('Mosquitto', MQTT_URL, 1883);
const privateBroker = mosquittoAvailable();
if (IN_CI && !privateBroker) throw new Error('CI=true requires the mosquitto and mosquitto_passwd binaries');
const FAST = { initialMs: 20, maxMs: 50, multiplier: 2 };

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

/** A plain client that records what arrives on `filter`. */
async function listen(filter: string): Promise<{ client: MqttClient; got: IPublishPacket[] }> {
  const client = await connectAsync(MQTT_URL, { protocolVersion: 5 });
  const got: IPublishPacket[] = [];
  client.on('message', (_topic, _payload, packet) => got.push(packet));
  await client.subscribeAsync(filter, { qos: 1 });
  return { client, got };
}

describe.runIf(up)('mqtt (real Mosquitto)', () => {
  const base = uniqueName('pipec-mqtt');
  let sender: MqttClient;
  let t: TestService | undefined;
  const proxies: TcpProxy[] = [];
  const clients: MqttClient[] = [];

  beforeAll(async () => {
    sender = await connectAsync(MQTT_URL, { protocolVersion: 5 });
  });
  afterEach(async () => {
    await t?.service.stop(500);
    t = undefined;
    for (const p of proxies.splice(0)) await p.close();
    for (const c of clients.splice(0)) await c.endAsync(true);
  });
  afterAll(async () => {
    await sender.endAsync();
  });

  const send = (topic: string, body: Json): Promise<unknown> =>
    sender.publishAsync(topic, JSON.stringify(body), { qos: 1 });

  async function service(
    spec: Partial<MqttTriggerSpec> & { topics: string[] },
    runIt: (m: Json) => Json | Promise<Json>,
    url = MQTT_URL,
  ): Promise<TestService> {
    const full: MqttTriggerSpec = {
      kind: 'mqtt',
      account: 'broker',
      clientId: uniqueName('pipec-client'),
      sessionExpiryMs: 300_000,
      keepaliveMs: 60_000,
      maxDeliveries: 3,
      backoff: FAST,
      maxSize: 1024 * 1024,
      ...spec,
    };
    t = await makeTestService([pipelineOf('consume', full, (m) => runIt(m))], {
      accounts: { broker: { url } },
      triggers: { ...BUILT_IN_TRIGGERS, mqtt: mqttTrigger as TriggerRuntime },
    });
    await t.service.start();
    await until(async () => (await t!.service.app.request('/ready')).status === 200 || url !== MQTT_URL, 'ready');
    return t;
  }

  describe('mqtt-publish', () => {
    const { ctx, connections } = publishContext();
    afterAll(() => connections.closeAll());
    const params = (extra: Partial<MqttPublishParams> & { topic: string }): MqttPublishParams => ({
      account: 'broker',
      accountFields: { url: MQTT_URL },
      ...extra,
    });

    it('publishes with QoS 1 (acknowledged), headers as user properties, and retains when asked', async () => {
      const topic = `${base}/pub/qos1`;
      const { client, got } = await listen(topic);
      clients.push(client);
      const message = { id: 'd-1', temperature: 21.5 };
      expect(await publish(params({ topic, headers: { site: 'lab' } }), message, ctx)).toEqual(message);
      await until(() => got.length === 1, 'the message');
      expect(JSON.parse(got[0]!.payload.toString())).toEqual(message);
      expect(got[0]!.properties?.userProperties).toMatchObject({ site: 'lab', 'x-pipec-source-pipeline': 'p' });
      expect(got[0]!.properties?.contentType).toBe('application/json');

      const retained = `${base}/pub/retained`;
      await publish(params({ topic: retained, payload: 'last value', retain: true, qos: 0 }), null, ctx);
      const late = await listen(retained);
      clients.push(late.client);
      await until(() => late.got.length === 1, 'the retained message');
      expect(late.got[0]).toMatchObject({ retain: true });
      expect(late.got[0]!.payload.toString()).toBe('last value');
      await publish(params({ topic: retained, payload: '', retain: true }), null, ctx); // clears it
    });

    it('refuses a topic with a wildcard computed at run time', async () => {
      await expect(publish(params({ topic: `${base}/+/x` }), {}, ctx)).rejects.toMatchObject({
        kind: 'INVALID_PARAMETER',
        code: 400,
      });
    });

    it('fails with CONNECTION_REFUSED when nothing listens', async () => {
      const own = publishContext();
      const port = await freePort();
      await expect(
        publish({ account: 'down', accountFields: { host: '127.0.0.1', port }, topic: `${base}/x` }, {}, own.ctx),
      ).rejects.toMatchObject({ kind: 'CONNECTION_REFUSED', code: 503 });
      expect(own.connections.notReady()).toEqual(['mqtt:down']);
      await own.connections.closeAll();
    });

    it('fails at once with 503 while the broker is away, and publishes again once it is back', async () => {
      const target = new URL(MQTT_URL);
      const proxy = await startTcpProxy(target.hostname, Number(target.port || 1883));
      proxies.push(proxy);
      const own = publishContext();
      const topic = `${base}/pub/outage`;
      const { client, got } = await listen(topic);
      clients.push(client);
      const through = (n: number): Promise<Json> =>
        publish(
          { account: 'proxied', accountFields: { url: proxy.url(MQTT_URL) }, topic, payload: { n } },
          null,
          own.ctx,
        );
      await through(1);
      proxy.cut();
      await expect(through(2)).rejects.toMatchObject({ code: 503, kind: 'UNAVAILABLE' });
      expect(own.connections.notReady()).toEqual(['mqtt:proxied']);
      proxy.restore();
      await until(
        () =>
          through(3).then(
            () => true,
            () => false,
          ),
        'a publish after the broker came back',
      );
      await until(() => got.length === 2, 'both messages');
      expect(got.map((p) => JSON.parse(p.payload.toString()))).toEqual([{ n: 1 }, { n: 3 }]);
      expect(own.connections.notReady()).toEqual([]);
      await own.connections.closeAll();
    });
  });

  describe.runIf(privateBroker)('credentials (a private Mosquitto with a password file)', () => {
    let broker: PrivateMosquitto;
    beforeAll(async () => {
      broker = await startMosquitto('device', 'right-password');
    });
    afterAll(async () => {
      await broker?.stop();
    });

    it('publishes with the right password and fails with AUTHENTICATION_FAILED with a wrong one', async () => {
      const own = publishContext();
      await publish(
        {
          account: 'good',
          accountFields: { url: broker.url, username: 'device', password: 'right-password' },
          topic: 'a/b',
        },
        {},
        own.ctx,
      );
      const err = await publish(
        {
          account: 'bad',
          accountFields: { url: broker.url, username: 'device', password: 'wrong-password' },
          topic: 'a/b',
        },
        {},
        own.ctx,
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PipeError);
      expect(err).toMatchObject({ kind: 'AUTHENTICATION_FAILED', code: 502 });
      expect((err as Error).message).not.toContain('wrong-password');
      expect(own.connections.notReady()).toEqual(['mqtt:bad']);
      await own.connections.closeAll();
    });

    it('keeps the trigger unready with wrong credentials, without logging the password', async () => {
      t = await makeTestService(
        [
          pipelineOf(
            'consume',
            {
              kind: 'mqtt',
              account: 'broker',
              topics: ['a/#'],
              clientId: uniqueName('pipec-client'),
              sessionExpiryMs: 60_000,
              keepaliveMs: 60_000,
              maxDeliveries: 1,
              backoff: FAST,
              maxSize: 1024,
            } as MqttTriggerSpec,
            () => null,
          ),
        ],
        {
          accounts: { broker: { url: broker.url, username: 'device', password: 'wrong-password' } },
          triggers: { ...BUILT_IN_TRIGGERS, mqtt: mqttTrigger as TriggerRuntime },
        },
      );
      await t.service.start();
      await until(() => t!.logs.text.includes('refused the credentials'), 'the log line');
      expect((await t.service.app.request('/ready')).status).toBe(503);
      expect(t.logs.text).not.toContain('wrong-password');
    });
  });

  describe('mqtt trigger', () => {
    it('runs the pipeline for each message of the topic filters, with topic, body and user properties', async () => {
      const seen: JsonObject[] = [];
      await service({ topics: [`${base}/t1/+/telemetry`] }, (m) => {
        seen.push(m as JsonObject);
        return null;
      });
      await sender.publishAsync(`${base}/t1/d7/telemetry`, JSON.stringify({ t: 20 }), {
        qos: 1,
        properties: { userProperties: { site: 'lab' } },
      });
      await send(`${base}/t1/d8/other`, { ignored: true });
      await sender.publishAsync(`${base}/t1/d9/telemetry`, 'plain', { qos: 1 });
      await until(() => seen.length === 2, 'two executions');
      expect(seen[0]).toMatchObject({
        topic: `${base}/t1/d7/telemetry`,
        body: { t: 20 },
        qos: 1,
        retain: false,
        redelivered: false,
        headers: { site: 'lab' },
      });
      expect(seen[1]).toMatchObject({ body: 'plain' });
    });

    it('acknowledges only after success: a failed run runs again, marked as a redelivery', async () => {
      const runs: boolean[] = [];
      await service({ topics: [`${base}/t2`] }, (m) => {
        runs.push((m as { redelivered: boolean }).redelivered);
        if (runs.length === 1) throw new PipeError('the database is down', { code: 503, kind: 'UNAVAILABLE' });
        return null;
      });
      await send(`${base}/t2`, { id: 1 });
      await until(() => runs.length === 2, 'the second run');
      expect(runs).toEqual([false, true]);
    });

    it('dead-letters a message that keeps failing to the dead-letter topic, with its payload and error', async () => {
      const dead = await listen(`${base}/t3-dead`);
      clients.push(dead.client);
      let runs = 0;
      await service({ topics: [`${base}/t3`], maxDeliveries: 2, deadLetterTopic: `${base}/t3-dead` }, () => {
        runs++;
        throw new PipeError('always failing', { code: 500, kind: 'BROKEN' });
      });
      await send(`${base}/t3`, { id: 'poison' });
      await until(() => dead.got.length === 1, 'the dead letter');
      expect(runs).toBe(2);
      expect(JSON.parse(dead.got[0]!.payload.toString())).toEqual({ id: 'poison' });
      expect(dead.got[0]!.properties?.userProperties).toMatchObject({
        'x-pipec-reason': 'max-deliveries',
        'x-pipec-attempts': '2',
        'x-pipec-topic': `${base}/t3`,
        'x-pipec-pipeline': 'consume',
      });
      expect(String(dead.got[0]!.properties?.userProperties?.['x-pipec-error'])).toContain('always failing');
    });

    it('without a dead-letter topic, leaves a failed message unacknowledged: the broker delivers it again', async () => {
      const runs: boolean[] = [];
      await service({ topics: [`${base}/t4`], maxDeliveries: 1 }, (m) => {
        runs.push((m as { redelivered: boolean }).redelivered);
        if (runs.length < 3) throw new PipeError('not yet', { code: 503, kind: 'UNAVAILABLE' });
        return null;
      });
      await send(`${base}/t4`, { id: 'again' });
      await until(() => runs.length === 3, 'three runs');
      expect(runs).toEqual([false, true, true]);
    });

    it('keeps a message whose run was cut off by a stop in the session: the next start gets it', async () => {
      const clientId = uniqueName('pipec-session');
      let release!: () => void;
      const blocked = new Promise<void>((r) => {
        release = r;
      });
      let started = 0;
      await service({ topics: [`${base}/t5`], clientId }, async () => {
        started++;
        await blocked;
        return null;
      });
      await send(`${base}/t5`, { id: 'in-flight' });
      await until(() => started === 1, 'the first run');
      const stopping = t!.service.stop(50);
      t = undefined;
      await stopping;
      release();
      // Published while no subscriber is connected: the persistent session keeps it too.
      await send(`${base}/t5`, { id: 'while-away' });
      const seen: JsonObject[] = [];
      await service({ topics: [`${base}/t5`], clientId }, (m) => {
        seen.push(m as JsonObject);
        return null;
      });
      await until(() => seen.length === 2, 'both messages');
      expect(seen.map((m) => (m['body'] as { id: string }).id)).toEqual(['in-flight', 'while-away']);
      expect(seen[0]).toMatchObject({ redelivered: true });
    });

    it('keeps consuming across a broker that goes away mid-stream: nothing lost, /ready 503 meanwhile', async () => {
      const target = new URL(MQTT_URL);
      const proxy = await startTcpProxy(target.hostname, Number(target.port || 1883));
      proxies.push(proxy);
      const done = new Set<number>();
      let waiting = 0;
      let cut!: () => void;
      const cutHappened = new Promise<void>((r) => {
        cut = r;
      });
      await service(
        { topics: [`${base}/t6`] },
        async (m) => {
          const id = (m as { body: { id: number } }).body.id;
          if (id === 3 && waiting >= 0) {
            waiting++;
            await cutHappened; // its acknowledgement cannot reach the broker
          }
          done.add(id);
          return null;
        },
        proxy.url(MQTT_URL),
      );
      await until(async () => (await t!.service.app.request('/ready')).status === 200, 'ready');
      for (let i = 0; i < 10; i++) await send(`${base}/t6`, { id: i });
      await until(() => done.size === 3 && waiting === 1, 'three handled, the fourth running');
      proxy.cut();
      await until(async () => (await t!.service.app.request('/ready')).status === 503, '/ready 503 while cut');
      expect(await (await t!.service.app.request('/ready')).text()).toContain('mqtt:broker');
      waiting = -1;
      cut();
      for (let i = 10; i < 15; i++) await send(`${base}/t6`, { id: i });
      proxy.restore();
      await until(() => done.size === 15, 'every message handled after the broker came back');
      await until(async () => (await t!.service.app.request('/ready')).status === 200, 'ready again');
    });

    it('starts while the broker is down, is not ready, and consumes once the broker is there', async () => {
      const target = new URL(MQTT_URL);
      const proxy = await startTcpProxy(target.hostname, Number(target.port || 1883));
      proxies.push(proxy);
      proxy.cut();
      const seen: Json[] = [];
      const clientId = uniqueName('pipec-late');
      await service(
        { topics: [`${base}/t7`], clientId },
        (m) => {
          seen.push((m as { body: Json }).body);
          return null;
        },
        proxy.url(MQTT_URL),
      );
      const res = await t!.service.app.request('/ready');
      expect(res.status).toBe(503);
      expect(await res.text()).toContain(`mqtt:broker/${clientId}`);
      proxy.restore();
      await until(
        async () => (await t!.service.app.request('/ready')).status === 200,
        'ready once the broker is there',
      );
      await send(`${base}/t7`, { id: 'after' });
      await until(() => seen.length === 1, 'the message');
      expect(seen).toEqual([{ id: 'after' }]);
    });
  });
});

describe('mqtt trigger without a broker', () => {
  it('completes a test input with what a first delivery has', () => {
    const spec = { kind: 'mqtt', topics: ['devices/+/telemetry'] } as unknown as MqttTriggerSpec;
    expect(mqttTrigger.testMessage?.(spec, { topic: 'devices/d1/telemetry', body: { t: 20 } })).toEqual({
      topic: 'devices/d1/telemetry',
      body: { t: 20 },
      qos: 1,
      retain: false,
      redelivered: false,
      headers: {},
    });
  });

  it('reads a payload as JSON when it is JSON, else as text', () => {
    expect(decodePayload(Buffer.from('[1,2]'), undefined)).toEqual([1, 2]);
    expect(decodePayload(Buffer.from('21.5 C'), undefined)).toBe('21.5 C');
    expect(() => decodePayload(Buffer.from('nope'), 'application/json')).toThrow(/not the JSON/);
  });
});
