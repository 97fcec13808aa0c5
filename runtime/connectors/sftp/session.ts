/**
 * The SSH connection of an `ssh` account and its SFTP channel: opened on first use through the
 * service's connections (one per account, shared by every step), with the server's host key
 * checked against the account's `host-key` before anything is sent, and password or key login.
 * When the connection breaks it is dropped, so the next use opens a new one.
 *
 * Failures become PipeErrors with the kinds of schema.json: CONNECTION_REFUSED, HOST_KEY_MISMATCH,
 * AUTHENTICATION_FAILED, TIMEOUT. Messages name the host and the account, never a secret.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ConnectConfig, SFTPWrapper } from 'ssh2';
import { PipeError } from '../../errors.js';
import type { Connections, Json } from '../../types.js';

/** What connects: the account's fields, checked. */
export interface SshAccount {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string | undefined;
  readonly privateKey: string | undefined;
  readonly passphrase: string | undefined;
  /** The keys the server may present (public key blobs or SHA256 fingerprints). */
  readonly hostKeys: readonly HostKey[];
}

export type HostKey =
  { readonly kind: 'blob'; readonly blob: Buffer } | { readonly kind: 'fingerprint'; readonly value: string };

export interface SftpSession {
  readonly sftp: SFTPWrapper;
  /** Where the account connects, for messages: `user@host:port`. */
  readonly target: string;
}

function accountError(name: string, message: string): PipeError {
  return new PipeError(`sftp: account \`${name}\`: ${message}`, { code: 500, kind: 'ACCOUNT_CONFIGURATION' });
}

function field(fields: Readonly<Record<string, Json>>, key: string): string | undefined {
  const value = Object.hasOwn(fields, key) ? fields[key] : undefined;
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** `ssh-ed25519 AAAA… comment`, `AAAA…` or `SHA256:…`, several separated by newlines or commas. */
export function parseHostKeys(text: string): HostKey[] {
  const keys: HostKey[] = [];
  for (const entry of text
    .split(/[\n,]/)
    .map((e) => e.trim())
    .filter(Boolean)) {
    if (entry.startsWith('SHA256:')) {
      keys.push({ kind: 'fingerprint', value: entry.slice('SHA256:'.length).replace(/=+$/, '') });
      continue;
    }
    // `type base64 [comment]` as in known_hosts and .pub files, or the base64 alone.
    const words = entry.split(/\s+/);
    const typed = words.length >= 2 && /^(ssh-|ecdsa-|sk-)/.test(words[0] ?? '');
    const base64 = typed ? words[1] : words.length === 1 ? words[0] : undefined;
    if (base64 === undefined || !/^[A-Za-z0-9+/]{20,}=*$/.test(base64)) continue;
    keys.push({ kind: 'blob', blob: Buffer.from(base64, 'base64') });
  }
  return keys;
}

/** The account's fields as an SshAccount; 500 ACCOUNT_CONFIGURATION naming what is missing. */
export function sshAccountOf(name: string | undefined, fields: Readonly<Record<string, Json>> | undefined): SshAccount {
  if (name === undefined || fields === undefined) throw accountError(name ?? '?', 'the step needs an ssh account');
  const host = field(fields, 'host');
  const username = field(fields, 'username');
  if (host === undefined) throw accountError(name, 'host is missing');
  if (username === undefined) throw accountError(name, 'username is missing');
  const password = field(fields, 'password');
  const privateKey = field(fields, 'private-key');
  if (password === undefined && privateKey === undefined) throw accountError(name, 'give password or private-key');
  const hostKeyText = field(fields, 'host-key');
  if (hostKeyText === undefined) {
    const how = "give the server's public key or its SHA256 fingerprint (`ssh-keyscan`, `ssh-keygen -l`)";
    throw accountError(name, `host-key is missing: ${how}`);
  }
  const hostKeys = parseHostKeys(hostKeyText);
  if (hostKeys.length === 0) throw accountError(name, 'host-key is neither a public key nor a SHA256: fingerprint');
  const portText = field(fields, 'port') ?? '22';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw accountError(name, 'port must be a number from 1 to 65535');
  }
  return { name, host, port, username, password, privateKey, passphrase: field(fields, 'passphrase'), hostKeys };
}

/** The OpenSSH SHA256 fingerprint of a public key blob (base64 without padding). */
export function fingerprintOf(blob: Buffer): string {
  return createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
}

/** Whether the presented key is one of the account's (compared in constant time, as digests). */
export function hostKeyMatches(presented: Buffer, allowed: readonly HostKey[]): boolean {
  const presentedDigest = createHash('sha256').update(presented).digest();
  let match = false;
  for (const key of allowed) {
    const expected =
      key.kind === 'blob' ? createHash('sha256').update(key.blob).digest() : Buffer.from(key.value, 'base64');
    if (expected.length === presentedDigest.length && timingSafeEqual(expected, presentedDigest)) match = true;
  }
  return match;
}

interface OpenFailure {
  hostKeyRejected?: string;
}

/** A connect error as the step's PipeError. */
function connectError(account: SshAccount, err: unknown, failure: OpenFailure, timeoutMs: number): PipeError {
  const target = `${account.host}:${account.port}`;
  if (failure.hostKeyRejected !== undefined) {
    return new PipeError(
      `sftp: ${target} presented the host key SHA256:${failure.hostKeyRejected}, ` +
        `not the one of account \`${account.name}\` (host-key); the connection was refused before logging in`,
      { code: 502, kind: 'HOST_KEY_MISMATCH' },
    );
  }
  const e = err as (Error & { level?: string; code?: string }) | undefined;
  const message = e instanceof Error ? e.message : String(err);
  if (e?.level === 'client-authentication') {
    const why = `sftp: ${target} refused the login of account \`${account.name}\` (wrong username, password or key)`;
    return new PipeError(why, {
      code: 502,
      kind: 'AUTHENTICATION_FAILED',
    });
  }
  if (e?.level === 'client-timeout' || e?.code === 'ETIMEDOUT') {
    return new PipeError(`sftp: ${target} did not complete the login within ${timeoutMs} ms`, {
      code: 504,
      kind: 'TIMEOUT',
    });
  }
  const refused = ['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET'];
  if (e?.code !== undefined && refused.includes(e.code)) {
    return new PipeError(`sftp: cannot connect to ${target} (${e.code})`, { code: 503, kind: 'CONNECTION_REFUSED' });
  }
  return new PipeError(`sftp: connecting to ${target} failed: ${message}`, { code: 503, kind: 'CONNECTION_REFUSED' });
}

interface OpenedSession {
  readonly session: SftpSession;
  /** Ends the connection on purpose (no report of a lost dependency). */
  readonly end: () => void;
}

/** Opens the SSH connection and its SFTP channel; rejects with the step's PipeError. */
async function openSession(
  account: SshAccount,
  timeoutMs: number,
  onGone: (cause: unknown) => void,
): Promise<OpenedSession> {
  // Loaded on first use: a service that never reaches SFTP never loads the SSH stack.
  const { default: ssh2 } = await import('ssh2');
  const failure: OpenFailure = {};
  const client = new ssh2.Client();
  const config: ConnectConfig = {
    host: account.host,
    port: account.port,
    username: account.username,
    readyTimeout: timeoutMs,
    keepaliveInterval: 15_000,
    keepaliveCountMax: 3,
    hostVerifier: (key: Buffer): boolean => {
      if (hostKeyMatches(key, account.hostKeys)) return true;
      failure.hostKeyRejected = fingerprintOf(key);
      return false;
    },
    ...(account.password !== undefined ? { password: account.password } : {}),
    ...(account.privateKey !== undefined ? { privateKey: account.privateKey } : {}),
    ...(account.passphrase !== undefined ? { passphrase: account.passphrase } : {}),
  };
  let settled = false;
  let ending = false;
  const gone = (cause: unknown): void => {
    if (!ending) onGone(cause);
    ending = true;
  };
  return new Promise<OpenedSession>((resolve, reject) => {
    // A socket that does not even connect is bounded too (readyTimeout counts from the TCP connect).
    const timedOut = Object.assign(new Error('timed out'), { level: 'client-timeout' });
    const timer = setTimeout(() => fail(timedOut), timeoutMs + 1000);
    const fail = (err: unknown): void => {
      clearTimeout(timer);
      if (settled) return;
      settled = true;
      ending = true;
      client.end();
      reject(connectError(account, err, failure, timeoutMs));
    };
    client.on('error', (err) => (settled ? gone(err) : fail(err)));
    client.on('close', () => {
      if (settled) gone(new Error('the connection closed'));
      else fail(new Error('the server closed the connection during the login'));
    });
    client.on('ready', () => {
      client.sftp((err, sftp) => {
        if (err) return fail(err);
        clearTimeout(timer);
        settled = true;
        // The server may end the SFTP channel alone: the connection is then of no use either.
        sftp.on('close', () => {
          if (ending) return;
          gone(new Error('the server closed the SFTP channel'));
          client.end();
        });
        resolve({
          session: { sftp, target: `${account.username}@${account.host}:${account.port}` },
          end: () => {
            ending = true;
            client.end();
          },
        });
      });
    });
    try {
      client.connect(config);
    } catch (err) {
      // ssh2 refuses a private key it cannot parse (or decrypt) synchronously.
      clearTimeout(timer);
      settled = true;
      const why = err instanceof Error ? err.message : String(err);
      reject(accountError(account.name, `private-key cannot be used: ${why}`));
    }
  });
}

/** The key (and /ready dependency name) of an account's connection. */
export const connectionKey = (account: SshAccount): string => `sftp:${account.name}`;

/** The shared session of the account, opened on first use. */
export function sessionOf(account: SshAccount, connections: Connections, timeoutMs: number): Promise<SftpSession> {
  const key = connectionKey(account);
  return connections.get(key, key, async () => {
    const opened = await openSession(account, timeoutMs, (cause) => {
      connections.report(key, false, cause);
      void connections.drop(key);
    });
    return { client: opened.session, close: async () => opened.end() };
  });
}
