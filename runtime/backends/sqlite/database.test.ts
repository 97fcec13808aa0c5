import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { statementCache } from './database.js';

function database(): Database.Database {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (k TEXT, v INTEGER)');
  db.prepare('INSERT INTO t VALUES (?, ?), (?, ?)').run('a', 1, 'b', 2);
  return db;
}

describe('statementCache', () => {
  it('prepares each SQL text once and keeps at most `size` statements, the oldest going first', () => {
    const statement = statementCache(database(), 2);
    const first = statement('SELECT v FROM t WHERE k = ?');
    expect(statement('SELECT v FROM t WHERE k = ?')).toBe(first);
    expect(statement('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2 });
    statement('SELECT k FROM t WHERE v = ?');
    const again = statement('SELECT v FROM t WHERE k = ?');
    expect(again).not.toBe(first);
    expect(again.get('b')).toEqual({ v: 2 });
  });

  it('keeps answering after the schema changed under a kept statement', () => {
    const db = database();
    const statement = statementCache(db);
    expect(statement('SELECT v FROM t WHERE k = ?').get('a')).toEqual({ v: 1 });
    db.exec('CREATE INDEX t_k ON t (k)');
    db.exec('ALTER TABLE t ADD COLUMN w INTEGER DEFAULT 7');
    expect(statement('SELECT v FROM t WHERE k = ?').get('a')).toEqual({ v: 1 });
    db.exec('DROP INDEX t_k');
    expect(statement('SELECT v FROM t WHERE k = ?').all('b')).toEqual([{ v: 2 }]);
  });
});
