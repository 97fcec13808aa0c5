import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRegexTester } from '../query/regex.js';
import { openSqlite } from './database.js';
import { createSqliteStore } from './store.js';

describe('SQLite store insert: the TTL read in the INSERT', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-sqlite-insert-'));
  let time = Date.UTC(2025, 0, 1);
  const clock = { now: () => time };
  // Two connections to one file, as two services sharing it have.
  const connections: Array<ReturnType<typeof openSqlite>> = [];
  const open = (): ReturnType<typeof createSqliteStore> => {
    const db = openSqlite(join(dir, 'pipec.db'), createRegexTester());
    connections.push(db);
    return createSqliteStore({
      db,
      clock,
      regex: createRegexTester(),
      maxDocumentBytes: 1 << 20,
      maxAggregateDocs: 1000,
    });
  };
  const one = open();
  const other = open();
  afterAll(() => {
    for (const db of connections) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives a document the TTL another process set on its store since, and none while it is 0 or unset', async () => {
    await one.insert('s', [{ _oId: 'before' }]);
    await other.insert('s', [{ _oId: 'ttl' }], { expireAfterSeconds: 60 });
    await one.insert('s', [{ _oId: 'after' }]);
    await one.insert('z', [{ _oId: 'zero-before' }]);
    await other.insert('z', [{ _oId: 'zero' }], { expireAfterSeconds: 0 });
    await one.insert('z', [{ _oId: 'zero-after' }]);
    time += 30_000;
    await one.insert('s', [{ _oId: 'later' }]);
    time += 31_000;
    expect(await one.find('s', {})).toEqual([{ _oId: 'before' }, { _oId: 'later' }]);
    expect(await other.find('z', {})).toEqual([{ _oId: 'zero-before' }, { _oId: 'zero' }, { _oId: 'zero-after' }]);
    time += 30_000;
    expect(await other.find('s', {})).toEqual([{ _oId: 'before' }]);
  });
});
