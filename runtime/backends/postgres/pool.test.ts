/**
 * PostgreSQL settings from the environment (pool size, TLS) and the classification of connection
 * failures; against the real server, a TLS requirement it cannot meet (the test server has no TLS)
 * leaves the store unavailable instead of silently connecting in the clear.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { IN_CI, PG_URL, reachable } from '../../../test/support/servers.js';
import { PipeError } from '../../errors.js';
import { createBackends } from '../index.js';
import { startTcpProxy } from '../../../test/support/tcp-proxy.js';
import { createPgPool, isConnectionError, pgPoolOptionsFromEnv } from './pool.js';

const pgUp = await reachable(PG_URL, 5432);
if (IN_CI && !pgUp) throw new Error(`CI=true requires PostgreSQL at ${PG_URL}`);

describe('PostgreSQL settings from the environment', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-pg-tls-'));
  const ca = join(dir, 'ca.pem');
  writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the pool size, 10 by default, and refuses nonsense', () => {
    expect(pgPoolOptionsFromEnv('postgres://h/db', {}).max).toBe(10);
    expect(pgPoolOptionsFromEnv('postgres://h/db', { PIPEC_STORE_POOL_SIZE: '25' }).max).toBe(25);
    expect(() => pgPoolOptionsFromEnv('postgres://h/db', { PIPEC_STORE_POOL_SIZE: '0' })).toThrow(
      /PIPEC_STORE_POOL_SIZE/,
    );
    expect(() => pgPoolOptionsFromEnv('postgres://h/db', { PIPEC_STORE_POOL_SIZE: 'ten' })).toThrow(
      /PIPEC_STORE_POOL_SIZE/,
    );
  });

  it('maps the TLS modes to verification settings, the environment over the URL', () => {
    expect(pgPoolOptionsFromEnv('postgres://h/db?sslmode=require', {}).ssl).toBeUndefined();
    expect(pgPoolOptionsFromEnv('postgres://h/db?sslmode=require', { PIPEC_STORE_TLS: 'disable' })).toEqual({
      connectionString: 'postgres://h/db',
      max: 10,
      ssl: false,
    });
    expect(pgPoolOptionsFromEnv('postgres://h/db', { PIPEC_STORE_TLS: 'require' }).ssl).toEqual({
      rejectUnauthorized: false,
    });
    const verifyCa = pgPoolOptionsFromEnv('postgres://h/db', {
      PIPEC_STORE_TLS: 'verify-ca',
      PIPEC_STORE_TLS_CA: ca,
    }).ssl;
    expect(verifyCa).toMatchObject({ rejectUnauthorized: true, ca: expect.stringContaining('BEGIN CERTIFICATE') });
    expect(typeof (verifyCa as { checkServerIdentity?: unknown }).checkServerIdentity).toBe('function');
    // A CA alone means: verify everything.
    const full = pgPoolOptionsFromEnv('postgres://h/db?sslmode=disable', { PIPEC_STORE_TLS_CA: ca });
    expect(full).toMatchObject({ connectionString: 'postgres://h/db', ssl: { rejectUnauthorized: true } });
    expect((full.ssl as { checkServerIdentity?: unknown }).checkServerIdentity).toBeUndefined();
    expect(() => pgPoolOptionsFromEnv('postgres://h/db', { PIPEC_STORE_TLS: 'prefer' })).toThrow(/PIPEC_STORE_TLS/);
    expect(() => pgPoolOptionsFromEnv('postgres://h/db', { PIPEC_STORE_TLS_CERT: ca })).toThrow(/go together/);
    expect(() => pgPoolOptionsFromEnv('postgres://h/db', { PIPEC_STORE_TLS_CA: join(dir, 'missing.pem') })).toThrow(
      /ENOENT/,
    );
  });

  it('tells connection failures from query errors', () => {
    expect(
      isConnectionError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })),
    ).toBe(true);
    expect(
      isConnectionError(
        Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      ),
    ).toBe(true);
    expect(isConnectionError(Object.assign(new Error('could not connect'), { code: '08006' }))).toBe(true);
    expect(isConnectionError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionError(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(
      isConnectionError(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })),
    ).toBe(false);
    expect(isConnectionError(new PipeError('Connection terminated', { code: 400 }))).toBe(false);
  });

  it.runIf(pgUp || IN_CI)('does not fall back to plain text when TLS is required and the server has none', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pipec-pg-tls-data-'));
    try {
      const open = (env: NodeJS.ProcessEnv) =>
        createBackends({
          dataDir,
          env: { PIPEC_STORE: PG_URL, ...env },
          clock: { now: () => Date.now() },
          logger: pino({ level: 'silent' }),
          startWaitMs: 3000,
        });
      const secure = await open({ PIPEC_STORE_TLS: 'require' });
      try {
        expect(secure.availability.unavailable().map((u) => u.backend)).toEqual(['postgres']);
        await expect(secure.store.find('tls_probe', {})).rejects.toMatchObject({
          code: 503,
          kind: 'BACKEND_UNAVAILABLE',
        });
      } finally {
        await secure.close();
      }
      const plain = await open({ PIPEC_STORE_TLS: 'disable', PIPEC_STORE_POOL_SIZE: '2' });
      try {
        expect(plain.availability.unavailable()).toEqual([]);
        expect(await plain.store.find('tls_probe', {})).toEqual([]);
      } finally {
        await plain.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it.runIf(pgUp || IN_CI)(
    'survives a connection cut while a client is checked out, and the pool recovers',
    async () => {
      const target = new URL(PG_URL);
      const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
      const reported: Error[] = [];
      const pool = createPgPool({
        connectionString: proxy.url(PG_URL),
        max: 2,
        onIdleError: (err) => reported.push(err),
      });
      try {
        const client = await pool.connect();
        await client.query('SELECT 1');
        const ended = new Promise((resolve) => client.once('end', resolve));
        // Without a listener of its own, the checked-out client's 'error' would be an uncaught
        // exception here (vitest fails the run on one).
        proxy.cut();
        await ended;
        expect(reported.length).toBeGreaterThan(0);
        expect(reported.every((err) => isConnectionError(err))).toBe(true);
        await expect(client.query('SELECT 1')).rejects.toSatisfy(isConnectionError);
        client.release();
        proxy.restore();
        expect((await pool.query<{ n: number }>('SELECT 2 AS n')).rows).toEqual([{ n: 2 }]);
      } finally {
        await pool.end();
        await proxy.close();
      }
    },
  );
});
