import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseFile } from './parse-file.js';
import type { Decl, PipelineDecl, Step, Value } from './ast.js';

const F = 't.pipe';

function parseClean(text: string): readonly Decl[] {
  const result = parseFile(F, text);
  expect(result.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([]);
  return result.value.decls;
}

function codes(text: string): string[] {
  return parseFile(F, text).diagnostics.map((d) => d.code);
}

/** The source text a span covers, to assert spans readably. */
function at(text: string, span: { start: number; end: number } | undefined): string {
  return span ? text.slice(span.start, span.end) : '<none>';
}

function pipeline(text: string): PipelineDecl {
  const decl = parseClean(text)[0];
  if (decl?.kind !== 'pipeline') throw new Error('expected a pipeline');
  return decl;
}

function stepsOf(body: string): readonly Step[] {
  return pipeline(`pipeline p { trigger http { } ${body} }`).steps;
}

function valueOf(source: string): Value {
  const decl = parseClean(`global g = ${source}`)[0];
  if (decl?.kind !== 'global') throw new Error('expected a global');
  return decl.value;
}

describe('declarations', () => {
  it('parses an empty file to no declarations', () => {
    expect(parseFile(F, '')).toEqual({ value: { path: F, decls: [] }, diagnostics: [] });
    expect(parseFile(F, '  // only a comment\n')).toEqual({ value: { path: F, decls: [] }, diagnostics: [] });
  });

  it('parses imports with and without alias', () => {
    const text = 'import "./schemas/x.json" as ExpenseReport\nimport "./lib.pipe"';
    const [withAlias, plain] = parseClean(text);
    expect(withAlias).toMatchObject({ kind: 'import', path: './schemas/x.json', alias: 'ExpenseReport' });
    if (withAlias?.kind !== 'import') return;
    expect(at(text, withAlias.pathSpan)).toBe('"./schemas/x.json"');
    expect(at(text, withAlias.aliasSpan)).toBe('ExpenseReport');
    expect(at(text, withAlias.span)).toBe('import "./schemas/x.json" as ExpenseReport');
    expect(plain).toMatchObject({ kind: 'import', path: './lib.pipe' });
    expect(plain && 'alias' in plain).toBe(false);
  });

  it('parses schema, account, global and store declarations', () => {
    const text = [
      'schema Order { type: "object", required: ["id"] }',
      'account openai: secret-key { key: env("OPENAI_API_KEY") }',
      'global read-timeout = 30000',
      'store reprocess',
      'store cache { expire-after: 7d }',
    ].join('\n');
    const [schema, account, global, store, store2] = parseClean(text);
    expect(schema).toMatchObject({ kind: 'schema', name: 'Order', value: { kind: 'object' } });
    expect(account).toMatchObject({ kind: 'account', name: 'openai', accountType: 'secret-key' });
    if (account?.kind === 'account') {
      expect(at(text, account.typeSpan)).toBe('secret-key');
      expect(account.config.entries[0]).toMatchObject({ key: 'key', value: { kind: 'env', name: 'OPENAI_API_KEY' } });
    }
    expect(global).toMatchObject({ kind: 'global', name: 'read-timeout', value: { kind: 'number', value: 30000 } });
    expect(store).toMatchObject({ kind: 'store', name: 'reprocess' });
    expect(store && 'options' in store).toBe(false);
    expect(store2).toMatchObject({
      kind: 'store',
      options: { entries: [{ key: 'expire-after', value: { kind: 'duration', ms: 604800000 } }] },
    });
  });

  it('parses a pipeline with options, trigger, steps, on-error and branches', () => {
    const text = `pipeline orders (concurrency: 4, timeout: 30s) {
  trigger http { method: POST, path: "/orders" }
  log { message: "hi" }
  on-error { log { message: "failed" } }
  branch big { respond 202 { ok: true } }
}`;
    const p = pipeline(text);
    expect(at(text, p.nameSpan)).toBe('orders');
    expect(at(text, p.options?.span)).toBe('(concurrency: 4, timeout: 30s)');
    expect(p.trigger?.kind).toBe('http');
    expect(at(text, p.trigger?.kindSpan)).toBe('http');
    expect(at(text, p.trigger?.span)).toBe('trigger http { method: POST, path: "/orders" }');
    expect(p.steps.map((s) => s.kind)).toEqual(['connector']);
    expect(p.onError?.map((s) => s.kind)).toEqual(['connector']);
    expect(p.branches).toHaveLength(1);
    expect(p.branches[0]?.name).toBe('big');
    expect(at(text, p.branches[0]?.span)).toBe('branch big { respond 202 { ok: true } }');
    expect(at(text, p.span)).toBe(text);
  });

  it('parses a capsule with typed and untyped params and an output schema', () => {
    const text = 'capsule enrich(account: account, region: string, extra) -> Customer { log { } }';
    const [capsule] = parseClean(text);
    expect(capsule).toMatchObject({
      kind: 'capsule',
      name: 'enrich',
      params: [{ name: 'account', type: 'account' }, { name: 'region', type: 'string' }, { name: 'extra' }],
      output: { kind: 'ident', name: 'Customer' },
      steps: [{ kind: 'connector', connector: 'log' }],
    });
    const inline = parseClean('capsule c() -> { type: "object" } { log { } }')[0];
    expect(inline).toMatchObject({ kind: 'capsule', output: { kind: 'object' }, steps: [{ kind: 'connector' }] });
  });

  it('lets keywords be keys and connector names, and `store` be a step inside a pipeline', () => {
    const p = pipeline(`pipeline p { trigger http { store: 1, schema: 2, trigger-x: 3 }
  store reprocess.find page { query: { retryAt: { $lte: {{ NOW() }} } }, each: page }
  schema { account: x } }`);
    expect(p.trigger?.config.entries.map((e) => e.key)).toEqual(['store', 'schema', 'trigger-x']);
    expect(p.steps[0]).toMatchObject({
      kind: 'connector',
      connector: 'store',
      args: [
        { kind: 'word', text: 'reprocess.find' },
        { kind: 'word', text: 'page' },
      ],
    });
    expect(p.steps[1]).toMatchObject({ kind: 'connector', connector: 'schema' });
  });
});

describe('steps', () => {
  it('parses a connector with word, dotted and string header args and exact spans', () => {
    const body = 'agent extract "x y" { model: "mock:x", temperature: 0.3 }';
    const [step] = stepsOf(body);
    const text = `pipeline p { trigger http { } ${body} }`;
    expect(step).toMatchObject({
      kind: 'connector',
      connector: 'agent',
      args: [
        { kind: 'word', text: 'extract' },
        { kind: 'string', text: 'x y' },
      ],
    });
    if (step?.kind !== 'connector') return;
    expect(at(text, step.connectorSpan)).toBe('agent');
    expect(at(text, step.args[1]?.span)).toBe('"x y"');
    expect(at(text, step.params.span)).toBe('{ model: "mock:x", temperature: 0.3 }');
    expect(at(text, step.span)).toBe(body);
    expect(step.params.entries[1]).toMatchObject({
      kind: 'entry',
      key: 'temperature',
      value: { kind: 'number', value: 0.3 },
    });
  });

  it('parses steps entries (`on-fail { … }`) inside parameters', () => {
    const [step] = stepsOf('validate { schema: S on-fail { respond 422 { error: "bad" } } }');
    expect(step).toMatchObject({
      kind: 'connector',
      params: {
        entries: [
          { kind: 'entry', key: 'schema' },
          { kind: 'steps-entry', key: 'on-fail', steps: [{ kind: 'respond', status: 422 }] },
        ],
      },
    });
  });

  it('parses respond with body and headers, and without a body', () => {
    const body = 'respond 201 { id: 1 } headers { location: "/x" } respond 204 respond 200 headers { a: "b" }';
    const text = `pipeline p { trigger http { } ${body} }`;
    const [full, empty, headersOnly] = stepsOf(body);
    expect(full).toMatchObject({ kind: 'respond', status: 201, body: { kind: 'object' }, headers: { kind: 'object' } });
    if (full?.kind === 'respond') expect(at(text, full.statusSpan)).toBe('201');
    expect(empty).toMatchObject({ kind: 'respond', status: 204 });
    expect(empty && 'body' in empty).toBe(false);
    expect(headersOnly).toMatchObject({ kind: 'respond', status: 200, headers: { entries: [{ key: 'a' }] } });
    expect(headersOnly && 'body' in headersOnly).toBe(false);
  });

  it('parses fail with and without status', () => {
    const [withStatus, bare, numberMessage] = stepsOf('fail 404 "not found" fail { error: "x" } fail 500 log { }');
    expect(withStatus).toMatchObject({ kind: 'fail', status: 404, message: { kind: 'string', value: 'not found' } });
    expect(bare).toMatchObject({ kind: 'fail', message: { kind: 'object' } });
    expect(bare && 'status' in bare).toBe(false);
    expect(numberMessage).toMatchObject({ kind: 'fail', message: { kind: 'number', value: 500 } });
  });

  it('parses choice with label, string / template / braces conditions, refs and otherwise', () => {
    const body = `choice route {
      when "$.body[?(@.total < 500)]" { respond 200 { } }
      when "{{ EQUALTO(message.a, 'b') }}" -> big
      when {{ message.total > 10 }} { }
      otherwise { fail "no route" }
    }`;
    const text = `pipeline p { trigger http { } ${body} branch big { } }`;
    const [step] = pipeline(text).steps;
    expect(step).toMatchObject({
      kind: 'choice',
      label: 'route',
      whens: [
        {
          condition: { kind: 'string', value: '$.body[?(@.total < 500)]' },
          body: { kind: 'inline', steps: [{ kind: 'respond' }] },
        },
        {
          condition: { kind: 'template', parts: [{ kind: 'braces', text: " EQUALTO(message.a, 'b') " }] },
          body: { kind: 'ref', name: 'big' },
        },
        { condition: { kind: 'braces', text: ' message.total > 10 ' }, body: { kind: 'inline', steps: [] } },
      ],
      otherwise: { kind: 'inline', steps: [{ kind: 'fail' }] },
    });
    if (step?.kind !== 'choice') return;
    expect(at(text, step.labelSpan)).toBe('route');
    expect(at(text, step.whens[1]?.body.span)).toBe('big');
    expect(at(text, step.otherwiseSpan)).toBe('otherwise { fail "no route" }');
    expect(at(text, step.whens[2]?.span)).toBe('when {{ message.total > 10 }} { }');
  });

  it('parses try/catch and for-each with label and options', () => {
    const body =
      'try { log { } } catch { respond 500 { } } for-each item "$.data[*]" (parallel: 4) { log { } } for-each {{ message.items }} { }';
    const text = `pipeline p { trigger http { } ${body} }`;
    const [tryStep, each, each2] = pipeline(text).steps;
    expect(tryStep).toMatchObject({ kind: 'try', body: [{ kind: 'connector' }], catchBody: [{ kind: 'respond' }] });
    if (tryStep?.kind === 'try') expect(at(text, tryStep.catchSpan)).toBe('catch { respond 500 { } }');
    expect(each).toMatchObject({
      kind: 'for-each',
      label: 'item',
      over: { kind: 'string', value: '$.data[*]' },
      options: { entries: [{ key: 'parallel', value: { value: 4 } }] },
      body: [{ kind: 'connector' }],
    });
    expect(each2).toMatchObject({ kind: 'for-each', over: { kind: 'braces', text: ' message.items ' }, body: [] });
  });
});

describe('values', () => {
  it('parses scalars, durations, sizes, idents and env', () => {
    expect(valueOf('"a"')).toMatchObject({ kind: 'string', value: 'a', multiline: false });
    expect(valueOf("'a'")).toMatchObject({ kind: 'string', value: 'a' });
    expect(valueOf('-12.5')).toMatchObject({ kind: 'number', value: -12.5, raw: '-12.5' });
    expect(valueOf('250ms')).toMatchObject({ kind: 'duration', ms: 250 });
    expect(valueOf('10MB')).toMatchObject({ kind: 'size', bytes: 10485760 });
    expect(valueOf('true')).toMatchObject({ kind: 'boolean', value: true });
    expect(valueOf('false')).toMatchObject({ kind: 'boolean', value: false });
    expect(valueOf('null')).toMatchObject({ kind: 'null' });
    expect(valueOf('POST')).toMatchObject({ kind: 'ident', name: 'POST' });
    expect(valueOf('crm.token')).toMatchObject({ kind: 'ident', name: 'crm.token' });
    expect(valueOf('env("NAME")')).toMatchObject({ kind: 'env', name: 'NAME' });
    expect(valueOf('env("NAME", "x")')).toMatchObject({ kind: 'env', name: 'NAME', fallback: 'x' });
  });

  it('parses objects with quoted and dashed keys, optional commas and trailing commas', () => {
    const value = valueOf('{ a: 1, "quoted key": 2\n dashed-key: 3, }');
    expect(value).toMatchObject({
      kind: 'object',
      entries: [{ key: 'a' }, { key: 'quoted key' }, { key: 'dashed-key', value: { value: 3 } }],
    });
    expect(valueOf('[1, "x"\n true,]')).toMatchObject({
      kind: 'array',
      items: [{ kind: 'number' }, { kind: 'string' }, { kind: 'boolean' }],
    });
  });

  it('parses tagged objects and bare {{ }} keeping exact spans', () => {
    const text = 'global g = [mcp { url: "u" }, {{ NOW() }}]';
    const decl = parseClean(text)[0];
    if (decl?.kind !== 'global' || decl.value.kind !== 'array') throw new Error('expected an array');
    const [tagged, braces] = decl.value.items;
    expect(tagged).toMatchObject({ kind: 'tagged', tag: 'mcp', value: { entries: [{ key: 'url' }] } });
    if (tagged?.kind === 'tagged') expect(at(text, tagged.span)).toBe('mcp { url: "u" }');
    expect(braces).toMatchObject({ kind: 'braces', text: ' NOW() ' });
    if (braces?.kind === 'braces') {
      expect(at(text, braces.span)).toBe('{{ NOW() }}');
      expect(text.slice(braces.textStart, braces.textStart + braces.text.length)).toBe(' NOW() ');
    }
  });

  it('parses """ strings, dedented, and object-valued braces expressions', () => {
    expect(valueOf('"""\n    line 1\n      line 2\n    """')).toMatchObject({
      kind: 'string',
      value: 'line 1\n  line 2',
      multiline: true,
    });
    expect(valueOf('{{ JSONPATH({"a":{"b":1}}, "$.a") }}')).toMatchObject({
      kind: 'braces',
      text: ' JSONPATH({"a":{"b":1}}, "$.a") ',
    });
  });
});

describe('syntax diagnostics', () => {
  it('reports missing, duplicated and late triggers', () => {
    expect(codes('pipeline p { log { } }')).toEqual(['PIPE1016']);
    expect(codes('pipeline p { trigger http { } trigger event { } }')).toEqual(['PIPE1017']);
    expect(codes('pipeline p { log { } trigger http { } }')).toEqual(['PIPE1018']);
  });

  it('reports structural mistakes with precise spans', () => {
    const text = 'pipeline p { trigger http { method POST, path: , q } log\n respond 200 { } }';
    const diagnostics = parseFile(F, text).diagnostics;
    expect(diagnostics.map((d) => [d.code, at(text, d.primary.span)])).toEqual([
      ['PIPE1013', 'method'],
      ['PIPE1014', ':'],
      ['PIPE1014', 'q'],
      ['PIPE1019', 'log'],
    ]);
  });

  it('reports an unclosed block at the token where it should have ended, naming the opener line', () => {
    const text = 'pipeline a {\n  trigger http { }\n  log { a: 1 }\n\npipeline b { trigger http { } }';
    const [d] = parseFile(F, text).diagnostics;
    expect(d?.code).toBe('PIPE1011');
    expect(d?.message).toBe('expected `}` to close the `{` opened at line 1, found `pipeline`');
    expect(at(text, d?.primary.span)).toBe('pipeline');
    expect(at(text, d?.secondary[0]?.span)).toBe('{');
  });

  it('reports a stray `}` and junk at the top level once per run', () => {
    const text = 'pipeline a { trigger http { } } }\nlog { a: 1 }';
    const diagnostics = parseFile(F, text).diagnostics;
    expect(diagnostics.map((d) => [d.code, at(text, d.primary.span)])).toEqual([['PIPE1012', '}']]);
    expect(codes('log { a: 1 }')).toEqual(['PIPE1020']);
  });

  it('reports bad statuses, value functions, env arguments, duplicate keys, try without catch, bad names', () => {
    expect(codes('pipeline p { trigger http { } respond 20.5 { } }')).toEqual(['PIPE1021']);
    expect(codes('pipeline p { trigger http { } respond 700 }')).toEqual(['PIPE1021']);
    expect(codes('global g = NOW()')).toEqual(['PIPE1022']);
    expect(codes('global g = env(1)')).toEqual(['PIPE1023']);
    expect(codes('global g = { a: 1, a: 2 }')).toEqual(['PIPE1026']);
    expect(codes('pipeline p { trigger http { } try { } }')).toEqual(['PIPE1027']);
    expect(codes('store $x')).toEqual(['PIPE1025']);
    expect(codes('pipeline p { trigger http { } on-error { } on-error { } }')).toEqual(['PIPE1024']);
  });

  it('reports a respond without status and a bad when condition', () => {
    expect(codes('pipeline p { trigger http { } respond { } }')).toEqual(['PIPE1015']);
    expect(codes('pipeline p { trigger http { } choice { when foo { } } }')).toEqual(['PIPE1015']);
  });

  it('reports one diagnostic per mistake, not the fallout of swallowed text', () => {
    expect(codes('pipeline p {\n  trigger http { path: "/x }\n  respond 200 { }\n}')).toEqual(['PIPE1002']);
    expect(codes('pipeline p {\n  trigger http { }\n  respond 200 { t: "{{ F("a") }}" }\n}')).toEqual(['PIPE1004']);
    expect(codes('pipeline p {\n  trigger http { t: ["a"} }\n  respond 200 { }\n}')).toEqual(['PIPE1012']);
    expect(codes('pipeline p {\n  trigger http { }\n  # note here\n  respond 200 { }\n}')).toEqual(['PIPE1001']);
    expect(codes('pipeline p {\n  trigger http { }\n  respond 200 { t: {{ x }, u: 1 }\n}')).toEqual(['PIPE1004']);
  });

  it('reports three separate errors in one run', () => {
    const text = [
      'global a = 30sec',
      'pipeline p {',
      '  trigger http { path "/x" }',
      '  respond 200 { ok: true }',
      '}',
      'account x secret-key { }',
    ].join('\n');
    expect(codes(text)).toEqual(['PIPE1013', 'PIPE1006', 'PIPE1013']);
  });
});

describe('robustness', () => {
  it('refuses binary content with one diagnostic', () => {
    expect(codes('pipeline p {\u0000\u0001 }')).toEqual(['PIPE1008']);
    expect(codes('a\uFFFDb { {{')).toEqual(['PIPE1008']);
  });

  it('refuses a file over 5 MB without lexing', () => {
    const result = parseFile(F, '{'.repeat(10 * 1024 * 1024));
    expect(result.diagnostics.map((d) => d.code)).toEqual(['PIPE1009']);
    expect(result.value.decls).toEqual([]);
  });

  it('refuses nesting deeper than 256 levels before parsing, even for megabytes of brackets', () => {
    const deep = `global g = ${'['.repeat(300)}${']'.repeat(300)}`;
    expect(codes(deep)).toEqual(['PIPE1010']);
    expect(codes(`global g = ${'['.repeat(256)}${']'.repeat(256)}`)).toEqual([]);
    expect(codes('{ '.repeat(2 * 1024 * 1024))).toEqual(['PIPE1010']);
    expect(codes('['.repeat(4 * 1024 * 1024))).toEqual(['PIPE1010']);
  });

  it('handles input truncated mid-token', () => {
    // The unclosed blocks at the end of the file are fallout of the swallowing token: not reported.
    expect(codes('pipeline p { trigger http { path: "abc')).toEqual(['PIPE1002']);
    expect(codes('pipeline p { trigger http { path: {{ a')).toEqual(['PIPE1004']);
    expect(codes('pipeline p { trigger http { path: """abc')).toEqual(['PIPE1002']);
    expect(codes('pipeline p { trigger http { path: "abc" ')).toEqual(['PIPE1011']);
    expect(codes('pipel')).toEqual(['PIPE1020']);
    expect(codes('pipeline')).toEqual(['PIPE1015']);
  });

  it('reports a stray character and keeps going', () => {
    expect(codes('pipeline p { trigger http { } ; log { } }\nglobal g 1')).toEqual(['PIPE1001', 'PIPE1015']);
  });

  it('does not leak state between parses', () => {
    const broken = parseFile(F, 'pipeline p {');
    const clean = parseFile(F, 'store s');
    expect(broken.diagnostics.length).toBeGreaterThan(0);
    expect(clean.diagnostics).toEqual([]);
    expect(clean.value.decls).toHaveLength(1);
  });
});

describe('test/cases', () => {
  const root = new URL('../../test/cases/', import.meta.url);

  it('parses every valid case without diagnostics', () => {
    const files = readdirSync(new URL('valid/', root)).filter((f) => f.endsWith('.pipe'));
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const name of files) {
      const result = parseFile(name, readFileSync(new URL(`valid/${name}`, root), 'utf8'));
      expect({ name, diagnostics: result.diagnostics.map((d) => `${d.code} ${d.message}`) }).toEqual({
        name,
        diagnostics: [],
      });
      expect(result.value.decls.length).toBeGreaterThan(0);
    }
  });

  it('reports exactly one diagnostic for each single-mistake syntax case', () => {
    const files = readdirSync(new URL('syntax/', root)).filter((f) => f.endsWith('.pipe') && f !== 'three-errors.pipe');
    expect(files.length).toBeGreaterThanOrEqual(12);
    for (const name of files) {
      const result = parseFile(name, readFileSync(new URL(`syntax/${name}`, root), 'utf8'));
      expect({ name, count: result.diagnostics.length }).toEqual({ name, count: 1 });
    }
  });
});
