import { describe, expect, it } from 'vitest';
import type { PipelineDecl } from '../ast/ast.js';
import { parseFile } from '../ast/parse-file.js';
import { loadRegistry } from '../connectors/load-registry.js';
import { envelopeDemand } from './envelope-demand.js';

const registry = await loadRegistry();

/** The demand of the one pipeline in `body` (its trigger line is added), as a sorted list or 'all'. */
function demand(body: string): string[] | 'all' {
  const text = `schema S { type: "object" }\npipeline p {\n  trigger http { method: POST, path: "/p" }\n${body}\n}\n`;
  const parsed = parseFile('/p/p.pipe', text);
  expect(parsed.diagnostics).toEqual([]);
  const decl = parsed.value.decls.find((d): d is PipelineDecl => d.kind === 'pipeline');
  if (!decl) throw new Error('no pipeline');
  const result = envelopeDemand(decl, registry);
  return result === 'all' ? 'all' : [...result].sort();
}

describe('envelopeDemand: the HTTP envelope fields a pipeline can read', () => {
  it('is the body alone when the first step reads only message.body and replaces the message', () => {
    expect(demand('validate { schema: S, payload: {{ message.body }} }\nrespond 200 {{ message }}')).toEqual(['body']);
    expect(demand('json-generator { json: { a: {{ message.body.a }} } }\nrespond 200 {{ message }}')).toEqual(['body']);
  });

  it('collects every field read before the envelope is replaced, in expressions and templates', () => {
    expect(
      demand(
        'log { message: "{{ message.method }} {{ message.path }}" }\nrespond 200 { h: {{ message.headers.accept }}, q: {{ message["queryAndPath"] }} }',
      ),
    ).toEqual(['body', 'headers', 'method', 'path', 'queryAndPath']);
  });

  it('reads fields in conditions, JSONPath conditions, lambdas and nested calls', () => {
    expect(
      demand(
        'choice {\n when {{ SIZE(FILTER(message.body.items, i => i.x == message.contentType)) > 0 }} { respond 200 {} }\n when "$.principal.sub" { respond 200 {} }\n otherwise { respond 404 {} }\n}',
      ),
    ).toEqual(['body', 'contentType', 'principal']);
    expect(demand('choice {\n when "$[\'headers\'].x" { respond 200 {} }\n otherwise { respond 404 {} }\n}')).toEqual([
      'body',
      'headers',
    ]);
  });

  it('is everything for uses that cannot be narrowed to fields', () => {
    expect(demand('respond 200 {{ message }}')).toBe('all');
    expect(demand('respond 200 {{ message.$ }}')).toBe('all');
    expect(demand('respond 200 {{ message[message.body.key] }}')).toBe('all');
    expect(demand('respond 200 {{ JSONPATH(message, "$.body") }}')).toBe('all');
    expect(demand('choice {\n when "$..x" { respond 200 {} }\n otherwise { respond 404 {} }\n}')).toBe('all');
    expect(demand('choice {\n when "$" { respond 200 {} }\n otherwise { respond 404 {} }\n}')).toBe('all');
    expect(demand('for-each "$.*" { log { message: "x" } }\nrespond 200 {}')).toBe('all');
  });

  it('is everything when a connector reads its incoming message while it is the envelope', () => {
    expect(demand('jolt { spec: [{ operation: "shift", spec: { body: "b" } }] }\nrespond 200 {{ message }}')).toBe(
      'all',
    );
    // validate, jslt, execute and publish read the message unless `payload` is given
    expect(demand('validate { schema: S }\nrespond 200 {}')).toBe('all');
    expect(demand('publish done { }\nrespond 200 {}')).toBe('all');
    expect(demand('publish done { payload: {{ message.body }} }\nrespond 200 {}')).toEqual(['body']);
  });

  it('follows the envelope through connectors that pass it on unchanged', () => {
    expect(
      demand('log { message: "hi" }\nassert { condition: {{ true }} }\nrespond 200 { m: {{ message.method }} }'),
    ).toEqual(['body', 'method']);
    expect(demand('log { message: "hi" }\njolt { spec: [{ operation: "shift", spec: { body: "b" } }] }')).toBe('all');
  });

  it('is everything when a step that passes the envelope on is labelled (step.<label> reads it later)', () => {
    expect(
      demand('assert seen { condition: {{ true }} }\njson-generator { json: {} }\nrespond 200 {{ step.seen }}'),
    ).toBe('all');
  });

  it('stops at the first step that replaces the message', () => {
    expect(demand('rest { url: "https://example.com", method: GET }\nrespond 200 {{ message }}')).toEqual(['body']);
    expect(demand('json-generator { json: {} }\njolt { spec: [{ operation: "shift", spec: { a: "b" } }] }')).toEqual([
      'body',
    ]);
  });

  it('walks choice branches, named branches and try bodies, and joins what may pass on', () => {
    const body = [
      'choice {',
      '  when {{ message.body.a }} -> reader',
      '  when {{ message.body.b }} { json-generator { json: {} } }',
      '}',
      'respond 200 { p: {{ message.path }} }',
      'branch reader { log { message: "{{ message.headers.x }}" } }',
    ].join('\n');
    expect(demand(body)).toEqual(['body', 'headers', 'path']);
    expect(
      demand(
        'try { log { message: "x" } } catch { respond 500 {{ message }} }\nrespond 200 { m: {{ message.method }} }',
      ),
    ).toEqual(['body', 'method']);
  });

  it('does not count messages that are not the envelope: on-fail, for-each bodies, catch, on-error', () => {
    expect(
      demand(
        'validate { schema: S, payload: {{ message.body }}, on-fail { respond 400 {{ message }} } }\nrespond 200 {{ message }}',
      ),
    ).toEqual(['body']);
    expect(
      demand('for-each {{ message.body.items }} { respond 200 {{ message }} }\nrespond 200 {{ message }}'),
    ).toEqual(['body']);
  });

  it('is everything when the pipeline can end with the envelope as its message (the answer carries it)', () => {
    expect(demand('log { message: "{{ message.body.a }}" }')).toBe('all');
    expect(demand('choice {\n when {{ message.body.a }} { respond 200 {} }\n}')).toBe('all');
    expect(
      demand('choice {\n when {{ message.body.a }} { respond 200 {} }\n otherwise { json-generator { json: {} } }\n}'),
    ).toEqual(['body']);
    expect(demand('try { log { message: "x" } } catch { respond 500 {} }')).toBe('all');
  });

  it('is everything for a capsule, which runs steps of its own over the message', () => {
    const text =
      'capsule c { json-generator { json: {} } }\npipeline p {\n  trigger http { method: POST, path: "/p" }\n  c { }\n  respond 200 {}\n}\n';
    const parsed = parseFile('/p/p.pipe', text);
    const decl = parsed.value.decls.find((d): d is PipelineDecl => d.kind === 'pipeline');
    expect(decl && envelopeDemand(decl, registry)).toBe('all');
  });
});
