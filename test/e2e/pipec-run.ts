/**
 * Test support: `pipec run` as a child process on a port the system picks (--port 0), read from
 * the line the development server prints once it listens (a restart under --watch prints a new
 * one, usually with another port).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './service-process.js';

export interface PipecRun {
  /** The address of the service the latest start printed, once there is one. */
  url(): string | undefined;
  output(): string;
  /** Resolves with the address of the next start after `after` (its index in the output), or the first. */
  started(after?: number, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

const LISTENING = /pipec run: listening on (http:\/\/localhost:\d+)/g;

export function pipecRun(args: readonly string[], env: Record<string, string>): PipecRun {
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(REPO_ROOT, 'bin/pipec.js'), 'run', ...args, '--port', '0'],
    {
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const starts = (): Array<{ url: string; index: number }> =>
    [...output.matchAll(LISTENING)].map((m) => ({ url: m[1] as string, index: m.index }));
  return {
    url: () => starts().at(-1)?.url,
    output: () => output,
    async started(after = -1, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = starts().find((s) => s.index > after);
        if (found) return found.url;
        if (child.exitCode !== null) throw new Error(`pipec run exited with ${child.exitCode}:\n${output}`);
        if (Date.now() > deadline) throw new Error(`pipec run did not start within ${timeoutMs} ms:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** Polls `read` until `done` holds for its value; fails with `what` and the last value after `timeoutMs`. */
export async function pollUntil<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`not reached within ${timeoutMs} ms: ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
