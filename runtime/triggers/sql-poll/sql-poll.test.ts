/**
 * The `sql-poll` trigger against the real PostgreSQL and MariaDB, with the real backends keeping
 * the watermark: rows handed over in order, a failed row read again (never skipped), rows sharing
 * a watermark value never split, the watermark surviving a restart (SQLite file), one replica at
 * a time polling (PostgreSQL backend), and a service started while its database is down.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { IN_CI, PG_URL, reachable } from '../../../test/support/servers.js';
import { createBackends } from '../../backends/index.js';
import { DATABASES, sqlTestContext, uniqueTable } from '../../connectors/sql/test-support.js';
import { run as sqlRun } from '../../connectors/sql/sql.js';
import { createService, type Service } from '../../service/create-service.js';
import { createLogger } from '../../service/logging.js';
import { LogCapture, pipelineOf } from '../../service/test-support/test-service.js';
import type { Json, JsonObject } from '../../types.js';
import { pollQuery, trigger, type SqlPollTriggerSpec } from './sql-poll.js';

const up = await Promise.all(DATABASES.map((d) => reachable(d.url, d.port)));
if (IN_CI && up.some((u) => !u))
  throw new Error(`CI=true requires PostgreSQL and MariaDB: ${DATABASES.map((d) => d.url).join(', ')}`);

const dirs: string[] = [];
const services: Service[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.stop(1000)));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-sql-poll-'));
  dirs.push(dir);
  return dir;
}

interface Started {
  readonly service: Service;
  readonly seen: Json[];
  readonly logs: LogCapture;
}

/** A service of one sql-poll pipeline on real backends (SQLite in `dir`, or PostgreSQL with PIPEC_STORE). */
async function startPoller(opts: {
  readonly url: string;
  readonly table: string;
  readonly dir: string;
  readonly name?: string;
  readonly spec?: Partial<SqlPollTriggerSpec>;
  readonly env?: Record<string, string>;
  readonly handle?: (message: Json) => void;
  readonly seen?: Json[];
  readonly start?: boolean;
}): Promise<Started> {
  const logs = new LogCapture();
  const logger = createLogger({ level: 'debug', service: 'poll-test', destination: logs });
  const env = opts.env ?? {};
  const clock = { now: () => Date.now() };
  const backends = await createBackends({ dataDir: opts.dir, env, clock, logger });
  const seen = opts.seen ?? [];
  const spec: SqlPollTriggerSpec = {
    kind: 'sql-poll',
    account: 'db',
    table: opts.table,
    watermark: 'id',
    intervalMs: 100,
    batchSize: 3,
    each: 'row',
    timeoutMs: 10_000,
    ...opts.spec,
  };
  const pipeline = pipelineOf(opts.name ?? `poll-${opts.table}`, spec, (message) => {
    opts.handle?.(message);
    seen.push(message);
    return message;
  });
  const service = await createService(
    {
      name: 'poll-test',
      pipelines: [pipeline],
      accounts: { db: { url: opts.url } },
      globals: {},
      stores: {},
      triggers: { 'sql-poll': trigger },
    },
    { backends, logger, dataDir: opts.dir, env, clock },
  );
  services.push(service);
  if (opts.start !== false) await service.start();
  return { service, seen, logs };
}

async function stopService(service: Service): Promise<void> {
  services.splice(services.indexOf(service), 1);
  await service.stop(1000);
}

const ids = (rows: Json[]): unknown[] => rows.map((r) => (r as JsonObject)['id']);

describe('the polling query', () => {
  it('quotes identifiers for the dialect, binds the watermark, and never splits a value', () => {
    expect(
      pollQuery('postgres', { table: 'sales.orders', watermark: 'id', where: "status = 'new'" }, '41', 10),
    ).toEqual({
      sql:
        'SELECT pipec_t.*, CAST(pipec_t."id" AS TEXT) AS pipec_watermark__ FROM "sales"."orders" AS pipec_t ' +
        'WHERE (status = \'new\') AND pipec_t."id" > $1 ORDER BY pipec_t."id" LIMIT 10',
      params: ['41'],
    });
    expect(pollQuery('mysql', { table: 'orders', watermark: 'at', columns: ['id', 'total'] }, null, 5).sql).toBe(
      'SELECT pipec_t.`id`, pipec_t.`total`, CAST(pipec_t.`at` AS CHAR) AS pipec_watermark__ FROM `orders` AS pipec_t ORDER BY pipec_t.`at` LIMIT 5',
    );
    expect(() => pollQuery('postgres', { table: 'orders"; DROP TABLE x; --', watermark: 'id' }, null, 1)).toThrow(
      /no table/,
    );
  });
});

describe.each(DATABASES.map((d, i) => ({ ...d, up: up[i] as boolean })))(
  'sql-poll on $dialect',
  ({ dialect, url, up: isUp }) => {
    const runIf = isUp || IN_CI ? describe : describe.skip;
    if (!isUp && !IN_CI) console.warn(`skipping the sql-poll tests on ${dialect}: ${url} does not answer`);
    const admin = sqlTestContext();
    const exec = async (sql: string, params: Json[] = []): Promise<JsonObject> =>
      (await sqlRun({ account: 'admin', accountFields: { url }, sql, params }, null, admin.ctx)) as JsonObject;
    const p = (n: number): string => (dialect === 'postgres' ? `$${n}` : '?');
    const tables: string[] = [];
    async function table(what: string): Promise<string> {
      const name = uniqueTable(`poll_${what}`);
      tables.push(name);
      await exec(
        `CREATE TABLE ${name} (id INTEGER PRIMARY KEY, at INTEGER NOT NULL DEFAULT 0, item VARCHAR(50) NOT NULL)`,
      );
      return name;
    }
    const insert = async (name: string, rows: readonly [number, string, number?][]): Promise<void> => {
      for (const [id, item, at] of rows)
        await exec(`INSERT INTO ${name} (id, item, at) VALUES (${p(1)}, ${p(2)}, ${p(3)})`, [id, item, at ?? id]);
    };
    afterAll(async () => {
      for (const name of tables) await exec(`DROP TABLE IF EXISTS ${name}`).catch(() => undefined);
      await admin.connections.closeAll();
    });

    runIf('against the server', () => {
      it('hands every row over in watermark order, batch after batch, and then the new ones', async () => {
        const name = await table('order');
        await insert(name, [
          [3, 'c'],
          [1, 'a'],
          [2, 'b'],
          [5, 'e'],
          [4, 'd'],
        ]);
        const { seen } = await startPoller({ url, table: name, dir: dataDir() });
        await vi.waitFor(() => expect(ids(seen)).toEqual([1, 2, 3, 4, 5]), { timeout: 15_000, interval: 50 });
        expect(seen[0]).toEqual({ id: 1, at: 1, item: 'a' });
        await insert(name, [[6, 'f']]);
        await vi.waitFor(() => expect(ids(seen)).toEqual([1, 2, 3, 4, 5, 6]), { timeout: 15_000, interval: 50 });
      });

      it('reads a failed row again at the next poll and never skips it', async () => {
        const name = await table('retry');
        await insert(name, [
          [1, 'a'],
          [2, 'poison'],
          [3, 'c'],
        ]);
        let failures = 0;
        const { seen, logs } = await startPoller({
          url,
          table: name,
          dir: dataDir(),
          handle: (m) => {
            if ((m as JsonObject)['item'] === 'poison' && failures++ < 2) throw new Error('not yet');
          },
        });
        await vi.waitFor(() => expect(ids(seen)).toEqual([1, 2, 3]), { timeout: 15_000, interval: 50 });
        expect(failures).toBe(3);
        expect(
          logs.records.filter(
            (r) => r['msg'] === 'sql-poll: the execution failed; the row is read again at the next poll',
          ),
        ).toHaveLength(2);
      });

      it('never splits rows sharing a watermark value, with `each: batch`', async () => {
        const name = await table('tie');
        // batch-size 3: the first query's last value (20) continues past the limit.
        await insert(name, [
          [1, 'a', 10],
          [2, 'b', 20],
          [3, 'c', 20],
          [4, 'd', 20],
          [5, 'e', 30],
          [6, 'f', 30],
          [7, 'g', 30],
          [8, 'h', 30],
        ]);
        const { seen } = await startPoller({
          url,
          table: name,
          dir: dataDir(),
          spec: { watermark: 'at', each: 'batch' },
        });
        await vi.waitFor(
          () => expect(seen.flatMap((b) => ids((b as JsonObject)['rows'] as Json[]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]),
          { timeout: 15_000, interval: 50 },
        );
        expect(seen.map((b) => ids((b as JsonObject)['rows'] as Json[]))).toEqual([[1], [2, 3, 4], [5, 6, 7, 8]]);
      });

      it('keeps the watermark across a restart (SQLite file): the new service reads only the new rows', async () => {
        const name = await table('restart');
        const dir = dataDir();
        await insert(name, [
          [1, 'a'],
          [2, 'b'],
        ]);
        const first = await startPoller({ url, table: name, dir });
        await vi.waitFor(() => expect(ids(first.seen)).toEqual([1, 2]), { timeout: 15_000, interval: 50 });
        await stopService(first.service);
        await insert(name, [
          [3, 'c'],
          [4, 'd'],
        ]);
        const second = await startPoller({ url, table: name, dir });
        await vi.waitFor(() => expect(ids(second.seen)).toEqual([3, 4]), { timeout: 15_000, interval: 50 });
      });

      it('starts after `start-after` when no watermark is recorded', async () => {
        const name = await table('start');
        await insert(name, [
          [1, 'old'],
          [2, 'old'],
          [3, 'new'],
        ]);
        const { seen } = await startPoller({
          url,
          table: name,
          dir: dataDir(),
          spec: { startAfter: '2', where: "item <> 'skip me'" },
        });
        await vi.waitFor(() => expect(ids(seen)).toEqual([3]), { timeout: 15_000, interval: 50 });
      });
    });
  },
);

const pgUp = up[0] as boolean;
describe.runIf(pgUp || IN_CI)('sql-poll with the distributed backend (PIPEC_STORE=postgres)', () => {
  const pg = DATABASES[0].url;
  const admin = sqlTestContext();
  const exec = (sql: string): Promise<Json> =>
    sqlRun({ account: 'admin', accountFields: { url: pg }, sql }, null, admin.ctx);
  const name = uniqueTable('poll_replicas');
  afterAll(async () => {
    await exec(`DROP TABLE IF EXISTS ${name}`).catch(() => undefined);
    await admin.connections.closeAll();
  });

  it('hands each row to one replica only, and a replica started later goes on from the shared watermark', async () => {
    await exec(`CREATE TABLE ${name} (id INTEGER PRIMARY KEY, item TEXT NOT NULL)`);
    await exec(`INSERT INTO ${name} (id, item) SELECT g, 'item ' || g FROM generate_series(1, 30) AS g`);
    const env = { PIPEC_STORE: PG_URL };
    const seen: Json[] = [];
    const replicas = await Promise.all(
      [0, 1].map(() => startPoller({ url: pg, table: name, dir: dataDir(), env, seen, name: `replicas-${name}` })),
    );
    await vi.waitFor(() => expect(seen).toHaveLength(30), { timeout: 20_000, interval: 50 });
    expect(ids(seen)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    for (const r of replicas) await stopService(r.service);
    await exec(`INSERT INTO ${name} (id, item) VALUES (31, 'later')`);
    const later = await startPoller({ url: pg, table: name, dir: dataDir(), env, name: `replicas-${name}` });
    await vi.waitFor(() => expect(ids(later.seen)).toEqual([31]), { timeout: 15_000, interval: 50 });
  });
});

describe('a service whose database is down', () => {
  it('starts, and /ready names the database until it answers', async () => {
    const { service } = await startPoller({
      url: 'postgres://postgres@127.0.0.1:1/nothing',
      table: 'orders',
      dir: dataDir(),
    });
    const health = await service.app.request('/health');
    expect(health.status).toBe(200);
    await vi.waitFor(
      async () => {
        const ready = await service.app.request('/ready');
        expect(ready.status).toBe(503);
        expect(JSON.stringify(await ready.json())).toContain('postgres db');
      },
      { timeout: 15_000, interval: 50 },
    );
  });
});
