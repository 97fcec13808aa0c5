/**
 * The `sql` connector against the real PostgreSQL and MariaDB of this machine (CI's too): bound
 * parameters, batch insert, transactions rolled back on failure, typed rows, and each failure
 * with its kind — SQL errors, constraint violations, a refused or cut connection (through the
 * tests' TCP proxy), wrong credentials, a statement over its time.
 */
import { createServer } from 'node:net';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { IN_CI, reachable } from '../../../test/support/servers.js';
import { startTcpProxy } from '../../../test/support/tcp-proxy.js';
import { PipeError } from '../../errors.js';
import type { Json, JsonObject } from '../../types.js';
import { classify, dialectOf, sqlError } from './client.js';
import { run, type SqlParams } from './sql.js';
import { DATABASES, sqlTestContext, uniqueTable, type SqlTestContext } from './test-support.js';

const up = await Promise.all(DATABASES.map((d) => reachable(d.url, d.port)));
if (IN_CI && up.some((u) => !u))
  throw new Error(`CI=true requires PostgreSQL and MariaDB: ${DATABASES.map((d) => d.url).join(', ')}`);

const contexts: SqlTestContext[] = [];
function context(): SqlTestContext {
  const c = sqlTestContext();
  contexts.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.connections.closeAll()));
});

async function failure(promise: Promise<unknown>): Promise<PipeError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(PipeError);
    return err as PipeError;
  }
  throw new Error('expected the step to fail');
}

/** A free port of 127.0.0.1 nothing listens on (connections to it are refused). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.each(DATABASES.map((d, i) => ({ ...d, up: up[i] as boolean })))(
  'sql on $dialect',
  ({ dialect, url, up: isUp }) => {
    const runIf = isUp || IN_CI ? describe : describe.skip;
    if (!isUp && !IN_CI) console.warn(`skipping the sql tests on ${dialect}: ${url} does not answer`);
    const p = (n: number): string => (dialect === 'postgres' ? `$${n}` : '?');
    const account = { url };
    const params = (more: Partial<SqlParams>): SqlParams => ({ account: 'test-db', accountFields: account, ...more });
    const step = (ctx: SqlTestContext, more: Partial<SqlParams>): Promise<JsonObject> =>
      run(params(more), null, ctx.ctx) as Promise<JsonObject>;

    runIf('against the server', () => {
      const table = uniqueTable(dialect === 'postgres' ? 'pg' : 'my');
      const admin = sqlTestContext();
      const exec = (sql: string): Promise<JsonObject> => step(admin, { sql });

      afterAll(async () => {
        await exec(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
        await admin.connections.closeAll();
      });

      it('binds values, never splices them, and reads rows back', async () => {
        const c = context();
        await exec(
          `CREATE TABLE ${table} (id INTEGER PRIMARY KEY, customer VARCHAR(100) NOT NULL, total DECIMAL(10,2), note TEXT)`,
        );
        const hostile = "x'); DROP TABLE " + table + '; --';
        const inserted = await step(c, {
          sql: `INSERT INTO ${table} (id, customer, total, note) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)})`,
          params: [1, hostile, 12.5, null],
        });
        expect(inserted).toEqual({ rows: [], rowCount: 1 });
        const read = await step(c, {
          sql: `SELECT id, customer, total, note FROM ${table} WHERE customer = ${p(1)}`,
          params: [hostile],
        });
        // DECIMAL arrives as exact text without a row schema.
        expect(read).toEqual({ rows: [{ id: 1, customer: hostile, total: '12.50', note: null }], rowCount: 1 });
      });

      it('types rows by the declared row schema: numbers from DECIMAL and COUNT text', async () => {
        const c = context();
        const schema = { type: 'object', properties: { total: { type: 'number' }, n: { type: 'integer' } } };
        const out = await step(c, {
          sql: `SELECT total, (SELECT COUNT(*) FROM ${table}) AS n FROM ${table} WHERE id = ${p(1)}`,
          params: [1],
          'row-schema': schema,
        });
        expect(out['rows']).toEqual([{ total: 12.5, n: 1 }]);
      });

      it('inserts a batch in one transaction: lists, or objects through batch-fields', async () => {
        const c = context();
        const sql = `INSERT INTO ${table} (id, customer, total) VALUES (${p(1)}, ${p(2)}, ${p(3)})`;
        expect(
          await step(c, {
            sql,
            batch: [
              [10, 'a', 1],
              [11, 'b', 2],
            ],
          }),
        ).toEqual({ rows: [], rowCount: 2 });
        const objects: Json = [
          { id: 12, customer: 'c', total: 3 },
          { total: 4, customer: 'd', id: 13 },
        ];
        expect(await step(c, { sql, batch: objects, 'batch-fields': ['id', 'customer', 'total'] })).toEqual({
          rows: [],
          rowCount: 2,
        });
        const out = await step(c, { sql: `SELECT id, customer FROM ${table} WHERE id >= 10 ORDER BY id` });
        expect(out['rows']).toEqual([
          { id: 10, customer: 'a' },
          { id: 11, customer: 'b' },
          { id: 12, customer: 'c' },
          { id: 13, customer: 'd' },
        ]);
      });

      it('writes nothing of a batch when one item fails', async () => {
        const c = context();
        const sql = `INSERT INTO ${table} (id, customer) VALUES (${p(1)}, ${p(2)})`;
        const error = await failure(
          step(c, {
            sql,
            batch: [
              [20, 'fine'],
              [21, 'fine too'],
              [10, 'duplicate of an existing id'],
            ],
          }),
        );
        expect(error.kind).toBe('CONSTRAINT_VIOLATION');
        expect(error.code).toBe(409);
        const left = await step(c, { sql: `SELECT id FROM ${table} WHERE id IN (20, 21)` });
        expect(left['rowCount']).toBe(0);
      });

      it('runs statements in one transaction: all committed, or none when one fails', async () => {
        const c = context();
        const ok = await step(c, {
          statements: [
            { sql: `INSERT INTO ${table} (id, customer) VALUES (${p(1)}, ${p(2)})`, params: [30, 'tx'] },
            { sql: `UPDATE ${table} SET total = ${p(1)} WHERE id = ${p(2)}`, params: [99, 30] },
            { sql: `SELECT id, total FROM ${table} WHERE id = ${p(1)}`, params: [30] },
          ],
        });
        expect(ok['rowCount']).toBe(3);
        expect(ok['rows']).toEqual([{ id: 30, total: '99.00' }]);
        expect((ok['results'] as Json[]).map((r) => (r as JsonObject)['rowCount'])).toEqual([1, 1, 1]);

        const error = await failure(
          step(c, {
            statements: [
              { sql: `INSERT INTO ${table} (id, customer) VALUES (${p(1)}, ${p(2)})`, params: [31, 'rolled back'] },
              { sql: `INSERT INTO ${table} (id, customer) VALUES (${p(1)}, ${p(2)})`, params: [32, null] },
            ],
          }),
        );
        expect(error.kind).toBe('CONSTRAINT_VIOLATION');
        expect((error.details as JsonObject)['sqlState']).toMatch(/^23/);
        expect((await step(c, { sql: `SELECT id FROM ${table} WHERE id = 31` }))['rowCount']).toBe(0);
      });

      it('maps SQL errors to kinds: syntax, unknown table, a value that does not fit', async () => {
        const c = context();
        const syntax = await failure(step(c, { sql: 'SELEC 1' }));
        expect([syntax.kind, syntax.code]).toEqual(['SQL_SYNTAX', 500]);
        const missing = await failure(step(c, { sql: `SELECT * FROM ${table}_missing` }));
        expect(missing.kind).toBe('SQL_SYNTAX');
        expect(missing.message).toContain(`${table}_missing`);
        const bad = await failure(
          step(c, {
            sql: `INSERT INTO ${table} (id, customer) VALUES (${p(1)}, ${p(2)})`,
            params: ['not a number', 'x'],
          }),
        );
        expect([bad.kind, bad.code]).toEqual(['INVALID_VALUE', 400]);
        // The pool is fine after failures: no connection was lost.
        expect(c.connections.notReady()).toEqual([]);
      });

      it('keeps a column named __proto__ as data (PostgreSQL) or refuses it (mysql2 does), never as a prototype', async () => {
        const c = context();
        const quote = dialect === 'postgres' ? '"' : '`';
        const query = step(c, { sql: `SELECT 1 AS ${quote}__proto__${quote}` });
        if (dialect === 'mysql') {
          expect((await failure(query)).message).toContain('__proto__');
          return;
        }
        const row = ((await query)['rows'] as JsonObject[])[0] as JsonObject;
        expect(Object.hasOwn(row, '__proto__')).toBe(true);
        expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
      });

      it('refuses more rows than max-rows, and a statement longer than its timeout', async () => {
        const c = context();
        const many = await failure(step(c, { sql: `SELECT id FROM ${table}`, 'max-rows': 2 }));
        expect([many.kind, many.code]).toEqual(['TOO_MANY_ROWS', 502]);
        const slow = await failure(
          step(c, { sql: dialect === 'postgres' ? 'SELECT pg_sleep(5)' : 'SELECT SLEEP(5)', timeout: 200 }),
        );
        expect([slow.kind, slow.code]).toEqual(['TIMEOUT', 504]);
        // The next statement runs.
        expect((await step(c, { sql: 'SELECT 2 AS two' }))['rows']).toEqual([{ two: 2 }]);
      });

      it('refuses wrong credentials as AUTHENTICATION_FAILED, naming the database for /ready', async () => {
        const c = context();
        const u = new URL(url);
        u.username = 'pipec_no_such_user';
        u.password = 'wrong';
        const error = await failure(
          run({ account: 'bad-login', accountFields: { url: u.toString() }, sql: 'SELECT 1' }, null, c.ctx),
        );
        expect([error.kind, error.code]).toEqual(['AUTHENTICATION_FAILED', 502]);
        expect(error.message).not.toContain('wrong');
        await Promise.resolve();
        expect(c.connections.notReady()).toEqual([`${dialect} bad-login`]);
      });

      it('fails with CONNECTION_REFUSED when nothing listens, and /ready names the database until it answers', async () => {
        const c = context();
        const u = new URL(url);
        u.port = String(await closedPort());
        const error = await failure(
          run({ account: 'gone', accountFields: { url: u.toString() }, sql: 'SELECT 1' }, null, c.ctx),
        );
        expect([error.kind, error.code]).toEqual(['CONNECTION_REFUSED', 503]);
        // The caller learns what happened, not where the database is (the log has the driver's words).
        expect(error.message).toBe(
          `sql on ${dialect} gone failed: the database refused the connection, or its host is unknown`,
        );
        await Promise.resolve();
        expect(c.connections.notReady()).toEqual([`${dialect} gone`]);
      });

      it('keeps the statement timeout after a transaction that timed out and rolled back', async () => {
        const c = context();
        const sleep = dialect === 'postgres' ? 'SELECT pg_sleep(5)' : 'SELECT SLEEP(5)';
        const inTx = await failure(step(c, { statements: [{ sql: 'SELECT 1' }, { sql: sleep }], timeout: 200 }));
        expect(inTx.kind).toBe('TIMEOUT');
        // The same connection again: its session still limits statements (a SET undone by the ROLLBACK would not).
        const after = await failure(step(c, { sql: sleep, timeout: 200 }));
        expect(after.kind).toBe('TIMEOUT');
      });

      // PostgreSQL names each session's client (application_name): the test finds the pool's connections by it.
      if (dialect === 'postgres')
        it('closes the pool when the service stops: none of its connections stays open', async () => {
          const c = sqlTestContext();
          const app = uniqueTable('app');
          const u = new URL(url);
          u.searchParams.set('application_name', app);
          const open = (): Promise<JsonObject> =>
            step(admin, {
              sql: 'SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1',
              params: [app],
              'row-schema': { properties: { n: { type: 'integer' } } },
            });
          await run({ account: 'closing', accountFields: { url: u.toString() }, sql: 'SELECT 1' }, null, c.ctx);
          expect((await open())['rows']).toEqual([{ n: 1 }]);
          await c.connections.closeAll();
          // The server forgets a session a moment after the client closed it.
          await vi.waitFor(async () => expect((await open())['rows']).toEqual([{ n: 0 }]), {
            timeout: 10_000,
            interval: 50,
          });
        });

      // MariaDB: a user of this test only (root creates it), whose sessions the process list shows.
      if (dialect === 'mysql')
        it('refuses a wrong password of a real user, and closes the pool on stop (MariaDB)', async () => {
          const user = uniqueTable('u');
          const password = `pw-${user}`;
          await exec(`CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'`);
          await exec(`CREATE USER '${user}'@'localhost' IDENTIFIED BY '${password}'`);
          const database = new URL(url).pathname.slice(1);
          for (const host of ['%', 'localhost']) await exec(`GRANT SELECT ON \`${database}\`.* TO '${user}'@'${host}'`);
          try {
            const as = (pw: string): SqlParams => {
              const u = new URL(url);
              u.username = user;
              u.password = pw;
              return { account: 'own-user', accountFields: { url: u.toString() }, sql: 'SELECT CURRENT_USER() AS me' };
            };
            const c = sqlTestContext();
            const wrong = await failure(run(as('not-the-password'), null, c.ctx));
            expect([wrong.kind, wrong.code]).toEqual(['AUTHENTICATION_FAILED', 502]);
            expect(wrong.message).not.toContain('not-the-password');
            await run(as(password), null, c.ctx);
            const sessions = async (): Promise<Json> =>
              (
                await step(admin, {
                  sql: 'SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER = ?',
                  params: [user],
                })
              )['rows'] ?? null;
            expect(await sessions()).toEqual([{ n: 1 }]);
            await c.connections.closeAll();
            await vi.waitFor(async () => expect(await sessions()).toEqual([{ n: 0 }]), {
              timeout: 10_000,
              interval: 50,
            });
          } finally {
            await exec(`DROP USER IF EXISTS '${user}'@'%'`);
            await exec(`DROP USER IF EXISTS '${user}'@'localhost'`);
          }
        });

      it('reports a cut link (TCP proxy) unavailable and heals when it is back', async () => {
        const c = context();
        const target = new URL(url);
        const proxy = await startTcpProxy(
          target.hostname,
          Number(target.port || (dialect === 'postgres' ? 5432 : 3306)),
        );
        try {
          const via = { account: 'proxied', accountFields: { url: proxy.url(url) } };
          expect(((await run({ ...via, sql: 'SELECT 1 AS one' }, null, c.ctx)) as JsonObject)['rows']).toEqual([
            { one: 1 },
          ]);
          proxy.cut();
          const error = await failure(run({ ...via, sql: 'SELECT 1 AS one' }, null, c.ctx));
          expect(['UNAVAILABLE', 'CONNECTION_REFUSED']).toContain(error.kind);
          expect(error.code).toBe(503);
          expect(c.connections.notReady()).toEqual([`${dialect} proxied`]);
          proxy.restore();
          // The pool drops broken connections; a later statement opens a fresh one.
          let healed: JsonObject | undefined;
          for (let attempt = 0; attempt < 3 && !healed; attempt++) {
            healed = await (run({ ...via, sql: 'SELECT 1 AS one' }, null, c.ctx) as Promise<JsonObject>).catch(
              () => undefined,
            );
          }
          expect(healed?.['rows']).toEqual([{ one: 1 }]);
          expect(c.connections.notReady()).toEqual([]);
        } finally {
          await c.connections.closeAll();
          await proxy.close();
        }
      });
    });
  },
);

describe('sql parameters and classification', () => {
  it('tells the dialect from the parameter or the url scheme, and says what is missing', () => {
    expect(dialectOf({ url: 'postgresql://h/db' }, undefined)).toBe('postgres');
    expect(dialectOf({ url: 'mariadb://h/db' }, undefined)).toBe('mysql');
    expect(dialectOf({ host: 'h' }, 'mysql')).toBe('mysql');
    expect(() => dialectOf({ host: 'h' }, undefined)).toThrow(/dialect/);
  });

  it('refuses params that are no list and batch items without their fields, before any connection', async () => {
    const c = sqlTestContext();
    const bad = await failure(
      run(
        { account: 'a', accountFields: { url: 'postgres://127.0.0.1:1/x' }, sql: 'SELECT $1', params: 'x' as Json },
        null,
        c.ctx,
      ),
    );
    expect([bad.kind, bad.code]).toEqual(['INVALID_PARAMETER', 400]);
    const item = await failure(
      run(
        {
          account: 'a',
          accountFields: { url: 'postgres://127.0.0.1:1/x' },
          sql: 'SELECT $1',
          batch: [{ id: 1 }],
          'batch-fields': ['id', 'name'],
        },
        null,
        c.ctx,
      ),
    );
    expect(item.message).toContain('batch item 0 has no field `name`');
    expect(c.connections.notReady()).toEqual([]);
  });

  it("leaves the step's name to the engine, so a failure names the step's label (a trigger names itself)", async () => {
    const c = sqlTestContext();
    const refused = await failure(
      run({ account: 'a', accountFields: { url: 'postgres://127.0.0.1:1/x' }, sql: 'SELECT 1' }, null, c.ctx),
    );
    const bad = await failure(
      run(
        { account: 'a', accountFields: { url: 'postgres://127.0.0.1:1/x' }, sql: 'SELECT $1', params: 'x' as Json },
        null,
        c.ctx,
      ),
    );
    const noDialect = await failure(run({ account: 'a', accountFields: { host: 'h' }, sql: 'SELECT 1' }, null, c.ctx));
    expect([refused.kind, refused.step, bad.step, noDialect.step]).toEqual([
      'CONNECTION_REFUSED',
      undefined,
      undefined,
      undefined,
    ]);
    expect(sqlError(new Error('boom'), 'sql-poll of t failed', 'sql-poll').step).toBe('sql-poll');
    await c.connections.closeAll();
  });

  it('classifies by SQLSTATE first, then by the socket error', () => {
    expect(classify({ code: '23505' })).toEqual({ kind: 'CONSTRAINT_VIOLATION', status: 409 });
    expect(classify({ code: '42703', message: 'column "timeout" does not exist' })).toEqual({
      kind: 'SQL_SYNTAX',
      status: 500,
    });
    expect(classify({ code: '40P01' })).toEqual({ kind: 'TRANSACTION_CONFLICT', status: 503 });
    expect(classify({ code: '42501' })).toEqual({ kind: 'PERMISSION_DENIED', status: 502 });
    expect(classify({ code: 'ER_TABLEACCESS_DENIED_ERROR', errno: 1142, sqlState: '42000' })).toEqual({
      kind: 'PERMISSION_DENIED',
      status: 502,
    });
    expect(classify({ code: 'ECONNREFUSED' })).toEqual({ kind: 'CONNECTION_REFUSED', status: 503 });
    expect(classify({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT', message: 'self-signed certificate' })).toEqual({
      kind: 'TLS',
      status: 502,
    });
    expect(classify({ message: 'The server does not support SSL connections' })).toEqual({ kind: 'TLS', status: 502 });
    expect(classify({ code: '57P01' })).toEqual({ kind: 'UNAVAILABLE', status: 503 });
    expect(classify(new Error('something else'))).toEqual({ kind: 'SQL_ERROR', status: 500 });
  });
});
