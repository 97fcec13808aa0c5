import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PipeError } from '../../errors.js';
import type { JsonObject, ObjectStoreBackend } from '../../types.js';
import { createRegexTester } from '../query/regex.js';
import { openSqlite } from './database.js';
import { createSqliteStore } from './store.js';
import { sqliteJsonPath } from '../query/filter-sql.js';
import { idWriteArgs, idWriteOf, idWriteSql } from './update-by-id.js';

describe('idWriteOf', () => {
  it('recognises $set/$unset of top-level fields by _oId alone, keeping the update order', () => {
    const write = idWriteOf({ _oId: 'a' }, { $set: { n: 1, s: 'x', o: { p: [1] } }, $unset: { u: '' } });
    expect(write).toEqual({
      id: 'a',
      idIsString: true,
      set: ['$."n"', '1', '$."s"', '"x"', '$."o"', '{"p":[1]}'],
      unset: ['$."u"'],
      shape: 's n s o | u',
    });
    expect(idWriteOf({ _oId: { $eq: 1.5 } }, { $unset: { a: 1 } })).toMatchObject({ id: '1.5', idIsString: false });
    // The same fields with an id of the other type, or in another order, are another statement.
    expect(idWriteOf({ _oId: 7 }, { $set: { n: 1 } })?.shape).toBe('n n |');
    expect(idWriteOf({ _oId: '7' }, { $set: { n: 1 } })?.shape).toBe('s n |');
    expect(idWriteOf({ _oId: '7' }, { $set: { a: 1, b: 2 } })?.shape).not.toBe(
      idWriteOf({ _oId: '7' }, { $set: { b: 2, a: 1 } })?.shape,
    );
    expect(idWriteOf({ _oId: '7' }, { $set: { a: 1 } })?.shape).not.toBe(
      idWriteOf({ _oId: '7' }, { $unset: { a: 1 } })?.shape,
    );
  });

  it('leaves every other query or update to the general path (null)', () => {
    const set = { $set: { n: 1 } };
    for (const query of [
      {},
      { _oId: 'a', n: 1 },
      { n: 'a' },
      { _oId: { $eq: 'a', $ne: 'b' } },
      { _oId: { $in: ['a'] } },
      { _oId: null },
      { _oId: true },
      { _oId: ['a'] },
      { _oId: Infinity },
      { _oId: 'nul\u0000' },
      { _oId: '\uD800' },
      [{ _oId: 'a' }],
      null,
    ]) {
      expect(idWriteOf(query, set), JSON.stringify(query)).toBeNull();
    }
    for (const update of [
      {},
      { n: 1 },
      { $inc: { n: 1 } },
      { $set: { n: 1 }, $inc: { m: 1 } },
      { $set: { 'a.b': 1 } },
      { $set: { '0': 1 } },
      { $unset: { _oId: '' } },
      { $set: { _oId: 'b' } },
      { $set: { 'bad field': 1 } },
      { $set: {} },
      { $set: 1 },
      { $rename: { a: 'b' } },
      [],
    ]) {
      expect(idWriteOf({ _oId: 'a' }, update), JSON.stringify(update)).toBeNull();
    }
  });

  it("throws parseUpdate's own error for an update that is not storable JSON", () => {
    expect(() => idWriteOf({ _oId: 'a' }, { $set: { n: Number.NaN } })).toThrow(/update is not JSON-serializable/);
    expect(() => idWriteOf({ _oId: 'a' }, { $unset: { n: undefined } })).toThrow(PipeError);
  });

  it('binds each placeholder of its statement, in order', () => {
    const write = idWriteOf({ _oId: 3 }, { $set: { a: 'x', b: null }, $unset: { c: '' } });
    if (write === null) throw new Error('not recognised');
    const sql = idWriteSql(write, 1000);
    expect(sql.split('?').length - 1).toBe(idWriteArgs(write, 's', 5).length);
    expect(idWriteArgs(write, 's', 5)).toEqual(['$."a"', '"x"', '$."b"', 'null', '$."c"', 's', 5, '3']);
    expect(sql).toContain("IN ('integer','real')");
    // The paths are the ones the general path binds (sqliteJsonPath), `__proto__` and `$` included.
    const fields = ['a', '__proto__', '$x', 'a-b', '_o'];
    const paths = idWriteOf({ _oId: 'k' }, { $set: Object.fromEntries(fields.map((f) => [f, 1])) })?.set;
    expect(paths?.filter((_, i) => i % 2 === 0)).toEqual(fields.map((f) => sqliteJsonPath([f])));
  });
});

/**
 * The same updates through the recognised path (`{ _oId: v }`) and the general one (`{ $and: [{ _oId:
 * v }] }`, which idWriteOf does not take): the same counts, errors and documents.
 */
describe('updates by _oId: the recognised path against the general one', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-update-by-id-'));
  const db = openSqlite(join(dir, 'pipec.db'), createRegexTester());
  let time = Date.UTC(2025, 0, 1);
  const store = createSqliteStore({
    db,
    clock: { now: () => time },
    regex: createRegexTester(),
    maxDocumentBytes: 200,
    maxAggregateDocs: 1000,
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const seed: JsonObject[] = [
    { _oId: 'a', n: 0, keep: [1, { x: 2 }] },
    { _oId: 5, n: 0 },
    { _oId: '2', n: 0 },
    { _oId: 1.5, n: 0, email: 'one@x' },
  ];
  const outcome = async (s: ObjectStoreBackend, name: string, run: () => Promise<number>): Promise<unknown> => {
    const result = await run().then(
      (count) => ({ count }),
      (err: unknown) =>
        err instanceof PipeError
          ? // The index's name holds the store's: the two stores' differ.
            { code: err.code, kind: err.kind, message: err.message.replace(/pipec_uix_[0-9a-f]+/, 'pipec_uix') }
          : { thrown: String(err) },
    );
    return { result, docs: await s.find(name, {}) };
  };
  const cases: Array<[string | number, JsonObject]> = [
    ['a', { $set: { n: 1, s: 'é"\n', o: { deep: [null, true] } } }],
    ['a', { $unset: { keep: '', missing: '' }, $set: { n: 2 } }],
    ['a', JSON.parse('{"$set": {"__proto__": {"p": 1}}}') as JsonObject],
    [5, { $set: { n: 3 } }],
    ['5', { $set: { n: 4 } }],
    [2, { $set: { n: 4 } }],
    ['2', { $set: { n: 4 } }],
    ['1.5', { $set: { n: 5 } }],
    [1.5, { $set: { n: 6 } }],
    ['missing', { $set: { n: 7 } }],
    ['a', { $set: { big: 'x'.repeat(300) } }],
    [5, { $set: { email: 'one@x' } }],
    ['old', { $set: { n: 8 } }],
    ['a', { $set: { n: Number.NaN } }],
  ];
  let counter = 0;
  const recognised = (query: JsonObject, update: JsonObject): boolean => {
    try {
      return idWriteOf(query, update) !== null;
    } catch {
      return true;
    }
  };

  it('gives the same counts, errors and documents', async () => {
    for (const [id, update] of cases) {
      const fast = `f${counter}`;
      const general = `g${counter++}`;
      for (const name of [fast, general]) {
        await store.insert(name, seed);
        await store.insert(name, [{ _oId: 'old', n: 0 }], { expireAfterSeconds: 60 });
        await store.createIndex(name, { email: 1 }, { unique: true });
      }
      // Each case takes the recognised path (or throws there, as the NaN does).
      expect(recognised({ _oId: id }, update), JSON.stringify(update)).toBe(true);
      time += 61_000;
      const label = JSON.stringify([id, update]);
      const viaId = await outcome(store, fast, () => store.update(fast, { _oId: id }, update));
      const viaFilter = await outcome(store, general, () => store.update(general, { $and: [{ _oId: id }] }, update));
      expect(viaId, label).toEqual(viaFilter);
      time -= 61_000;
    }
  });
});
