/**
 * The terminal tools: `pipec jolt`, `pipec jslt` (file or stdin input) and `pipec eval` print JSON on
 * stdout and exit 0; a bad spec, query or expression prints diagnostics on stderr and exits 1.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir } from './service-process.js';

const dir = tempDir('tool-cli');
const write = (name: string, content: string): string => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
};
const pipec = (args: string[], input?: string) =>
  spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin/pipec.js'), ...args], {
    input: input ?? '',
    encoding: 'utf8',
  });

describe('pipec jolt', () => {
  const spec = write(
    'spec.json',
    JSON.stringify([
      { operation: 'shift', spec: { rating: { primary: { value: 'Rating' } } } },
      { operation: 'default', spec: { Source: 'pipec' } },
    ]),
  );
  const input = write('input.json', JSON.stringify({ rating: { primary: { value: 3 } } }));

  it('transforms a file', async () => {
    const { code, output } = await runCli(['jolt', spec, input]);
    expect(code).toBe(0);
    expect(JSON.parse(output.out.join(''))).toEqual({ Rating: 3, Source: 'pipec' });
  });

  it('reads stdin when no input file is given', () => {
    const result = pipec(['jolt', spec], JSON.stringify({ rating: { primary: { value: 5 } } }));
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ Rating: 5, Source: 'pipec' });
  });

  it('a bad spec prints a diagnostic with the spec file position and exits 1', async () => {
    const bad = write('bad.json', '[\n  { "operation": "shiftt", "spec": {} }\n]\n');
    const { code, output } = await runCli(['jolt', bad, input]);
    expect(code).toBe(1);
    const text = output.err.join('\n');
    expect(text).toMatch(/PIPE50\d\d/);
    expect(text).toContain('bad.json:2:');
  });

  it('not JSON → a clear error, exit 1', async () => {
    const { code, output } = await runCli(['jolt', write('broken.json', '[{'), input]);
    expect(code).toBe(1);
    expect(output.err.join('\n')).toContain('not valid JSON');
  });
});

describe('pipec jslt', () => {
  const query = write('q.jslt', '{ "names": [for (.people) .name], "count": size(.people) }');
  it('transforms a file and stdin', async () => {
    const input = write('people.json', JSON.stringify({ people: [{ name: 'a' }, { name: 'b' }] }));
    const { code, output } = await runCli(['jslt', query, input]);
    expect(code).toBe(0);
    expect(JSON.parse(output.out.join(''))).toEqual({ names: ['a', 'b'], count: 2 });
    const viaStdin = pipec(['jslt', query], JSON.stringify({ people: [] }));
    // JSLT leaves keys with empty values out of constructed objects.
    expect(JSON.parse(viaStdin.stdout)).toEqual({ count: 0 });
  });

  it('a parse error points at its line and column', async () => {
    const bad = write('bad.jslt', '{\n  "a": .x +\n}\n');
    const { code, output } = await runCli(['jslt', bad, write('x.json', '{}')]);
    expect(code).toBe(1);
    expect(output.err.join('\n')).toMatch(/bad\.jslt:\d+:\d+/);
  });

  it('a failing transform exits 1', async () => {
    const failing = write('fail.jslt', 'error("stop here")');
    const { code, output } = await runCli(['jslt', failing, write('y.json', '{}')]);
    expect(code).toBe(1);
    expect(output.err.join('\n')).toContain('stop here');
  });
});

describe('pipec eval', () => {
  it('evaluates with or without braces, with a message and globals', async () => {
    const message = write('m.json', JSON.stringify({ body: { total: 120.5, name: 'Ana' } }));
    const a = await runCli([
      'eval',
      '{{ CONCAT(global.greeting, ", ", message.body.name) }}',
      '--message',
      message,
      '--global',
      'greeting=Olá',
    ]);
    expect(a.code).toBe(0);
    expect(JSON.parse(a.output.out.join(''))).toBe('Olá, Ana');
    const b = await runCli(['eval', 'message.body.total * 2', '--message', message]);
    expect(JSON.parse(b.output.out.join(''))).toBe(241);
  });

  it('an error prints a diagnostic with a caret and exits 1', async () => {
    const { code, output } = await runCli(['eval', 'CONCTA("a")']);
    expect(code).toBe(1);
    const text = output.err.join('\n');
    expect(text).toContain('^');
    expect(text).toContain('CONCAT');
  });
});

describe('pipec schema and pipec explain', () => {
  it('prints every connector and trigger parameter schema as JSON', async () => {
    const { code, output } = await runCli(['schema']);
    expect(code).toBe(0);
    const all = JSON.parse(output.out.join('')) as {
      connectors: Record<string, { params: { properties: object } }>;
      triggers: Record<string, unknown>;
    };
    // Every folder under runtime/connectors and runtime/triggers, found by looking.
    const folders = (group: string): string[] =>
      fs
        .readdirSync(path.join(REPO_ROOT, 'runtime', group), { withFileTypes: true })
        .filter((d) => d.isDirectory() && fs.existsSync(path.join(REPO_ROOT, 'runtime', group, d.name, 'schema.json')))
        .map((d) => d.name)
        .sort();
    expect(Object.keys(all.connectors).sort()).toEqual(folders('connectors'));
    expect(Object.keys(all.connectors)).toEqual(
      expect.arrayContaining([
        'rest',
        'agent',
        'validate',
        'store',
        'jolt',
        'jslt',
        'publish',
        'execute',
        'jwt',
        'hash',
        'sql',
        'amqp-publish',
        'mqtt-publish',
        'redis',
        'sftp',
        'email',
        'csv',
        'xml',
      ]),
    );
    expect(Object.keys(all.triggers).sort()).toEqual(folders('triggers'));
    expect(Object.keys(all.triggers).sort()).toEqual(
      expect.arrayContaining(['amqp', 'event', 'http', 'http-file', 'mcp-tool', 'mqtt', 'scheduler', 'sql-poll']),
    );
    expect(all.connectors['rest']?.params.properties).toHaveProperty('url');
    const one = await runCli(['schema', 'agent']);
    expect((JSON.parse(one.output.out.join('')) as { name: string }).name).toBe('agent');
    expect((await runCli(['schema', 'nope'])).code).toBe(2);
  });

  it('explains a diagnostic code', async () => {
    const { code, output } = await runCli(['explain', 'PIPE3001']);
    expect(code).toBe(0);
    expect(output.out.join('')).toContain('Unknown parameter');
    expect((await runCli(['explain', 'PIPE0000'])).code).toBe(2);
  });
});
