/**
 * Indexes made by createIndex are used: the SQL the stores run for find, update, delete and a
 * count (aggregate `$match` + `$count`) with an equality or a range on an indexed field is read back
 * through the engine's planner (SQLite `EXPLAIN QUERY PLAN`, PostgreSQL `EXPLAIN` with
 * `enable_seqscan = off`), and the plan must search the created index. The same queries keep their
 * answers (array elements included), so the probes narrow without changing what matches.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FindOptions, JsonObject, ObjectStoreBackend } from '../../types.js';
import { PG_URL, serverAvailable, uniqueName } from '../../../test/support/servers.js';
import { openPgPool, type PgPool } from '../postgres/pool.js';
import { createPgStore } from '../postgres/store.js';
import { openSqlite, type SqliteDatabase } from '../sqlite/database.js';
import { createSqliteStore } from '../sqlite/store.js';
import { createRegexTester } from './regex.js';

type Captured = { readonly sql: string; readonly values: unknown };

const DOCS = 3000;
const clock = { now: () => 1_700_000_000_000 };
const docs = (): JsonObject[] =>
  Array.from({ length: DOCS }, (_, n) => ({ status: `s${n % 300}`, n, tags: n === 7 ? ['s-array', 'x'] : [] }));

/** One query of each kind on `status` (equality) or `n` (range), with the answers they must give. */
async function runQueries(store: ObjectStoreBackend, name: string): Promise<void> {
  // Mongo's array rule survives the probes: an array holding the value matches.
  await store.insert(name, [{ status: ['s-array', 'other'], n: -1 }]);
  expect((await store.find(name, { status: 's5' })).map((d) => d['n'])).toEqual([
    5, 305, 605, 905, 1205, 1505, 1805, 2105, 2405, 2705,
  ]);
  expect((await store.find(name, { status: 's-array' })).map((d) => d['n'])).toEqual([-1]);
  expect((await store.find(name, { status: { $in: ['s1', 's2'] }, n: { $lt: 400 } })).map((d) => d['n'])).toEqual([
    1, 2, 301, 302,
  ]);
  expect((await store.find(name, { n: { $gte: 10, $lt: 13 } })).map((d) => d['n'])).toEqual([10, 11, 12]);
  expect(await store.update(name, { status: 's6' }, { $set: { seen: true } })).toBe(10);
  expect(await store.delete(name, { n: { $gt: 2990 } })).toBe(9);
  expect(await store.aggregate(name, [{ $match: { status: 's7' } }, { $count: 'total' }])).toEqual([{ total: 10 }]);
  // `_oId` reads the UNIQUE (store, id) index (the reprocessing timer's claim).
  const ids = (await store.find(name, { status: 's8' }, { limit: 3 })).map((d) => d['_oId'] as string);
  expect(await store.update(name, { _oId: { $in: ids }, n: { $lte: 400 } }, { $set: { claimed: true } })).toBe(2);
}

/** The captured statements that read or delete documents of the store through a filter. */
const filtered = (captured: readonly Captured[]): Captured[] =>
  captured.filter(
    (c) =>
      /FROM (pipec_documents AS d|\(SELECT x\.seq .*\) AS p CROSS JOIN pipec_documents AS d|pipec_documents AS d INDEXED BY "pipec_u?ix_[0-9a-f]{16}") WHERE/.test(
        c.sql,
      ) && /#>|json_type/.test(c.sql),
  );

describe('indexes are used (SQLite)', () => {
  let dir: string;
  let db: SqliteDatabase;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pipec-index-plan-'));
    db = openSqlite(join(dir, 'store.db'), createRegexTester());
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('find, update, delete and count on an indexed field search the index', async () => {
    const captured: Captured[] = [];
    // Record every statement the store prepares, with the parameters it runs them with.
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      const statement = prepare(sql);
      for (const method of ['all', 'get', 'run'] as const) {
        const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
        (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
          captured.push({ sql, values: args[0] });
          return original(...args);
        };
      }
      return statement;
    }) as typeof db.prepare;
    const store = createSqliteStore({
      db,
      clock,
      regex: createRegexTester(),
      maxDocumentBytes: 1 << 20,
      maxAggregateDocs: 10_000,
    });
    await store.insert('plans', docs());
    await store.createIndex('plans', { status: 1 });
    await store.createIndex('plans', { n: -1 });
    captured.length = 0;
    await runQueries(store, 'plans');
    const statements = filtered(captured);
    expect(statements.length).toBeGreaterThanOrEqual(9);
    for (const { sql, values } of statements) {
      const plan = (
        prepare(`EXPLAIN QUERY PLAN ${sql}`).all(values as Record<string, unknown>) as Array<{ detail: string }>
      )
        .map((row) => row.detail)
        .join('\n');
      expect(plan, sql).toMatch(
        /USING INDEX (pipec_ix_[0-9a-f]{16} \(<expr>=\?|sqlite_autoindex_pipec_documents_1 \(store=\? AND id=\?)/,
      );
      // A read in insertion order by an equality merges the index's lists, each already in seq
      // order: only the list of documents holding an array there (usually none) is sorted.
      if (/ UNION ALL /.test(sql)) {
        if (/ ORDER BY 1 /.test(sql)) expect(plan, sql).toMatch(/MERGE \(UNION ALL\)/);
        const sorts = /= 'array' AND/.test(sql) ? 1 : 0;
        expect(plan.match(/TEMP B-TREE/g)?.length ?? 0, plan).toBeLessThanOrEqual(sorts);
      }
    }
  });

  it('an array under an indexed field is found when it comes after reads that met none', async () => {
    const store = createSqliteStore({
      db,
      clock,
      regex: createRegexTester(),
      maxDocumentBytes: 1 << 20,
      maxAggregateDocs: 10_000,
    });
    await store.insert('later', [
      { k: 'a', n: 1 },
      { k: 'b', n: 2 },
      { k: 'a', n: 3 },
    ]);
    await store.createIndex('later', { k: 1 });
    const ns = async (query: JsonObject, opts?: { limit?: number; skip?: number }): Promise<unknown[]> =>
      (await store.find('later', query, opts)).map((d) => d['n']);
    expect(await ns({ k: 'a' }, { limit: 5 })).toEqual([1, 3]);
    expect(await ns({ k: { $in: ['a', 'b'] } })).toEqual([1, 2, 3]);
    await store.insert('later', [
      { k: ['x', 'a'], n: 4 },
      { k: 'a', n: 5 },
    ]);
    // Each query shape meets the array first in another form of read: a page, documents, rows.
    expect(await ns({ k: 'a' }, { skip: 1, limit: 2 })).toEqual([3, 4]);
    expect(await ns({ k: { $in: ['a', 'b'] } }, { skip: 2 })).toEqual([3, 4, 5]);
    expect(await store.update('later', { k: { $in: ['x'] } }, { $inc: { n: 10 } })).toBe(1);
    expect(await ns({ k: 'a' })).toEqual([1, 3, 14, 5]);
    expect(await ns({ k: 'x' }, { limit: 1 })).toEqual([14]);
    expect(await ns({ k: 'none' }, { limit: 1 })).toEqual([]);
    expect(await store.update('later', { k: 'a' }, { $inc: { n: 10 } }, { multi: false })).toBe(1);
    expect(await ns({ k: 'a' })).toEqual([11, 3, 14, 5]);
    // Without the array again, the answers stay the same.
    expect(await store.delete('later', { n: 14 })).toBe(1);
    expect(await ns({ k: 'a' })).toEqual([11, 3, 5]);
    expect(await ns({ k: 'x' })).toEqual([]);
  });

  it('a page read as one JSON text keeps the order of the read', async () => {
    const store = createSqliteStore({
      db,
      clock,
      regex: createRegexTester(),
      maxDocumentBytes: 1 << 20,
      maxAggregateDocs: 10_000,
    });
    // Inserted so that index order (by k, then seq) and insertion order differ.
    const ks = ['c', 'a', 'b', 'a', 'c', 'b', 'a'];
    await store.insert(
      'pages',
      ks.map((k, n) => ({ k, n, s: { v: (n * 5) % 7 } })),
    );
    await store.createIndex('pages', { k: 1 });
    const ns = async (query: JsonObject, opts: FindOptions): Promise<unknown[]> =>
      (await store.find('pages', query, opts)).map((d) => d['n']);
    expect(await ns({ k: { $in: ['a', 'b', 'c'] } }, { limit: 5 })).toEqual([0, 1, 2, 3, 4]);
    expect(await ns({ k: { $in: ['c', 'a'] } }, { limit: 3, skip: 1 })).toEqual([1, 3, 4]);
    expect(await ns({}, { limit: 4, sort: { 's.v': -1 } })).toEqual([4, 1, 5, 2]);
    expect(await ns({ k: 'a' }, { limit: 2, sort: { n: -1 } })).toEqual([6, 3]);
    expect(await ns({ n: { $gte: 2 } }, { limit: 3, skip: 1 })).toEqual([3, 4, 5]);
    expect(await ns({ k: 'z' }, { limit: 3 })).toEqual([]);
    // The same documents as a read without a limit gives (one JSON text per document).
    expect(await store.find('pages', { k: 'b' }, { limit: 9 })).toEqual(await store.find('pages', { k: 'b' }));
  });

  it('a field without an index is read as before (no probe)', async () => {
    const store = createSqliteStore({
      db,
      clock,
      regex: createRegexTester(),
      maxDocumentBytes: 1 << 20,
      maxAggregateDocs: 10_000,
    });
    await store.insert('plain', [{ status: 'a' }, { status: ['a', 'b'] }, { status: 'b' }]);
    expect((await store.find('plain', { status: 'a' })).length).toBe(2);
  });
});

describe('indexes are used (PostgreSQL)', async () => {
  const available = await serverAvailable('PostgreSQL', PG_URL, 5432);
  let pool: PgPool;
  const name = uniqueName('plans').replace(/[^A-Za-z0-9_-]/g, '_');
  beforeAll(async () => {
    if (available) pool = await openPgPool({ connectionString: PG_URL, max: 2 });
  });
  afterAll(async () => {
    if (!available) return;
    await pool.query('DELETE FROM pipec_documents WHERE store = $1', [name]);
    const store = createPgStore({
      pool,
      clock,
      regex: createRegexTester(),
      maxDocumentBytes: 1 << 20,
      maxAggregateDocs: 10_000,
    });
    await store.dropIndex(name, { status: 1 });
    await store.dropIndex(name, { n: -1 });
    await pool.end();
  });

  it.runIf(available)('find, update, delete and count on an indexed field scan the index', async () => {
    const captured: Captured[] = [];
    const query = pg.Client.prototype.query;
    // Record every statement (pool and transaction clients alike) with its parameters.
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      // A text and its values, or a named statement's config ({ name, text, values }).
      const [first, second] = args as [unknown, unknown];
      if (typeof first === 'string') captured.push({ sql: first, values: second });
      else if (typeof (first as { text?: unknown } | null)?.text === 'string')
        captured.push({ sql: (first as { text: string }).text, values: (first as { values?: unknown }).values });
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      const store = createPgStore({
        pool,
        clock,
        regex: createRegexTester(),
        maxDocumentBytes: 1 << 20,
        maxAggregateDocs: 10_000,
      });
      await store.insert(name, docs());
      await store.createIndex(name, { status: 1 });
      await store.createIndex(name, { n: -1 });
      await pool.query('ANALYZE pipec_documents');
      captured.length = 0;
      await runQueries(store, name);
    } finally {
      pg.Client.prototype.query = query;
    }
    const statements = filtered(captured);
    expect(statements.length).toBeGreaterThanOrEqual(9);
    const client = await pool.connect();
    try {
      await client.query('SET enable_seqscan = off');
      for (const { sql, values } of statements) {
        const explained = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN ${sql.replace(/ FOR UPDATE$/, '')}`,
          values as unknown[],
        );
        const plan = explained.rows.map((r) => r['QUERY PLAN']).join('\n');
        expect(plan, sql).toMatch(
          /(Index Scan|Bitmap Index Scan) (Backward )?(using|on) (pipec_ix_[0-9a-f]{16}|pipec_documents_store_id_key)/,
        );
      }
    } finally {
      await client.query('RESET enable_seqscan');
      client.release();
    }
  });
});
