/**
 * The behavioural suite of the platform backends, written once and run against both configurations:
 * embedded (SQLite store + SQLite queue) and distributed (PostgreSQL store + NATS JetStream broker,
 * on 127.0.0.1:5432 db `test` and 127.0.0.1:4222). A missing server skips the distributed run with a
 * console message, except under CI=true where the run fails and names the missing server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery, Json, JsonObject } from '../types.js';
import { PipeError } from '../errors.js';
import { MAX_EVENT_PAYLOAD_BYTES } from '../limits.js';
import { createBackends, type Backends } from './index.js';
import { parseFilter } from './query/filter.js';
import { applyUpdate, parseUpdate } from './query/update.js';
import { matchesFilter } from './query/match.js';
import { createRegexTester } from './query/regex.js';

import { IN_CI, NATS_URL, PG_URL, reachable, removeNatsStreams } from '../../test/support/servers.js';
const RUN_ID = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const WORKER = join(import.meta.dirname, 'test-support', 'event-worker.ts');

const postgresUp = await reachable(PG_URL, 5432);
const natsUp = await reachable(NATS_URL, 4222);
const missing = [postgresUp ? null : `PostgreSQL (${PG_URL})`, natsUp ? null : `NATS (${NATS_URL})`].filter(
  (m) => m !== null,
);
if (missing.length > 0 && !IN_CI)
  console.warn(`[backends.test] skipping the postgres+nats run: unreachable ${missing.join(', ')}`);

interface Variant {
  readonly name: 'sqlite' | 'postgres+nats';
  readonly run: boolean;
  readonly env: NodeJS.ProcessEnv;
}

const variants: Variant[] = [
  { name: 'sqlite', run: true, env: { PIPEC_STORE_MAX_DOC: '4096' } },
  {
    name: 'postgres+nats',
    run: missing.length === 0 || IN_CI,
    env: {
      PIPEC_STORE: PG_URL,
      PIPEC_BROKER: NATS_URL,
      PIPEC_NATS_STREAM: `PIPEC_TEST_${RUN_ID}`,
      PIPEC_NATS_SUBJECT_PREFIX: `pipectest.${RUN_ID}`,
      PIPEC_STORE_MAX_DOC: '4096',
    },
  },
];

const silent = pino({ level: 'silent' });

function deferredCounter(): {
  count: () => number;
  until: (n: number, ms?: number) => Promise<void>;
  bump: () => void;
} {
  let n = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  return {
    count: () => n,
    bump: () => {
      n += 1;
      for (const w of [...waiters]) if (n >= w.n) w.resolve();
    },
    until: (target, ms = 10_000) =>
      new Promise<void>((resolve, reject) => {
        if (n >= target) return resolve();
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${target}, got ${n}`)), ms);
        waiters.push({ n: target, resolve: () => (clearTimeout(timer), resolve()) });
      }),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Publishes `{ n }` for n in [0, count) with up to 32 publishes in flight. */
async function publishMany(backends: Backends, event: string, count: number): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) await backends.broker.publish(event, { n: next++ });
  };
  await Promise.all(Array.from({ length: 32 }, lane));
}

async function expectPipeError(promise: Promise<unknown>, code: number, kind: string, text?: string): Promise<void> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PipeError);
  expect((err as PipeError).code).toBe(code);
  expect((err as PipeError).kind).toBe(kind);
  if (text !== undefined) expect((err as PipeError).message).toContain(text);
}

for (const variant of variants) {
  describe.runIf(variant.run)(`backends: ${variant.name}`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pipec-backends-'));
    let time = Date.UTC(2025, 0, 1);
    const clock = { now: () => time };
    let backends: Backends;
    let storeCounter = 0;
    const usedStores: string[] = [];
    const newStore = (): string => {
      const name = `t${RUN_ID}_${variant.name === 'sqlite' ? 'l' : 'p'}${storeCounter++}`;
      usedStores.push(name);
      return name;
    };
    const open = (): Promise<Backends> => createBackends({ dataDir, env: variant.env, clock, logger: silent });

    beforeAll(async () => {
      if (!variant.run || (variant.name === 'postgres+nats' && missing.length > 0)) {
        throw new Error(`CI=true requires the distributed backends; unreachable: ${missing.join(', ')}`);
      }
      backends = await open();
    });

    afterAll(async () => {
      await backends?.close();
      if (variant.name === 'postgres+nats' && missing.length === 0) {
        const client = new pg.Client({ connectionString: PG_URL });
        await client.connect();
        await client.query('DELETE FROM pipec_documents WHERE store = ANY($1::text[])', [usedStores]);
        await client.query('DELETE FROM pipec_stores WHERE store = ANY($1::text[])', [usedStores]);
        await client.query('DELETE FROM pipec_indexes WHERE store = ANY($1::text[])', [usedStores]);
        await client.query('DELETE FROM pipec_lock_ledger WHERE key LIKE $1', [`${RUN_ID}%`]);
        await client.query('DELETE FROM pipec_schedule_state WHERE schedule LIKE $1', [`${RUN_ID}%`]);
        const indexes = await client.query<{ indexname: string }>(
          "SELECT indexname FROM pg_indexes WHERE tablename = 'pipec_documents' AND indexdef LIKE $1",
          [`%t${RUN_ID}_%`],
        );
        for (const { indexname } of indexes.rows)
          await client.query(`DROP INDEX IF EXISTS "${indexname.replace(/"/g, '')}"`);
        await client.end();
        await removeNatsStreams(String(variant.env['PIPEC_NATS_STREAM']));
      }
      rmSync(dataDir, { recursive: true, force: true });
    });

    // ─────────────────────────────── Object Store ───────────────────────────────

    describe('object store', () => {
      const fixture: JsonObject[] = [
        {
          _oId: 'a',
          name: 'apple',
          price: 10,
          tags: ['red', 'fruit'],
          product: { price: 3000, kind: 'phone' },
          ok: true,
        },
        { _oId: 'b', name: 'Banana', price: 20.5, tags: 'yellow', ok: false, note: null },
        { _oId: 'c', name: "x' OR 1=1 --", price: '30', qty: 3 },
        { _oId: 'd', name: 'line1\nline2', product: { price: 100 }, dims: { w: 1, h: 2 }, list: [[1, 2], 3] },
        { _oId: 'e', name: 'empty', price: -1, tags: [], qty: 0 },
      ];
      let store: string;
      beforeAll(async () => {
        store = newStore();
        const { ids } = await backends.store.insert(store, fixture);
        expect(ids).toEqual(['a', 'b', 'c', 'd', 'e']);
      });

      const ids = async (query: JsonObject, opts?: Parameters<Backends['store']['find']>[2]): Promise<string[]> =>
        (await backends.store.find(store, query, opts)).map((d) => String(d['_oId']));

      const cases: Array<[string, JsonObject, string[]]> = [
        ['empty query', {}, ['a', 'b', 'c', 'd', 'e']],
        ['implicit equality', { name: 'apple' }, ['a']],
        ['$eq number', { price: { $eq: 10 } }, ['a']],
        ['number never equals string', { price: 30 }, []],
        ['string equality', { price: '30' }, ['c']],
        ['$ne includes missing', { price: { $ne: 10 } }, ['b', 'c', 'd', 'e']],
        ['$gt numbers only', { price: { $gt: 5 } }, ['a', 'b']],
        ['$gte', { price: { $gte: 20.5 } }, ['b']],
        ['$lt', { price: { $lt: 10 } }, ['e']],
        ['$lte', { price: { $lte: 10 } }, ['a', 'e']],
        ['$gt string compares strings', { name: { $gt: 'a' } }, ['a', 'c', 'd', 'e']],
        ['range conjunction', { price: { $gt: 0, $lt: 15 } }, ['a']],
        ['$in mixed types', { price: { $in: [10, '30'] } }, ['a', 'c']],
        ['$in with null matches missing', { note: { $in: [null] } }, ['a', 'b', 'c', 'd', 'e']],
        ['$nin', { price: { $nin: [10, '30'] } }, ['b', 'd', 'e']],
        ['empty $in matches nothing', { price: { $in: [] } }, []],
        ['empty $nin matches everything', { price: { $nin: [] } }, ['a', 'b', 'c', 'd', 'e']],
        ['empty $in on _oId', { _oId: { $in: [] } }, []],
        ['$exists true', { qty: { $exists: true } }, ['c', 'e']],
        ['$exists false', { qty: { $exists: false } }, ['a', 'b', 'd']],
        ['$exists true on explicit null', { note: { $exists: true } }, ['b']],
        ['null matches null and missing', { note: null }, ['a', 'b', 'c', 'd', 'e']],
        ['boolean equality', { ok: false }, ['b']],
        ['array element equality', { tags: 'red' }, ['a']],
        ['scalar field equality', { tags: 'yellow' }, ['b']],
        ['whole array equality', { tags: ['red', 'fruit'] }, ['a']],
        ['empty array equality', { tags: [] }, ['e']],
        ['nested array element', { list: [1, 2] }, ['d']],
        ['object equality', { dims: { w: 1, h: 2 } }, ['d']],
        ['dotted path', { 'product.price': { $gt: 2000 } }, ['a']],
        ['dotted path equality', { 'product.kind': 'phone' }, ['a']],
        ['$and', { $and: [{ price: { $gt: 0 } }, { ok: true }] }, ['a']],
        ['$or', { $or: [{ ok: false }, { qty: 3 }] }, ['b', 'c']],
        ['$nor', { $nor: [{ ok: false }, { qty: { $exists: true } }] }, ['a', 'd']],
        ['$not', { price: { $not: { $gt: 5 } } }, ['c', 'd', 'e']],
        ['$regex', { name: { $regex: '^ban' } }, []],
        ['$regex i', { name: { $regex: '^ban', $options: 'i' } }, ['b']],
        ['$regex without m anchors the string', { name: { $regex: '^line2$' } }, []],
        ['$regex m', { name: { $regex: '^line2$', $options: 'm' } }, ['d']],
        ['$regex dot without s', { name: { $regex: 'line1.line2' } }, []],
        ['$regex s', { name: { $regex: 'line1.line2', $options: 's' } }, ['d']],
        ['$regex on array elements', { tags: { $regex: 'ui' } }, ['a']],
        ['injection text is just data', { name: "x' OR 1=1 --" }, ['c']],
        ['injection text in a path value', { 'product.kind': "' OR '1'='1" }, []],
      ];

      it.each(cases)('query: %s', async (_label, query, expected) => {
        expect(await ids(query)).toEqual(expected);
        // The SQL translation agrees with the in-memory reference matcher.
        const regex = createRegexTester();
        const filter = parseFilter(query);
        expect(fixture.filter((d) => matchesFilter(d, filter, regex)).map((d) => String(d['_oId']))).toEqual(expected);
      });

      // Paths through arrays of objects (Mongo): a field segment applied to an array applies to each
      // object element, a numeric segment indexes; an object element lacking the rest counts as null.
      describe('paths through arrays', () => {
        const docs: JsonObject[] = [
          {
            _oId: 'A',
            items: [
              { price: 5, tags: ['x'] },
              { price: 20, tags: ['y', 'z'] },
            ],
            n: { deep: [{ v: 1 }, { v: null }] },
          },
          { _oId: 'B', items: [{ price: 5 }, { sku: 'k1' }] },
          { _oId: 'C', items: { price: 30 } },
          { _oId: 'D', items: [] },
          { _oId: 'E', items: [1, 'price', [{ price: 50 }]] },
          { _oId: 'F', other: 1 },
          { _oId: 'G', items: [{ price: [7, 8] }, { price: null }] },
          { _oId: 'H', items: [{ price: 9 }], o: { '0': { price: 11 } } },
        ];
        let arrays: string;
        beforeAll(async () => {
          arrays = newStore();
          await backends.store.insert(arrays, docs);
        });
        const arrayCases: Array<[string, JsonObject, string[]]> = [
          ['$gt through an array', { 'items.price': { $gt: 10 } }, ['A', 'C']],
          ['equality through an array', { 'items.price': 5 }, ['A', 'B']],
          ['element of a reached array', { 'items.price': 8 }, ['G']],
          ['a reached array as a whole', { 'items.price': [7, 8] }, ['G']],
          [
            'null: element lacking the field, nothing reached, or null',
            { 'items.price': null },
            ['B', 'D', 'E', 'F', 'G'],
          ],
          ['$ne is the negation of equality', { 'items.price': { $ne: 5 } }, ['C', 'D', 'E', 'F', 'G', 'H']],
          ['$ne null', { 'items.price': { $ne: null } }, ['A', 'C', 'H']],
          ['$exists true: some element has it', { 'items.price': { $exists: true } }, ['A', 'B', 'C', 'G', 'H']],
          ['$exists false', { 'items.price': { $exists: false } }, ['D', 'E', 'F']],
          ['$in with null', { 'items.price': { $in: [20, null] } }, ['A', 'B', 'D', 'E', 'F', 'G']],
          ['$nin', { 'items.price': { $nin: [5, 30] } }, ['D', 'E', 'F', 'G', 'H']],
          ['conditions may hold on different elements', { 'items.price': { $gt: 6, $lt: 10 } }, ['A', 'G', 'H']],
          ['$not', { 'items.price': { $not: { $gt: 10 } } }, ['B', 'D', 'E', 'F', 'G', 'H']],
          ['numeric segment indexes', { 'items.0.price': 5 }, ['A', 'B']],
          ['second element', { 'items.1.price': { $gte: 20 } }, ['A']],
          ['indexed element lacking the field is null', { 'items.1.price': null }, ['B', 'C', 'D', 'E', 'F', 'G', 'H']],
          ['numeric key of an object', { 'o.0.price': 11 }, ['H']],
          ['leaf array inside elements', { 'items.tags': 'y' }, ['A']],
          ['$size of a reached array', { 'items.tags': { $size: 2 } }, ['A']],
          ['$size of the field', { items: { $size: 0 } }, ['D']],
          ['$size does not count elements of elements', { items: { $size: 3 } }, ['E']],
          ['$regex through an array', { 'items.sku': { $regex: '^k' } }, ['B']],
          ['deeper: arrays at two levels', { 'n.deep.v': 1 }, ['A']],
          ['$or mixing direct and array paths', { $or: [{ 'items.price': 20 }, { other: 1 }] }, ['A', 'F']],
        ];
        it.each(arrayCases)('query: %s', async (_label, query, expected) => {
          expect((await backends.store.find(arrays, query)).map((d) => String(d['_oId']))).toEqual(expected);
          const filter = parseFilter(query);
          expect(
            docs.filter((d) => matchesFilter(d, filter, createRegexTester())).map((d) => String(d['_oId'])),
          ).toEqual(expected);
          // The same filter after a leading stage runs in memory: the aggregate agrees with find.
          const viaMemory = await backends.store.aggregate(arrays, [{ $skip: 0 }, { $match: query }]);
          expect(viaMemory.map((d) => String(d['_oId']))).toEqual(expected);
        });

        it('updates and deletes select through arrays too', async () => {
          const s = newStore();
          await backends.store.insert(s, docs);
          expect(await backends.store.update(s, { 'items.price': { $gt: 10 } }, { $set: { hot: true } })).toBe(2);
          expect((await backends.store.find(s, { hot: true })).map((d) => d['_oId'])).toEqual(['A', 'C']);
          expect(await backends.store.delete(s, { 'items.sku': 'k1' })).toBe(1);
          expect(await backends.store.findById(s, 'B')).toBeNull();
        });

        it('refuses, with 400, what MongoDB would do element-wise and this store does not', async () => {
          await expectPipeError(
            backends.store.find(arrays, {}, { sort: { 'items.price': 1 } }),
            400,
            'BAD_QUERY',
            'array',
          );
          await expectPipeError(
            backends.store.find(arrays, { _oId: 'G' }, { sort: { items: 1 } }),
            400,
            'BAD_QUERY',
            'array',
          );
          await expectPipeError(
            backends.store.aggregate(arrays, [{ $sort: { 'items.price': 1 } }]),
            400,
            'BAD_QUERY',
            'array',
          );
          await expectPipeError(
            backends.store.aggregate(arrays, [{ $project: { 'items.price': 1 } }]),
            400,
            'BAD_QUERY',
            'array',
          );
          await expectPipeError(
            backends.store.update(arrays, { _oId: 'A' }, { $unset: { 'items.price': '' } }),
            400,
            'BAD_QUERY',
          );
          await expectPipeError(
            backends.store.update(arrays, { _oId: 'A' }, { $set: { 'items.price': 1 } }),
            400,
            'BAD_QUERY',
          );
          // Documents without arrays on the sort path still sort; nothing above changed a document.
          expect(
            (await backends.store.find(arrays, { _oId: { $in: ['C', 'F'] } }, { sort: { 'items.price': -1 } })).map(
              (d) => d['_oId'],
            ),
          ).toEqual(['C', 'F']);
          expect(await backends.store.findById(arrays, 'A')).toEqual(docs[0]);
        });

        it('reads "$a.b" through arrays in aggregate expressions as MongoDB does', async () => {
          const out = await backends.store.aggregate(arrays, [
            { $match: { _oId: { $in: ['A', 'B', 'G'] } } },
            { $project: { _oId: 1, prices: '$items.price' } },
          ]);
          expect(out).toEqual([
            { _oId: 'A', prices: [5, 20] },
            { _oId: 'B', prices: [5] },
            { _oId: 'G', prices: [[7, 8], null] },
          ]);
        });
      });

      it('rejects unknown operators and unsafe paths before running anything', async () => {
        await expectPipeError(backends.store.find(store, { $where: 'sleep(1000)' }), 400, 'BAD_QUERY', '$where');
        await expectPipeError(backends.store.find(store, { name: { $function: 'x' } }), 400, 'BAD_QUERY', '$function');
        await expectPipeError(backends.store.find(store, { price: { $gtt: 1 } }), 400, 'BAD_QUERY', '$gtt');
        await expectPipeError(backends.store.find(store, { "na'me": 1 }), 400, 'BAD_QUERY', 'invalid field path');
        await expectPipeError(backends.store.find(store, { 'a"b': 1 }), 400, 'BAD_QUERY');
        await expectPipeError(backends.store.find(store, { 'a..b': 1 }), 400, 'BAD_QUERY');
        await expectPipeError(backends.store.find(store, { name: { $regex: '(a' } }), 400, 'BAD_QUERY');
        await expectPipeError(backends.store.find(store, { name: { $regex: 'a', $options: 'x' } }), 400, 'BAD_QUERY');
        await expectPipeError(
          backends.store.update(store, { name: 'apple' }, { $rename: { a: 'b' } }),
          400,
          'BAD_QUERY',
          '$rename',
        );
        await expectPipeError(backends.store.aggregate(store, [{ $lookup: {} }]), 400, 'BAD_QUERY', '$lookup');
        await expectPipeError(backends.store.find("x'; DROP TABLE pipec_documents; --", {}), 400, 'BAD_STORE_NAME');
        expect(await ids({})).toHaveLength(5);
      });

      it('evaluates hostile regexes in linear time', async () => {
        const s = newStore();
        await backends.store.insert(s, [{ v: `${'a'.repeat(3000)}!` }]);
        // No clock: a backtracking engine would not end this within the test's timeout (2^3000 paths).
        expect(await backends.store.find(s, { v: { $regex: '^(a+)+$' } })).toEqual([]);
      });

      it('finds by id and inserts documents with given or generated ids', async () => {
        expect((await backends.store.findById(store, 'c'))?.['qty']).toBe(3);
        expect(await backends.store.findById(store, 'zzz')).toBeNull();
        const s = newStore();
        const { ids: generated } = await backends.store.insert(s, [{ x: 1 }, { _oId: 7, x: 2 }]);
        expect(generated[0]).toMatch(/^[0-9a-f-]{36}$/);
        expect(generated[1]).toBe('7');
        expect(await backends.store.findById(s, generated[0] as string)).toEqual({ x: 1, _oId: generated[0] });
        await expectPipeError(backends.store.insert(s, [{ _oId: 7 }]), 409, 'DUPLICATE_KEY');
      });

      it('sorts and paginates', async () => {
        const s = newStore();
        await backends.store.insert(
          s,
          Array.from({ length: 25 }, (_, i) => ({ n: (i * 7) % 25, group: i % 3 })),
        );
        const page = async (skip: number): Promise<number[]> =>
          (await backends.store.find(s, {}, { sort: { n: -1 }, limit: 10, skip })).map((d) => d['n'] as number);
        expect(await page(0)).toEqual([24, 23, 22, 21, 20, 19, 18, 17, 16, 15]);
        expect(await page(10)).toEqual([14, 13, 12, 11, 10, 9, 8, 7, 6, 5]);
        expect(await page(20)).toEqual([4, 3, 2, 1, 0]);
        const byGroup = await backends.store.find(s, { n: { $lt: 6 } }, { sort: { group: 1, n: -1 } });
        expect(byGroup.map((d) => [d['group'], d['n']])).toEqual([
          [0, 5],
          [0, 1],
          [0, 0],
          [1, 4],
          [1, 3],
          [2, 2],
        ]);
        // Mixed types follow Mongo's order: missing < numbers < strings < booleans.
        const m = newStore();
        await backends.store.insert(m, [{ v: 'b' }, { v: true }, { v: 2 }, {}, { v: 'a' }, { v: 1.5 }]);
        expect((await backends.store.find(m, {}, { sort: { v: 1 } })).map((d) => d['v'] ?? 'missing')).toEqual([
          'missing',
          1.5,
          2,
          'a',
          'b',
          true,
        ]);
      });

      it('applies $set, $unset, $inc, replacement, multi and upsert', async () => {
        const s = newStore();
        await backends.store.insert(s, [
          { _oId: '1', name: 'a', n: 1, status: 'new' },
          { _oId: '2', name: 'b', n: 2, status: 'new' },
          { _oId: '3', name: 'c', n: 3, status: 'old' },
        ]);
        expect(
          await backends.store.update(
            s,
            { status: 'new' },
            { $set: { 'meta.seen': true, status: 'done' }, $inc: { n: 10 }, $unset: { name: '' } },
          ),
        ).toBe(2);
        expect(await backends.store.findById(s, '1')).toEqual({
          _oId: '1',
          n: 11,
          status: 'done',
          meta: { seen: true },
        });
        expect(await backends.store.update(s, { status: 'new' }, { $set: { status: 'x' } })).toBe(0);
        expect(await backends.store.update(s, { n: { $gt: 0 } }, { $inc: { n: 1 } }, { multi: false })).toBe(1);
        expect((await backends.store.findById(s, '1'))?.['n']).toBe(12);
        expect(await backends.store.update(s, { _oId: '3' }, { name: 'replaced' })).toBe(1);
        expect(await backends.store.findById(s, '3')).toEqual({ _oId: '3', name: 'replaced' });
        expect(
          await backends.store.update(s, { name: 'zed', kind: { $eq: 'k' } }, { $set: { n: 5 } }, { upsert: true }),
        ).toBe(1);
        const [upserted] = await backends.store.find(s, { name: 'zed' });
        expect(upserted).toMatchObject({ name: 'zed', kind: 'k', n: 5 });
        expect(typeof upserted?.['_oId']).toBe('string');
        await expectPipeError(backends.store.update(s, {}, { $set: { _oId: 'x' } }), 400, 'BAD_QUERY');
        await expectPipeError(backends.store.update(s, { _oId: '1' }, { $inc: { status: 1 } }), 400, 'BAD_QUERY');
        expect(await backends.store.delete(s, { n: { $gte: 5 } }, { multi: false })).toBe(1);
        expect(await backends.store.delete(s, { n: { $gte: 5 } })).toBe(2);
        expect(await backends.store.delete(s, {})).toBe(1);
        expect(await backends.store.find(s, {})).toEqual([]);
      });

      it('counts two identical concurrent updates once', async () => {
        const s = newStore();
        await backends.store.insert(s, [{ _oId: 'x', status: 'new' }]);
        const counts = await Promise.all([
          backends.store.update(s, { status: 'new' }, { $set: { status: 'done' } }),
          backends.store.update(s, { status: 'new' }, { $set: { status: 'done' } }),
        ]);
        expect(counts.sort()).toEqual([0, 1]);
      });

      it('enforces unique indexes with 409 and writes nothing', async () => {
        const s = newStore();
        await backends.store.insert(s, [
          { email: 'a@x', n: 1 },
          { email: 'b@x', n: 1 },
        ]);
        await backends.store.createIndex(s, { email: 1 }, { unique: true });
        await backends.store.createIndex(s, { email: 1 }, { unique: true });
        await expectPipeError(backends.store.insert(s, [{ email: 'c@x' }, { email: 'a@x' }]), 409, 'DUPLICATE_KEY');
        expect(await backends.store.find(s, { email: 'c@x' })).toEqual([]);
        await expectPipeError(
          backends.store.update(s, { email: 'b@x' }, { $set: { email: 'a@x' } }),
          409,
          'DUPLICATE_KEY',
        );
        expect(await backends.store.find(s, { email: 'b@x' })).toHaveLength(1);
        // Typed uniqueness: the number 1 and the string "1" differ.
        await backends.store.insert(s, [{ email: 1 }, { email: '1' }]);
        await expectPipeError(backends.store.createIndex(s, { n: 1 }, { unique: true }), 409, 'DUPLICATE_KEY');
        await backends.store.createIndex(s, { n: 1 });
        // The index is scoped to its store.
        const other = newStore();
        await backends.store.insert(other, [{ email: 'a@x' }]);
      });

      it('lists and drops indexes by name or key; _oId_ stays', async () => {
        const s = newStore();
        await backends.store.insert(s, [
          { email: 'a@x', n: 1 },
          { email: 'b@x', n: 1 },
        ]);
        expect(await backends.store.listIndexes(s)).toEqual([{ name: '_oId_', key: { _oId: 1 }, unique: true }]);
        await backends.store.createIndex(s, { email: 1 }, { unique: true });
        await backends.store.createIndex(s, { n: -1, 'a.b': 1 });
        await expectPipeError(backends.store.createIndex(s, { n: 1 }, { unique: true }), 409, 'DUPLICATE_KEY');
        const listed = await backends.store.listIndexes(s);
        expect(listed.map((i) => [i.key, i.unique])).toEqual([
          [{ _oId: 1 }, true],
          [{ email: 1 }, true],
          [{ n: -1, 'a.b': 1 }, false],
        ]);
        expect(await backends.store.listIndexes(newStore())).toHaveLength(1);
        // By name: the unique constraint is gone with it.
        expect(await backends.store.dropIndex(s, listed[1]?.name as string)).toBe(1);
        await backends.store.insert(s, [{ email: 'a@x' }]);
        // By key, then nothing left to drop.
        expect(await backends.store.dropIndex(s, { n: -1, 'a.b': 1 })).toBe(1);
        expect(await backends.store.dropIndex(s, { n: -1, 'a.b': 1 })).toBe(0);
        expect(await backends.store.dropIndex(s, 'no-such-index')).toBe(0);
        expect(await backends.store.listIndexes(s)).toEqual([{ name: '_oId_', key: { _oId: 1 }, unique: true }]);
        await expectPipeError(backends.store.dropIndex(s, '_oId_'), 400, 'BAD_QUERY');
        await expectPipeError(backends.store.dropIndex(s, { _oId: 1 }), 400, 'BAD_QUERY');
        await expectPipeError(backends.store.dropIndex(s, { "a'b": 1 }), 400, 'BAD_QUERY');
        await expectPipeError(backends.store.listIndexes('Bad Name'), 400, 'BAD_STORE_NAME');
      });

      it('finds the same documents with an index on the queried path', async () => {
        const s = newStore();
        await backends.store.insert(
          s,
          Array.from({ length: 50 }, (_, i) => ({ email: `u${i}@x`, n: i })),
        );
        await backends.store.createIndex(s, { email: 1 });
        await backends.store.insert(s, [{ email: ['u7@x', 'other'], n: 50 }]);
        expect((await backends.store.find(s, { email: 'u7@x' })).map((d) => d['n'])).toEqual([7, 50]);
        expect(
          (await backends.store.find(s, { email: { $gte: 'u48' } }, { sort: { n: 1 } })).map((d) => d['n']),
        ).toEqual([4, 5, 6, 7, 8, 9, 48, 49, 50]); // byte order: 'u4@x' > 'u48'
      });

      it('$merge writes aggregate results into another store in one transaction', async () => {
        const src = newStore();
        const dst = newStore();
        await backends.store.insert(src, [
          { _oId: 'o1', cust: 'ana', total: 10 },
          { _oId: 'o2', cust: 'bob', total: 5 },
          { _oId: 'o3', cust: 'ana', total: 7 },
        ]);
        await backends.store.insert(dst, [
          { _oId: 'keep', cust: 'zoe', sum: 1 },
          { _oId: 'x', cust: 'ana', sum: 0, note: 'old' },
        ]);
        // on a field (merge by default): ana's document is updated in place, bob's inserted.
        const out = await backends.store.aggregate(src, [
          { $group: { _id: '$cust', sum: { $sum: '$total' } } },
          { $project: { _oId: 0, cust: '$_id', sum: '$sum' } },
          { $merge: { into: dst, on: 'cust' } },
        ]);
        expect(out).toEqual([]);
        const byCust = async (): Promise<Array<[Json, Json, Json]>> =>
          (await backends.store.find(dst, {}, { sort: { cust: 1 } })).map((d) => [
            d['cust'] ?? null,
            d['sum'] ?? null,
            d['note'] ?? null,
          ]);
        expect(await byCust()).toEqual([
          ['ana', 17, 'old'],
          ['bob', 5, null],
          ['zoe', 1, null],
        ]);
        expect(await backends.store.findById(dst, 'x')).toMatchObject({ _oId: 'x', cust: 'ana', sum: 17 });
        // on _oId (default) with replace; whenNotMatched discard.
        await backends.store.aggregate(src, [
          { $project: { cust: 1 } },
          { $merge: { into: dst, whenMatched: 'replace', whenNotMatched: 'discard' } },
        ]);
        expect(await backends.store.find(dst, { _oId: 'o1' })).toEqual([]);
        await backends.store.aggregate(src, [{ $match: { _oId: 'o1' } }, { $merge: dst }]);
        expect(await backends.store.findById(dst, 'o1')).toEqual({ _oId: 'o1', cust: 'ana', total: 10 });
        await backends.store.aggregate(src, [
          { $match: { _oId: 'o1' } },
          { $project: { cust: 1 } },
          { $merge: { into: dst, whenMatched: 'replace' } },
        ]);
        expect(await backends.store.findById(dst, 'o1')).toEqual({ _oId: 'o1', cust: 'ana' });
        // keepExisting leaves the target; fail aborts everything (the first write is rolled back too).
        await backends.store.aggregate(src, [{ $merge: { into: dst, whenMatched: 'keepExisting' } }]);
        expect(await backends.store.findById(dst, 'o1')).toEqual({ _oId: 'o1', cust: 'ana' });
        const before = await backends.store.find(dst, {});
        await backends.store.insert(src, [{ _oId: 'o9', cust: 'cy', total: 6 }]);
        // o9 is inserted first, then o3 matches and fails: o9 is rolled back.
        await expectPipeError(
          backends.store.aggregate(src, [{ $sort: { _oId: -1 } }, { $merge: { into: dst, whenMatched: 'fail' } }]),
          409,
          'DUPLICATE_KEY',
        );
        // total 5 matches o2 and is merged (touched), then 6 matches nothing and fails: o2 is rolled back.
        await expectPipeError(
          backends.store.aggregate(src, [
            { $sort: { total: 1 } },
            { $project: { _oId: 0, total: 1, touched: true } },
            { $merge: { into: dst, on: 'total', whenNotMatched: 'fail' } },
          ]),
          409,
          'MERGE_NO_MATCH',
        );
        await expectPipeError(
          backends.store.aggregate(src, [{ $project: { _oId: 0, cust: 1 } }, { $merge: { into: dst, on: 'cust' } }]),
          400,
          'BAD_QUERY',
          'unique index',
        );
        expect(await backends.store.find(dst, {})).toEqual(before);
        // A unique index on the target is enforced; nothing is written.
        const uniq = newStore();
        await backends.store.createIndex(uniq, { cust: 1 }, { unique: true });
        await expectPipeError(
          backends.store.aggregate(src, [{ $project: { cust: 1 } }, { $merge: uniq }]),
          409,
          'DUPLICATE_KEY',
        );
        expect(await backends.store.find(uniq, {})).toEqual([]);
      });

      it('refuses unsupported $merge forms before writing', async () => {
        const s = newStore();
        await backends.store.insert(s, [{ a: 1 }]);
        const bad: JsonObject[] = [
          { $merge: { into: s, whenMatched: [{ $set: { a: 2 } }] } },
          { $merge: { into: s, let: {} } },
          { $merge: { into: { db: 'x', coll: 'y' } } },
          { $merge: { into: 'Bad Name' } },
          { $merge: { into: s, whenNotMatched: 'upsert' } },
          { $merge: { into: s, on: [] } },
        ];
        for (const stage of bad)
          await expect(backends.store.aggregate(s, [stage]), JSON.stringify(stage)).rejects.toMatchObject({
            code: 400,
          });
        await expectPipeError(
          backends.store.aggregate(s, [{ $merge: s }, { $count: 'n' }]),
          400,
          'BAD_QUERY',
          'last stage',
        );
        await expectPipeError(
          backends.store.aggregate(s, [{ $project: { a: 1 } }, { $merge: { into: s, on: 'missing' } }]),
          400,
          'BAD_QUERY',
        );
        expect(await backends.store.find(s, {}, {})).toEqual([expect.objectContaining({ a: 1 })]);
      });

      it('hides and purges documents after expireAfterSeconds (injected clock)', async () => {
        const s = newStore();
        await backends.store.insert(s, [{ k: 'old' }], { expireAfterSeconds: 60 });
        time += 30_000;
        await backends.store.insert(s, [{ k: 'new' }], { expireAfterSeconds: 60 });
        expect((await backends.store.find(s, {})).map((d) => d['k'])).toEqual(['old', 'new']);
        time += 31_000;
        expect((await backends.store.find(s, {})).map((d) => d['k'])).toEqual(['new']);
        expect(await backends.store.aggregate(s, [{ $count: 'n' }])).toEqual([{ n: 1 }]);
        expect(await backends.store.update(s, {}, { $set: { seen: true } })).toBe(1);
        time += 60_000;
        expect(await backends.store.find(s, {})).toEqual([]);
        expect(await backends.store.delete(s, {})).toBe(0);
      });

      it('aggregates with $match, $group, $sort, $skip, $limit, $project and $count', async () => {
        const s = newStore();
        await backends.store.insert(s, [
          { cat: 'a', price: 10, item: 'x' },
          { cat: 'b', price: 5, item: 'y' },
          { cat: 'a', price: 30, item: 'z' },
          { cat: 'c', price: 'n/a', item: 'w' },
          { cat: 'b', price: 7, item: 'v' },
        ]);
        const grouped = await backends.store.aggregate(s, [
          { $match: { price: { $gt: 0 } } },
          {
            $group: {
              _id: '$cat',
              total: { $sum: '$price' },
              avg: { $avg: '$price' },
              min: { $min: '$price' },
              max: { $max: '$price' },
              count: { $count: {} },
              items: { $push: '$item' },
              ones: { $sum: 1 },
            },
          },
          { $sort: { total: -1 } },
        ]);
        expect(grouped).toEqual([
          { _id: 'a', total: 40, avg: 20, min: 10, max: 30, count: 2, items: ['x', 'z'], ones: 2 },
          { _id: 'b', total: 12, avg: 6, min: 5, max: 7, count: 2, items: ['y', 'v'], ones: 2 },
        ]);
        expect(await backends.store.aggregate(s, [{ $group: { _id: null, n: { $sum: 1 } } }])).toEqual([
          { _id: null, n: 5 },
        ]);
        expect(
          await backends.store.aggregate(s, [
            { $sort: { item: 1 } },
            { $skip: 1 },
            { $limit: 2 },
            { $project: { item: 1, _oId: 0, p: '$price' } },
          ]),
        ).toEqual([
          { item: 'w', p: 'n/a' },
          { item: 'x', p: 10 },
        ]);
        expect(await backends.store.aggregate(s, [{ $match: { cat: 'b' } }, { $count: 'count' }])).toEqual([
          { count: 2 },
        ]);
        expect(await backends.store.aggregate(s, [{ $match: { cat: 'zzz' } }, { $count: 'count' }])).toEqual([]);
        const excluded = await backends.store.aggregate(s, [
          { $match: { item: 'x' } },
          { $project: { price: 0, _oId: 0 } },
        ]);
        expect(excluded).toEqual([{ cat: 'a', item: 'x' }]);
      });

      it('rejects documents over the size limit with 413 and writes nothing', async () => {
        const s = newStore();
        await expectPipeError(
          backends.store.insert(s, [{ ok: 1 }, { big: 'x'.repeat(5000) }]),
          413,
          'DOCUMENT_TOO_LARGE',
        );
        expect(await backends.store.find(s, {})).toEqual([]);
        await backends.store.insert(s, [{ _oId: 'k', v: 1 }]);
        await expectPipeError(
          backends.store.update(s, {}, { $set: { big: 'x'.repeat(5000) } }),
          413,
          'DOCUMENT_TOO_LARGE',
        );
        expect(await backends.store.findById(s, 'k')).toEqual({ _oId: 'k', v: 1 });
        // Just within the limit (where PIPEC_STORE_MAX_DOC is 4096): measured exactly, accepted.
        if (variant.env['PIPEC_STORE_MAX_DOC'] === '4096') {
          const near = 'x'.repeat(4096 - JSON.stringify({ _oId: 'k', v: 1, near: '' }).length);
          expect(await backends.store.update(s, { _oId: 'k' }, { $set: { near } })).toBe(1);
          expect(await backends.store.findById(s, 'k')).toEqual({ _oId: 'k', v: 1, near });
          await expectPipeError(
            backends.store.update(s, { _oId: 'k' }, { $set: { near: `${near}y` } }),
            413,
            'DOCUMENT_TOO_LARGE',
          );
        }
      });

      it('updates top-level fields in one statement with what the in-memory update gives', async () => {
        const s = newStore();
        const docs: JsonObject[] = [
          { _oId: 'a', k: 1, c: 'drop', keep: [1, { x: 2 }] },
          { _oId: 'b', k: 1, c: null, 1: 'numeric key first' },
          { _oId: 'c', k: 2 },
        ];
        await backends.store.insert(s, docs);
        await backends.store.createIndex(s, { k: 1 });
        const updates: Array<[JsonObject, JsonObject, boolean]> = [
          [{ k: 1 }, { $set: { o: { deep: ['é"\n', null] }, n: 1.5, s: 'text', z: null } }, true],
          [{ k: 1 }, { $unset: { c: '', missing: '' } }, false],
          [{ k: 2 }, JSON.parse('{"$set": {"t": 1, "__proto__": {"p": 1}}, "$unset": {"t": ""}}') as JsonObject, true],
          [{ k: { $in: [1, 2] } }, { $set: { k: 3 } }, true],
        ];
        const expected = new Map(docs.map((d) => [d['_oId'] as string, structuredClone(d)]));
        for (const [query, update, multi] of updates) {
          const filter = parseFilter(query);
          const spec = parseUpdate(update);
          let matched = [...expected.values()].filter((d) => matchesFilter(d, filter, createRegexTester()));
          if (!multi) matched = matched.slice(0, 1);
          for (const d of matched) expected.set(d['_oId'] as string, applyUpdate(d, spec));
          expect(await backends.store.update(s, query, update, { multi })).toBe(matched.length);
        }
        expect(await backends.store.find(s, {})).toEqual([...expected.values()]);
        expect(await backends.store.find(s, { k: 3 })).toHaveLength(3);
      });

      it('finds by an indexed equality in insertion order, as the matcher does, with limit and skip', async () => {
        const s = newStore();
        const values: Json[] = [
          1,
          1.5,
          '1',
          true,
          null,
          [1, 2],
          [[1]],
          { g: 1 },
          2,
          1,
          false,
          ['1', true],
          -0,
          2 ** 53 - 1,
          1e21,
          [2 ** 53 - 1],
        ];
        const docs: JsonObject[] = values.map((g, i) => ({ i, g }));
        docs.push({ i: values.length });
        await backends.store.insert(s, docs);
        await backends.store.createIndex(s, { g: 1 });
        const queries: JsonObject[] = [
          { g: 1 },
          { g: 0 },
          { g: 1.5 },
          { g: '1' },
          { g: true },
          { g: { $in: [1, 1, '1', true, 2] } },
          { g: 1, i: { $gt: 0 } },
          { $and: [{ g: { $eq: 2 } }, { i: { $lt: 100 } }] },
          { g: 2 ** 53 - 1 },
          { g: 1e21 },
          { g: { $in: [2 ** 53 - 1, 1e21, 1.5] } },
        ];
        for (const query of queries) {
          const filter = parseFilter(query);
          const all = docs.filter((d) => matchesFilter(d, filter, createRegexTester())).map((d) => d['i']);
          expect(
            (await backends.store.find(s, query)).map((d) => d['i']),
            JSON.stringify(query),
          ).toEqual(all);
          expect((await backends.store.find(s, query, { limit: 2, skip: 1 })).map((d) => d['i'])).toEqual(
            all.slice(1, 3),
          );
        }
      });

      it('gives an _oId or a unique key back once the document holding it expired', async () => {
        const s = newStore();
        await backends.store.createIndex(s, { email: 1 }, { unique: true });
        await backends.store.insert(s, [{ _oId: 'x', email: 'a@x' }], { expireAfterSeconds: 60 });
        await expectPipeError(backends.store.insert(s, [{ _oId: 'x' }]), 409, 'DUPLICATE_KEY');
        await expectPipeError(backends.store.insert(s, [{ email: 'a@x' }]), 409, 'DUPLICATE_KEY');
        time += 61_000;
        await backends.store.insert(s, [{ _oId: 'x', v: 2 }]);
        await backends.store.insert(s, [{ _oId: 'y', email: 'b@x' }]);
        expect(await backends.store.update(s, { _oId: 'y' }, { $set: { email: 'a@x' } })).toBe(1);
        expect(await backends.store.find(s, {})).toEqual([
          { _oId: 'x', v: 2 },
          { _oId: 'y', email: 'a@x' },
        ]);
      });

      it('updates by _oId alone the one document whose _oId has the queried value and type, unexpired', async () => {
        const s = newStore();
        await backends.store.insert(s, [
          { _oId: 5, v: 0 },
          { _oId: 'x', v: 0 },
          { _oId: 1.5, v: 0 },
        ]);
        await backends.store.insert(s, [{ _oId: 'old', v: 0 }], { expireAfterSeconds: 60 });
        expect(await backends.store.update(s, { _oId: '5' }, { $set: { v: 1 } })).toBe(0);
        expect(await backends.store.update(s, { _oId: 5 }, { $set: { v: 2 } }, { multi: false })).toBe(1);
        expect(await backends.store.update(s, { _oId: { $eq: 'x' } }, { $set: { v: 3 }, $unset: { w: '' } })).toBe(1);
        expect(await backends.store.update(s, { _oId: 1.5 }, { $set: { v: 4 } })).toBe(1);
        expect(await backends.store.update(s, { _oId: '1.5' }, { $set: { v: 5 } })).toBe(0);
        time += 61_000;
        expect(await backends.store.update(s, { _oId: 'old' }, { $set: { v: 6 } })).toBe(0);
        expect(await backends.store.find(s, {})).toEqual([
          { _oId: 5, v: 2 },
          { _oId: 'x', v: 3 },
          { _oId: 1.5, v: 4 },
        ]);
      });

      it('answers right while another process creates and drops the index it reads through', async () => {
        const s = newStore();
        await backends.store.insert(
          s,
          Array.from({ length: 20 }, (_, n) => ({ n, g: n % 4 })),
        );
        const other = await open();
        try {
          const expectGroup = async (): Promise<void> =>
            expect((await backends.store.find(s, { g: 1 }, { limit: 3 })).map((d) => d['n'])).toEqual([1, 5, 9]);
          await expectGroup();
          await other.store.createIndex(s, { g: 1 });
          await expectGroup();
          expect(await backends.store.update(s, { g: 1 }, { $set: { seen: true } }, { multi: false })).toBe(1);
          expect(await other.store.dropIndex(s, { g: 1 })).toBe(1);
          await expectGroup();
          expect(await backends.store.delete(s, { g: 1 }, { multi: false })).toBe(1);
          expect((await backends.store.find(s, { g: 1 })).map((d) => d['n'])).toEqual([5, 9, 13, 17]);
        } finally {
          await other.close();
        }
      });

      it('keeps prototype keys as plain data', async () => {
        const s = newStore();
        const doc = JSON.parse(
          '{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"x": 1}}, "name": "p"}',
        ) as JsonObject;
        await backends.store.insert(s, [doc]);
        const [found] = await backends.store.find(s, { '__proto__.polluted': 1, 'constructor.prototype.x': 1 });
        expect(found && Object.prototype.hasOwnProperty.call(found, '__proto__')).toBe(true);
        expect(
          await backends.store.update(s, { name: 'p' }, { $set: { '__proto__.polluted2': true, 'prototype.y': 2 } }),
        ).toBe(1);
        const [after] = await backends.store.find(s, { '__proto__.polluted2': true });
        expect(after?.['prototype']).toEqual({ y: 2 });
        const grouped = await backends.store.aggregate(s, [{ $group: { _id: '$__proto__', n: { $sum: 1 } } }]);
        expect(grouped).toEqual([{ _id: { polluted: 1, polluted2: true }, n: 1 }]);
        expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
        expect(({} as Record<string, unknown>)['polluted2']).toBeUndefined();
        expect(({} as Record<string, unknown>)['y']).toBeUndefined();
      });
    });

    // ─────────────────────────────── Event broker ───────────────────────────────

    describe('event broker', () => {
      const opts = {
        maxDeliveries: 5,
        ackTimeout: 1000,
        concurrency: 4,
        backoff: { initialMs: 100, maxMs: 400, multiplier: 2 },
      };
      let eventCounter = 0;
      const waitForDeadLetters = async (event: string, n: number) => {
        const deadline = Date.now() + 10_000;
        for (;;) {
          const letters = await backends.deadLetters.list({ event });
          if (letters.length >= n) return letters;
          if (Date.now() > deadline)
            throw new Error(`timed out waiting for ${n} dead letters of ${event}, got ${letters.length}`);
          await sleep(50);
        }
      };
      const newEvent = (): string => `ev-${RUN_ID}-${eventCounter++}`;

      it('fans out every event to every subscriber', async () => {
        const event = newEvent();
        const got: Record<string, number[]> = { s1: [], s2: [] };
        const done = deferredCounter();
        const subs = await Promise.all(
          ['s1', 's2'].map((name) =>
            backends.broker.subscribe(
              `${name}-${RUN_ID}`,
              event,
              async (d) => {
                got[name]?.push((d.envelope.payload as { n: number }).n);
                done.bump();
              },
              opts,
            ),
          ),
        );
        for (let n = 0; n < 5; n++)
          await backends.broker.publish(event, { n }, { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` });
        await done.until(10);
        await Promise.all(subs.map((s) => s.stop()));
        expect(got['s1']?.sort()).toEqual([0, 1, 2, 3, 4]);
        expect(got['s2']?.sort()).toEqual([0, 1, 2, 3, 4]);
      });

      it('carries the envelope: id, name, headers, publishedAt', async () => {
        const event = newEvent();
        const seen: Delivery[] = [];
        const done = deferredCounter();
        const sub = await backends.broker.subscribe(
          `env-${RUN_ID}`,
          event,
          async (d) => {
            seen.push(d);
            done.bump();
          },
          opts,
        );
        await backends.broker.publish(event, { hello: 'world', list: [1, null] }, { traceparent: '00-abc-def-01' });
        await done.until(1);
        await sub.stop();
        const [d] = seen;
        expect(d?.envelope).toMatchObject({
          name: event,
          payload: { hello: 'world', list: [1, null] },
          headers: { traceparent: '00-abc-def-01' },
          publishedAt: time,
        });
        expect(d?.envelope.id).toMatch(/^[0-9a-f-]{36}$/);
        expect(d).toMatchObject({ attempt: 1, redelivery: false });
      });

      it('shares one subscriber between replicas: disjoint shares, all events', async () => {
        const event = newEvent();
        const shares: number[][] = [[], []];
        const done = deferredCounter();
        const subs = await Promise.all(
          [0, 1].map((i) =>
            backends.broker.subscribe(
              `replicated-${RUN_ID}`,
              event,
              async (d) => {
                await sleep(5);
                shares[i]?.push((d.envelope.payload as { n: number }).n);
                done.bump();
              },
              { ...opts, concurrency: 1 },
            ),
          ),
        );
        for (let n = 0; n < 40; n++) await backends.broker.publish(event, { n });
        await done.until(40, 15_000);
        await sleep(200);
        await Promise.all(subs.map((s) => s.stop()));
        const [a = [], b = []] = shares;
        expect(a.length).toBeGreaterThan(0);
        expect(b.length).toBeGreaterThan(0);
        expect(a.filter((n) => b.includes(n))).toEqual([]);
        expect([...a, ...b].sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      });

      it('redelivers after a rejection with increasing attempts', async () => {
        const event = newEvent();
        const attempts: Array<[number, boolean]> = [];
        const done = deferredCounter();
        const sub = await backends.broker.subscribe(
          `retry-${RUN_ID}`,
          event,
          async (d) => {
            attempts.push([d.attempt, d.redelivery]);
            done.bump();
            if (d.attempt < 3) throw new Error('not yet');
          },
          opts,
        );
        await backends.broker.publish(event, { n: 1 });
        await done.until(3);
        await sleep(800);
        await sub.stop();
        expect(attempts).toEqual([
          [1, false],
          [2, true],
          [3, true],
        ]);
      });

      it('stops after maxDeliveries rejections', async () => {
        const event = newEvent();
        const subscriber = `dead-${RUN_ID}`;
        const attempts: number[] = [];
        const done = deferredCounter();
        const sub = await backends.broker.subscribe(
          subscriber,
          event,
          async (d) => {
            attempts.push(d.attempt);
            done.bump();
            throw new Error('always fails');
          },
          { ...opts, maxDeliveries: 3 },
        );
        await backends.broker.publish(event, { n: 1 });
        await done.until(3);
        await sleep(1100);
        await sub.stop();
        expect(attempts).toEqual([1, 2, 3]);
        if (variant.name === 'sqlite') {
          const db = new Database(join(dataDir, 'pipec.db'), { readonly: true });
          const rows = db
            .prepare('SELECT attempts, last_error FROM pipec_dead_letters WHERE subscriber = ?')
            .all(subscriber);
          db.close();
          expect(rows).toEqual([{ attempts: 3, last_error: 'always fails' }]);
        }
      });

      it('redelivers when the handler exceeds ackTimeout', async () => {
        const event = newEvent();
        const attempts: number[] = [];
        const done = deferredCounter();
        const sub = await backends.broker.subscribe(
          `slow-${RUN_ID}`,
          event,
          async (d) => {
            attempts.push(d.attempt);
            done.bump();
            if (d.attempt === 1) await sleep(2500);
          },
          { ...opts, ackTimeout: 1000 },
        );
        await backends.broker.publish(event, { n: 1 });
        await done.until(2, 5000);
        expect(attempts).toEqual([1, 2]);
        await sub.stop();
      });

      it(
        'holds a delivery through an outage of a backend its handler needs, using up no attempt',
        { timeout: 20_000 },
        async () => {
          const event = newEvent();
          const runs: Array<{ attempt: number; redelivery: boolean }> = [];
          const done = deferredCounter();
          const outage = (): PipeError =>
            new PipeError('postgres is unavailable: cut', { code: 503, kind: 'BACKEND_UNAVAILABLE' });
          // Three failed runs take 3.5 s (0.5 + 1 + 2 s): beyond the ack timeout and beyond max-deliveries.
          const sub = await backends.broker.subscribe(
            `hold-${RUN_ID}`,
            event,
            async (d) => {
              runs.push({ attempt: d.attempt, redelivery: d.redelivery });
              done.bump();
              if (runs.length <= 3) throw outage();
            },
            { ...opts, maxDeliveries: 2, ackTimeout: 600 },
          );
          await backends.broker.publish(event, { n: 1 });
          await done.until(4, 15_000);
          await sleep(1500);
          await sub.stop();
          expect(runs).toEqual([
            { attempt: 1, redelivery: false },
            { attempt: 1, redelivery: true },
            { attempt: 1, redelivery: true },
            { attempt: 1, redelivery: true },
          ]);
          expect(await backends.deadLetters.list({ event })).toEqual([]);
        },
      );

      it(
        'does not count a delivery given up during an outage because the subscription stopped',
        { timeout: 20_000 },
        async () => {
          const event = newEvent();
          const subscriber = `hold-stop-${RUN_ID}`;
          const first = deferredCounter();
          const fast = { ...opts, maxDeliveries: 1, backoff: { initialMs: 20, maxMs: 40, multiplier: 2 } };
          const away = await backends.broker.subscribe(
            subscriber,
            event,
            async () => {
              first.bump();
              throw new PipeError('postgres is unavailable: cut', { code: 503, kind: 'BACKEND_UNAVAILABLE' });
            },
            fast,
          );
          await backends.broker.publish(event, { n: 1 });
          await first.until(1);
          await away.stop();
          const handled = deferredCounter();
          const back = await backends.broker.subscribe(subscriber, event, async () => handled.bump(), fast);
          await handled.until(1, 10_000);
          await back.stop();
          // max-deliveries is 1: had the given-up delivery counted, the event would be a dead letter now.
          expect(await backends.deadLetters.list({ event })).toEqual([]);
        },
      );

      it('rejects payloads that are not JSON and publishes nothing', async () => {
        const event = newEvent();
        const got = deferredCounter();
        const sub = await backends.broker.subscribe(`json-${RUN_ID}`, event, async () => got.bump(), opts);
        const bad: unknown[] = [
          { a: undefined },
          { n: Number.NaN },
          { f: () => 1 },
          { d: new Date(0) },
          { b: BigInt(1) },
        ];
        for (const payload of bad)
          await expectPipeError(backends.broker.publish(event, payload as Json), 400, 'BAD_PAYLOAD');
        await expectPipeError(backends.broker.publish('bad name!', {}), 400, 'BAD_EVENT_NAME');
        await sleep(500);
        await sub.stop();
        expect(got.count()).toBe(0);
      });

      it("dead-letters with the payload, headers, every attempt's error and timestamps; list, show, count, purge", async () => {
        const event = newEvent();
        const subscriber = `dl-${RUN_ID}`;
        const done = deferredCounter();
        const fast = { ...opts, maxDeliveries: 3, backoff: { initialMs: 20, maxMs: 40, multiplier: 2 } };
        const sub = await backends.broker.subscribe(
          subscriber,
          event,
          async (d) => {
            done.bump();
            throw new Error(`attempt ${d.attempt} failed`);
          },
          fast,
        );
        await backends.broker.publish(event, { order: 'o-1', list: [1, 2] }, { 'x-correlation': 'c-9' });
        await done.until(3);
        const letters = await waitForDeadLetters(event, 1);
        await sub.stop();
        const [summary] = letters;
        expect(summary).toMatchObject({
          event,
          subscriber,
          reason: 'max-deliveries',
          attemptCount: 3,
          lastError: 'attempt 3 failed',
          publishedAt: time,
          deadAt: time,
        });
        const letter = await backends.deadLetters.get(String(summary?.id));
        expect(letter).toMatchObject({
          payload: { order: 'o-1', list: [1, 2] },
          headers: { 'x-correlation': 'c-9' },
          replays: [],
        });
        expect(letter?.attempts).toEqual(
          [1, 2, 3].map((n) => ({ attempt: n, at: time, error: `attempt ${n} failed` })),
        );
        expect((await backends.deadLetters.countByEvent())[event]).toBe(1);
        expect(await backends.deadLetters.list({ event: `${event}-other` })).toEqual([]);
        expect(await backends.deadLetters.purge({ event })).toBe(1);
        expect(await backends.deadLetters.get(String(summary?.id))).toBeNull();
        expect((await backends.deadLetters.countByEvent())[event]).toBeUndefined();
      });

      it('dead-letters a permanent failure on its first delivery', async () => {
        const event = newEvent();
        let attempts = 0;
        const sub = await backends.broker.subscribe(
          `perm-${RUN_ID}`,
          event,
          async () => {
            attempts += 1;
            throw new PipeError('the CRM answered 404', { code: 404, kind: 'REST_CLIENT_ERROR' });
          },
          opts,
        );
        await backends.broker.publish(event, { n: 1 });
        const [letter] = await waitForDeadLetters(event, 1);
        await sub.stop();
        expect(attempts).toBe(1);
        expect(letter).toMatchObject({ reason: 'permanent-error', attemptCount: 1, lastError: 'the CRM answered 404' });
        await backends.deadLetters.purge({ event });
      });

      it('dead-letters an event its trigger found expired, with the reason', async () => {
        const event = newEvent();
        const sub = await backends.broker.subscribe(
          `expired-${RUN_ID}`,
          event,
          async () => {
            throw Object.assign(new Error('expired: waited too long'), {
              permanent: true,
              deadLetterReason: 'expired',
            });
          },
          opts,
        );
        await backends.broker.publish(event, { n: 1 });
        const [letter] = await waitForDeadLetters(event, 1);
        await sub.stop();
        expect(letter).toMatchObject({ reason: 'expired', attemptCount: 1, lastError: 'expired: waited too long' });
        await backends.deadLetters.purge({ event });
      });

      it('waits at least half of each backoff step between attempts', async () => {
        const event = newEvent();
        const at: number[] = [];
        const done = deferredCounter();
        const sub = await backends.broker.subscribe(
          `backoff-${RUN_ID}`,
          event,
          async () => {
            at.push(performance.now());
            done.bump();
            if (at.length < 3) throw new Error('later');
          },
          { ...opts, backoff: { initialMs: 400, maxMs: 10_000, multiplier: 2 } },
        );
        await backends.broker.publish(event, { n: 1 });
        await done.until(3);
        await sub.stop();
        const [first = 0, second = 0, third = 0] = at;
        // Equal jitter: the n-th wait is drawn from [step/2, step] with steps 400 ms, 800 ms.
        expect(second - first).toBeGreaterThanOrEqual(200 - 5);
        expect(third - second).toBeGreaterThanOrEqual(400 - 5);
      });

      it('replays a dead letter to the subscriber that failed only, and records the replay', async () => {
        const event = newEvent();
        const failing = `replay-a-${RUN_ID}`;
        const other = `replay-b-${RUN_ID}`;
        let healed = false;
        const got: Record<string, number[]> = { [failing]: [], [other]: [] };
        const done = deferredCounter();
        const subs = await Promise.all(
          [failing, other].map((name) =>
            backends.broker.subscribe(
              name,
              event,
              async (d) => {
                if (name === failing && !healed) throw new PipeError('bad request', { code: 400 });
                got[name]?.push((d.envelope.payload as { n: number }).n);
                done.bump();
              },
              opts,
            ),
          ),
        );
        await backends.broker.publish(event, { n: 7 });
        const [letter] = await waitForDeadLetters(event, 1);
        await done.until(1);
        healed = true;
        const { eventId } = await backends.deadLetters.replay(String(letter?.id));
        await done.until(2);
        await sleep(300);
        await Promise.all(subs.map((s) => s.stop()));
        expect(got).toEqual({ [failing]: [7], [other]: [7] });
        const replayed = await backends.deadLetters.get(String(letter?.id));
        expect(replayed?.replays).toEqual([{ at: time, eventId }]);
        await expectPipeError(backends.deadLetters.replay('0'.repeat(24)), 404, 'NOT_FOUND');
        await expectPipeError(backends.deadLetters.get('../etc'), 400, 'BAD_QUERY');
        await backends.deadLetters.purge({ event });
      });

      it('accepts the same payloads on every backend: 512 levels, no NUL, no lone surrogate, 960 KiB', async () => {
        const event = newEvent();
        const got = deferredCounter();
        const sub = await backends.broker.subscribe(`limits-${RUN_ID}`, event, async () => got.bump(), opts);
        const nest = (depth: number): Json => (depth === 0 ? 'leaf' : [nest(depth - 1)]);
        await backends.broker.publish(event, { deep: nest(510) } as Json);
        await expectPipeError(
          backends.broker.publish(event, { deep: nest(512) } as Json),
          422,
          'UNSTORABLE_JSON',
          'deeper than 512',
        );
        await expectPipeError(backends.broker.publish(event, { text: 'a\u0000b' }), 422, 'UNSTORABLE_JSON', 'NUL');
        await expectPipeError(backends.broker.publish(event, { ['k\u0000']: 1 }), 422, 'UNSTORABLE_JSON', 'NUL');
        await expectPipeError(
          backends.broker.publish(event, { text: 'x\ud800y' }),
          422,
          'UNSTORABLE_JSON',
          'surrogate',
        );
        await backends.broker.publish(event, { text: 'pair \ud83d\ude00 ok' });
        await backends.broker.publish(event, { text: 'x'.repeat(MAX_EVENT_PAYLOAD_BYTES - 20) });
        await expectPipeError(
          backends.broker.publish(event, { text: 'x'.repeat(MAX_EVENT_PAYLOAD_BYTES) }),
          413,
          'PAYLOAD_TOO_LARGE',
        );
        await got.until(3);
        await sub.stop();
        const store = newStore();
        await expectPipeError(backends.store.insert(store, [{ text: 'a\u0000b' }]), 422, 'UNSTORABLE_JSON');
        await expectPipeError(backends.store.insert(store, [{ text: '\udc00' }]), 422, 'UNSTORABLE_JSON');
      });

      it('keeps pending events across a restart (durable subscriber)', async () => {
        const event = newEvent();
        const subscriber = `durable-${RUN_ID}`;
        const first = await backends.broker.subscribe(subscriber, event, async () => undefined, opts);
        await first.stop();
        for (let n = 0; n < 10; n++) await backends.broker.publish(event, { n });
        await backends.close();
        backends = await open();
        const got: number[] = [];
        const done = deferredCounter();
        const sub = await backends.broker.subscribe(
          subscriber,
          event,
          async (d) => {
            got.push((d.envelope.payload as { n: number }).n);
            done.bump();
          },
          opts,
        );
        await done.until(10);
        await sub.stop();
        expect(got.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      });

      const spawnWorker = (out: string, subscriber: string, event: string): Promise<ChildProcess> =>
        new Promise((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
            env: {
              ...process.env,
              ...variant.env,
              WORKER_DATA_DIR: dataDir,
              WORKER_OUT: out,
              WORKER_SUBSCRIBER: subscriber,
              WORKER_EVENT: event,
              WORKER_DELAY_MS: '3',
            },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let stderr = '';
          const timer = setTimeout(() => reject(new Error(`worker did not start: ${stderr}`)), 15_000);
          child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
          child.stdout?.on('data', (b: Buffer) => {
            if (b.toString().includes('ready')) {
              clearTimeout(timer);
              resolve(child);
            }
          });
          child.once('exit', (code) => reject(new Error(`worker exited ${String(code)}: ${stderr}`)));
        });

      const readLines = (file: string): Array<{ n: number; attempt: number; pid: number }> =>
        existsSync(file)
          ? readFileSync(file, 'utf8')
              .split('\n')
              .filter(Boolean)
              .map((l) => {
                const [n, attempt, pid] = l.split(' ').map(Number);
                return { n: n ?? -1, attempt: attempt ?? 0, pid: pid ?? 0 };
              })
          : [];

      const waitFor = async (cond: () => boolean, ms: number, what: string): Promise<void> => {
        const deadline = Date.now() + ms;
        while (!cond()) {
          if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
          await sleep(50);
        }
      };

      const stopWorker = (child: ChildProcess): Promise<void> =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.removeAllListeners('exit');
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
          setTimeout(() => (child.kill('SIGKILL'), resolve()), 5000);
        });

      it('processes every event at least once across a SIGKILL of the subscriber', { timeout: 45_000 }, async () => {
        const event = newEvent();
        const subscriber = `crash-${RUN_ID}`;
        const out = join(dataDir, `crash-${event}.log`);
        let worker = await spawnWorker(out, subscriber, event);
        await publishMany(backends, event, 1000);
        await waitFor(() => readLines(out).length >= 200, 20_000, 'the first worker to process 200 events');
        worker.removeAllListeners('exit');
        worker.kill('SIGKILL');
        await new Promise((r) => worker.once('exit', r));
        const beforeRestart = new Set(readLines(out).map((l) => l.n)).size;
        expect(beforeRestart).toBeLessThan(1000);
        worker = await spawnWorker(out, subscriber, event);
        try {
          await waitFor(
            () => new Set(readLines(out).map((l) => l.n)).size === 1000,
            30_000,
            'all 1000 events after restart',
          );
        } finally {
          await stopWorker(worker);
        }
        const processed = new Set(readLines(out).map((l) => l.n));
        expect(processed.size).toBe(1000);
      });

      it(
        'splits 1,000 events between two replica processes, duplicates only on redelivery',
        { timeout: 45_000 },
        async () => {
          const event = newEvent();
          const subscriber = `pair-${RUN_ID}`;
          const out = join(dataDir, `pair-${event}.log`);
          const workers = await Promise.all([spawnWorker(out, subscriber, event), spawnWorker(out, subscriber, event)]);
          try {
            await publishMany(backends, event, 1000);
            await waitFor(() => new Set(readLines(out).map((l) => l.n)).size === 1000, 30_000, 'all 1000 events');
            await sleep(300);
          } finally {
            await Promise.all(workers.map(stopWorker));
          }
          const lines = readLines(out);
          const pids = new Set(lines.map((l) => l.pid));
          expect(pids.size).toBe(2);
          const byEvent = new Map<number, number[]>();
          for (const l of lines) byEvent.set(l.n, [...(byEvent.get(l.n) ?? []), l.attempt]);
          const duplicates = [...byEvent.values()].filter((attempts) => attempts.length > 1);
          for (const attempts of duplicates) expect(Math.max(...attempts)).toBeGreaterThan(1);
          expect(byEvent.size).toBe(1000);
        },
      );
    });

    // ─────────────────────────────── Scheduler lock ───────────────────────────────

    describe('scheduler lock', () => {
      it("keeps each schedule's latest tick, shared by replicas, never moving back", async () => {
        const schedule = `${RUN_ID}:schedule:state`;
        const second = await open();
        try {
          expect(await backends.lock.lastTick(schedule)).toBeNull();
          await backends.lock.recordTick(schedule, 2000);
          await second.lock.recordTick(schedule, 1000);
          expect(await second.lock.lastTick(schedule)).toBe(2000);
          await Promise.all([backends.lock.recordTick(schedule, 5000), second.lock.recordTick(schedule, 4000)]);
          expect(await backends.lock.lastTick(schedule)).toBe(5000);
        } finally {
          await second.close();
        }
      });

      it('fires a key once, even for a replica arriving after the first finished', async () => {
        const key = `${RUN_ID}:schedule:p:${time}`;
        let runs = 0;
        const second = await open();
        try {
          const results = await Promise.all([
            backends.lock.tryLock(key, async () => {
              runs += 1;
              await sleep(100);
            }),
            second.lock.tryLock(key, async () => {
              runs += 1;
              await sleep(100);
            }),
          ]);
          expect(results.filter(Boolean)).toHaveLength(1);
          expect(await second.lock.tryLock(key, async () => void (runs += 1))).toBe(false);
          expect(await backends.lock.tryLock(key, async () => void (runs += 1))).toBe(false);
          expect(runs).toBe(1);
          expect(await second.lock.tryLock(`${key}:next`, async () => void (runs += 1))).toBe(true);
          expect(runs).toBe(2);
        } finally {
          await second.close();
        }
      });
    });
  });
}
