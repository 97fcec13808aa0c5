/**
 * The CLI as a user meets it: exit codes, text and JSON diagnostics, help, and hostile input files
 * (empty, binary, truncated, huge, deeply nested) that must give clean diagnostics, never a stack
 * trace or a hang.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir } from './service-process.js';

const dir = tempDir('cli');
const write = (name: string, content: string | Buffer): string => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
};

describe('pipec CLI', () => {
  it('check on all examples together (one service) exits 0 with no warnings', async () => {
    const { code, output } = await runCli(['check', path.join(REPO_ROOT, 'examples'), '--color', 'never']);
    expect(output.err.join('\n')).not.toMatch(/(error|warning)\[/);
    expect(code).toBe(0);
  });

  it('exit 1 with file:line:col, a code frame and a hint for a mistake', async () => {
    const file = write(
      'typo.pipe',
      'pipeline p {\n  trigger http { method: POST, path: "/p" }\n  lgo { message: "x" }\n}\n',
    );
    const { code, output } = await runCli(['check', file, '--color', 'never']);
    expect(code).toBe(1);
    const text = output.err.join('\n');
    expect(text).toContain('error[PIPE2001]: unknown connector `lgo`');
    expect(text).toMatch(/typo\.pipe:3:3/);
    expect(text).toContain('^^^');
    expect(text).toContain('did you mean `log`?');
  });

  it('--format json prints 1-based positions', async () => {
    const file = write(
      'typo2.pipe',
      'pipeline p {\n  trigger http { method: POST, path: "/p" }\n  lgo { message: "x" }\n}\n',
    );
    const { code, output } = await runCli(['check', file, '--format', 'json']);
    expect(code).toBe(1);
    const diagnostics = JSON.parse(output.out.join('')) as Array<Record<string, unknown>>;
    expect(diagnostics[0]).toMatchObject({
      line: 3,
      column: 3,
      endLine: 3,
      endColumn: 6,
      severity: 'error',
      code: 'PIPE2001',
    });
    expect(diagnostics[0]).toHaveProperty('hint');
  });

  it('reports every error of a file in one run', async () => {
    const file = write(
      'many.pipe',
      'pipeline p {\n  trigger http { method: POST, path: "/p" }\n  lgo { message: "x" }\n  jsn-generator { json: {} }\n  log { mesage: "y" }\n}\n',
    );
    const { output } = await runCli(['check', file, '--format', 'json']);
    const codes = (JSON.parse(output.out.join('')) as Array<{ code: string }>).map((d) => d.code);
    expect(codes.filter((c) => c.startsWith('PIPE')).length).toBeGreaterThanOrEqual(3);
  });

  it('usage errors exit 2; help exits 0', async () => {
    expect((await runCli(['check'])).code).toBe(2);
    expect((await runCli(['frobnicate'])).code).toBe(2);
    expect((await runCli(['check', '--bogus', 'x.pipe'])).code).toBe(2);
    expect((await runCli(['--help'])).code).toBe(0);
    const help = await runCli(['build', '--help']);
    expect(help.code).toBe(0);
    expect(help.output.out.join('\n')).toContain('usage: pipec build');
  });

  it('a missing file is a diagnostic, exit 1', async () => {
    const { code, output } = await runCli(['check', path.join(dir, 'nope.pipe')]);
    expect(code).toBe(1);
    expect(output.err.join('\n')).toContain('PIPE9002');
  });

  const hostile: Array<[string, string | Buffer]> = [
    ['empty.pipe', ''],
    ['binary.pipe', Buffer.from([0x00, 0xff, 0xfe, 0x00, 0x13, 0x37, 0x80, 0x81])],
    ['truncated.pipe', 'pipeline p {\n  trigger http { method: POST, path: "/p'],
    [
      'truncated-braces.pipe',
      'pipeline p {\n  trigger http { method: POST, path: "/p" }\n  log { message: {{ message.',
    ],
    ['nested.pipe', '{'.repeat(10 * 1024 * 1024)],
    ['too-large.pipe', `// ${'x'.repeat(11 * 1024 * 1024)}\n`],
  ];
  for (const [name, content] of hostile) {
    it(`hostile input ${name}: clean diagnostics, no stack trace`, async () => {
      const file = write(name, content);
      const started = Date.now();
      const { code, output } = await runCli(['check', file, '--color', 'never']);
      const text = [...output.out, ...output.err].join('\n');
      expect(text).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/);
      expect(text).not.toContain('PIPE9001');
      expect(Date.now() - started).toBeLessThan(20_000);
      if (name === 'empty.pipe') expect(code).toBe(0);
      else expect(code).toBe(1);
    }, 30_000);
  }
});
