/**
 * A NATS server of the test's own (the machine's `nats-server` binary, as installed beside the
 * shared one), for what the shared server must not be reconfigured for: authentication and TLS.
 * Listens on a random port of 127.0.0.1 with JetStream in a temporary folder; stopped by `stop()`.
 * Under CI=true a missing binary fails the suite; elsewhere it is skipped with a message.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const NATS_SERVER_BIN = process.env['PIPEC_TEST_NATS_SERVER'] ?? 'nats-server';

export function natsServerAvailable(): boolean {
  return spawnSync(NATS_SERVER_BIN, ['--version'], { encoding: 'utf8' }).status === 0;
}

export interface PrivateNatsServer {
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  stop(): Promise<void>;
}

/** Starts nats-server with `config` (nats-server configuration text; `listen`, `jetstream` are added). */
export async function startNatsServer(config = ''): Promise<PrivateNatsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-nats-'));
  const conf = join(dir, 'server.conf');
  writeFileSync(
    conf,
    `listen: "127.0.0.1:-1"\njetstream { store_dir: ${JSON.stringify(join(dir, 'js'))} }\n${config}\n`,
  );
  const child: ChildProcess = spawn(NATS_SERVER_BIN, ['-c', conf, '--ports_file_dir', dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  const deadline = Date.now() + 10_000;
  let port = 0;
  while (port === 0) {
    if (child.exitCode !== null) throw new Error(`nats-server exited: ${stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nats-server did not start: ${stderr}`);
    }
    const file = readdirSync(dir).find((f) => f.endsWith('.ports'));
    const first = file ? portsOf(readFileSync(join(dir, file), 'utf8'))?.nats?.[0] : undefined;
    if (first) port = Number(new URL(first.replace(/^tls:/, 'nats:')).port);
    if (port === 0) await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    dir,
    stop: () =>
      new Promise<void>((resolve) => {
        const done = (): void => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null) return done();
        child.once('exit', done);
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}

/**
 * The ports file's content, or undefined while nats-server is still writing it: the file appears
 * before its JSON is complete (seen under load as "Unexpected end of JSON input").
 */
function portsOf(text: string): { nats?: string[] } | undefined {
  try {
    return JSON.parse(text) as { nats?: string[] };
  } catch {
    return undefined;
  }
}
