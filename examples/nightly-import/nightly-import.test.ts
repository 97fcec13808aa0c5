/**
 * The nightly-import example end to end, built with the real CLI and run in process against a
 * real OpenSSH server (scripts/sftp-server.sh) and the real MariaDB, its schedule fired as the
 * scheduler fires it (`fireSchedule`): valid rows loaded in one transaction, rejected rows written
 * back to SFTP as a CSV, the file archived; a row the database refuses, a malformed CSV and an SFTP
 * server that is away each fail the night with a clear error, load nothing and leave the file in
 * the inbox; the service starts without its servers and /ready names the missing one.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildService, postJson, type BuiltService } from '../../test/e2e/in-process.js';
import { tempDir } from '../../test/e2e/service-process.js';
import { MYSQL_URL, serverAvailable } from '../../test/support/servers.js';
import { sftpTestServer, type SftpTestServer } from '../../test/support/sftp-server.js';
import { startTcpProxy } from '../../test/support/tcp-proxy.js';
import { run as sqlRun } from '../../runtime/connectors/sql/sql.js';
import { sqlTestContext } from '../../runtime/connectors/sql/test-support.js';
import type { Service } from '../../runtime/service/create-service.js';
import type { Json, JsonObject } from '../../runtime/types.js';

vi.setConfig({ testTimeout: 60_000 });

const mariaUp = await serverAvailable('MariaDB', MYSQL_URL, 3306);
const found = await sftpTestServer();
const sftp = 'skip' in found ? undefined : found;
if ('skip' in found) console.warn(`nightly-import example test skipped: ${found.skip}`);

const admin = sqlTestContext();
const maria = async (sql: string, params: Json[] = []): Promise<JsonObject> =>
  (await sqlRun({ account: 'admin', accountFields: { url: MYSQL_URL }, sql, params }, null, admin.ctx)) as JsonObject;

const HEADER = 'id,name,email,region,credit\n';

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const proxy = await startTcpProxy('127.0.0.1', 1);
  await proxy.close();
  return proxy.port;
}

describe.skipIf(!sftp || !mariaUp)('nightly-import against OpenSSH and MariaDB', () => {
  const srv = sftp as SftpTestServer;
  const base = `nightly-${process.pid}-${Date.now().toString(36)}`;
  const folder = (name: string): string => path.join(srv.root, base, name);
  const inboxFile = (): string => path.join(folder('inbox'), 'customers.csv');
  let built: BuiltService;
  let env: Record<string, string>;
  const services: Service[] = [];

  async function startService(extra: Record<string, string> = {}): Promise<Service> {
    const service = await built.runtime.createService(built.definition, {
      dataDir: path.join(tempDir('nightly-import-data'), 'data'),
      // Fired by the tests only (a run at 02:00 UTC must not add a tick of its own).
      scheduleTimers: false,
      env: { LOG_LEVEL: 'silent', ...env, ...extra },
    });
    services.push(service);
    await service.start();
    return service;
  }

  const customers = async (): Promise<Json> =>
    (await maria('SELECT id, name, email, region, credit FROM nightly_customers ORDER BY id'))['rows'] ?? [];

  beforeAll(async () => {
    built = await buildService([import.meta.dirname], 'nightly-import');
    for (const name of ['', 'inbox', 'rejected', 'archive'])
      execFileSync('install', ['-d', '-o', srv.username, folder(name)]);
    env = {
      NIGHTLY_IMPORT_SFTP_HOST: srv.host,
      NIGHTLY_IMPORT_SFTP_PORT: String(srv.port),
      NIGHTLY_IMPORT_SFTP_USER: srv.username,
      NIGHTLY_IMPORT_SFTP_PASSWORD: srv.password,
      NIGHTLY_IMPORT_SFTP_HOST_KEY: srv.hostKey,
      NIGHTLY_IMPORT_MARIADB_URL: MYSQL_URL,
      NIGHTLY_IMPORT_INBOX: `${base}/inbox`,
      NIGHTLY_IMPORT_REJECTED: `${base}/rejected`,
      NIGHTLY_IMPORT_ARCHIVE: `${base}/archive`,
    };
    await maria('DROP TABLE IF EXISTS nightly_customers');
    await maria('DROP TABLE IF EXISTS nightly_regions');
    const service = await startService();
    expect((await postJson(service, '/nightly-import/setup', {})).status).toBe(200);
  }, 300_000);

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop(1000)));
    await admin.connections.closeAll();
    await srv?.stop();
  });

  it('loads the valid rows, writes the rejected ones back as a CSV and archives the file', async () => {
    const csv = `${HEADER}1,Ana,ana@example.com,PT,10.5\n2,Bo,not-an-e-mail,BR,3\n3,"Caio, Jr.",caio@example.com,BR,0\n4,Duda,duda@example.com\n5,Eva,eva@example.com,DE,7\n`;
    fs.writeFileSync(inboxFile(), csv);
    const service = await startService();
    const outcome = await service.fireSchedule('nightly-import');
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    const result = (outcome as { result: JsonObject }).result;
    expect(result).toMatchObject({ file: `${base}/inbox/customers.csv`, loaded: 3, rejected: 2 });
    const archived = String(result['archived']);
    expect(archived).toMatch(new RegExp(`^${base}/archive/\\d{4}-\\d{2}-\\d{2}-customers\\.csv$`));

    expect(await customers()).toEqual([
      { id: 1, name: 'Ana', email: 'ana@example.com', region: 'PT', credit: '10.50' },
      { id: 3, name: 'Caio, Jr.', email: 'caio@example.com', region: 'BR', credit: '0.00' },
      { id: 5, name: 'Eva', email: 'eva@example.com', region: 'DE', credit: '7.00' },
    ]);
    // The file left the inbox for the archive, unchanged.
    expect(fs.existsSync(inboxFile())).toBe(false);
    expect(fs.readFileSync(path.join(srv.root, archived), 'utf8')).toBe(csv);
    // The rejected rows, back on the partner's server with their line and reason.
    const stamp = path.basename(archived).slice(0, 10);
    const rejected = fs
      .readFileSync(path.join(folder('rejected'), `${stamp}-customers.csv`), 'utf8')
      .trim()
      .split('\n');
    expect(rejected[0]).toBe('line,reason,id,name,email,region,credit');
    expect(rejected[1]).toMatch(/^3,.*email.*,2,Bo,not-an-e-mail,BR,3$/);
    expect(rejected[2]).toMatch(/^5,.*,,,,,$/); // the wrong field count: the record is a list, no columns
    expect(rejected).toHaveLength(3);

    // No file tonight: 404 NOT_FOUND, nothing else happens.
    const again = await service.fireSchedule('nightly-import');
    expect(again).toMatchObject({
      ok: false,
      error: { code: 404, step: 'file', message: expect.stringMatching(/no such file/) },
    });
  });

  it('loads nothing when the database refuses a row, and leaves the file in the inbox', async () => {
    const before = await customers();
    const csv = `${HEADER}10,Fabi,fabi@example.com,PT,1\n11,Gil,gil@example.com,XX,2\n`;
    fs.writeFileSync(inboxFile(), csv);
    const service = await startService();
    const outcome = await service.fireSchedule('nightly-import');
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        code: 409,
        step: 'load',
        sqlState: '23000',
        message: expect.stringMatching(/foreign key constraint fails/),
      },
    });
    expect(await customers()).toEqual(before); // row 10 was rolled back with row 11
    expect(fs.readFileSync(inboxFile(), 'utf8')).toBe(csv);
    expect(fs.readdirSync(folder('archive'))).toHaveLength(1);
    fs.rmSync(inboxFile());
  });

  it('loads nothing from a malformed CSV, says where, and leaves the file in the inbox', async () => {
    const before = await customers();
    const csv = `${HEADER}20,Hugo,hugo@example.com,PT,1\n21,"Iris,iris@example.com,PT,2\n`;
    fs.writeFileSync(inboxFile(), csv);
    const service = await startService();
    const outcome = await service.fireSchedule('nightly-import');
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 400, step: 'rows', line: 3, column: 2, message: expect.stringMatching(/^Malformed CSV/) },
    });
    expect(await customers()).toEqual(before);
    expect(fs.readFileSync(inboxFile(), 'utf8')).toBe(csv);
    fs.rmSync(inboxFile());
  });

  it('starts without its SFTP server, fails the night with 503, and /ready names the server', async () => {
    const before = await customers();
    fs.writeFileSync(inboxFile(), `${HEADER}30,Jo,jo@example.com,PT,1\n`);
    const service = await startService({ NIGHTLY_IMPORT_SFTP_PORT: String(await closedPort()) });
    expect((await service.app.request('/ready')).status).toBe(200); // nothing connects at start
    const outcome = await service.fireSchedule('nightly-import');
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 503, step: 'file', message: expect.stringMatching(/cannot connect/) },
    });
    const ready = await service.app.request('/ready');
    expect(ready.status).toBe(503);
    expect(await ready.text()).toContain('sftp:nightly-import-sftp');
    expect(await customers()).toEqual(before);
    expect(fs.existsSync(inboxFile())).toBe(true);
    fs.rmSync(inboxFile());
  });
});
