/**
 * `pipec run --watch`: builds and serves, then rebuilds and restarts when the file changes; a
 * broken edit keeps the previous version serving.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, freePort, tempDir } from './service-process.js';

const source = (greeting: string) => `pipeline hi {\n  trigger http { method: GET, path: "/hi" }\n  respond 200 { greeting: "${greeting}" }\n}\n`;

async function until<T>(fn: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const value = await fn();
      if (value !== undefined) return value;
    } catch {
      // not there yet
    }
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('pipec run --watch', () => {
  it('serves, rebuilds on change, and keeps serving through a broken edit', async () => {
    const dir = tempDir('watch');
    const file = path.join(dir, 'hi.pipe');
    fs.writeFileSync(file, source('one'));
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/pipec.js'), 'run', file, '--watch', '--port', String(port), '--out', path.join(dir, 'out')], {
      env: { ...process.env, PIPEC_DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const greeting = async () => ((await (await fetch(`http://127.0.0.1:${port}/hi`)).json()) as { greeting: string }).greeting;
    try {
      expect(await until(async () => ((await greeting()) === 'one' ? 'one' : undefined), 60_000)).toBe('one');
      fs.writeFileSync(file, source('two'));
      expect(await until(async () => ((await greeting()) === 'two' ? 'two' : undefined), 60_000)).toBe('two');
      fs.writeFileSync(file, 'pipeline hi {\n  trigger htp { }\n}\n');
      await until(async () => (output.includes('previous version keeps running') ? true : undefined), 60_000);
      expect(await greeting()).toBe('two');
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  }, 240_000);
});
