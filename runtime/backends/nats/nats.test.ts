/**
 * The NATS broker against real servers: the shared one (through a TCP proxy of the test's own to
 * cut the link) and private nats-server processes for authentication (token, user, NKey, creds) and TLS. An outage makes the
 * backend unavailable (once in the log), publishes fail at once with 503, and everything resumes by
 * itself afterwards; a deleted consumer or stream is recreated; a message no publisher of ours could
 * send is dead-lettered; NATS alone gives a scheduler lock shared by replicas.
 * CI=true fails when the servers or the nats-server binary are missing; elsewhere it skips.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { jetstreamManager } from '@nats-io/jetstream';
import { createUser } from '@nats-io/nkeys';
import { connect } from '@nats-io/transport-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_CI, NATS_URL, reachable, removeNatsStreams } from '../../../test/support/servers.js';
import { natsServerAvailable, startNatsServer, type PrivateNatsServer } from '../../../test/support/nats-server.js';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.js';
import { PipeError } from '../../errors.js';
import { createBackends, type Backends } from '../index.js';
import { durableName } from './broker.js';

const RUN_ID = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const natsUp = await reachable(NATS_URL, 4222);
const binary = natsServerAvailable();
if (IN_CI && (!natsUp || !binary)) throw new Error(`CI=true requires NATS at ${NATS_URL} and the nats-server binary`);
if (!natsUp) console.warn(`[nats.test] skipped: NATS unreachable at ${NATS_URL}`);
if (!binary) console.warn('[nats.test] authentication and TLS cases skipped: no nats-server binary');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A logger whose JSON records the test reads. */
function recordingLogger(): { logger: pino.Logger; records: Array<Record<string, unknown>> } {
  const records: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n'))
        if (line) records.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), records };
}

let counter = 0;
const names = () => {
  counter += 1;
  return {
    PIPEC_NATS_STREAM: `PIPEC_T_${RUN_ID}_${counter}`,
    PIPEC_NATS_SUBJECT_PREFIX: `pipect.${RUN_ID}.${counter}`,
  };
};

describe.runIf(natsUp || IN_CI)('NATS broker: outages and missing server state', () => {
  const dirs: string[] = [];
  const streams: string[] = [];
  const open = async (env: NodeJS.ProcessEnv, logger = pino({ level: 'silent' })): Promise<Backends> => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pipec-nats-'));
    dirs.push(dataDir);
    if (env['PIPEC_NATS_STREAM']) streams.push(env['PIPEC_NATS_STREAM']);
    return createBackends({ dataDir, env, clock: { now: () => Date.now() }, logger, startWaitMs: 5000 });
  };

  afterAll(async () => {
    for (const stream of streams) await removeNatsStreams(stream);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'goes unavailable during a cut (logged once), refuses publishes with 503, then resumes by itself',
    { timeout: 60_000 },
    async () => {
      const target = new URL(NATS_URL);
      const proxy: TcpProxy = await startTcpProxy(target.hostname, Number(target.port || 4222));
      const { logger, records } = recordingLogger();
      const backends = await open({ PIPEC_BROKER: proxy.url(NATS_URL), ...names() }, logger);
      const got: number[] = [];
      const sub = await backends.broker.subscribe(
        'outage',
        'ev',
        async (d) => void got.push((d.envelope.payload as { n: number }).n),
        {
          maxDeliveries: 5,
          ackTimeout: 2000,
          concurrency: 2,
        },
      );
      try {
        for (let n = 0; n < 3; n++) await backends.broker.publish('ev', { n });
        // At least once: an ack lost in the cut brings an event back, so events are counted, not deliveries.
        await until('the first events', () => new Set(got).size === 3);

        proxy.cut();
        await until('nats to be reported unavailable', () =>
          backends.availability.unavailable().some((u) => u.backend === 'nats'),
        );
        const refused = await backends.broker.publish('ev', { n: 99 }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(refused).toBeInstanceOf(PipeError);
        expect(refused).toMatchObject({
          code: 503,
          kind: 'BACKEND_UNAVAILABLE',
          details: { backend: 'nats', retryAfter: 5 },
        });
        await sleep(1500); // several reconnect attempts fail meanwhile: still one log line

        proxy.restore();
        await until('nats to be back', () => backends.availability.unavailable().length === 0);
        for (let n = 3; n < 6; n++) await backends.broker.publish('ev', { n });
        await until('the events after the cut', () => new Set(got).size === 6);
        expect([...new Set(got)].sort()).toEqual([0, 1, 2, 3, 4, 5]);
        const went = records.filter((r) => String(r['msg']).startsWith('backend unavailable: nats'));
        const back = records.filter((r) => String(r['msg']).startsWith('backend available again: nats'));
        expect(went).toHaveLength(1);
        expect(back).toHaveLength(1);
        // Nothing else above info: not a line per reconnect attempt or per consumer.
        expect(records.filter((r) => Number(r['level']) >= 40).map((r) => r['msg'])).toEqual([went[0]?.['msg']]);
        proxy.cut();
        await until('nats to be reported unavailable again', () => backends.availability.unavailable().length === 1);
      } finally {
        // Stopping while the link is down ends too (the test's time limit bounds it).
        await sub.stop();
        await backends.close();
        await proxy.close();
      }
    },
  );

  it(
    "accepts no publish before its own subscribers' consumers exist (a service started while NATS was away)",
    { timeout: 60_000 },
    async () => {
      const target = new URL(NATS_URL);
      const proxy: TcpProxy = await startTcpProxy(target.hostname, Number(target.port || 4222));
      proxy.cut();
      const backends = await open({ PIPEC_BROKER: proxy.url(NATS_URL), ...names() });
      const got: number[] = [];
      // Subscribing cannot create the consumer now; the workers will once NATS answers.
      const sub = await backends.broker.subscribe(
        'early',
        'ev',
        async (d) => void got.push((d.envelope.payload as { n: number }).n),
        {
          maxDeliveries: 5,
          ackTimeout: 2000,
          concurrency: 1,
        },
      );
      try {
        proxy.restore();
        // The first publish that succeeds must find the consumer in place ("deliver new" would miss it otherwise).
        for (;;) {
          const published = await backends.broker.publish('ev', { n: 1 }).then(
            () => true,
            () => false,
          );
          if (published) break;
          await sleep(20);
        }
        await until('the first event accepted after NATS came back', () => got.includes(1));
      } finally {
        await sub.stop();
        await backends.close();
        await proxy.close();
      }
    },
  );

  it('recreates a deleted consumer and a deleted stream, and goes on', { timeout: 30_000 }, async () => {
    const env = { PIPEC_BROKER: NATS_URL, ...names() };
    const backends = await open(env);
    const got: number[] = [];
    const sub = await backends.broker.subscribe(
      'keeper',
      'ev',
      async (d) => void got.push((d.envelope.payload as { n: number }).n),
      {
        maxDeliveries: 5,
        ackTimeout: 2000,
        concurrency: 1,
      },
    );
    const nc = await connect({ servers: new URL(NATS_URL).host });
    try {
      const jsm = await jetstreamManager(nc);
      await backends.broker.publish('ev', { n: 1 });
      await until('the first event', () => got.includes(1));

      await jsm.consumers.delete(env.PIPEC_NATS_STREAM, durableName('keeper', 'ev'));
      await until('the consumer to be recreated', () =>
        jsm.consumers.info(env.PIPEC_NATS_STREAM, durableName('keeper', 'ev')).then(
          () => true,
          () => false,
        ),
      );
      await backends.broker.publish('ev', { n: 2 });
      await until('the event after the consumer came back', () => got.includes(2));

      await jsm.streams.delete(env.PIPEC_NATS_STREAM);
      // The next publish finds no stream, sets it and this process's consumers up again, and retries.
      await backends.broker.publish('ev', { n: 3 });
      await until('the event after the stream came back', () => got.includes(3));
    } finally {
      await nc.close();
      await sub.stop();
      await backends.close();
    }
  });

  it(
    'dead-letters a message no pipec publisher would send (not JSON) as unreadable, recreating a lost dead-letter stream',
    { timeout: 30_000 },
    async () => {
      const env = { PIPEC_BROKER: NATS_URL, ...names() };
      const backends = await open(env);
      let runs = 0;
      const sub = await backends.broker.subscribe('strict', 'ev', async () => void (runs += 1), {
        maxDeliveries: 5,
        ackTimeout: 2000,
        concurrency: 1,
      });
      const nc = await connect({ servers: new URL(NATS_URL).host });
      try {
        const { jetstream } = await import('@nats-io/jetstream');
        // The dead-letter stream lost meanwhile: writing the dead letter sets it up again.
        await (await jetstreamManager(nc)).streams.delete(`${env.PIPEC_NATS_STREAM}_DEAD_LETTERS`);
        await jetstream(nc).publish(`${env.PIPEC_NATS_SUBJECT_PREFIX}.ev`, 'not json {');
        await until('the dead letter', async () => (await backends.deadLetters.list({ event: 'ev' })).length === 1);
        const [summary] = await backends.deadLetters.list({ event: 'ev' });
        expect(summary).toMatchObject({ reason: 'unreadable', subscriber: 'strict' });
        expect((await backends.deadLetters.get(String(summary?.id)))?.payload).toBe('not json {');
        expect(runs).toBe(0);
      } finally {
        await nc.close();
        await sub.stop();
        await backends.close();
      }
    },
  );

  it('with NATS alone, replicas share the scheduler lock and the latest tick through KV', async () => {
    const env = { PIPEC_BROKER: NATS_URL, ...names() };
    const [a, b] = [await open(env), await open(env)];
    try {
      let runs = 0;
      const key = `schedule:p:${RUN_ID}`;
      const results = await Promise.all([
        a.lock.tryLock(key, async () => void (runs += 1)),
        b.lock.tryLock(key, async () => void (runs += 1)),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await b.lock.tryLock(key, async () => void (runs += 1))).toBe(false);
      expect(runs).toBe(1);
      await a.lock.recordTick('schedule:p', 3000);
      await b.lock.recordTick('schedule:p', 2000);
      expect(await b.lock.lastTick('schedule:p')).toBe(3000);
      // The server lost the buckets (its JetStream state): they are made again on the next use.
      const nc = await connect({ servers: new URL(NATS_URL).host });
      try {
        const jsm = await jetstreamManager(nc);
        await jsm.streams.delete(`KV_${env.PIPEC_NATS_STREAM}_SCHEDULE_LEDGER`);
        await jsm.streams.delete(`KV_${env.PIPEC_NATS_STREAM}_SCHEDULE_STATE`);
      } finally {
        await nc.close();
      }
      expect(await a.lock.tryLock(`${key}:next`, async () => void (runs += 1))).toBe(true);
      expect(runs).toBe(2);
      expect(await b.lock.lastTick('schedule:p')).toBeNull();
      await b.lock.recordTick('schedule:p', 4000);
      expect(await a.lock.lastTick('schedule:p')).toBe(4000);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe.runIf(binary || IN_CI)('NATS connection settings from the environment (a private nats-server)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pipec-nats-auth-'));
  const servers: PrivateNatsServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const server = async (config: string): Promise<PrivateNatsServer> => {
    const s = await startNatsServer(config);
    servers.push(s);
    return s;
  };

  /** Opens the backends with `env`, publishes and receives one event; returns what /ready would list. */
  const roundTrip = async (env: NodeJS.ProcessEnv): Promise<string[]> => {
    const backends = await createBackends({
      dataDir,
      env: { ...env, PIPEC_NATS_STREAM: `AUTH_${RUN_ID}` },
      clock: { now: () => Date.now() },
      logger: pino({ level: 'silent' }),
      startWaitMs: 3000,
    });
    try {
      const missing = backends.availability.unavailable().map((u) => u.backend);
      if (missing.length > 0) return missing;
      let got = 0;
      const sub = await backends.broker.subscribe('auth', 'ev', async () => void (got += 1), {
        maxDeliveries: 2,
        ackTimeout: 2000,
        concurrency: 1,
      });
      await backends.broker.publish('ev', { ok: true });
      await until('the event', () => got === 1, 10_000);
      await sub.stop();
      return [];
    } finally {
      await backends.close();
    }
  };

  it(
    'authenticates with a token, user/password and an NKey; wrong credentials leave it unready',
    { timeout: 60_000 },
    async () => {
      const user = createUser();
      const seed = new TextDecoder().decode(user.getSeed());
      const tokenServer = await server('authorization { token: "s3cret-token" }');
      expect(await roundTrip({ PIPEC_BROKER: tokenServer.url, PIPEC_NATS_TOKEN: 's3cret-token' })).toEqual([]);
      expect(await roundTrip({ PIPEC_BROKER: tokenServer.url.replace('nats://', 'nats://s3cret-token@') })).toEqual([]);
      expect(await roundTrip({ PIPEC_BROKER: tokenServer.url, PIPEC_NATS_TOKEN: 'wrong' })).toEqual(['nats']);

      const userServer = await server('authorization { users: [ { user: "pipec", password: "p4ss" } ] }');
      expect(
        await roundTrip({ PIPEC_BROKER: userServer.url, PIPEC_NATS_USER: 'pipec', PIPEC_NATS_PASSWORD: 'p4ss' }),
      ).toEqual([]);
      expect(
        await roundTrip({ PIPEC_BROKER: userServer.url, PIPEC_NATS_USER: 'pipec', PIPEC_NATS_PASSWORD: 'nope' }),
      ).toEqual(['nats']);

      const nkeyServer = await server(`authorization { users: [ { nkey: "${user.getPublicKey()}" } ] }`);
      expect(await roundTrip({ PIPEC_BROKER: nkeyServer.url, PIPEC_NATS_NKEY_SEED: seed })).toEqual([]);
      expect(await roundTrip({ PIPEC_BROKER: nkeyServer.url })).toEqual(['nats']);

      await expect(
        roundTrip({ PIPEC_BROKER: tokenServer.url, PIPEC_NATS_TOKEN: 'a', PIPEC_NATS_USER: 'b' }),
      ).rejects.toThrow(/choose one/);
    },
  );

  it(
    "authenticates with a .creds file (operator mode: JWTs signed by the test), and not with a stranger's",
    { timeout: 60_000 },
    async () => {
      const jwt = await import('@nats-io/jwt');
      const operator = jwt.createOperator();
      const account = jwt.createAccount();
      const system = jwt.createAccount();
      const unlimited = {
        subs: -1,
        data: -1,
        payload: -1,
        imports: -1,
        exports: -1,
        wildcards: true,
        conn: -1,
        leaf: -1,
        mem_storage: -1,
        disk_storage: -1,
        streams: -1,
        consumer: -1,
      };
      const operatorJwt = await jwt.encodeOperator('O', operator, { system_account: system.getPublicKey() } as never);
      const accountJwt = await jwt.encodeAccount('A', account, { limits: unlimited } as never, { signer: operator });
      const systemJwt = await jwt.encodeAccount('SYS', system, {}, { signer: operator });
      const user = jwt.createUser();
      const dir = mkdtempSync(join(tmpdir(), 'pipec-nats-creds-'));
      try {
        const creds = join(dir, 'pipec.creds');
        writeFileSync(creds, jwt.fmtCreds(await jwt.encodeUser('pipec', user, account), user));
        const stranger = join(dir, 'stranger.creds');
        const other = jwt.createAccount();
        const otherUser = jwt.createUser();
        writeFileSync(stranger, jwt.fmtCreds(await jwt.encodeUser('x', otherUser, other), otherUser));
        const operatorServer = await server(
          [
            `operator: ${operatorJwt}`,
            `system_account: ${system.getPublicKey()}`,
            'resolver: MEMORY',
            `resolver_preload: { ${account.getPublicKey()}: ${accountJwt}, ${system.getPublicKey()}: ${systemJwt} }`,
          ].join('\n'),
        );
        expect(await roundTrip({ PIPEC_BROKER: operatorServer.url, PIPEC_NATS_CREDS: creds })).toEqual([]);
        expect(await roundTrip({ PIPEC_BROKER: operatorServer.url, PIPEC_NATS_CREDS: stranger })).toEqual(['nats']);
        await expect(
          roundTrip({ PIPEC_BROKER: operatorServer.url, PIPEC_NATS_CREDS: join(dir, 'missing.creds') }),
        ).rejects.toThrow(/ENOENT/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it(
    'connects over TLS with the CA from PIPEC_NATS_TLS_CA, and not without trusting it',
    { timeout: 60_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'pipec-nats-tls-'));
      try {
        const ca = join(dir, 'ca.pem');
        const key = join(dir, 'server-key.pem');
        const cert = join(dir, 'server.pem');
        const openssl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: 'ignore' });
        openssl(
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=pipec test CA',
          '-keyout',
          join(dir, 'ca-key.pem'),
          '-out',
          ca,
        );
        openssl(
          'req',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-subj',
          '/CN=127.0.0.1',
          '-keyout',
          key,
          '-out',
          join(dir, 'server.csr'),
        );
        writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
        openssl(
          'x509',
          '-req',
          '-in',
          join(dir, 'server.csr'),
          '-CA',
          ca,
          '-CAkey',
          join(dir, 'ca-key.pem'),
          '-CAcreateserial',
          '-days',
          '1',
          '-extfile',
          join(dir, 'ext.cnf'),
          '-out',
          cert,
        );
        const tlsServer = await server(`tls { cert_file: ${JSON.stringify(cert)}, key_file: ${JSON.stringify(key)} }`);
        expect(
          await roundTrip({ PIPEC_BROKER: tlsServer.url.replace('nats://', 'tls://'), PIPEC_NATS_TLS_CA: ca }),
        ).toEqual([]);
        expect(await roundTrip({ PIPEC_BROKER: tlsServer.url, PIPEC_NATS_TLS: 'true', PIPEC_NATS_TLS_CA: ca })).toEqual(
          [],
        );
        expect(await roundTrip({ PIPEC_BROKER: tlsServer.url.replace('nats://', 'tls://') })).toEqual(['nats']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

beforeAll(() => {
  if (IN_CI && !natsUp) throw new Error(`CI=true requires NATS at ${NATS_URL}`);
});
