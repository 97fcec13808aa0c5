/**
 * The compiler reads only what it should: imports stay inside the project (the folders given, or
 * `--root`), only regular `.pipe` / `.json` files of at most 5 MB are read, and a refusal never
 * shows what the refused file holds. Each case runs the real CLI as a child process bounded to
 * 10 s, so a read that blocks (a FIFO, `/dev/zero`) fails the test instead of hanging it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from './service-process.js';

const BOUND_MS = 10_000;
const PIPELINE = 'pipeline orders {\n  trigger http { method: POST, path: "/orders" }\n  respond 200 { ok: true }\n}\n';

function pipec(
  args: readonly string[],
  cwd: string,
): { status: number | null; stderr: string; stdout: string; timedOut: boolean } {
  const run = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin/pipec.js'), ...args, '--color', 'never'], {
    cwd,
    encoding: 'utf8',
    timeout: BOUND_MS,
    killSignal: 'SIGKILL',
  });
  return { status: run.status, stderr: run.stderr, stdout: run.stdout, timedOut: run.error !== undefined };
}

/** A project folder `app/` (with one file of its own) inside a scratch folder that holds `outside.json`. */
function project(name: string, importLines: string): { base: string; app: string; file: string } {
  const base = tempDir(`confined-${name}`);
  const app = path.join(base, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(base, 'outside.json'), '{ "type": "object", "secret": "outside-secret-value" }\n');
  const file = path.join(app, 'main.pipe');
  fs.writeFileSync(file, `${importLines}\n${PIPELINE}`);
  return { base, app, file };
}

function checkApp(p: { app: string }, extra: readonly string[] = []) {
  const run = pipec(['check', 'main.pipe', ...extra], p.app);
  expect(run.timedOut, 'pipec check did not finish within 10 s').toBe(false);
  return run;
}

describe('imports are confined to the project', () => {
  it('`import "/dev/zero"` ends at once with a diagnostic', () => {
    const p = project('dev-zero', 'import "/dev/zero" as Zero');
    const run = checkApp(p);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('error[PIPE2015]');
  });

  it('a symbolic link to a device, inside the project, is refused as outside it', () => {
    const p = project('link-device', 'import "./zero.json" as Zero');
    fs.symlinkSync('/dev/zero', path.join(p.app, 'zero.json'));
    const run = checkApp(p);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('error[PIPE2014]');
  });

  it('a symbolic link to a file outside the project is refused without showing the file', () => {
    const p = project('link-outside', 'import "./passwd.json" as Passwd\nimport "./outside.json" as Outside');
    fs.symlinkSync('/etc/passwd', path.join(p.app, 'passwd.json'));
    fs.symlinkSync(path.join(p.base, 'outside.json'), path.join(p.app, 'outside.json'));
    const run = checkApp(p);
    expect(run.status).toBe(1);
    expect(run.stderr.match(/error\[PIPE2014\]/g)).toHaveLength(2);
    expect(run.stderr).not.toMatch(/root:|outside-secret-value/);
  });

  it('a path that climbs out of the project is refused, and --root widens the project', () => {
    const p = project('climb', 'import "../outside.json" as Outside');
    const refused = checkApp(p);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('error[PIPE2014]');
    expect(refused.stderr).not.toContain('outside-secret-value');
    const widened = checkApp(p, ['--root', '..']);
    expect(widened.stderr).not.toContain('error');
    expect(widened.status).toBe(0);
  });

  it('a FIFO is refused without blocking, as an import and as an input', () => {
    const p = project('fifo', 'import "./queue.json" as Queue');
    execFileSync('mkfifo', [path.join(p.app, 'queue.json')]);
    const asImport = checkApp(p);
    expect(asImport.status).toBe(1);
    expect(asImport.stderr).toMatch(/error\[PIPE2015\].*a FIFO/);
    execFileSync('mkfifo', [path.join(p.app, 'named.pipe')]);
    const asInput = pipec(['check', 'named.pipe'], p.app);
    expect(asInput.timedOut).toBe(false);
    expect(asInput.status).toBe(1);
    expect(asInput.stderr).toMatch(/error\[PIPE9002\].*a FIFO/);
  });

  it('a device given as an input is refused without reading it', () => {
    const p = project('device-input', '');
    const run = pipec(['check', '/dev/zero'], p.app);
    expect(run.timedOut).toBe(false);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/error\[PIPE9002\].*a device/);
  });

  it('an imported file over 5 MB is refused before it is read', () => {
    const p = project('large', 'import "./big.json" as Big');
    const big = path.join(p.app, 'big.json');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 6 * 1024 * 1024); // sparse: no 6 MB written to disk
    const run = checkApp(p);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/error\[PIPE2015\].*larger than 5 MB/);
  });

  it('a folder named like a JSON file is refused', () => {
    const p = project('folder', 'import "./schemas.json" as Schemas');
    fs.mkdirSync(path.join(p.app, 'schemas.json'));
    const run = checkApp(p);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/error\[PIPE2015\].*folder/);
  });

  it("a test's input file outside the project is refused without showing it", () => {
    const p = project('test-input', '');
    fs.writeFileSync(
      path.join(p.app, 'main.test.pipe'),
      'test "reads outside" {\n  pipeline: orders\n  input: file("../outside.json")\n  expect status 200\n}\n',
    );
    const run = pipec(['test', '.'], p.app);
    expect(run.timedOut).toBe(false);
    expect(run.status).toBe(1);
    expect(`${run.stdout}${run.stderr}`).toMatch(/PIPE7004.*outside the project/);
    expect(`${run.stdout}${run.stderr}`).not.toContain('outside-secret-value');
  });

  it('--root must hold every input', () => {
    const p = project('root-inputs', '');
    const run = pipec(['check', 'main.pipe', '--root', path.join(p.base, 'elsewhere')], p.app);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/error\[PIPE9002\].*outside the project root/);
  });
});
