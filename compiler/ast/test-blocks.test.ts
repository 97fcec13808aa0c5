import { describe, expect, it } from 'vitest';
import { parseFile } from './parse-file.js';

function testsOf(text: string) {
  const parsed = parseFile('t.pipe', text);
  return { tests: parsed.value.tests ?? [], codes: parsed.diagnostics.map((d) => d.code), decls: parsed.value.decls };
}

describe('test blocks', () => {
  it('build settings, mocks and every expectation form', () => {
    const { tests, codes } = testsOf(`
      test "all forms" {
        pipeline: shop
        input: file("fixtures/in.json")
        mock rest fetch { status: 200 }
        mock store reprocess.find { data: [] }
        mock rest other fails { code: 503 }
        expect output { a: 1 }
        expect output contains [1, 2]
        expect error contains { code: 422 }
        expect status 201
        expect step shape contains { id: "A" }
        expect branch "{{ message.total < 500 }}"
        expect branch otherwise
        expect published order-approved 2 times with { id: "A" }
        expect called fetch never
        expect called reprocess.find
      }`);
    expect(codes).toEqual([]);
    const [test] = tests;
    expect(test?.pipeline?.name).toBe('shop');
    expect(test?.input).toMatchObject({ kind: 'file', path: 'fixtures/in.json' });
    expect(test?.mocks.map((m) => [m.connector, m.label, m.fails])).toEqual([
      ['rest', 'fetch', false],
      ['store', 'reprocess.find', false],
      ['rest', 'other', true],
    ]);
    expect(
      test?.expects.map((e) => {
        switch (e.kind) {
          case 'output':
          case 'error':
            return [e.kind, e.match, e.value.kind];
          case 'status':
            return [e.kind, e.status];
          case 'step':
            return [e.kind, e.label, e.match];
          case 'branch':
            return [e.kind, e.branch];
          case 'published':
            return [e.kind, e.event, e.times, e.with?.kind];
          case 'called':
            return [e.kind, e.label, e.times];
        }
      }),
    ).toEqual([
      ['output', 'equal', 'object'],
      ['output', 'contains', 'array'],
      ['error', 'contains', 'object'],
      ['status', 201],
      ['step', 'shape', 'contains'],
      ['branch', '{{ message.total < 500 }}'],
      ['branch', 'otherwise'],
      ['published', 'order-approved', 2, 'object'],
      ['called', 'fetch', 0],
      ['called', 'reprocess.find', undefined],
    ]);
  });

  it('keep tests apart from declarations, beside a pipeline', () => {
    const { tests, decls, codes } = testsOf(`
      pipeline p { trigger http { method: GET, path: "/p" } respond 200 { ok: true } }
      test "beside" { expect status 200 }`);
    expect(codes).toEqual([]);
    expect(decls.map((d) => d.kind)).toEqual(['pipeline']);
    expect(tests.map((t) => t.name)).toEqual(['beside']);
  });

  it('stay plain words outside test blocks', () => {
    const { codes, decls } = testsOf(`
      pipeline p { trigger http { method: GET, path: "/p" } log mock { message: "expect" } json-generator { json: { mock: 1, expect: 2, test: 3 } } }`);
    expect(codes).toEqual([]);
    expect(decls).toHaveLength(1);
  });

  it('report malformed items with their own codes', () => {
    const { codes } = testsOf(`
      test "bad" {
        timeout: 5s
        input: { a: 1 }
        input: { b: 2 }
        mock rest
        expect branch
        expect published e 3 with
        expect status 999
        expect nothing
      }`);
    expect(codes).toEqual(['PIPE7001', 'PIPE7005', 'PIPE7003', 'PIPE7002', 'PIPE7002', 'PIPE7002', 'PIPE7002']);
  });
});
