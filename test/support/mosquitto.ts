/**
 * A Mosquitto broker of the test's own (the machine's `mosquitto` binary, as installed beside the
 * shared one), for what the shared broker must not be reconfigured for: password authentication.
 * Listens on a free port of 127.0.0.1; `stop()` ends it and removes its folder. Under CI=true a
 * missing binary fails the suite; elsewhere it is skipped with a message.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';
import { reachable } from './servers.js';

export const MOSQUITTO_BIN = process.env['PIPEC_TEST_MOSQUITTO'] ?? 'mosquitto';
const MOSQUITTO_PASSWD_BIN = 'mosquitto_passwd';

export function mosquittoAvailable(): boolean {
  return (
    spawnSync(MOSQUITTO_BIN, ['-h'], { encoding: 'utf8' }).error === undefined &&
    spawnSync(MOSQUITTO_PASSWD_BIN, ['-h'], { encoding: 'utf8' }).error === undefined
  );
}

export interface PrivateMosquitto {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts mosquitto on a free port that accepts only `username` with `password`. */
export async function startMosquitto(username: string, password: string): Promise<PrivateMosquitto> {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-mosquitto-'));
  const passwords = join(dir, 'passwords');
  writeFileSync(passwords, '');
  const made = spawnSync(MOSQUITTO_PASSWD_BIN, ['-b', passwords, username, password], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`mosquitto_passwd failed: ${made.stderr}`);
  // Started as root, mosquitto drops to its own user before it reads the password file.
  chmodSync(dir, 0o755);
  chmodSync(passwords, 0o644);
  const port = await freePort();
  const conf = join(dir, 'mosquitto.conf');
  const lines = [
    `listener ${port} 127.0.0.1`,
    'allow_anonymous false',
    `password_file ${passwords}`,
    'persistence false',
  ];
  writeFileSync(conf, `${lines.join('\n')}\n`);
  const child: ChildProcess = spawn(MOSQUITTO_BIN, ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  const url = `mqtt://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (!(await reachable(url, port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`mosquitto did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
