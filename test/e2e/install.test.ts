/**
 * README "Installing pipec": what `npm pack` puts in the tarball is enough to use pipec in any
 * folder. The tarball is unpacked outside the repository (as `npm install -g ./pipec-*.tgz` does),
 * with this repository's node_modules standing in for the dependencies npm would install, and a
 * service is checked, built and served from a folder that has nothing of pipec in it. And no
 * document tells anyone to run plain `npx pipec`, which outside this repository would fetch and
 * run whatever the public registry holds under that name.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startServer, tempDir, type RunningService } from './service-process.js';

const GREET = `schema Greeting {
  type: "object", additionalProperties: false, required: ["name"],
  properties: { name: { type: "string", minLength: 1 } },
}

pipeline greet {
  trigger http { method: POST, path: "/greet", body: Greeting }
  respond 200 { greeting: "Hello, {{ message.body.name }}!" }
}
`;

describe('a packed pipec, used from another folder', () => {
  let installed = '';
  let project = '';
  let tarballFiles: string[] = [];
  const cleanup: string[] = [];

  beforeAll(() => {
    const packs = tempDir('pack');
    // The build already ran (npm test builds first); `npm pack` without scripts packs that build.
    const name =
      execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', packs], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
      })
        .trim()
        .split('\n')
        .pop() ?? '';
    const tarball = path.join(packs, name);
    tarballFiles = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
    // Outside the repository, so nothing can be found by walking up to it.
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'pipec-install-'));
    cleanup.push(outside);
    execFileSync('tar', ['-xzf', tarball, '-C', outside]);
    installed = path.join(outside, 'package');
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(installed, 'node_modules'), 'dir');
    project = path.join(outside, 'my-integrations');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'greet.pipe'), GREET);
  }, 120_000);

  afterAll(() => {
    for (const dir of cleanup) fs.rmSync(dir, { recursive: true, force: true });
  });

  const pipec = (...args: string[]): { code: number; text: string } => {
    try {
      const text = execFileSync(process.execPath, [path.join(installed, 'bin', 'pipec.js'), ...args], {
        cwd: project,
        encoding: 'utf8',
        stdio: 'pipe',
      });
      return { code: 0, text };
    } catch (err) {
      const failed = err as { status: number; stdout: string; stderr: string };
      return { code: failed.status, text: `${failed.stdout}${failed.stderr}` };
    }
  };

  it('holds the CLI, the compiled runtime and the connector schemas, and no tests', () => {
    for (const file of [
      'bin/pipec.js',
      'dist/pipec-lock.json',
      'dist/compiler/cli/pipec.js',
      'dist/runtime/launch.js',
      'runtime/connectors/rest/schema.json',
      'runtime/triggers/http/schema.json',
      'README.md',
    ]) {
      expect(tarballFiles, file).toContain(`package/${file}`);
    }
    expect(tarballFiles.filter((f) => /\.test\.|test-support|\/fixtures\//.test(f))).toEqual([]);
  });

  it('checks, builds and serves a pipeline from a folder of its own', async () => {
    expect(pipec('check', 'greet.pipe')).toMatchObject({ code: 0 });
    const built = pipec('build', 'greet.pipe', '--out', 'out/greet');
    expect(built.code, built.text).toBe(0);
    let served: RunningService | undefined;
    try {
      served = await startServer(path.join(project, 'out', 'greet'));
      const res = await fetch(`${served.url}/greet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"name":"Ana"}',
      });
      expect(await res.json()).toEqual({ greeting: 'Hello, Ana!' });
    } finally {
      await served?.stop();
    }
  }, 120_000);
});

describe('documented commands', () => {
  const documents = (): string[] => {
    const found = ['README.md'];
    for (const dir of ['docs', 'examples', 'editors', 'compiler', 'runtime', 'grammar']) {
      const walk = (rel: string): void => {
        for (const entry of fs.readdirSync(path.join(REPO_ROOT, rel), { withFileTypes: true })) {
          const child = path.join(rel, entry.name);
          if (entry.isDirectory() && entry.name !== 'node_modules') walk(child);
          else if (entry.name.endsWith('.md')) found.push(child);
        }
      };
      walk(dir);
    }
    return found;
  };

  it('never run plain `npx pipec` (it would ask the public registry outside this repository)', () => {
    const offending: string[] = [];
    for (const doc of documents()) {
      fs.readFileSync(path.join(REPO_ROOT, doc), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/\bnpx\s+(?:-y\s+|--yes\s+)?pipec\b/.test(line)) offending.push(`${doc}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offending).toEqual([]);
  });
});
