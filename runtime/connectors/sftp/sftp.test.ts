/**
 * The `sftp` connector against a real OpenSSH server (scripts/sftp-server.sh, started by
 * test/support/sftp-server.ts or by .ci/run): every operation, password and key login, host-key
 * checking, the errors a pipeline routes on, a broken connection reopened, and a 100 MB file
 * streamed both ways by a separate process whose peak memory stays far below the file's size.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PipeError } from '../../errors.js';
import { ConnectionRegistry } from '../../service/connections.js';
import { CircuitBreakers } from '../../policies/breakers.js';
import { createLogger } from '../../service/logging.js';
import { fakeContext } from '../../service/test-support/fake-context.js';
import type { ExecutionContext, Json, JsonObject } from '../../types.js';
import { sftpTestServer, type SftpTestServer } from '../../../test/support/sftp-server.js';
import { startTcpProxy } from '../../../test/support/tcp-proxy.js';
import { fingerprintOf, hostKeyMatches, parseHostKeys } from './session.js';
import { run, type SftpParams } from './sftp.js';

const found = await sftpTestServer();
const server = 'skip' in found ? undefined : found;
if ('skip' in found) console.warn(`sftp tests skipped: ${found.skip}`);

let connections: ConnectionRegistry;
let workDir: string;
let ctx: ExecutionContext;
let folder: string;

function contextWith(registry: ConnectionRegistry, dir: string): ExecutionContext {
  const { ctx: base } = fakeContext({ workDir: dir });
  return { ...base, services: { ...base.services, connections: registry } };
}

function sftp(
  params: Partial<SftpParams> & { operation: string },
  fields: Record<string, string> = (server as SftpTestServer).account(),
  c = ctx,
): Promise<JsonObject> {
  return run({ account: 'partner', accountFields: fields, ...params } as SftpParams, null, c) as Promise<JsonObject>;
}

async function failure(work: Promise<unknown>): Promise<PipeError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PipeError);
  return err as PipeError;
}

describe.skipIf(!server)('sftp against OpenSSH', () => {
  const srv = server as SftpTestServer;
  let n = 0;

  beforeAll(() => {
    connections = new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' }));
  });
  afterAll(async () => {
    await connections?.closeAll();
    await srv.stop();
  });
  beforeEach(() => {
    workDir = mkdtempSync(join(tmpdir(), 'sftp-work-'));
    ctx = contextWith(connections, workDir);
    folder = `t${process.pid}-${++n}`;
  });

  /** A remote folder of the test's own (made on the server's disk, owned by its user) and a file to send. */
  function mkdir(): void {
    execFileSync('install', ['-d', '-o', srv.username, join(srv.root, folder)]);
    writeFileSync(join(workDir, 'seed.txt'), 'seed');
  }

  it('puts an uploaded file, lists, gets it back into the work folder, moves and deletes it', async () => {
    mkdir();
    const upload = join(workDir, 'b7c1.csv');
    writeFileSync(upload, 'id;name\n1;Ada\n');
    const file = {
      fileName: 'b7c1.csv',
      originalFileName: 'orders.csv',
      param: 'file',
      contentType: 'text/csv',
      size: 14,
      path: upload,
    };

    expect(await sftp({ operation: 'put', path: `${folder}/orders.csv`, file })).toEqual({
      path: `${folder}/orders.csv`,
      size: 14,
    });
    expect(readFileSync(join(srv.root, folder, 'orders.csv'), 'utf8')).toBe('id;name\n1;Ada\n');
    // Nothing of the temporary name is left beside it.
    expect(readdirSync(join(srv.root, folder)).sort()).toEqual(['orders.csv']);

    const listing = await sftp({ operation: 'list', path: folder });
    expect(listing['path']).toBe(folder);
    expect(listing['entries']).toEqual([
      { name: 'orders.csv', type: 'file', size: 14, modifiedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    ]);

    const got = await sftp({ operation: 'get', path: `${folder}/orders.csv` });
    expect(got).toMatchObject({
      originalFileName: 'orders.csv',
      contentType: 'text/csv',
      size: 14,
      remotePath: `${folder}/orders.csv`,
    });
    expect(String(got['path']).startsWith(workDir)).toBe(true);
    expect(readFileSync(String(got['path']), 'utf8')).toBe('id;name\n1;Ada\n');

    // The file a get produced is a file a put takes.
    expect(await sftp({ operation: 'put', path: `${folder}/copy.csv`, file: got as Json })).toEqual({
      path: `${folder}/copy.csv`,
      size: 14,
    });

    expect(await sftp({ operation: 'move', path: `${folder}/orders.csv`, to: `${folder}/done.csv` })).toEqual({
      from: `${folder}/orders.csv`,
      to: `${folder}/done.csv`,
    });
    expect(readdirSync(join(srv.root, folder)).sort()).toEqual(['copy.csv', 'done.csv']);
    expect(await sftp({ operation: 'delete', path: `${folder}/done.csv` })).toEqual({
      path: `${folder}/done.csv`,
      deleted: true,
    });
    expect(readdirSync(join(srv.root, folder))).toEqual(['copy.csv']);
  });

  it('refuses to overwrite when told so, and says what is missing', async () => {
    mkdir();
    const file = join(workDir, 'seed.txt');
    await sftp({ operation: 'put', path: `${folder}/a.txt`, file });
    await sftp({ operation: 'put', path: `${folder}/b.txt`, file });
    expect(await failure(sftp({ operation: 'put', path: `${folder}/a.txt`, file, overwrite: false }))).toMatchObject({
      kind: 'ALREADY_EXISTS',
      code: 409,
    });
    expect(await failure(sftp({ operation: 'move', path: `${folder}/a.txt`, to: `${folder}/b.txt` }))).toMatchObject({
      kind: 'ALREADY_EXISTS',
      code: 409,
    });
    await sftp({ operation: 'move', path: `${folder}/a.txt`, to: `${folder}/b.txt`, overwrite: true });
    expect(readdirSync(join(srv.root, folder))).toEqual(['b.txt']);

    expect(await failure(sftp({ operation: 'get', path: `${folder}/missing.txt` }))).toMatchObject({
      kind: 'NOT_FOUND',
      code: 404,
    });
    expect(await failure(sftp({ operation: 'delete', path: `${folder}/missing.txt` }))).toMatchObject({
      kind: 'NOT_FOUND',
      code: 404,
    });
    expect(await failure(sftp({ operation: 'list', path: `${folder}/nowhere` }))).toMatchObject({
      kind: 'NOT_FOUND',
      code: 404,
    });
    expect(await failure(sftp({ operation: 'move', path: `${folder}/b.txt` }))).toMatchObject({
      kind: 'INVALID_PARAMETER',
      code: 400,
    });
    expect(await failure(sftp({ operation: 'put', path: `${folder}/c.txt` }))).toMatchObject({
      kind: 'INVALID_PARAMETER',
      code: 400,
    });
    expect(await failure(sftp({ operation: 'put', path: '/etc/pipec-test.txt', file }))).toMatchObject({
      kind: 'PERMISSION_DENIED',
      code: 403,
    });
  });

  it("sends only files of the execution's work folder", async () => {
    mkdir();
    const outside = join(mkdtempSync(join(tmpdir(), 'sftp-outside-')), 'secret.txt');
    writeFileSync(outside, 'secret');
    const refused: Array<[unknown, { kind: string; code: number }]> = [
      [outside, { kind: 'FILE_FORBIDDEN', code: 403 }],
      [{ path: outside }, { kind: 'FILE_FORBIDDEN', code: 403 }],
      ['../../../../etc/passwd', { kind: 'FILE_FORBIDDEN', code: 403 }],
      [{ path: `${workDir}/../x` }, { kind: 'FILE_NOT_FOUND', code: 404 }],
      [{ name: 'no path' }, { kind: 'BAD_FILE_REFERENCE', code: 400 }],
    ];
    for (const [file, expected] of refused) {
      const err = await failure(sftp({ operation: 'put', path: `${folder}/leak.txt`, file: file as Json }));
      expect(err, JSON.stringify(file)).toMatchObject(expected);
    }
    expect(readdirSync(join(srv.root, folder))).toEqual([]);
  });

  it('cuts a get off at max-size and keeps nothing of it', async () => {
    mkdir();
    writeFileSync(join(workDir, 'big.bin'), Buffer.alloc(4096, 7));
    await sftp({ operation: 'put', path: `${folder}/big.bin`, file: join(workDir, 'big.bin') });
    rmSync(join(workDir, 'big.bin'));
    rmSync(join(workDir, 'seed.txt'));
    expect(await failure(sftp({ operation: 'get', path: `${folder}/big.bin`, 'max-size': 4095 }))).toMatchObject({
      kind: 'FILE_TOO_LARGE',
      code: 413,
    });
    expect(readdirSync(workDir)).toEqual([]);
    expect((await sftp({ operation: 'get', path: `${folder}/big.bin`, 'max-size': 4096 }))['size']).toBe(4096);
  });

  it('logs in with a private key, and with the host key given as its SHA256 fingerprint', async () => {
    const own = new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' }));
    try {
      const fields = srv.account({ password: '', 'private-key': srv.privateKey, 'host-key': srv.hostFingerprint });
      delete (fields as Record<string, string | undefined>)['password'];
      const listing = await sftp({ operation: 'list', path: '.' }, fields, contextWith(own, workDir));
      expect(Array.isArray(listing['entries'])).toBe(true);
    } finally {
      await own.closeAll();
    }
  });

  it("refuses a server whose host key is not the account's, before logging in", async () => {
    const own = new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' }));
    try {
      const err = await failure(
        sftp(
          { operation: 'list', path: '.' },
          srv.account({ 'host-key': srv.otherPublicKey }),
          contextWith(own, workDir),
        ),
      );
      expect(err).toMatchObject({ kind: 'HOST_KEY_MISMATCH', code: 502 });
      expect(err.message).toContain(srv.hostFingerprint);
      expect(own.notReady()).toEqual(['sftp:partner']);
    } finally {
      await own.closeAll();
    }
  });

  it('says AUTHENTICATION_FAILED for a wrong password or an unknown key, never showing the secret', async () => {
    for (const fields of [
      srv.account({ password: 'wrong-password-123' }),
      { ...srv.account({ 'private-key': srv.otherPrivateKey }), password: '' },
    ]) {
      if (fields.password === '') delete (fields as Record<string, string | undefined>)['password'];
      const own = new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' }));
      try {
        const err = await failure(sftp({ operation: 'list', path: '.' }, fields, contextWith(own, workDir)));
        expect(err).toMatchObject({ kind: 'AUTHENTICATION_FAILED', code: 502 });
        expect(err.message).not.toContain('wrong-password-123');
      } finally {
        await own.closeAll();
      }
    }
  });

  it('says CONNECTION_REFUSED when nothing listens, and ACCOUNT_CONFIGURATION for an account it cannot use', async () => {
    const proxy = await startTcpProxy(srv.host, srv.port);
    const port = proxy.port;
    await proxy.close(); // nothing listens there any more
    const own = new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' }));
    const err = await failure(
      sftp({ operation: 'list', path: '.' }, srv.account({ port: String(port) }), contextWith(own, workDir)),
    );
    expect(err).toMatchObject({ kind: 'CONNECTION_REFUSED', code: 503 });
    const noHostKey = srv.account();
    delete (noHostKey as Record<string, string | undefined>)['host-key'];
    expect(await failure(sftp({ operation: 'list', path: '.' }, noHostKey, contextWith(own, workDir)))).toMatchObject({
      kind: 'ACCOUNT_CONFIGURATION',
      code: 500,
    });
    await own.closeAll();
  });

  it('says TIMEOUT when the server does not complete the login in time, SFTP_ERROR for other refusals', async () => {
    const silent = createServer(() => undefined); // accepts, never says a word
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const own = new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' }));
    try {
      const port = String((silent.address() as AddressInfo).port);
      const err = await failure(
        sftp(
          { operation: 'list', path: '.', 'connect-timeout': 300 },
          srv.account({ port }),
          contextWith(own, workDir),
        ),
      );
      expect(err).toMatchObject({ kind: 'TIMEOUT', code: 504 });
    } finally {
      await own.closeAll();
      silent.close();
    }
    mkdir();
    // delete removes files: the server refuses a folder with a plain failure (EISDIR).
    expect(await failure(sftp({ operation: 'delete', path: folder }))).toMatchObject({ kind: 'SFTP_ERROR', code: 502 });
  });

  it("opens the account's circuit after repeated refusals: CIRCUIT_OPEN without calling", async () => {
    const own = new ConnectionRegistry(
      createLogger({ level: 'silent', service: 'test' }),
      new CircuitBreakers({ failures: 2, halfOpenAfterMs: 60_000 }),
    );
    const closed = await startTcpProxy(srv.host, srv.port);
    await closed.close();
    const fields = srv.account({ port: String(closed.port) });
    try {
      for (let i = 0; i < 2; i++)
        expect((await failure(sftp({ operation: 'list', path: '.' }, fields, contextWith(own, workDir)))).kind).toBe(
          'CONNECTION_REFUSED',
        );
      expect(await failure(sftp({ operation: 'list', path: '.' }, fields, contextWith(own, workDir)))).toMatchObject({
        kind: 'CIRCUIT_OPEN',
        code: 503,
      });
      // Answers of a server that is there do not count: a missing file leaves a circuit closed.
      const healthy = new ConnectionRegistry(
        createLogger({ level: 'silent', service: 'test' }),
        new CircuitBreakers({ failures: 1, halfOpenAfterMs: 60_000 }),
      );
      for (let i = 0; i < 2; i++) {
        expect(
          (
            await failure(
              sftp({ operation: 'get', path: 'no-such-file' }, srv.account(), contextWith(healthy, workDir)),
            )
          ).kind,
        ).toBe('NOT_FOUND');
      }
      await healthy.closeAll();
    } finally {
      await own.closeAll();
    }
  });

  it('reports a broken connection, and opens a new one on the next use', async () => {
    const proxy = await startTcpProxy(srv.host, srv.port);
    const own = new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' }));
    const c = contextWith(own, workDir);
    const fields = srv.account({ port: String(proxy.port) });
    try {
      await sftp({ operation: 'list', path: '.' }, fields, c);
      proxy.cut();
      const err = await failure(sftp({ operation: 'list', path: '.' }, fields, c));
      expect(['UNAVAILABLE', 'CONNECTION_REFUSED']).toContain(err.kind);
      expect(err.code).toBe(503);
      expect(own.notReady()).toEqual(['sftp:partner']);
      proxy.restore();
      await sftp({ operation: 'list', path: '.' }, fields, c);
      expect(own.notReady()).toEqual([]);
    } finally {
      await own.closeAll();
      await proxy.close();
    }
  });

  it('streams a 100 MB file both ways with memory far below its size', async () => {
    mkdir();
    const child = fileURLToPath(new URL('./test-support-stream.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', child], {
      env: { ...process.env, SFTP_FIELDS: JSON.stringify(srv.account()), SFTP_FOLDER: folder },
      timeout: 600_000,
    });
    const result = JSON.parse(stdout.trim().split('\n').pop() as string) as {
      baselineMb: number;
      peakMb: number;
      size: number;
      same: boolean;
    };
    expect(result.size).toBe(100 * 1024 * 1024);
    expect(result.same).toBe(true);
    // Buffering the file whole would add at least 100 MB; streaming adds a few windows of 2 MB.
    expect(result.peakMb - result.baselineMb).toBeLessThan(48);
    expect(existsSync(join(srv.root, folder, 'big.bin'))).toBe(true);
  }, 600_000);
});

describe('host keys', () => {
  const blob = Buffer.from('AAAAC3NzaC1lZDI1NTE5AAAAIIbwqfaQAOPuO5tjfcuthasuQWxuYsglF5T4s0EoOunO', 'base64');
  it('matches a key line, a bare blob or a fingerprint, and nothing else', () => {
    const fp = `SHA256:${fingerprintOf(blob)}`;
    for (const text of [
      `ssh-ed25519 ${blob.toString('base64')} host`,
      blob.toString('base64'),
      fp,
      `SHA256:xxxx, ${fp}`,
    ]) {
      expect(hostKeyMatches(blob, parseHostKeys(text)), text).toBe(true);
    }
    const other = Buffer.from(blob);
    other.writeUInt8(other.readUInt8(other.length - 1) ^ 1, other.length - 1);
    expect(hostKeyMatches(other, parseHostKeys(fp))).toBe(false);
    expect(hostKeyMatches(other, parseHostKeys(`ssh-ed25519 ${blob.toString('base64')}`))).toBe(false);
    expect(parseHostKeys('not a key!')).toEqual([]);
  });
});
