/**
 * The pure parts of delivery reliability: backoff with jitter, the availability record (one log
 * line per change), the guard that fails fast with 503, how failures are judged (retry or
 * dead-letter), attempt histories, the permanent/transient classification of PipeError, and the
 * migration of an embedded file made before dead letters kept their attempts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { isPermanentStatus, PipeError } from '../errors.js';
import { Availability, Dependency } from './availability.js';
import { Backoff, backoffDelay } from './backoff.js';
import { appendAttempt, completeAttempts, deadLetterId, judgeFailure, NO_ANSWER } from './broker-input.js';
import { guarded } from './guard.js';
import { createRegexTester } from './query/regex.js';
import { createSqliteBroker } from './sqlite/broker.js';
import { openSqlite } from './sqlite/database.js';

function recorder(): { logger: pino.Logger; messages: () => string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return {
    logger: pino({ level: 'info' }, sink),
    messages: () => lines.map((l) => String((JSON.parse(l) as { msg: string }).msg)),
  };
}

describe('backoff', () => {
  const policy = { initialMs: 1000, maxMs: 8000, multiplier: 2 };
  it('doubles up to the cap, each wait drawn from the upper half of its step', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(policy, n, () => 0))).toEqual([
      500, 1000, 2000, 4000, 4000, 4000,
    ]);
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(policy, n, () => 1))).toEqual([
      1000, 2000, 4000, 8000, 8000, 8000,
    ]);
    expect(backoffDelay({ initialMs: 300, maxMs: 300, multiplier: 1 }, 50, () => 0.5)).toBe(225);
  });
  it('starts over after a success', () => {
    const b = new Backoff(policy, () => 1);
    expect([b.next(), b.next(), b.next()]).toEqual([1000, 2000, 4000]);
    b.reset();
    expect(b.next()).toBe(1000);
  });
});

describe('availability', () => {
  it('logs one line when a backend goes away and one when it is back, however many failures between', async () => {
    const { logger, messages } = recorder();
    const availability = new Availability();
    const nats = availability.add(new Dependency('nats', logger));
    nats.restored();
    expect(availability.unavailable()).toEqual([]);
    for (let i = 0; i < 20; i++) nats.down(`attempt ${i} refused`);
    expect(availability.unavailable()).toEqual([{ backend: 'nats', reason: 'attempt 19 refused' }]);
    const waiting = nats.whenUp();
    nats.restored();
    nats.restored();
    await waiting;
    expect(messages()).toEqual([
      'backend connected: nats',
      'backend unavailable: nats; retrying until it is back',
      'backend available again: nats',
    ]);
  });

  it('fails calls at once with 503 while away, and turns connection errors into 503', async () => {
    const { logger } = recorder();
    const db = new Dependency('postgres', logger);
    db.restored();
    let calls = 0;
    const lost: unknown[] = [];
    const target = {
      async read(fail: 'network' | 'query' | null): Promise<string> {
        calls += 1;
        if (fail === 'network') throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        if (fail === 'query') throw new PipeError('bad query', { code: 400 });
        return 'ok';
      },
    };
    const store = guarded(
      target,
      db,
      (e) => (e as { code?: unknown }).code === 'ECONNREFUSED',
      (e) => {
        lost.push(e);
        db.down('refused');
      },
    );
    expect(await store.read(null)).toBe('ok');
    await expect(store.read('query')).rejects.toMatchObject({ code: 400 });
    await expect(store.read('network')).rejects.toMatchObject({
      code: 503,
      kind: 'BACKEND_UNAVAILABLE',
      details: { backend: 'postgres', retryAfter: 5 },
    });
    expect(lost).toHaveLength(1);
    const before = calls;
    await expect(store.read(null)).rejects.toMatchObject({ code: 503 });
    expect(calls).toBe(before);
  });
});

describe('judging a failed delivery', () => {
  it('dead-letters permanent failures at once and retries the rest', () => {
    expect(judgeFailure(new PipeError('not found', { code: 404 }))).toEqual({
      text: 'not found',
      deadLetterNow: 'permanent-error',
    });
    expect(judgeFailure(new PipeError('slow down', { code: 429 })).deadLetterNow).toBeNull();
    expect(judgeFailure(new PipeError('down', { code: 503 })).deadLetterNow).toBeNull();
    expect(judgeFailure(new Error('boom')).deadLetterNow).toBeNull();
    expect(judgeFailure({ permanent: true, deadLetterReason: 'expired', message: 'old' }).deadLetterNow).toBe(
      'expired',
    );
    expect(judgeFailure('x'.repeat(2000)).text).toHaveLength(500);
  });

  it('classifies statuses: 4xx permanent except 408, 425, 429; 5xx transient; explicit wins', () => {
    expect([400, 401, 404, 409, 413, 422].every(isPermanentStatus)).toBe(true);
    expect([408, 425, 429, 500, 502, 503, 504].some(isPermanentStatus)).toBe(false);
    expect(new PipeError('x', { code: 500, permanent: true }).permanent).toBe(true);
    expect(new PipeError('x', { code: 400, permanent: false }).permanent).toBe(false);
    expect(new PipeError('x').permanent).toBe(false);
  });

  it('keeps attempt histories complete and bounded', () => {
    expect(completeAttempts([{ attempt: 2, at: 5, error: 'b' }], 3)).toEqual([
      { attempt: 1, at: 0, error: NO_ANSWER },
      { attempt: 2, at: 5, error: 'b' },
      { attempt: 3, at: 0, error: NO_ANSWER },
    ]);
    let history = completeAttempts([], 0);
    for (let n = 1; n <= 40; n++) history = appendAttempt(history, { attempt: n, at: n, error: `e${n}` });
    expect(history.map((a) => a.attempt)).toEqual([1, 2, 3, ...Array.from({ length: 12 }, (_, i) => 29 + i)]);
    expect(deadLetterId('s', 'e1')).toMatch(/^[0-9a-f]{24}$/);
    expect(deadLetterId('s', 'e1')).not.toBe(deadLetterId('s', 'e2'));
  });
});

describe('an embedded file from before dead letters kept their attempts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-migrate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is migrated in place: old dead letters get an id and stay readable', async () => {
    const file = join(dir, 'pipec.db');
    const old = new Database(file);
    old.exec(`
      CREATE TABLE pipec_deliveries (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL, subscriber TEXT NOT NULL, event TEXT NOT NULL,
        attempt INTEGER NOT NULL DEFAULT 0, lease_until INTEGER NOT NULL DEFAULT 0, last_error TEXT);
      CREATE TABLE pipec_dead_letters (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL, subscriber TEXT NOT NULL, event TEXT NOT NULL,
        payload TEXT NOT NULL, headers TEXT NOT NULL, attempts INTEGER NOT NULL, last_error TEXT, dead_at INTEGER NOT NULL);
      INSERT INTO pipec_dead_letters (event_id, subscriber, event, payload, headers, attempts, last_error, dead_at)
        VALUES ('e-1', 'sub', 'ev', '{"a":1}', '{}', 3, 'always fails', 42);
    `);
    old.close();
    const db = openSqlite(file, createRegexTester());
    const broker = createSqliteBroker({ db, clock: { now: () => 1 }, logger: pino({ level: 'silent' }) });
    const [letter] = await broker.deadLetters.list();
    expect(letter).toMatchObject({
      event: 'ev',
      subscriber: 'sub',
      reason: 'max-deliveries',
      attemptCount: 3,
      deadAt: 42,
    });
    expect(letter?.id).toMatch(/^[0-9a-f]{24}$/);
    expect(await broker.deadLetters.get(String(letter?.id))).toMatchObject({
      payload: { a: 1 },
      attempts: [],
      replays: [],
    });
    await broker.close();
    db.close();
    // Opening it again changes nothing.
    const again = openSqlite(file, createRegexTester());
    expect((again.prepare('SELECT count(*) AS n FROM pipec_dead_letters').get() as { n: number }).n).toBe(1);
    again.close();
  });
});

describe('PIPEC_SQLITE_SYNCHRONOUS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-sync-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('flushes every commit to disk with full, keeps WAL NORMAL by default, refuses anything else', async () => {
    const { createBackends } = await import('./index.js');
    const normal = openSqlite(join(dir, 'a.db'), createRegexTester());
    const full = openSqlite(join(dir, 'b.db'), createRegexTester(), 'full');
    expect([normal.pragma('synchronous', { simple: true }), full.pragma('synchronous', { simple: true })]).toEqual([
      1, 2,
    ]);
    normal.close();
    full.close();
    const open = (value: string) =>
      createBackends({
        dataDir: dir,
        env: { PIPEC_SQLITE_SYNCHRONOUS: value },
        clock: { now: () => 0 },
        logger: pino({ level: 'silent' }),
      });
    await expect(open('sometimes')).rejects.toThrow(/PIPEC_SQLITE_SYNCHRONOUS/);
    await (await open('full')).close();
  });
});
