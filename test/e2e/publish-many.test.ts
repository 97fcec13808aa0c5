/**
 * Publish many from a for-each (runtime/publish-batch.ts): a for-each whose body only computes and
 * publishes hands its events to the broker together — many JetStream publishes in flight at once,
 * one SQLite transaction — and still ends only once every event is stored: after the pipeline
 * answered 2xx each event is in the stream (NATS) or the queue (SQLite). A publish the broker does
 * not store in the middle of the loop fails the run (no 2xx), as a failing publish step always did.
 * The built service runs in this process on real backends, its broker wrapped to count and to fail.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backends, BackendOptions } from '../../runtime/backends/index.js';
import type { Service } from '../../runtime/service/create-service.js';
import type { Delivery, EventBroker, EventToPublish, Json } from '../../runtime/types.js';
import { IN_CI, NATS_URL, reachable, removeNatsStreams } from '../support/servers.js';
import { buildService, postJson, type BuiltService } from './in-process.js';
import { tempDir } from './service-process.js';

const natsUp = await reachable(NATS_URL, 4222);
if (IN_CI && !natsUp) throw new Error(`CI=true requires NATS at ${NATS_URL}`);
if (!natsUp) console.warn('[publish-many.test] NATS cases skipped: NATS unreachable');

const RUN_ID = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const EVENT = `fanned-${RUN_ID}`;
const COUNT = 100;

const SOURCE = `pipeline fan-out {
  trigger http { method: POST, path: "/fan-out" }
  for-each "$.body.items[*]" {
    json-generator { json: { n: {{ message.n }}, note: {{ message.note }} } }
    publish ${EVENT} { external: true }
  }
  respond 200 { published: true }
}

pipeline fan-out-logged {
  trigger http { method: POST, path: "/fan-out-logged" }
  for-each "$.body.items[*]" {
    log { message: "publishing {{ message.n }}", level: debug }
    publish ${EVENT} { external: true }
  }
  respond 200 { published: true }
}

pipeline fan-out-strict {
  trigger http { method: POST, path: "/fan-out-strict" }
  for-each "$.body.items[*]" (fail-on-error: true) {
    publish ${EVENT} { payload: { n: {{ message.n }}, note: {{ message.note }} }, external: true }
  }
  respond 200 { published: true }
}
`;

interface RuntimeModules {
  createBackends(opts: BackendOptions): Promise<Backends>;
  PipeError: new (message: string, opts: { code: number; kind: string }) => Error;
}

/** The broker as the service sees it: counts publishes in flight at once and batches, fails the `failAt`-th publish. */
function watched(inner: EventBroker, newOutage: () => Error) {
  const seen = { publishes: 0, inFlight: 0, maxInFlight: 0, batches: [] as number[], failAt: -1 };
  const broker: EventBroker = {
    async publish(name, payload, headers) {
      const n = seen.publishes++;
      seen.inFlight++;
      seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
      try {
        if (n === seen.failAt) throw newOutage();
        await inner.publish(name, payload, headers);
      } finally {
        seen.inFlight--;
      }
    },
    subscribe: (subscriber, event, handler, opts) => inner.subscribe(subscriber, event, handler, opts),
    close: () => inner.close(),
  };
  if (inner.publishMany) {
    const many = inner.publishMany.bind(inner);
    broker.publishMany = async (events: readonly EventToPublish[]) => {
      seen.batches.push(events.length);
      seen.publishes += events.length;
      return many(events);
    };
  }
  return { broker, seen };
}

const items = (count: number, poisonAt = -1): Json[] =>
  Array.from({ length: count }, (_, n) => ({ n, note: n === poisonAt ? 'bad \u0000 text' : 'ok' }));

describe('publish many from a for-each', () => {
  let built: BuiltService;
  let modules: RuntimeModules;
  beforeAll(async () => {
    const dir = tempDir('publish-many');
    const file = path.join(dir, 'fan-out.pipe');
    fs.writeFileSync(file, SOURCE);
    built = await buildService([file], 'publish-many');
    const runtimeDir = path.join(built.outDir, 'runtime');
    const backendsModule = (await import(pathToFileURL(path.join(runtimeDir, 'backends', 'index.js')).href)) as {
      createBackends: RuntimeModules['createBackends'];
    };
    const errors = (await import(pathToFileURL(path.join(runtimeDir, 'errors.js')).href)) as {
      PipeError: RuntimeModules['PipeError'];
    };
    modules = { createBackends: backendsModule.createBackends, PipeError: errors.PipeError };
  }, 120_000);

  const start = async (
    env: NodeJS.ProcessEnv,
  ): Promise<{ service: Service; backends: Backends; seen: ReturnType<typeof watched>['seen'] }> => {
    const dataDir = tempDir('publish-many-data');
    const logger = pino({ level: 'silent' });
    const backends = await modules.createBackends({ dataDir, env, clock: { now: () => Date.now() }, logger });
    const outage = (): Error =>
      new modules.PipeError('broker unavailable (test outage)', { code: 503, kind: 'BACKEND_UNAVAILABLE' });
    const { broker, seen } = watched(backends.broker, outage);
    const service = await built.runtime.createService(built.definition, {
      backends: { ...backends, broker },
      startTriggers: false,
      dataDir,
      logger,
    });
    return { service, backends, seen };
  };

  /** Collects the `n` of each delivery of EVENT to a subscriber of the test's own. */
  const collect = async (backends: Backends, subscriber: string): Promise<{ ns: number[]; stop(): Promise<void> }> => {
    const ns: number[] = [];
    const sub = await backends.broker.subscribe(
      subscriber,
      EVENT,
      async (delivery: Delivery) => void ns.push((delivery.envelope.payload as { n: number }).n),
      { maxDeliveries: 3, ackTimeout: 30_000, concurrency: 1 },
    );
    return { ns, stop: () => sub.stop() };
  };

  const until = async (check: () => boolean): Promise<void> => {
    const deadline = Date.now() + 15_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  describe('SQLite queue', () => {
    let env: Awaited<ReturnType<typeof start>>;
    beforeAll(async () => void (env = await start({})), 60_000);
    afterAll(async () => {
      await env?.service.stop(100);
      await env?.backends.close();
    });

    it('stores all the loop’s events in one transaction before answering, in element order', async () => {
      const probe = await collect(env.backends, 'probe');
      env.seen.batches.length = 0;
      const res = await postJson(env.service, '/fan-out', { items: items(COUNT) });
      expect(res.status).toBe(200);
      expect(env.seen.batches).toEqual([COUNT]);
      await until(() => probe.ns.length >= COUNT);
      expect(probe.ns).toEqual(items(COUNT).map((_, n) => n));
      await probe.stop();
    });

    it('waits for each publish when the body does more than compute and publish (here: a log line)', async () => {
      const probe = await collect(env.backends, 'probe-logged');
      env.seen.batches.length = 0;
      const res = await postJson(env.service, '/fan-out-logged', { items: items(10) });
      expect(res.status).toBe(200);
      expect(env.seen.batches).toEqual([]);
      await until(() => probe.ns.length >= 10);
      expect(probe.ns).toEqual(items(10).map((_, n) => n));
      await probe.stop();
    });

    it('reports an event refused in the middle as today: the run fails with fail-on-error, else the element counts as failed', async () => {
      const strict = await postJson(env.service, '/fan-out-strict', { items: items(COUNT, 50) });
      expect(strict.status).toBe(422);
      expect(JSON.stringify(strict.body)).toContain('could not publish event');
      const counted = await postJson(env.service, '/fan-out', { items: items(COUNT, 50) });
      expect(counted.status).toBe(200);
    });
  });

  describe.runIf(natsUp || IN_CI)('NATS JetStream', () => {
    const stream = `PIPEC_MANY_${RUN_ID}`;
    let env: Awaited<ReturnType<typeof start>>;
    beforeAll(async () => {
      env = await start({
        PIPEC_BROKER: NATS_URL,
        PIPEC_NATS_STREAM: stream,
        PIPEC_NATS_SUBJECT_PREFIX: `pipecmany.${RUN_ID}`,
      });
    }, 60_000);
    afterAll(async () => {
      await env?.service.stop(100);
      await env?.backends.close();
      await removeNatsStreams(stream);
    });

    const lastSeq = async (): Promise<number> => {
      const nc = await connect({ servers: NATS_URL });
      try {
        return (await (await jetstreamManager(nc)).streams.info(stream)).state.last_seq;
      } finally {
        await nc.close();
      }
    };

    it('has every event in the stream once the pipeline answered, the publishes in flight together', async () => {
      const probe = await collect(env.backends, 'probe');
      const before = await lastSeq();
      env.seen.maxInFlight = 0;
      const res = await postJson(env.service, '/fan-out', { items: items(COUNT) });
      expect(res.status).toBe(200);
      // Stored (JetStream acknowledged each) before the answer, not one round trip at a time.
      expect((await lastSeq()) - before).toBe(COUNT);
      expect(env.seen.maxInFlight).toBeGreaterThan(1);
      await until(() => probe.ns.length >= COUNT);
      expect(probe.ns).toEqual(items(COUNT).map((_, n) => n));
      await probe.stop();
    });

    it('fails the run when the broker fails in the middle of the loop (no 2xx)', async () => {
      env.seen.publishes = 0;
      env.seen.failAt = 50;
      try {
        const res = await postJson(env.service, '/fan-out', { items: items(COUNT) });
        expect(res.status).toBe(503);
      } finally {
        env.seen.failAt = -1;
      }
    });
  });
});
