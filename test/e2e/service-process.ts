/**
 * Test support: build .pipe inputs with the real CLI into a folder, start `node server.js` on a
 * free port as a child process, and talk to it over real HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { main } from '../../compiler/cli/pipec.js';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

import { freePort } from '../support/ports.js';

export { freePort };

export interface CapturedOutput {
  readonly out: string[];
  readonly err: string[];
}

export async function runCli(args: readonly string[]): Promise<{ code: number; output: CapturedOutput }> {
  const output: CapturedOutput = { out: [], err: [] };
  const code = await main(args, { out: (t) => output.out.push(t), err: (t) => output.err.push(t) });
  return { code, output };
}

export function tempDir(name: string): string {
  const dir = path.join(REPO_ROOT, 'test', '.tmp', `${name}-${process.pid}-${Date.now()}`);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

export interface RunningService {
  readonly url: string;
  readonly logs: () => string;
  stop(): Promise<void>;
  /** Kills the process with `signal` (SIGKILL: no drain, no goodbye) and resolves once it is gone. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `node <outDir>/server.js` on a free port; resolves when /health answers. The port is
 * free when chosen, but another process may take it before the service binds it (other suites,
 * other runs on the machine): a start that fails with EADDRINUSE is tried again on a new port.
 */
export async function startServer(outDir: string, env: Record<string, string> = {}): Promise<RunningService> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce(outDir, env);
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt === 5) throw err;
    }
  }
}

class PortTaken extends Error {}

async function startServerOnce(outDir: string, env: Record<string, string>): Promise<RunningService> {
  const port = await freePort();
  let logs = '';
  const child: ChildProcess = spawn(process.execPath, [path.join(outDir, 'server.js')], {
    env: { ...process.env, PORT: String(port), PIPEC_DATA_DIR: path.join(outDir, '.data'), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (logs += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (logs += d.toString()));
  // 'close' comes once the output streams are read to their end too.
  const closed = new Promise((resolve) => child.once('close', resolve));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15000;
  for (;;) {
    if (child.exitCode !== null) {
      await closed;
      if (logs.includes('EADDRINUSE')) throw new PortTaken(`port ${port} was taken`);
      throw new Error(`server exited with ${child.exitCode}:\n${logs}`);
    }
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start within 15 s:\n${logs}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    logs: () => logs,
    kill: (signal) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}
