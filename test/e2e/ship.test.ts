/**
 * Issue 22, item 1: a built service is self-contained and reproducible. Its package.json names
 * only the packages its pipelines load, its package-lock.json pins the versions of pipec's own
 * lockfile, it starts as built (its node_modules a folder of its own, no link into pipec), and a
 * copy in a fresh folder installs from its lockfile alone (`npm ci --omit=dev`, from the npm cache
 * when it holds the packages) and serves.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startServer, type RunningService } from './service-process.js';

const GREET = `schema Greeting {
  type: "object", additionalProperties: false, required: ["name"],
  properties: { name: { type: "string", minLength: 1 } },
}

pipeline greet {
  trigger http { method: POST, path: "/greet", body: Greeting }
  respond 200 { greeting: "Hello, {{ message.body.name }}!" }
}
`;

interface Lock { packages: Record<string, { version?: string; dev?: boolean }> }

describe('a built service, shipped', () => {
  let outside = '';
  let built = '';
  beforeAll(() => {
    // Outside the repository: nothing can be found by walking up to pipec's node_modules.
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'pipec-ship-'));
    fs.writeFileSync(path.join(outside, 'greet.pipe'), GREET);
    built = path.join(outside, 'out', 'greet');
    execFileSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'pipec.js'), 'build', 'greet.pipe', '--out', 'out/greet'], { cwd: outside, stdio: 'pipe' });
  }, 120_000);
  afterAll(() => fs.rmSync(outside, { recursive: true, force: true }));

  const greet = async (service: RunningService): Promise<unknown> => {
    const res = await fetch(`${service.url}/greet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Ana"}' });
    expect(res.status).toBe(200);
    return res.json();
  };

  it('names only the packages its pipelines load, pinned to the versions of pipec\'s lockfile', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(built, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const names = Object.keys(manifest.dependencies);
    // What every service loads, what a body schema needs, the backends chosen where it runs.
    for (const needed of ['hono', '@hono/node-server', 'pino', 'ajv', 'better-sqlite3', 'pg', '@nats-io/transport-node']) expect(names).toContain(needed);
    // What only other connectors load.
    for (const unused of ['openai', '@modelcontextprotocol/sdk', 'json-schema-faker', 'undici', 'busboy', 'chevrotain', 'esbuild']) expect(names).not.toContain(unused);
    const pipecManifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const name of names) expect(manifest.dependencies[name]).toBe(pipecManifest.dependencies[name]);

    const lock = JSON.parse(fs.readFileSync(path.join(built, 'package-lock.json'), 'utf8')) as Lock;
    const pipecLock = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as Lock;
    expect(lock.packages['']).toMatchObject({ dependencies: manifest.dependencies });
    const locations = Object.keys(lock.packages).filter((l) => l !== '');
    for (const location of locations) {
      expect(lock.packages[location]?.version, location).toBe(pipecLock.packages[location]?.version);
      expect(lock.packages[location]?.dev, location).toBeUndefined();
    }
    expect(locations).not.toContain('node_modules/openai');
    expect(locations.length).toBeLessThan(Object.keys(pipecLock.packages).length / 2);
  });

  it('starts as built, from a node_modules of its own', async () => {
    const modules = fs.lstatSync(path.join(built, 'node_modules'));
    expect(modules.isDirectory() && !modules.isSymbolicLink()).toBe(true);
    const service = await startServer(built);
    try {
      expect(await greet(service)).toEqual({ greeting: 'Hello, Ana!' });
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('copied to a fresh folder, installs from its lockfile alone and serves', async () => {
    const fresh = path.join(outside, 'elsewhere');
    fs.cpSync(built, fresh, { recursive: true, filter: (src) => path.basename(src) !== 'node_modules' && path.basename(src) !== '.data' });
    expect(fs.existsSync(path.join(fresh, 'node_modules'))).toBe(false);
    execFileSync('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: fresh, stdio: 'pipe' });
    const installed = JSON.parse(fs.readFileSync(path.join(fresh, 'node_modules', 'hono', 'package.json'), 'utf8')) as { version: string };
    const lock = JSON.parse(fs.readFileSync(path.join(built, 'package-lock.json'), 'utf8')) as Lock;
    expect(installed.version).toBe(lock.packages['node_modules/hono']?.version);
    expect(fs.existsSync(path.join(fresh, 'node_modules', 'openai'))).toBe(false);
    const service = await startServer(fresh);
    try {
      expect(await greet(service)).toEqual({ greeting: 'Hello, Ana!' });
    } finally {
      await service.stop();
    }
  }, 600_000);

  it('takes its secrets from NAME_FILE (the admin key here) and listens on HOST', async () => {
    const keyFile = path.join(outside, 'admin-key');
    fs.writeFileSync(keyFile, 'k-from-a-mounted-secret\n');
    const service = await startServer(built, { PIPEC_ADMIN_API_KEY_FILE: keyFile, HOST: '127.0.0.1' });
    try {
      expect((await fetch(`${service.url}/_pipec/dead-letters`)).status).toBe(401);
      const res = await fetch(`${service.url}/_pipec/dead-letters`, { headers: { authorization: 'Bearer k-from-a-mounted-secret' } });
      expect(res.status).toBe(200);
      expect(service.logs()).not.toContain('k-from-a-mounted-secret');
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('pipec --version is the version of its package.json', () => {
    const version = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const printed = execFileSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'pipec.js'), '--version'], { encoding: 'utf8' });
    expect(printed.trim()).toBe(`pipec ${version}`);
  });
});
