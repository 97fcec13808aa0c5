/**
 * The OpenSSH SFTP server of the tests (scripts/sftp-server.sh). `.ci/run` starts one before the
 * suite and passes its facts in PIPEC_TEST_SFTP_ENV (a KEY='value' file); without it, a test file
 * starts its own (root only: the script installs openssh-server when missing and creates a test
 * user) and stops it afterwards. Under CI=true a server that cannot be had is a failure, elsewhere
 * the suite skips saying why (the repository's rule for real servers).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { IN_CI, reachable } from './servers.js';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../scripts/sftp-server.sh', import.meta.url));

export interface SftpTestServer {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  /** The test user's private key (OpenSSH format), which the server accepts. */
  readonly privateKey: string;
  /** A private key the server does not know, and its public key (as a wrong host-key). */
  readonly otherPrivateKey: string;
  readonly otherPublicKey: string;
  /** The server's public key line (`ssh-ed25519 AAAA…`) and its fingerprint (`SHA256:…`). */
  readonly hostKey: string;
  readonly hostFingerprint: string;
  /** Where the login folder is on this machine's disk (to check what a step did). */
  readonly root: string;
  /** The account fields of an `ssh` account for it (password login). */
  account(extra?: Record<string, string>): Record<string, string>;
  stop(): Promise<void>;
}

/** Reads a file of KEY='value' lines. */
function readEnvFile(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^([A-Z0-9_]+)=(?:'(.*)'|(.*))$/.exec(line.trim());
    if (m?.[1]) out[m[1]] = m[2] ?? m[3] ?? '';
  }
  return out;
}

function serverOf(env: Record<string, string>, stop: () => Promise<void>): SftpTestServer {
  const need = (key: string): string => {
    const value = env[key];
    if (value === undefined) throw new Error(`the SFTP test server's facts lack ${key}`);
    return value;
  };
  const server: SftpTestServer = {
    host: need('PIPEC_TEST_SFTP_HOST'),
    port: Number(need('PIPEC_TEST_SFTP_PORT')),
    username: need('PIPEC_TEST_SFTP_USER'),
    password: need('PIPEC_TEST_SFTP_PASSWORD'),
    privateKey: readFileSync(need('PIPEC_TEST_SFTP_KEY_FILE'), 'utf8'),
    otherPrivateKey: readFileSync(need('PIPEC_TEST_SFTP_OTHER_KEY_FILE'), 'utf8'),
    otherPublicKey: readFileSync(`${need('PIPEC_TEST_SFTP_OTHER_KEY_FILE')}.pub`, 'utf8').trim(),
    hostKey: need('PIPEC_TEST_SFTP_HOST_KEY'),
    hostFingerprint: need('PIPEC_TEST_SFTP_HOST_FINGERPRINT'),
    root: need('PIPEC_TEST_SFTP_ROOT'),
    account: (extra = {}) => ({
      host: server.host,
      port: String(server.port),
      username: server.username,
      password: server.password,
      'host-key': server.hostKey,
      ...extra,
    }),
    stop,
  };
  return server;
}

/** The server, or why there is none (then the caller skips; under CI=true this throws instead). */
export async function sftpTestServer(): Promise<SftpTestServer | { readonly skip: string }> {
  const given = process.env['PIPEC_TEST_SFTP_ENV'];
  if (given) {
    const server = serverOf(readEnvFile(given), async () => undefined);
    if (await reachable(`ssh://${server.host}:${server.port}`, 22)) return server;
    const why = `the SFTP server of PIPEC_TEST_SFTP_ENV (${server.host}:${server.port}) is unreachable`;
    if (IN_CI) throw new Error(why);
    return { skip: why };
  }
  if (process.getuid?.() !== 0) {
    const why = 'no SFTP server: set PIPEC_TEST_SFTP_ENV (scripts/sftp-server.sh start DIR) or run the tests as root';
    if (IN_CI) throw new Error(why);
    return { skip: why };
  }
  const dir = mkdtempSync(join(tmpdir(), 'pipec-sftp-'));
  try {
    await run('bash', [SCRIPT, 'start', dir], { timeout: 300_000 });
  } catch (err) {
    const why = `the SFTP test server did not start: ${(err as { stderr?: string }).stderr ?? String(err)}`;
    if (IN_CI) throw new Error(why);
    return { skip: why };
  }
  return serverOf(readEnvFile(join(dir, 'env')), async () => {
    await run('bash', [SCRIPT, 'stop', dir], { timeout: 30_000 });
  });
}
