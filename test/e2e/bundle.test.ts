/**
 * The start-up bundle (`pipec build` → bundle/service.cjs + V8 code cache, runtime/launch.ts):
 * the service starts from it, the code cache is accepted, packages left out of it load on first
 * use, and the modules still work without it (`--no-bundle`, PIPEC_BUNDLE=0).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, startServer, tempDir, type RunningService } from './service-process.js';

const FIXTURE = path.join(REPO_ROOT, 'test/e2e/fixtures/bundle.pipe');

/** A peer API for the rest step: echoes the JSON it receives. */
function startPeer(): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() }),
    ),
  );
}

describe('start-up bundle', () => {
  let outDir: string;
  let peer: { url: string; close: () => void };

  beforeAll(async () => {
    outDir = path.join(tempDir('bundle'), 'out');
    const built = await runCli(['build', FIXTURE, '--out', outDir]);
    expect(built.code, built.output.err.join('\n')).toBe(0);
    peer = await startPeer();
  }, 60_000);

  afterAll(() => peer?.close());

  it('writes the bundle and its code cache next to the readable modules', () => {
    for (const file of [
      'bundle/service.cjs',
      'bundle/service.cjs.cache',
      'server.js',
      'service.js',
      'runtime/launch.js',
    ]) {
      expect(fs.existsSync(path.join(outDir, file)), file).toBe(true);
    }
    const bundle = fs.readFileSync(path.join(outDir, 'bundle/service.cjs'), 'utf8');
    // Every unbundled package is reached through require (a vm script cannot import()).
    expect(bundle).not.toMatch(/\bimport\(\s*["'][^."']/);
    expect(bundle).toContain('require("undici")');
    // The bundler is the compiler's; the service does not need it.
    const pkg = JSON.parse(fs.readFileSync(path.join(outDir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies)).not.toContain('esbuild');
  });

  it('V8 accepts the code cache made at build time', () => {
    const script = `import('${path.join(outDir, 'runtime/launch.js')}').then((m) => { const b = m.loadBundle(${JSON.stringify(outDir)}); process.stdout.write(JSON.stringify({ loaded: typeof b.exports.startService, codeCacheUsed: b.codeCacheUsed })); })`;
    const printed = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(JSON.parse(printed)).toEqual({ loaded: 'function', codeCacheUsed: true });
  });

  it('accepts it also on the way server.js starts, which tunes V8 flags (after loading)', () => {
    const url = pathToFileURL(`${outDir}/`).href;
    const script = `import('${path.join(outDir, 'runtime/launch.js')}').then(async (m) => { const s = await m.loadService(new URL(${JSON.stringify(url)}), {}); process.stdout.write(JSON.stringify({ loaded: typeof s.startable.startService, codeCacheUsed: s.codeCacheUsed })); })`;
    const printed = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(JSON.parse(printed)).toEqual({ loaded: 'function', codeCacheUsed: true });
  });

  describe.each([
    ['from the bundle', {}],
    ['from the modules (PIPEC_BUNDLE=0)', { PIPEC_BUNDLE: '0' }],
  ])('a service started %s', (_name, env: Record<string, string>) => {
    let service: RunningService;
    beforeAll(async () => {
      service = await startServer(outDir, { BUNDLE_PEER_URL: peer.url, ...env });
    }, 30_000);
    afterAll(async () => service?.stop());

    it('calls a peer with the rest client loaded on first use, and formats dates', async () => {
      const res = await fetch(`${service.url}/forward`, {
        method: 'POST',
        body: JSON.stringify({ a: [1, 2] }),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        body: { status: 200, echoed: { a: [1, 2] }, today: String(new Date().getUTCFullYear()) },
      });
    });

    it('serves metrics with prom-client loaded on first scrape', async () => {
      const res = await fetch(`${service.url}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/pipec_executions_total\{[^}]*pipeline="bundle-forward"/);
    });
  });

  it('--no-bundle leaves no bundle behind, and the service still starts', async () => {
    const built = await runCli(['build', FIXTURE, '--out', outDir, '--no-bundle']);
    expect(built.code, built.output.err.join('\n')).toBe(0);
    expect(fs.existsSync(path.join(outDir, 'bundle'))).toBe(false);
    const service = await startServer(outDir, { BUNDLE_PEER_URL: peer.url });
    try {
      const res = await fetch(`${service.url}/forward`, {
        method: 'POST',
        body: '{"b":true}',
        headers: { 'content-type': 'application/json' },
      });
      expect(await res.json()).toMatchObject({ body: { status: 200, echoed: { b: true } } });
    } finally {
      await service.stop();
    }
  }, 60_000);
});

describe('the pipec CLI bundle (dist/pipec.cjs, written by npm run build)', () => {
  const bin = path.join(REPO_ROOT, 'bin/pipec.js');
  const cli = (args: readonly string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });

  it('exists with a code cache that V8 accepts', () => {
    const bundle = path.join(REPO_ROOT, 'dist/pipec.cjs');
    const script = `import('${path.join(REPO_ROOT, 'dist/runtime/launch.js')}').then((m) => { const b = m.runBundle(${JSON.stringify(bundle)}, ${JSON.stringify(`${bundle}.cache`)}, (s) => import(s)); process.stdout.write(JSON.stringify({ main: typeof b.exports.main, codeCacheUsed: b.codeCacheUsed })); })`;
    expect(JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }))).toEqual({
      main: 'function',
      codeCacheUsed: true,
    });
  });

  it('reports exactly what the modules report, errors included', () => {
    const broken = fs
      .readdirSync(path.join(REPO_ROOT, 'test/cases/flow'))
      .filter((f) => f.endsWith('.pipe'))
      .slice(0, 3);
    const args = ['check', ...broken.map((f) => path.join(REPO_ROOT, 'test/cases/flow', f)), '--color', 'never'];
    const fromBundle = cli(args);
    const fromModules = cli(args, { PIPEC_BUNDLE: '0' });
    expect(fromBundle.status).toBe(1);
    expect({ status: fromBundle.status, stdout: fromBundle.stdout, stderr: fromBundle.stderr }).toEqual({
      status: fromModules.status,
      stdout: fromModules.stdout,
      stderr: fromModules.stderr,
    });
  });

  it('runs .pipe tests, which import the service they generate', () => {
    const run = cli(['test', path.join(REPO_ROOT, 'examples/hello'), '--color', 'never']);
    expect(run.stdout + run.stderr).toMatch(/\d+ passed, 0 failed/);
    expect(run.status).toBe(0);
  });
});
