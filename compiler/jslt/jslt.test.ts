/**
 * Tests of the JSLT compiler and runtime beyond the reference fixtures: the public API,
 * diagnostics (codes and host-file spans), the shape of the generated code, Java-isms
 * (integer vs decimal, dates, uuid, hash-int) and safety (prototype keys, recursion, nesting).
 */
import { describe, expect, it } from 'vitest';
import { PipeError } from '../../runtime/errors.js';
import * as L from '../../runtime/jslt/index.js';
import { compileJslt, jsltToFunction } from './index.js';

function run(query: string, input: unknown = null, variables?: Record<string, unknown>): unknown {
  const compiled = jsltToFunction(query);
  if (!compiled.fn) throw new Error(compiled.diagnostics.map((d) => `${d.code} ${d.message}`).join('; '));
  return compiled.fn(input, variables);
}

function runError(query: string, input: unknown = null): PipeError {
  try {
    run(query, input);
  } catch (error) {
    expect(error).toBeInstanceOf(PipeError);
    return error as PipeError;
  }
  throw new Error(`expected ${query} to fail`);
}

function codes(query: string): string[] {
  return compileJslt(query, { file: 'f.pipe', mapOffset: (o) => o }).diagnostics.map((d) => d.code);
}

describe('compileJslt', () => {
  it('emits a function expression over L only', () => {
    const { js, diagnostics } = compileJslt('let x = 1 def f(a) $a + $x {"a": f(.n), * : .}', {
      file: 'f.pipe',
      mapOffset: (o) => o,
    });
    expect(diagnostics).toEqual([]);
    expect(js.startsWith('(input, variables) => L.run(')).toBe(true);
    expect(js).not.toMatch(/\b(require|import|process|globalThis|eval)\b/);
    const fn = new Function('L', `return (${js});`)(L) as (input: unknown) => unknown;
    expect(fn({ n: 2, z: true })).toEqual({ a: 3, n: 2, z: true });
  });

  it('maps diagnostic spans into the host file', () => {
    const query = '{ "a": .items[1 2] }';
    const { diagnostics } = compileJslt(query, { file: 'host.pipe', mapOffset: (o) => o + 100 });
    expect(diagnostics).toHaveLength(1);
    const [problem] = diagnostics;
    expect(problem?.code).toBe('PIPE5300');
    expect(problem?.message).toContain('Parse error');
    expect(problem?.primary.span).toEqual({
      file: 'host.pipe',
      start: 100 + query.indexOf('2'),
      end: 101 + query.indexOf('2'),
    });
  });

  it('reports static problems with their codes', () => {
    expect(codes('lower(.a)')).toEqual(['PIPE5302']);
    expect(codes('split(.a)')).toEqual(['PIPE5303']);
    expect(codes('def f(a) $a f(1, 2)')).toEqual(['PIPE5303']);
    expect(codes('let x = 1 let x = 2 $x')).toEqual(['PIPE5304']);
    expect(codes('{"a": 1, "a": 2}')).toEqual(['PIPE5305']);
    expect(codes('[{* : .}]')).toEqual(['PIPE5306']);
    expect(codes('def f(o) {* : .} f(.)')).toEqual(['PIPE5306']);
    expect(codes('import "m.jslt" as m m:f()')).toEqual(['PIPE5307']);
    expect(codes('n:f()')).toEqual(['PIPE5308']);
    expect(codes('{.k : 1, * : .}')).toEqual(['PIPE5309']);
    expect(codes('test(.a, "[0-9")')).toEqual(['PIPE5310']);
    expect(codes('"\\d"')).toEqual(['PIPE5301']);
  });

  it('accepts the built-in experimental module without a resolver', () => {
    const query = 'import "http://jslt.schibsted.com/2018/experimental" as exp exp:group-by(., .k, .v)';
    expect(
      run(query, [
        { k: 'a', v: 1 },
        { k: 'a', v: 2 },
      ]),
    ).toEqual([{ key: 'a', values: [1, 2] }]);
  });

  it('compiles imports through a resolver', () => {
    const modules: Record<string, string> = { 'm.jslt': 'let g = "!" def shout(t) $t + $g' };
    const compiled = jsltToFunction('import "m.jslt" as m m:shout(.)', { resolveImport: (p) => modules[p] });
    expect(compiled.fn?.('hi')).toBe('hi!');
  });
});

describe('JSLT semantics', () => {
  it('keeps integers and decimals apart like the reference', () => {
    expect(run('string(1.0)')).toBe('1.0');
    expect(run('to-json(2.2 + 1.8)')).toBe('4.0');
    expect(run('[is-integer(1.0), is-decimal(1.0), is-integer(16 / 4), is-decimal(5 / 2)]')).toEqual([
      false,
      true,
      true,
      true,
    ]);
    expect(run('string(1.5147648E9)')).toBe('1.5147648E9');
    expect(run('[string(-0.0), string(0.0001), string(12345678.9)]')).toEqual(['-0.0', '1.0E-4', '1.23456789E7']);
    expect(run('2.2 + 1.8')).toBe(4); // plain JSON at the edge
  });

  it('supplies external variables and rejects missing ones', () => {
    expect(run('$foo + 1', null, { foo: 41 })).toBe(42);
    expect(runError('$missing').message).toContain('missing');
  });

  it('implements Java-flavoured built-ins', () => {
    expect(run('hash-int("test")')).toBe(1083642606);
    expect(run('uuid(1234567890, 1234567890)')).toBe('00000000-4996-102d-8000-0000499602d2');
    expect(run('format-time(0, "yyyy-MM-dd\'T\'HH:mm:ssXXX")')).toBe('1970-01-01T00:00:00Z');
    expect(run('parse-time("2018-05-30T11:46:37Z", "yyyy-MM-dd\'T\'HH:mm:ssX")')).toBe(1527680797);
    expect(runError('format-time(0, "yyyy", .zone)', { zone: 'Nowhere/Atlantis' }).message).toContain(
      'Unknown timezone',
    );
  });
});

describe('JSLT safety', () => {
  it('treats __proto__, constructor and prototype keys as data', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": 1}}') as unknown;
    const copied = run('{* : .}', input) as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(copied, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(run('{"__proto__": {"polluted": true}}')).toEqual(JSON.parse('{"__proto__": {"polluted": true}}'));
    expect(run('{for (.) .key : .value}', input)).toEqual(input);
    expect(run('[.constructor, .toString, ."__proto__".polluted]', {})).toEqual([null, null, null]);
    expect(run('get-key(., "constructor")', {})).toBe(null);
    expect(codes('constructor(1)')).toEqual(['PIPE5302']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('stops runaway recursion with a PipeError', () => {
    const error = runError('def f(x) f($x) f(1)');
    expect(error.message).toMatch(/recursion too deep/);
  });

  it('rejects deeply nested and very long queries without overflowing', () => {
    const nested = '('.repeat(5000) + '1' + ')'.repeat(5000);
    expect(codes(nested)).toEqual(['PIPE5311']);
    expect(codes('['.repeat(5000))).toEqual(['PIPE5311']);
    expect(codes(Array.from({ length: 2000 }, () => '1').join(' + '))).toEqual(['PIPE5311']);
  });

  it('survives deeply nested input data', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 200_000; level++) deep = [deep];
    expect(run('flatten(.)', deep)).toEqual([1]);
    expect(runError('to-json(.)', deep).message).toMatch(/nested too deeply/);
  });
});
