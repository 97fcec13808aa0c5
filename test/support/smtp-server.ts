/**
 * A real SMTP server for the tests of the `email` connector: test/support/smtp-test-server.mjs
 * (the `smtp-server` package) run as a separate process on 127.0.0.1, with a certificate for
 * 127.0.0.1/localhost made here by openssl (its own CA: the tests trust it through the account's
 * `ca`). `messages()` reads back what it received, parsed by mailparser.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { simpleParser, type ParsedMail } from 'mailparser';

const SCRIPT = fileURLToPath(new URL('./smtp-test-server.mjs', import.meta.url));

export interface SmtpTestServer {
  readonly ports: { readonly implicit: number; readonly starttls: number; readonly plain: number };
  readonly username: string;
  readonly password: string;
  /** The PEM certificate the server presents (self-signed, for 127.0.0.1 and localhost). */
  readonly ca: string;
  /** Every message received so far, oldest first. */
  messages(): Promise<ParsedMail[]>;
  /** The raw text of every message received so far. */
  raw(): string[];
  /** The size in bytes of every message received so far (without reading them). */
  sizes(): number[];
  stop(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1 and localhost, by openssl, in `dir`. */
function makeCertificate(dir: string): { key: string; cert: string } {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  return { key, cert };
}

export async function startSmtpTestServer(): Promise<SmtpTestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-smtp-'));
  const mail = join(dir, 'mail');
  execFileSync('mkdir', ['-p', mail]);
  const { key, cert } = makeCertificate(dir);
  const username = 'mailer';
  const password = `pw-${process.pid}-${Date.now()}`;
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ dir: mail, key, cert, username, password }));
  const child: ChildProcess = spawn(process.execPath, [SCRIPT, configFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ports = await new Promise<SmtpTestServer['ports']>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(JSON.parse(line) as SmtpTestServer['ports']));
    child.once('exit', (code) => reject(new Error(`the SMTP test server exited (${String(code)})`)));
  });
  const files = (): string[] =>
    readdirSync(mail)
      .filter((f) => f.endsWith('.eml'))
      .sort();
  return {
    ports,
    username,
    password,
    ca: readFileSync(cert, 'utf8'),
    raw: () => files().map((f) => readFileSync(join(mail, f), 'utf8')),
    sizes: () => files().map((f) => statSync(join(mail, f)).size),
    messages: () => Promise.all(files().map((f) => simpleParser(readFileSync(join(mail, f))))),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
