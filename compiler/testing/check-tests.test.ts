import { describe, expect, it } from 'vitest';
import { parseFile } from '../ast/parse-file.js';
import { loadRegistry } from '../connectors/load-registry.js';
import { SourceFile } from '../../base/source/source-file.js';
import { checkTests } from './check-tests.js';

const registry = await loadRegistry();

const PIPELINE = `
pipeline shop {
  trigger http { method: POST, path: "/shop" }
  rest fetch { url: "https://example.com", method: GET }
  hash verify check { value: "a", hash: "b" }
  choice {
    when {{ message.valid }} -> accepted
    otherwise { publish refused { payload: {{ message }} } }
  }
  branch accepted { respond 200 { ok: true } }
}
`;

function check(tests: string, files: Record<string, string> = {}) {
  const text = `${PIPELINE}\n${tests}`;
  const parsed = parseFile('/p/shop.pipe', text);
  expect(parsed.diagnostics).toEqual([]);
  return checkTests({
    files: [parsed.value],
    registry,
    sourceOf: (f) => (f === '/p/shop.pipe' ? new SourceFile(f, text) : undefined),
    sourcePath: (f) => f.replace('/p/', ''),
    readFile: (f) => files[f],
  });
}

describe('checkTests', () => {
  it('fills the fields a mock leaves out with empty values', () => {
    const result = check('test "t" { mock rest fetch { status: 200, body: { a: 1 } } }');
    expect(result.diagnostics).toEqual([]);
    const mock = result.value.tests[0]?.mocks[0];
    expect(mock?.result).toEqual({ output: { status: 200, body: { a: 1 }, statusMessage: '', headers: {} } });
    expect(mock?.keys).toEqual(['shop.pipe:4|rest|fetch']);
  });

  it('picks the member of a union output that the mock fits', () => {
    const result = check('test "t" { mock hash check { valid: true } }');
    expect(result.diagnostics).toEqual([]);
    expect(result.value.tests[0]?.mocks[0]?.result).toEqual({ output: { valid: true } });
  });

  it('an empty mock of a pass-through connector passes the message on; steps are named by their first word too', () => {
    const result = check('test "t" { mock publish refused { } expect called refused never }');
    expect(result.diagnostics).toEqual([]);
    expect(result.value.tests[0]?.mocks[0]?.result).toEqual({ passThrough: true });
    expect(result.value.tests[0]?.expects[0]).toMatchObject({
      kind: 'called',
      keys: ['shop.pipe:8|publish|'],
      times: 0,
    });
  });

  it('a failing mock carries its code, message and details', () => {
    const result = check('test "t" { mock rest fetch fails { code: 503, message: "down", retryAfter: 5 } }');
    expect(result.value.tests[0]?.mocks[0]?.result).toEqual({
      error: { code: 503, message: 'down', details: { retryAfter: 5 } },
    });
  });

  it('resolves branches by condition, by target name and otherwise', () => {
    const result = check(
      'test "t" { expect branch "{{message.valid}}" expect branch accepted expect branch otherwise }',
    );
    expect(result.diagnostics).toEqual([]);
    expect(result.value.tests[0]?.expects.map((e) => (e.kind === 'branch' ? e.keys : []))).toEqual([
      ['shop.pipe:6#0'],
      ['shop.pipe:6#0'],
      ['shop.pipe:6#1'],
    ]);
  });

  it('reads input fixtures relative to the test file', () => {
    const result = check('test "t" { input: file("fixtures/in.json") }', {
      '/p/fixtures/in.json': '{"body": {"id": "A"}}',
    });
    expect(result.diagnostics).toEqual([]);
    expect(result.value.tests[0]?.input).toEqual({ body: { id: 'A' } });
    const bad = check('test "t" { input: file("fixtures/bad.json") }', { '/p/fixtures/bad.json': '{ nope' });
    expect(bad.diagnostics.map((d) => d.code)).toEqual(['PIPE7004']);
  });

  it('lists every step and branch for coverage', () => {
    const result = check('test "t" { }');
    expect(result.value.pipelines).toEqual([
      {
        name: 'shop',
        steps: [
          { key: 'shop.pipe:4|rest|fetch', name: 'fetch (rest, shop.pipe:4)' },
          { key: 'shop.pipe:5|hash|check', name: 'check (hash, shop.pipe:5)' },
          { key: 'shop.pipe:8|publish|', name: 'refused (publish, shop.pipe:8)' },
        ],
        branches: [
          { key: 'shop.pipe:6#0', name: 'shop.pipe:6 when {{ message.valid }}' },
          { key: 'shop.pipe:6#1', name: 'shop.pipe:6 otherwise' },
        ],
      },
    ]);
  });
});
