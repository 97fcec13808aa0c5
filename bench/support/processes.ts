/**
 * Child processes for the benchmarks: start a server and wait until it answers, read its CPU time
 * and peak memory from /proc (Linux; null elsewhere), stop it, and run the pipec CLI.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
export const PIPEC_BIN = path.join(REPO_ROOT, 'bin', 'pipec.js');

import { freePort } from '../../test/support/ports.js';

export { freePort };

export interface ServerProcess {
  readonly pid: number;
  readonly url: string;
  /** Everything the process printed on stderr (stdout is discarded: it holds the request logs). */
  readonly stderr: () => string;
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly command: readonly string[];
  /** Added to this process's environment; an undefined value removes that variable. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly port: number;
  /** A request that succeeds once the server is ready. */
  readonly probe: (url: string) => Promise<boolean>;
  readonly timeoutMs?: number;
  /** Poll interval of `probe` (default 20 ms). */
  readonly pollMs?: number;
}

/** Starts the command and resolves once `probe` succeeds. */
export async function startServer(opts: StartOptions): Promise<ServerProcess> {
  const [executable, ...args] = opts.command;
  const child: ChildProcess = spawn(executable as string, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...opts.env, PORT: String(opts.port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = `http://127.0.0.1:${opts.port}`;
  const server: ServerProcess = { pid: child.pid ?? -1, url, stderr: () => stderr, stop: () => stopProcess(child) };
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${opts.command.join(' ')} exited with ${child.exitCode}:\n${stderr}`);
    if (await opts.probe(url).catch(() => false)) return server;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`${opts.command.join(' ')} did not get ready in time:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 20));
  }
}

function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Linux reports CPU time in clock ticks (`getconf CLK_TCK`): 100 per second on common kernels. */
const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU time of a process in µs, from /proc/<pid>/stat; null when unavailable. */
export function processCpuMicros(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks / CLOCK_TICKS_PER_SECOND) * 1e6;
  } catch {
    return null;
  }
}

/** Peak resident set size of a process in MB (VmHWM); null when unavailable. */
export function peakRssMb(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export interface CliRun {
  readonly code: number;
  readonly ms: number;
  readonly output: string;
}

/** Runs `node bin/pipec.js …` and times it (process start to exit, as a user sees it). */
export function runPipec(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [PIPEC_BIN, ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? 1, ms: performance.now() - started, output }));
  });
}
