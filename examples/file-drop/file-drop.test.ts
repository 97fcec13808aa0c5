/**
 * End to end: the file-drop example built with the real CLI and served on 127.0.0.1, against a
 * real OpenSSH server (scripts/sftp-server.sh) and a real SMTP server process: an upload over HTTP
 * lands on SFTP and arrives as an e-mail attachment; the drop folder is listed; a wrong host key
 * and servers that are away are clear errors while the service keeps serving.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../../runtime/service/create-service.js';
import { buildService, type BuiltService } from '../../test/e2e/in-process.js';
import { REPO_ROOT, tempDir } from '../../test/e2e/service-process.js';
import { sftpTestServer, type SftpTestServer } from '../../test/support/sftp-server.js';
import { startSmtpTestServer, type SmtpTestServer } from '../../test/support/smtp-server.js';
import { startTcpProxy } from '../../test/support/tcp-proxy.js';

const EXAMPLE = path.join(REPO_ROOT, 'examples/file-drop');

const found = await sftpTestServer();
const sftp = 'skip' in found ? undefined : found;
if ('skip' in found) console.warn(`file-drop example test skipped: ${found.skip}`);

interface Served {
  readonly url: string;
  readonly service: Service;
  stop(): Promise<void>;
}

async function serve(built: BuiltService, env: Record<string, string>): Promise<Served> {
  const service = await built.runtime.createService(built.definition, {
    env: { LOG_LEVEL: 'silent', ...env },
    dataDir: tempDir('file-drop-data'),
  });
  await service.start();
  const server = await built.runtime.serve(service, { port: 0, hostname: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${server.port}`,
    service,
    stop: async () => {
      await service.stop(1000);
      await server.close();
    },
  };
}

function upload(url: string, name: string, bytes: Uint8Array | string, partner = 'acme'): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'text/csv' }), name);
  return fetch(`${url}/file-drop/${partner}`, { method: 'POST', body: form });
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const proxy = await startTcpProxy('127.0.0.1', 1);
  await proxy.close();
  return proxy.port;
}

describe.skipIf(!sftp)('file-drop example against OpenSSH and an SMTP server', () => {
  const srv = sftp as SftpTestServer;
  let smtp: SmtpTestServer;
  let built: BuiltService;
  let env: Record<string, string>;
  const folder = `drop-${process.pid}`;

  beforeAll(async () => {
    smtp = await startSmtpTestServer();
    built = await buildService([EXAMPLE], 'file-drop');
    execFileSync('install', ['-d', '-o', srv.username, path.join(srv.root, folder)]);
    env = {
      FILE_DROP_SFTP_HOST: srv.host,
      FILE_DROP_SFTP_PORT: String(srv.port),
      FILE_DROP_SFTP_USER: srv.username,
      FILE_DROP_SFTP_PASSWORD: srv.password,
      FILE_DROP_SFTP_HOST_KEY: srv.hostKey,
      FILE_DROP_FOLDER: folder,
      FILE_DROP_SMTP_URL: `smtps://127.0.0.1:${smtp.ports.implicit}`,
      FILE_DROP_SMTP_USER: smtp.username,
      FILE_DROP_SMTP_PASSWORD: smtp.password,
      FILE_DROP_SMTP_CA: smtp.ca,
      FILE_DROP_TO: 'ops@example.com',
    };
  }, 300_000);
  afterAll(async () => {
    await smtp?.stop();
    await srv.stop();
  });

  it('puts an uploaded file on SFTP, mails it as an attachment and lists the drop folder', async () => {
    const served = await serve(built, env);
    try {
      const csv = 'id;name\n1;Ada\n2;Grace\n';
      const res = await upload(served.url, 'orders.csv', csv);
      const body = (await res.json()) as { stored: string; size: number; notified: string[] };
      expect(res.status, JSON.stringify(body)).toBe(201);
      expect(body.stored).toMatch(new RegExp(`^${folder}/[0-9a-f-]{36}\\.csv$`));
      expect(body).toMatchObject({ size: csv.length, notified: ['ops@example.com'] });
      expect(fs.readFileSync(path.join(srv.root, body.stored), 'utf8')).toBe(csv);

      const mails = await smtp.messages();
      const mail = mails.find((m) => m.subject === 'New file from acme: orders.csv');
      expect(mail?.attachments.map((a) => [a.filename, a.content.toString('utf8')])).toEqual([['orders.csv', csv]]);
      expect(mail?.text).toContain(`stored as ${body.stored}`);
      expect(mail?.html).toContain(`<code>${body.stored}</code>`);

      const listed = await fetch(`${served.url}/file-drop`);
      const listing = (await listed.json()) as { folder: string; files: Array<{ name: string; size: number }> };
      expect(listed.status).toBe(200);
      expect(listing.folder).toBe(folder);
      expect(listing.files).toContainEqual(
        expect.objectContaining({ name: path.basename(body.stored), size: csv.length }),
      );
    } finally {
      await served.stop();
    }
  });

  it('refuses a server whose host key is not the configured one: nothing stored, nothing sent', async () => {
    const served = await serve(built, { ...env, FILE_DROP_SFTP_HOST_KEY: srv.otherPublicKey });
    try {
      const before = { files: fs.readdirSync(path.join(srv.root, folder)).length, mails: smtp.raw().length };
      const res = await upload(served.url, 'x.csv', 'x');
      const body = (await res.json()) as { message: string };
      expect(res.status).toBe(502);
      expect(body.message).toContain('host key');
      expect(fs.readdirSync(path.join(srv.root, folder)).length).toBe(before.files);
      expect(smtp.raw().length).toBe(before.mails);
    } finally {
      await served.stop();
    }
  });

  it('starts without its servers, answers 503 while they are away, says so on /ready, and keeps serving', async () => {
    const served = await serve(built, {
      ...env,
      FILE_DROP_SFTP_PORT: String(await closedPort()),
      FILE_DROP_SMTP_URL: `smtps://127.0.0.1:${await closedPort()}`,
    });
    try {
      expect((await fetch(`${served.url}/ready`)).status).toBe(200); // nothing connects at start
      for (let i = 0; i < 2; i++) {
        const res = await upload(served.url, 'y.csv', 'y');
        expect(res.status).toBe(503);
        expect(((await res.json()) as { message: string }).message).toMatch(/cannot connect/);
      }
      const ready = await fetch(`${served.url}/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.text()).toContain('sftp:file-drop-sftp');
      expect((await fetch(`${served.url}/health`)).status).toBe(200);
    } finally {
      await served.stop();
    }
    // The SFTP server there, the SMTP server away: the file is stored, the e-mail fails with 503.
    const half = await serve(built, { ...env, FILE_DROP_SMTP_URL: `smtps://127.0.0.1:${await closedPort()}` });
    try {
      const res = await upload(half.url, 'z.csv', 'z');
      expect(res.status).toBe(503);
      expect(((await res.json()) as { message: string }).message).toMatch(/^email: cannot reach/);
    } finally {
      await half.stop();
    }
  });
});
