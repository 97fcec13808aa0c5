/**
 * The queue bridge end to end against the real servers (RabbitMQ, Mosquitto, Redis): the example's
 * .pipe is built with the real CLI and run in process. So that parallel runs do not meet, each run
 * builds a copy whose queue, exchange, topic and key names carry a unique suffix — nothing else of
 * the file changes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Channel, type ChannelModel, type GetMessage } from 'amqplib';
import { connectAsync, type IPublishPacket, type MqttClient } from 'mqtt';
import { Redis } from 'ioredis';
import type { Service } from '../../runtime/service/create-service.js';
import { buildService, type BuiltService } from '../../test/e2e/in-process.js';
import { REPO_ROOT, tempDir } from '../../test/e2e/service-process.js';
import { AMQP_URL, MQTT_URL, REDIS_URL, serverAvailable, uniqueName } from '../../test/support/servers.js';
import { startTcpProxy, type TcpProxy } from '../../test/support/tcp-proxy.js';
import { capturingLogger } from '../reprocessing/test-support.js';

const up =
  (await serverAvailable('RabbitMQ', AMQP_URL, 5672)) &&
  (await serverAvailable('Mosquitto', MQTT_URL, 1883)) &&
  (await serverAvailable('Redis', REDIS_URL, 6379));

const id = uniqueName('qb').replace(/[^A-Za-z0-9-]/g, '-');
const names = {
  queue: `queue-bridge.readings.${id}`,
  dead: `queue-bridge.dead.${id}`,
  topic: `queue-bridge-${id}/devices`,
  key: `queue-bridge-${id}:latest`,
};

async function until(check: () => boolean | Promise<boolean>, what: string, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function reading(deviceId: string, readingId: string, value: number): Record<string, unknown> {
  return { deviceId, readingId, sensor: { value, unit: 'C', kind: 'temperature' }, takenAt: '2026-11-26T10:00:00Z' };
}

describe.runIf(up)('queue-bridge example (RabbitMQ → JOLT → MQTT, latest in Redis)', () => {
  let built: BuiltService;
  let admin: ChannelModel;
  let ch: Channel;
  let mqttClient: MqttClient;
  let redis: Redis;
  const received: IPublishPacket[] = [];
  let service: Service | undefined;
  const proxies: TcpProxy[] = [];
  const deadQueue = `${names.dead}.q`;
  const temporary: string[] = [];

  beforeAll(async () => {
    const source = fs.readFileSync(path.join(REPO_ROOT, 'examples/queue-bridge/queue-bridge.pipe'), 'utf8');
    const renamed = source
      .replaceAll('"queue-bridge.readings"', JSON.stringify(names.queue))
      .replaceAll('"queue-bridge.dead"', JSON.stringify(names.dead))
      .replaceAll('queue-bridge/devices/', `${names.topic}/`)
      .replaceAll('queue-bridge:latest:', `${names.key}:`);
    expect(renamed).not.toContain('"queue-bridge.readings"');
    const dir = tempDir('queue-bridge-src');
    temporary.push(dir);
    fs.writeFileSync(path.join(dir, 'queue-bridge.pipe'), renamed);
    built = await buildService([dir], 'queue-bridge');
    temporary.push(path.dirname(built.outDir));
    admin = await connect(AMQP_URL);
    ch = await admin.createChannel();
    // The plant system's side: the queue exists before the bridge runs (the trigger declares it too).
    await ch.assertQueue(names.queue, { durable: true });
    await ch.assertExchange(names.dead, 'fanout', { durable: true });
    await ch.assertQueue(deadQueue, { durable: true });
    await ch.bindQueue(deadQueue, names.dead, '');
    mqttClient = await connectAsync(MQTT_URL, { protocolVersion: 5 });
    mqttClient.on('message', (_t, _p, packet) => received.push(packet));
    await mqttClient.subscribeAsync(`${names.topic}/#`, { qos: 1 });
    redis = new Redis(REDIS_URL);
  }, 120_000);

  afterEach(async () => {
    await service?.stop(500);
    service = undefined;
    for (const p of proxies.splice(0)) await p.close();
  });

  afterAll(async () => {
    await ch?.deleteQueue(names.queue).catch(() => undefined);
    await ch?.deleteQueue(deadQueue).catch(() => undefined);
    await ch?.deleteExchange(names.dead).catch(() => undefined);
    await admin?.close();
    await mqttClient?.endAsync();
    const keys = (await redis?.keys(`${names.key}:*`)) ?? [];
    if (keys.length > 0) await redis.del(...keys);
    redis?.disconnect();
    for (const dir of temporary) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function start(
    env: Record<string, string> = {},
  ): Promise<{ service: Service; log: ReturnType<typeof capturingLogger> }> {
    const log = capturingLogger();
    const dataDir = tempDir('queue-bridge-data');
    temporary.push(dataDir);
    service = await built.runtime.createService(built.definition, { dataDir, env, logger: log.logger });
    await service.start();
    return { service, log };
  }

  const send = (body: unknown): boolean =>
    ch.sendToQueue(names.queue, Buffer.from(JSON.stringify(body)), {
      contentType: 'application/json',
      persistent: true,
    });

  async function deadLetters(): Promise<GetMessage[]> {
    const out: GetMessage[] = [];
    for (let m = await ch.get(deadQueue); m; m = await ch.get(deadQueue)) {
      out.push(m);
      ch.ack(m);
    }
    return out;
  }

  it('bridges a reading: reshaped on its device topic, kept as the latest in Redis, acknowledged', async () => {
    const { service: s } = await start();
    await until(async () => (await s.app.request('/ready')).status === 200, 'ready');
    send(reading('boiler-1', 'r-1', 71.5));
    await until(() => received.length === 1, 'the MQTT message');
    expect(received[0]!.topic).toBe(`${names.topic}/boiler-1/readings`);
    expect(JSON.parse(received[0]!.payload.toString())).toEqual({
      device: 'boiler-1',
      id: 'r-1',
      value: 71.5,
      unit: 'C',
      at: '2026-11-26T10:00:00Z',
      source: 'rabbitmq',
    });
    expect(received[0]!.properties?.userProperties).toMatchObject({ reading: 'r-1' });
    await until(async () => (await redis.get(`${names.key}:boiler-1`)) !== null, 'the latest reading');
    expect(JSON.parse((await redis.get(`${names.key}:boiler-1`))!)).toMatchObject({ id: 'r-1', value: 71.5 });
    expect(await redis.pttl(`${names.key}:boiler-1`)).toBeGreaterThan(0);
    await until(async () => (await ch.checkQueue(names.queue)).messageCount === 0, 'the queue emptied');
    await service!.stop(500);
    service = undefined;
    expect(await ch.checkQueue(names.queue)).toMatchObject({ messageCount: 0 });
  });

  it('dead-letters a reading that breaks the schema, with its payload, and publishes nothing for it', async () => {
    received.length = 0;
    await start();
    send({ deviceId: 'boiler 1', note: 'no reading' });
    let dead: GetMessage[] = [];
    await until(async () => (dead = [...dead, ...(await deadLetters())]).length === 1, 'the dead letter');
    expect(JSON.parse(dead[0]!.content.toString())).toEqual({ deviceId: 'boiler 1', note: 'no reading' });
    expect(dead[0]!.properties.headers).toMatchObject({
      'x-pipec-reason': 'permanent-error',
      'x-pipec-queue': names.queue,
    });
    expect(received).toHaveLength(0);
  });

  it('does not lose a reading while Redis is away: it runs again and succeeds once Redis is back', async () => {
    received.length = 0;
    const target = new URL(REDIS_URL);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    proxies.push(proxy);
    proxy.cut();
    const { log } = await start({ QUEUE_BRIDGE_REDIS_URL: proxy.url(REDIS_URL) });
    send(reading('pump-2', 'r-2', 3.2));
    // The first run publishes on MQTT and then fails on Redis: not acknowledged, run again.
    await until(() => log.records().some((r) => r.msg === 'execution failed'), 'a failed run');
    proxy.restore();
    await until(
      async () => (await redis.get(`${names.key}:pump-2`)) !== null,
      'the latest reading once Redis is back',
      600,
    );
    await until(async () => (await ch.checkQueue(names.queue)).messageCount === 0, 'the queue emptied');
    expect(log.records().filter((r) => r.msg === 'execution started').length).toBeGreaterThanOrEqual(2);
    // At least once: the MQTT message may have been published once per run.
    expect(received.length).toBeGreaterThanOrEqual(1);
    expect(received.every((p) => JSON.parse(p.payload.toString()).id === 'r-2')).toBe(true);
    expect(await deadLetters()).toHaveLength(0);
  });

  it('starts while RabbitMQ is down, answers /ready 503 naming it, and bridges once it is back', async () => {
    received.length = 0;
    const target = new URL(AMQP_URL);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5672));
    proxies.push(proxy);
    proxy.cut();
    const { service: s } = await start({ QUEUE_BRIDGE_AMQP_URL: proxy.url('amqp://127.0.0.1:5672') });
    const ready = await s.app.request('/ready');
    expect(ready.status).toBe(503);
    expect(await ready.text()).toContain('amqp:queue_bridge_rabbit');
    send(reading('fan-3', 'r-3', 1200));
    proxy.restore();
    await until(() => received.length === 1, 'the MQTT message after RabbitMQ came back');
    expect(JSON.parse(received[0]!.payload.toString())).toMatchObject({ device: 'fan-3', id: 'r-3' });
  });
});
