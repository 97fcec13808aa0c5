/**
 * Opens the embedded SQLite file (`<dataDir>/pipec.db`, WAL) shared by the Object Store, the event
 * queue and the scheduler ledger, creates the schema and registers the RE2-backed `pipec_regexp`.
 * Several processes may open the same file; SQLite's locking (busy_timeout) serializes writers.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { documentTooLarge } from '../json-safe.js';
import type { RegexTester } from '../query/regex.js';

export type SqliteDatabase = Database.Database;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS pipec_documents (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  store TEXT NOT NULL,
  id TEXT NOT NULL,
  doc BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  UNIQUE (store, id)
);
CREATE INDEX IF NOT EXISTS pipec_documents_store_seq ON pipec_documents (store, seq);
CREATE INDEX IF NOT EXISTS pipec_documents_expiry ON pipec_documents (store, expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS pipec_stores (
  store TEXT PRIMARY KEY,
  expire_after_ms INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS pipec_events (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  payload TEXT NOT NULL,
  headers TEXT NOT NULL,
  published_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS pipec_subscribers (
  subscriber TEXT NOT NULL,
  event TEXT NOT NULL,
  registered_at INTEGER NOT NULL,
  PRIMARY KEY (subscriber, event)
);
CREATE TABLE IF NOT EXISTS pipec_deliveries (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL,
  subscriber TEXT NOT NULL,
  event TEXT NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 0,
  lease_until INTEGER NOT NULL DEFAULT 0,
  last_error TEXT
);
-- A claim walks a subscriber's deliveries in order and stops after the first free ones (only the
-- leased ones at the head are skipped), rather than sorting every free delivery of a backlog.
CREATE INDEX IF NOT EXISTS pipec_deliveries_queue ON pipec_deliveries (subscriber, event, seq);
DROP INDEX IF EXISTS pipec_deliveries_claim;
CREATE INDEX IF NOT EXISTS pipec_deliveries_event ON pipec_deliveries (event_id);
CREATE TABLE IF NOT EXISTS pipec_dead_letters (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL,
  subscriber TEXT NOT NULL,
  event TEXT NOT NULL,
  payload TEXT NOT NULL,
  headers TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  last_error TEXT,
  dead_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS pipec_lock_ledger (
  key TEXT PRIMARY KEY,
  fired_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS pipec_schedule_state (
  schedule TEXT PRIMARY KEY,
  last_tick INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS pipec_watermarks (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS pipec_indexes (
  store TEXT NOT NULL,
  name TEXT NOT NULL,
  fields TEXT NOT NULL,
  is_unique INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (store, name)
);
`;

/**
 * `synchronous`: NORMAL (the default) keeps every commit across a crash of the process; FULL also
 * across a crash of the machine (power loss), at the cost of a disk flush per commit.
 */
export function openSqlite(
  file: string,
  regex: RegexTester,
  synchronous: 'normal' | 'full' = 'normal',
): SqliteDatabase {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  db.pragma(synchronous === 'full' ? 'synchronous = FULL' : 'synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // A find by an indexed field reads a few index and table pages; at a million documents (a file of
  // hundreds of MB) SQLite's default 2 MB page cache no longer holds the index's upper levels.
  // Memory-mapped reads use the OS page cache directly, and a 64 MB cache keeps the hot pages.
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 1073741824');
  db.function('pipec_regexp', { deterministic: true }, (pattern: unknown, flags: unknown, text: unknown) =>
    typeof pattern === 'string' &&
    typeof flags === 'string' &&
    typeof text === 'string' &&
    regex.test(pattern, flags, text)
      ? 1
      : 0,
  );
  // Raised inside a one-statement update (sqlite/store.ts): the 413 ends the statement, which undoes it.
  db.function('pipec_document_too_large', (size: unknown, max: unknown) => {
    throw documentTooLarge(Number(size), Number(max));
  });
  db.exec(SCHEMA);
  migrate(db);
  return db;
}

/**
 * Columns added after the first release, added to files made before them (SQLite has no
 * `ADD COLUMN IF NOT EXISTS`). Dead letters from before get an id and the reason "max-deliveries".
 */
function migrate(db: SqliteDatabase): void {
  addColumns(db, 'pipec_deliveries', { errors: "TEXT NOT NULL DEFAULT '[]'" });
  const added = addColumns(db, 'pipec_dead_letters', {
    id: 'TEXT',
    reason: "TEXT NOT NULL DEFAULT 'max-deliveries'",
    errors: "TEXT NOT NULL DEFAULT '[]'",
    published_at: 'INTEGER NOT NULL DEFAULT 0',
    replays: "TEXT NOT NULL DEFAULT '[]'",
  });
  if (added.includes('id')) db.exec('UPDATE pipec_dead_letters SET id = lower(hex(randomblob(12))) WHERE id IS NULL');
  db.exec('CREATE UNIQUE INDEX IF NOT EXISTS pipec_dead_letters_id ON pipec_dead_letters (id)');
  db.exec('CREATE INDEX IF NOT EXISTS pipec_dead_letters_event ON pipec_dead_letters (event, seq)');
}

function addColumns(db: SqliteDatabase, table: string, columns: Readonly<Record<string, string>>): string[] {
  const missing = (): string[] => {
    const existing = new Set(
      (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name),
    );
    return Object.keys(columns).filter((name) => !existing.has(name));
  };
  if (missing().length === 0) return [];
  // Under the write lock, looked at again: another process opening the file may have added them.
  return db
    .transaction(() => {
      const names = missing();
      for (const name of names) db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${columns[name]}`);
      return names;
    })
    .immediate();
}
export function sqliteFile(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  return join(dataDir, 'pipec.db');
}

/** True for better-sqlite3's unique-constraint failures. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * Prepared statements by SQL text, so that queries of the same shape (their values are always
 * bound parameters) are parsed and planned once, not on every call. At most `size` are kept; the
 * oldest goes first. SQLite re-prepares a kept statement by itself after a schema change (an
 * index created or dropped). `mode`: rows as objects, as arrays of column values (`raw`), or as
 * the first column's value alone (`pluck`).
 */
export function statementCache(
  db: SqliteDatabase,
  size = 256,
  mode: 'rows' | 'raw' | 'pluck' = 'rows',
): (sql: string) => Database.Statement {
  const statements = new Map<string, Database.Statement>();
  return (sql) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      if (mode === 'raw') statement.raw(true);
      else if (mode === 'pluck') statement.pluck(true);
      if (statements.size >= size) statements.delete(statements.keys().next().value as string);
      statements.set(sql, statement);
    }
    return statement;
  };
}
