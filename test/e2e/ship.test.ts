/**
 * Issue 22, item 1: a built service is self-contained and reproducible. Its package.json names
 * only the packages its pipelines load, its package-lock.json pins the versions of pipec's own
 * lockfile, it starts as built (its node_modules a folder of its own, no link into pipec), and a
 * copy in a fresh folder installs from its lockfile alone (`npm ci --omit=dev`, from the npm cache
 * when it holds the packages) and serves. Item 2: `--container` writes a Dockerfile, whose steps
 * are run here outside a container.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
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

interface Instruction {
  op: string;
  args: string;
}

/** The instructions of a Dockerfile (comments and blank lines left out; no line continuations in ours). */
function instructions(text: string): Instruction[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .map((l) => {
      const [op = '', ...rest] = l.split(' ');
      return { op, args: rest.join(' ') };
    });
}

/**
 * better-sqlite3's install script asks GitHub for a prebuilt binary and, offline, compiles SQLite
 * from source (about a minute). Its installer also takes prebuilt binaries from a local folder
 * (`npm_config_better_sqlite3_local_prebuilds`, prebuild-install's `local-prebuilds`): the binary
 * pipec's own `npm ci` built, packed under the name the installer looks for, is exactly what it
 * would compile. A platform we cannot name (musl) gets no folder and compiles as before.
 */
function localPrebuilds(scratch: string): Record<string, string> {
  const manifest = path.join(REPO_ROOT, 'node_modules', 'better-sqlite3', 'package.json');
  const binary = path.join(path.dirname(manifest), 'build', 'Release', 'better_sqlite3.node');
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  const glibc = process.platform !== 'linux' || report?.header?.glibcVersionRuntime !== undefined;
  if (!fs.existsSync(binary) || !glibc) return {};
  const { version } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string };
  const folder = path.join(scratch, 'prebuilds');
  const stage = path.join(scratch, 'prebuild-stage');
  fs.mkdirSync(path.join(stage, 'build', 'Release'), { recursive: true });
  fs.mkdirSync(folder, { recursive: true });
  fs.copyFileSync(binary, path.join(stage, 'build', 'Release', 'better_sqlite3.node'));
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['-czf', path.join(folder, name), '-C', stage, 'build']);
  return { npm_config_better_sqlite3_local_prebuilds: folder };
}

interface Lock {
  packages: Record<string, { version?: string; dev?: boolean }>;
}

describe('a built service, shipped', () => {
  let outside = '';
  let built = '';
  beforeAll(() => {
    // Outside the repository: nothing can be found by walking up to pipec's node_modules.
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'pipec-ship-'));
    fs.writeFileSync(path.join(outside, 'greet.pipe'), GREET);
    built = path.join(outside, 'out', 'greet');
    execFileSync(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'pipec.js'), 'build', 'greet.pipe', '--out', 'out/greet', '--container'],
      { cwd: outside, stdio: 'pipe' },
    );
  }, 120_000);
  afterAll(() => fs.rmSync(outside, { recursive: true, force: true }));

  const greet = async (service: RunningService): Promise<unknown> => {
    const res = await fetch(`${service.url}/greet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"Ana"}',
    });
    expect(res.status).toBe(200);
    return res.json();
  };

  it("names only the packages its pipelines load, pinned to the versions of pipec's lockfile", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(built, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const names = Object.keys(manifest.dependencies);
    // What every service loads, what a body schema needs, the backends chosen where it runs.
    for (const needed of [
      'hono',
      '@hono/node-server',
      'pino',
      'ajv',
      'better-sqlite3',
      'pg',
      '@nats-io/transport-node',
    ])
      expect(names).toContain(needed);
    // What only other connectors load.
    for (const unused of [
      'openai',
      '@modelcontextprotocol/sdk',
      'json-schema-faker',
      'undici',
      'busboy',
      'chevrotain',
      'esbuild',
    ])
      expect(names).not.toContain(unused);
    const pipecManifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
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

  it('writes a Dockerfile: two stages, npm ci from the lockfile, code cache in the image, non-root, a data volume, HEALTHCHECK on /ready', () => {
    const text = fs.readFileSync(path.join(built, 'Dockerfile'), 'utf8');
    const lines = instructions(text);
    const froms = lines.filter((l) => l.op === 'FROM');
    expect(froms.map((l) => l.args)).toEqual(['${NODE_IMAGE} AS deps', '${NODE_IMAGE}']);
    expect(text).toContain(`ARG NODE_IMAGE=node:${process.versions.node}-bookworm-slim`);
    const stage = (n: number): Instruction[] =>
      lines.slice(
        lines.indexOf(froms[n] as Instruction) + 1,
        n + 1 < froms.length ? lines.indexOf(froms[n + 1] as Instruction) : undefined,
      );
    expect(stage(0).map((l) => `${l.op} ${l.args}`)).toEqual(
      expect.arrayContaining(['COPY package.json package-lock.json ./', 'RUN npm ci --omit=dev --no-audit --no-fund']),
    );
    const final = stage(1).map((l) => `${l.op} ${l.args}`);
    expect(final).toEqual(
      expect.arrayContaining([
        'COPY --from=deps /app/node_modules ./node_modules',
        'RUN node runtime/code-cache.js',
        'USER node',
        'VOLUME ["/data"]',
        'CMD ["node", "server.js"]',
      ]),
    );
    expect(final.find((l) => l.startsWith('ENV '))).toContain('PIPEC_DATA_DIR=/data');
    expect(final.find((l) => l.startsWith('HEALTHCHECK '))).toMatch(/CMD node -e .*\/ready/);
    // USER comes before CMD: the service never runs as root.
    expect(final.findIndex((l) => l === 'USER node')).toBeLessThan(final.findIndex((l) => l.startsWith('CMD ')));
    expect(fs.readFileSync(path.join(built, '.dockerignore'), 'utf8').split('\n')).toEqual(
      expect.arrayContaining(['node_modules', 'bundle/service.cjs.cache']),
    );
  });

  /**
   * Containers cannot run on the machines the tests run on, so the Dockerfile's steps run here as
   * they would in the image: its install command in a clean folder holding only package.json and
   * package-lock.json, the service copied beside those packages without what .dockerignore leaves
   * out, its code cache command, then its CMD as an unprivileged user (nobody) with a data folder
   * of that user's, answered through its HEALTHCHECK command.
   */
  it("copied to a fresh folder, installs from its lockfile alone and serves as an unprivileged user (the Dockerfile's steps)", async () => {
    const text = fs.readFileSync(path.join(built, 'Dockerfile'), 'utf8');
    const lines = instructions(text);
    const run = (args: string, cwd: string, env: Record<string, string> = {}): void => {
      execFileSync('sh', ['-c', args], { cwd, stdio: 'pipe', env: { ...process.env, ...env } });
    };
    const fresh = path.join(outside, 'elsewhere');
    // Stage 1: `COPY package.json package-lock.json ./` and its RUN (the npm cache first, when it holds the packages).
    const deps = path.join(fresh, 'deps');
    fs.mkdirSync(deps, { recursive: true });
    for (const file of ['package.json', 'package-lock.json'])
      fs.copyFileSync(path.join(built, file), path.join(deps, file));
    const install = lines.find((l) => l.op === 'RUN' && l.args.startsWith('npm ci'));
    run(install?.args ?? 'false', deps, { npm_config_prefer_offline: 'true', ...localPrebuilds(outside) });
    const installed = JSON.parse(fs.readFileSync(path.join(deps, 'node_modules', 'hono', 'package.json'), 'utf8')) as {
      version: string;
    };
    const lock = JSON.parse(fs.readFileSync(path.join(built, 'package-lock.json'), 'utf8')) as Lock;
    expect(installed.version).toBe(lock.packages['node_modules/hono']?.version);
    expect(fs.existsSync(path.join(deps, 'node_modules', 'openai'))).toBe(false);
    // Stage 2: its packages, then `COPY . .` without what .dockerignore names, then the code cache.
    const app = path.join(fresh, 'app');
    fs.cpSync(path.join(deps, 'node_modules'), path.join(app, 'node_modules'), { recursive: true });
    const ignored = fs.readFileSync(path.join(built, '.dockerignore'), 'utf8').split('\n').filter(Boolean);
    fs.cpSync(built, app, { recursive: true, filter: (src) => !ignored.includes(path.relative(built, src)) });
    expect(fs.existsSync(path.join(app, 'bundle', 'service.cjs.cache'))).toBe(false);
    const cache = lines.find((l) => l.op === 'RUN' && l.args.includes('code-cache'));
    run(cache?.args ?? 'false', app);
    expect(fs.statSync(path.join(app, 'bundle', 'service.cjs.cache')).size).toBeGreaterThan(0);
    // `USER node` and the volume: here the unprivileged user nobody, and a data folder of its own.
    const data = path.join(fresh, 'data');
    fs.mkdirSync(data);
    const root = process.getuid?.() === 0;
    if (root) {
      fs.chownSync(data, 65534, 65534);
      for (let dir = fresh; dir !== path.dirname(dir); dir = path.dirname(dir))
        fs.chmodSync(dir, fs.statSync(dir).mode | 0o055);
    }
    const port = 20000 + (process.pid % 20000);
    const cmd = JSON.parse(lines.find((l) => l.op === 'CMD')?.args ?? '[]') as string[];
    expect(cmd).toEqual(['node', 'server.js']);
    const prefix = root ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
    const argv = [...prefix, process.execPath, ...cmd.slice(1)];
    const env = { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', PIPEC_DATA_DIR: data };
    const child = spawn(argv[0] as string, argv.slice(1), { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let logs = '';
    child.stdout.on('data', (d: Buffer) => (logs += d.toString()));
    child.stderr.on('data', (d: Buffer) => (logs += d.toString()));
    try {
      const health = (lines.find((l) => l.op === 'HEALTHCHECK')?.args ?? '').replace(/^.*?CMD /, '');
      for (let attempt = 0; ; attempt++) {
        try {
          run(health, app, { PORT: String(port) });
          break;
        } catch {
          if (attempt > 300 || child.exitCode !== null) throw new Error(`the HEALTHCHECK never passed:\n${logs}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      const uid = /^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
      expect(Number(uid)).not.toBe(0);
      const res = await fetch(`http://127.0.0.1:${port}/greet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"name":"Ana"}',
      });
      expect(await res.json()).toEqual({ greeting: 'Hello, Ana!' });
      // The embedded backends keep their data in the volume, owned by the unprivileged user.
      const written = fs.readdirSync(data);
      expect(written.length, logs).toBeGreaterThan(0);
      expect(fs.statSync(path.join(data, written[0] as string)).uid).toBe(Number(uid));
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }, 1_200_000);

  it('takes its secrets from NAME_FILE (the admin key here) and listens on HOST', async () => {
    const keyFile = path.join(outside, 'admin-key');
    fs.writeFileSync(keyFile, 'k-from-a-mounted-secret\n');
    const service = await startServer(built, { PIPEC_ADMIN_API_KEY_FILE: keyFile, HOST: '127.0.0.1' });
    try {
      expect((await fetch(`${service.url}/_pipec/dead-letters`)).status).toBe(401);
      const res = await fetch(`${service.url}/_pipec/dead-letters`, {
        headers: { authorization: 'Bearer k-from-a-mounted-secret' },
      });
      expect(res.status).toBe(200);
      expect(service.logs()).not.toContain('k-from-a-mounted-secret');
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('refuses to start with a backend it cannot use: one line, a non-zero exit', () => {
    const start = (env: Record<string, string>): { status: number | null; lines: string[] } => {
      const result = spawnSync(process.execPath, [path.join(built, 'server.js')], {
        cwd: built,
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, PORT: '0', PIPEC_DATA_DIR: path.join(outside, 'refused-data'), ...env },
      });
      return { status: result.status, lines: `${result.stdout}${result.stderr}`.split('\n').filter(Boolean) };
    };
    const mistyped = start({ PIPEC_STORE: 'postgress://app:s3cret@db:5432/app' });
    expect(mistyped.status).toBe(1);
    expect(mistyped.lines).toHaveLength(1);
    expect(JSON.parse(mistyped.lines[0] as string)).toMatchObject({
      level: 60,
      msg: expect.stringMatching(/^PIPEC_STORE has an unknown scheme "postgress:"/),
    });
    expect(mistyped.lines[0]).not.toContain('s3cret');
    // Nothing written: the embedded backends were never opened instead.
    expect(fs.existsSync(path.join(outside, 'refused-data'))).toBe(false);
    const broker = start({ PIPEC_BROKER: 'nast://127.0.0.1:4222' });
    expect(broker.status).toBe(1);
    expect(broker.lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual([
      expect.stringMatching(/^PIPEC_BROKER has an unknown scheme "nast:"/),
    ]);
    const alone = start({ PIPEC_REPLICAS: '3' });
    expect(alone.status).toBe(1);
    expect(alone.lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual([
      expect.stringMatching(/^PIPEC_REPLICAS=3 with the embedded backends only/),
    ]);
  }, 60_000);

  it('pipec --version is the version of its package.json', () => {
    const version = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string })
      .version;
    const printed = execFileSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'pipec.js'), '--version'], {
      encoding: 'utf8',
    });
    expect(printed.trim()).toBe(`pipec ${version}`);
  });
});
