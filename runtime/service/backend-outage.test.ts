/**
 * A service on PostgreSQL + NATS with TCP proxies of the test's own in front of both servers: while
 * a backend is cut, `/ready` answers 503 naming it, requests that need it answer 503 with
 * Retry-After (never 2xx, never 500), `/health` and requests that need nothing stay 200; after the
 * cut everything works again without a restart, and each outage is logged once. Also: the
 * dead-letter admin endpoint and the pipec_dead_letters gauge on the real backends.
 * CI=true fails when the servers are unreachable; elsewhere the suite is skipped with a message.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_CI, NATS_URL, PG_URL, reachable, removeNatsStreams } from '../../test/support/servers.js';
import { startTcpProxy, type TcpProxy } from '../../test/support/tcp-proxy.js';
import { run as publish } from '../connectors/publish/publish.js';
import { PipeError } from '../errors.js';
import type { JsonObject } from '../types.js';
import { createService, type Service } from './create-service.js';
import { createLogger } from './logging.js';
import { BUILT_IN_TRIGGERS, httpTrigger, LogCapture, pipelineOf } from './test-support/test-service.js';

const RUN_ID = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const [pgUp, natsUp] = await Promise.all([reachable(PG_URL, 5432), reachable(NATS_URL, 4222)]);
if (IN_CI && (!pgUp || !natsUp)) throw new Error(`CI=true requires PostgreSQL (${PG_URL}) and NATS (${NATS_URL})`);
if (!pgUp || !natsUp) console.warn('[backend-outage.test] skipped: PostgreSQL or NATS unreachable');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
async function until(what: string, check: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe.runIf((pgUp && natsUp) || IN_CI)('a service while its backends go away and come back', () => {
  const STORE = `outage_${RUN_ID}`.toLowerCase();
  const STREAM = `PIPEC_OUTAGE_${RUN_ID}`;
  const ADMIN_KEY = `admin-${RUN_ID}-key`;
  const dataDir = mkdtempSync(join(tmpdir(), 'pipec-outage-'));
  const logs = new LogCapture();
  let pgProxy: TcpProxy;
  let natsProxy: TcpProxy;
  let service: Service;

  beforeAll(async () => {
    const pgTarget = new URL(PG_URL);
    const natsTarget = new URL(NATS_URL);
    pgProxy = await startTcpProxy(pgTarget.hostname, Number(pgTarget.port || 5432));
    natsProxy = await startTcpProxy(natsTarget.hostname, Number(natsTarget.port || 4222));
    const pgViaProxy = new URL(PG_URL);
    pgViaProxy.hostname = '127.0.0.1';
    pgViaProxy.port = String(pgProxy.port);
    const save = pipelineOf('save', httpTrigger('/save'), async (message, ctx) => {
      const body = (message as { body: JsonObject }).body;
      await ctx.services.store.insert(STORE, [body]);
      await publish({ event: 'saved' }, body, ctx);
      return { saved: true };
    });
    const ping = pipelineOf('ping', httpTrigger('/ping', ['GET']), () => 'pong');
    const poison = pipelineOf('poison', httpTrigger('/poison'), (message, ctx) =>
      publish({ event: 'poison', payload: { bad: true } }, message, ctx).then(() => 'sent'),
    );
    const copy = pipelineOf(
      'copy',
      { kind: 'event', event: 'saved', expiration: 0, maxTimeout: 5000, maxDeliveries: 5 },
      async (message, ctx) => {
        await ctx.services.store.insert(STORE, [{ ...(message as JsonObject), copied: true }]);
        return null;
      },
    );
    const refuse = pipelineOf(
      'refuse',
      { kind: 'event', event: 'poison', expiration: 0, maxTimeout: 5000, maxDeliveries: 5 },
      () => {
        throw new PipeError('cannot take this', { code: 422 });
      },
    );
    service = await createService(
      {
        name: 'outage',
        pipelines: [save, ping, poison, copy, refuse],
        accounts: {},
        globals: {},
        stores: {},
        triggers: BUILT_IN_TRIGGERS,
      },
      {
        env: {
          PIPEC_STORE: pgViaProxy.toString(),
          PIPEC_BROKER: natsProxy.url(NATS_URL),
          PIPEC_NATS_STREAM: STREAM,
          PIPEC_NATS_SUBJECT_PREFIX: `pipecoutage.${RUN_ID}`,
          PIPEC_ADMIN_API_KEY: ADMIN_KEY,
        },
        dataDir,
        logger: createLogger({ level: 'info', service: 'outage', destination: logs }),
      },
    );
    await service.start();
  }, 60_000);

  afterAll(async () => {
    await service?.stop(1000);
    await pgProxy?.close();
    await natsProxy?.close();
    if (pgUp) {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query('DELETE FROM pipec_documents WHERE store = $1', [STORE]);
      await client.end();
    }
    if (natsUp) await removeNatsStreams(STREAM);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (n: number): Promise<Response> =>
    Promise.resolve(
      service.app.request('/save', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ n }),
      }),
    );
  const ready = async (): Promise<{ status: number; body: { status: string; waitingFor?: string[] } }> => {
    const res = await service.app.request('/ready');
    return { status: res.status, body: (await res.json()) as { status: string; waitingFor?: string[] } };
  };
  const copies = async (): Promise<number[]> => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      const rows = await client.query<{ n: number }>(
        "SELECT (doc->>'n')::int AS n FROM pipec_documents WHERE store = $1 AND doc ? 'copied'",
        [STORE],
      );
      return rows.rows.map((r) => r.n).sort((a, b) => a - b);
    } finally {
      await client.end();
    }
  };
  const expectUnavailable = async (res: Response, backend: string): Promise<void> => {
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toMatchObject({ code: 503, backend });
  };

  it('is ready, stores and publishes', async () => {
    expect(await ready()).toEqual({ status: 200, body: { status: 'ready' } });
    expect((await post(1)).status).toBe(200);
    await until('the copy of event 1', async () => (await copies()).includes(1));
  });

  it(
    'during a PostgreSQL cut: /ready 503 naming it, store requests 503 with Retry-After, the rest serves',
    { timeout: 60_000 },
    async () => {
      pgProxy.cut();
      await until(
        'postgres unavailable on /ready',
        async () => (await ready()).body.waitingFor?.includes('postgres') === true,
      );
      expect((await ready()).status).toBe(503);
      await expectUnavailable(await post(2), 'postgres');
      expect((await service.app.request('/health')).status).toBe(200);
      expect(await (await service.app.request('/ping')).json()).toEqual({ body: 'pong' });
      pgProxy.restore();
      await until('ready again', async () => (await ready()).status === 200);
      expect((await post(3)).status).toBe(200);
      await until('the copy of event 3', async () => (await copies()).includes(3));
    },
  );

  it(
    'during a NATS cut: /ready 503 naming it, publishes 503 with Retry-After; consumers resume after it',
    { timeout: 60_000 },
    async () => {
      natsProxy.cut();
      await until('nats unavailable on /ready', async () => (await ready()).body.waitingFor?.includes('nats') === true);
      await expectUnavailable(await post(4), 'nats');
      await sleep(1000);
      natsProxy.restore();
      await until('ready again', async () => (await ready()).status === 200);
      expect((await post(5)).status).toBe(200);
      await until('the copy of event 5', async () => (await copies()).includes(5));
    },
  );

  it('logged each outage once, going and coming back', () => {
    const messages = logs.records.map((r) => String(r['msg']));
    for (const backend of ['postgres', 'nats']) {
      expect(messages.filter((m) => m === `backend unavailable: ${backend}; retrying until it is back`)).toHaveLength(
        1,
      );
      expect(messages.filter((m) => m === `backend available again: ${backend}`)).toHaveLength(1);
    }
  });

  it(
    'serves dead letters to the admin key only, replays and purges them, and counts them in pipec_dead_letters',
    { timeout: 30_000 },
    async () => {
      expect((await service.app.request('/_pipec/dead-letters')).status).toBe(401);
      expect(
        (await service.app.request('/_pipec/dead-letters', { headers: { authorization: 'Bearer wrong' } })).status,
      ).toBe(401);
      const auth = { authorization: `Bearer ${ADMIN_KEY}` };
      expect((await service.app.request('/poison', { method: 'POST' })).status).toBe(200);
      let listed: Array<{ id: string; event: string; subscriber: string; reason: string }> = [];
      await until('the dead letter', async () => {
        const res = await service.app.request('/_pipec/dead-letters?event=poison', { headers: auth });
        listed = ((await res.json()) as { deadLetters: typeof listed }).deadLetters;
        return listed.length === 1;
      });
      expect(listed[0]).toMatchObject({ event: 'poison', subscriber: 'refuse', reason: 'permanent-error' });
      const id = String(listed[0]?.id);
      const shown = (await (
        await service.app.request(`/_pipec/dead-letters/${id}`, { headers: auth })
      ).json()) as JsonObject;
      expect(shown).toMatchObject({ id, payload: { bad: true }, attemptCount: 1 });
      // The gauge is read from the store when scraped.
      expect(await (await service.app.request('/metrics')).text()).toMatch(
        /pipec_dead_letters\{[^}]*event="poison"[^}]*\} 1/,
      );
      const replay = await service.app.request(`/_pipec/dead-letters/${id}/replay`, { method: 'POST', headers: auth });
      expect(replay.status).toBe(200);
      const { eventId } = (await replay.json()) as { eventId: string };
      await until('the replay recorded, and failed again', async () => {
        const letter = (await (await service.app.request(`/_pipec/dead-letters/${id}`, { headers: auth })).json()) as {
          replays?: Array<{ eventId: string }>;
        };
        return letter.replays?.some((r) => r.eventId === eventId) === true;
      });
      expect((await service.app.request('/_pipec/dead-letters/not-an-id', { headers: auth })).status).toBe(400);
      expect((await service.app.request('/_pipec/dead-letters', { method: 'DELETE', headers: auth })).status).toBe(400);
      const purge = await service.app.request('/_pipec/dead-letters?event=poison', { method: 'DELETE', headers: auth });
      expect((await purge.json()) as JsonObject).toMatchObject({ purged: expect.any(Number) });
      expect(
        (
          (await (await service.app.request('/_pipec/dead-letters?event=poison', { headers: auth })).json()) as {
            deadLetters: unknown[];
          }
        ).deadLetters,
      ).toEqual([]);
    },
  );
});
