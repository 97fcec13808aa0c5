/**
 * The `email` connector against a real SMTP server, a separate process on loopback
 * (test/support/smtp-test-server.mjs): implicit TLS and STARTTLS with a test certificate, AUTH
 * checked, text and HTML bodies, attachments streamed from the work folder, and the errors a
 * pipeline routes on. What the server received is read back and parsed with mailparser.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
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
import { startSmtpTestServer, type SmtpTestServer } from '../../../test/support/smtp-server.js';
import { startTcpProxy } from '../../../test/support/tcp-proxy.js';
import { addressesOf, run, smtpAccountOf, type EmailParams } from './email.js';

let smtp: SmtpTestServer;
let workDir: string;
const registries: ConnectionRegistry[] = [];

beforeAll(async () => {
  smtp = await startSmtpTestServer();
});
afterAll(async () => {
  await Promise.all(registries.map((r) => r.closeAll()));
  await smtp?.stop();
});
beforeEach(() => {
  workDir = mkdtempSync(join(tmpdir(), 'email-work-'));
});

/** A context with connections of its own (each test its own pool). */
function context(
  registry = new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' })),
): ExecutionContext {
  registries.push(registry);
  const { ctx } = fakeContext({ workDir });
  return { ...ctx, services: { ...ctx.services, connections: registry } };
}

function account(extra: Record<string, Json> = {}): Record<string, Json> {
  return {
    url: `smtps://127.0.0.1:${smtp.ports.implicit}`,
    username: smtp.username,
    password: smtp.password,
    ca: smtp.ca,
    ...extra,
  };
}

function send(params: Partial<EmailParams>, fields = account(), ctx = context()): Promise<JsonObject> {
  const base: EmailParams = {
    account: 'mail',
    accountFields: fields,
    from: 'Orders <orders@example.com>',
    to: 'ops@example.com',
    subject: 'Hello',
    text: 'Hi',
  };
  return run({ ...base, ...params } as EmailParams, null, ctx) as Promise<JsonObject>;
}

async function failure(work: Promise<unknown>): Promise<PipeError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PipeError);
  return err as PipeError;
}

async function lastMessage() {
  const all = await smtp.messages();
  return all[all.length - 1];
}

describe('email against a real SMTP server', () => {
  it('sends text, HTML and attachments from the work folder over implicit TLS', async () => {
    const upload = join(workDir, '9a1c.csv');
    writeFileSync(upload, 'id;name\n1;Ada\n');
    const file = {
      fileName: '9a1c.csv',
      originalFileName: 'orders.csv',
      param: 'file',
      contentType: 'text/csv',
      size: 14,
      path: upload,
    };
    writeFileSync(join(workDir, 'report.pdf'), '%PDF-1.4 test');
    const out = await send({
      to: ['ops@example.com', 'Lead <lead@example.com>'],
      cc: 'audit@example.com',
      bcc: ['hidden@example.com'],
      'reply-to': 'help@example.com',
      subject: 'Orders: ünïcode',
      text: 'Plain body',
      html: '<p>HTML <b>body</b></p>',
      attachments: [file, join(workDir, 'report.pdf')],
    });
    expect(out).toMatchObject({
      accepted: ['ops@example.com', 'lead@example.com', 'audit@example.com', 'hidden@example.com'],
      rejected: [],
    });
    expect(String(out['messageId'])).toMatch(/^<.+@.+>$/);
    expect(String(out['response'])).toMatch(/^250 /);
    const mail = await lastMessage();
    expect(mail?.subject).toBe('Orders: ünïcode');
    expect(mail?.text?.trim()).toBe('Plain body');
    expect(mail?.html).toContain('<p>HTML <b>body</b></p>');
    expect(mail?.from?.value).toEqual([{ name: 'Orders', address: 'orders@example.com' }]);
    expect(mail?.replyTo?.text).toBe('help@example.com');
    expect(mail?.headers.has('bcc')).toBe(false);
    expect(mail?.attachments.map((a) => [a.filename, a.contentType, a.content.toString('utf8')])).toEqual([
      ['orders.csv', 'text/csv', 'id;name\n1;Ada\n'],
      ['report.pdf', 'application/pdf', '%PDF-1.4 test'],
    ]);
  });

  it('upgrades smtp:// with STARTTLS, and refuses to send where the server offers none', async () => {
    await send({ subject: 'over starttls' }, account({ url: `smtp://127.0.0.1:${smtp.ports.starttls}` }));
    expect((await lastMessage())?.subject).toBe('over starttls');
    const err = await failure(
      send({ subject: 'never sent' }, account({ url: `smtp://127.0.0.1:${smtp.ports.plain}` })),
    );
    expect(err).toMatchObject({ kind: 'TLS', code: 502 });
    // Unless the account allows it.
    await send({ subject: 'plain allowed' }, account({ url: `smtp://127.0.0.1:${smtp.ports.plain}`, tls: false }));
    const subjects = (await smtp.messages()).map((m) => m.subject);
    expect(subjects).toContain('plain allowed');
    expect(subjects).not.toContain('never sent');
  });

  it('says TLS when the certificate is not trusted', async () => {
    const fields = account();
    delete fields['ca'];
    expect(await failure(send({}, fields))).toMatchObject({ kind: 'TLS', code: 502 });
    const starttls = account({ url: `smtp://127.0.0.1:${smtp.ports.starttls}` });
    delete starttls['ca'];
    expect(await failure(send({}, starttls))).toMatchObject({ kind: 'TLS', code: 502 });
  });

  it('says AUTHENTICATION_FAILED for a wrong password, without showing it', async () => {
    const err = await failure(send({}, account({ password: 'not-the-password-42' })));
    expect(err).toMatchObject({ kind: 'AUTHENTICATION_FAILED', code: 502 });
    expect(err.message).not.toContain('not-the-password-42');
  });

  it('says CONNECTION_REFUSED when nothing listens, reports it to /ready, and recovers', async () => {
    const proxy = await startTcpProxy('127.0.0.1', smtp.ports.implicit);
    const registry = new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' }));
    const ctx = context(registry);
    // The certificate names 127.0.0.1; the proxy is on 127.0.0.1 too.
    const fields = account({ url: `smtps://127.0.0.1:${proxy.port}` });
    try {
      proxy.cut();
      expect(await failure(send({}, fields, ctx))).toMatchObject({ kind: 'CONNECTION_REFUSED', code: 503 });
      expect(registry.notReady()).toEqual(['smtp:mail']);
      proxy.restore();
      await send({ subject: 'after the outage' }, fields, ctx);
      expect(registry.notReady()).toEqual([]);
    } finally {
      await proxy.close();
    }
    const closed = await startTcpProxy('127.0.0.1', 1);
    const port = closed.port;
    await closed.close();
    expect(await failure(send({}, account({ url: `smtps://127.0.0.1:${port}` })))).toMatchObject({
      kind: 'CONNECTION_REFUSED',
      code: 503,
    });
  });

  it('says RECIPIENTS_REJECTED when the server refuses every recipient, and sends to the others', async () => {
    const err = await failure(send({ to: 'nobody@reject.test' }));
    expect(err).toMatchObject({ kind: 'RECIPIENTS_REJECTED', code: 422 });
    const out = await send({ to: ['nobody@reject.test', 'ops@example.com'], subject: 'partly' });
    expect(out).toMatchObject({ accepted: ['ops@example.com'], rejected: ['nobody@reject.test'] });
  });

  it('says MESSAGE_REJECTED when the server refuses the message itself, TIMEOUT when it never greets', async () => {
    const before = smtp.raw().length;
    expect(await failure(send({ text: 'REFUSE-THIS-MESSAGE' }))).toMatchObject({ kind: 'MESSAGE_REJECTED', code: 502 });
    expect(smtp.raw().length).toBe(before);
    const silent = createServer(() => undefined); // accepts, never says a word
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      const err = await failure(send({ 'connect-timeout': 300 }, account({ url: `smtp://127.0.0.1:${port}` })));
      expect(err).toMatchObject({ kind: 'TIMEOUT', code: 504 });
    } finally {
      silent.close();
    }
  });

  it("opens the account's circuit after repeated refusals: CIRCUIT_OPEN without connecting", async () => {
    const registry = new ConnectionRegistry(
      createLogger({ level: 'silent', service: 'test' }),
      new CircuitBreakers({ failures: 2, halfOpenAfterMs: 60_000 }),
    );
    const ctx = context(registry);
    const closed = await startTcpProxy('127.0.0.1', 1);
    await closed.close();
    const fields = account({ url: `smtps://127.0.0.1:${closed.port}` });
    for (let i = 0; i < 2; i++) expect((await failure(send({}, fields, ctx))).kind).toBe('CONNECTION_REFUSED');
    expect(await failure(send({}, fields, ctx))).toMatchObject({ kind: 'CIRCUIT_OPEN', code: 503 });
    // A refused recipient is the server's answer, not an outage: it does not count.
    const answering = context(
      new ConnectionRegistry(
        createLogger({ level: 'silent', service: 'test' }),
        new CircuitBreakers({ failures: 1, halfOpenAfterMs: 60_000 }),
      ),
    );
    for (let i = 0; i < 2; i++)
      expect((await failure(send({ to: 'x@reject.test' }, account(), answering))).kind).toBe('RECIPIENTS_REJECTED');
  });

  it('refuses bad input before connecting', async () => {
    const outside = join(mkdtempSync(join(tmpdir(), 'email-outside-')), 'secret.txt');
    writeFileSync(outside, 'secret');
    const cases: Array<Partial<EmailParams>> = [
      { to: 'not an address' },
      { to: [] },
      { from: 'a@x.test, b@x.test' },
      { text: undefined, html: undefined },
      { subject: 'two\r\nBcc: evil@x.test' },
    ];
    const before = smtp.raw().length;
    for (const params of cases) {
      expect(await failure(send(params)), JSON.stringify(params)).toMatchObject({
        kind: 'INVALID_PARAMETER',
        code: 400,
      });
    }
    // Attachments are files of the execution's work folder (runtime/work-files.ts), nothing else.
    const attachments: Array<[Partial<EmailParams>, { kind: string; code: number }]> = [
      [{ attachments: outside }, { kind: 'FILE_FORBIDDEN', code: 403 }],
      [{ attachments: [{ path: '/etc/passwd' }] }, { kind: 'FILE_FORBIDDEN', code: 403 }],
      [{ attachments: 'missing.txt' }, { kind: 'FILE_NOT_FOUND', code: 404 }],
      [
        { attachments: [{ name: 'no path' }] as unknown as EmailParams['attachments'] },
        { kind: 'BAD_FILE_REFERENCE', code: 400 },
      ],
    ];
    for (const [params, expected] of attachments) {
      expect(await failure(send(params)), JSON.stringify(params)).toMatchObject(expected);
    }
    expect(smtp.raw().length).toBe(before);
    expect(await failure(send({}, { url: 'http://127.0.0.1' }))).toMatchObject({
      kind: 'ACCOUNT_CONFIGURATION',
      code: 500,
    });
  });
});

describe('a 100 MB attachment', () => {
  it("is streamed from disk: the sending process's memory stays far below its size", async () => {
    const child = fileURLToPath(new URL('./test-support-stream.ts', import.meta.url));
    const before = smtp.raw().length;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', child], {
      env: { ...process.env, SMTP_FIELDS: JSON.stringify(account()) },
      timeout: 600_000,
    });
    const result = JSON.parse(stdout.trim().split('\n').pop() as string) as {
      baselineMb: number;
      peakMb: number;
      accepted: string[];
    };
    expect(result.accepted).toEqual(['ops@example.com']);
    // Reading the file whole would add 100 MB, its base64 text 137 MB more.
    expect(result.peakMb - result.baselineMb).toBeLessThan(48);
    // The server got the whole message: 100 MB in base64 lines of 76 characters.
    const received = smtp.sizes().slice(before);
    expect(received).toHaveLength(2);
    expect(received[1]).toBeGreaterThan((100 * 1024 * 1024 * 4) / 3);
  }, 600_000);
});

describe('accounts and addresses', () => {
  it('reads smtp:// and smtps:// urls, with the default ports and TLS modes', () => {
    expect(smtpAccountOf('m', { url: 'smtps://mail.example.com' })).toMatchObject({
      host: 'mail.example.com',
      port: 465,
      implicitTls: true,
      requireTls: false,
    });
    expect(smtpAccountOf('m', { url: 'smtp://mail.example.com' })).toMatchObject({
      port: 587,
      implicitTls: false,
      requireTls: true,
    });
    expect(smtpAccountOf('m', { url: 'smtp://u%40x:p%3A@mail.example.com:2525', tls: false })).toMatchObject({
      port: 2525,
      requireTls: false,
      username: 'u@x',
      password: 'p:',
    });
    expect(smtpAccountOf('m', { host: 'mail.example.com', port: 25, username: 'u' })).toMatchObject({
      port: 25,
      requireTls: true,
      username: 'u',
    });
    expect(() => smtpAccountOf('m', {})).toThrow(/give url/);
  });
  it('splits and checks address lists', () => {
    expect(addressesOf('a@x.test, B <b@x.test>', 'to', true)).toEqual(['a@x.test', 'B <b@x.test>']);
    expect(addressesOf(undefined, 'cc', false)).toEqual([]);
    expect(() => addressesOf('a@x.test\nBcc: c@x.test', 'to', true)).toThrow(PipeError);
  });
});
