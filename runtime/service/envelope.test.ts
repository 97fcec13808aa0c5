import { describe, expect, it } from 'vitest';
import { excessiveDepthAt, parseJsonText, parseMediaType, parseRequestBody, pathAndQuery, queryAndPathRecord } from './envelope.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('envelope helpers', () => {
  it('measures nesting outside strings only', () => {
    expect(excessiveDepthAt('[[1]]', 2)).toBe(-1);
    expect(excessiveDepthAt('[[[1]]]', 2)).toBe(2);
    expect(excessiveDepthAt('["[[[[\\"[[["]', 2)).toBe(-1);
  });

  it('parses JSON and reports syntax errors as 400', () => {
    expect(parseJsonText('  ')).toBeNull();
    expect(parseJsonText('{"a":[1,2]}')).toEqual({ a: [1, 2] });
    expect(() => parseJsonText('{"a" 1}')).toThrow(expect.objectContaining({ code: 400 }) as Error);
  });

  it('reads media types and charsets', () => {
    expect(parseMediaType('Application/JSON; charset="UTF-8"')).toEqual({ type: 'application/json', charset: 'utf-8' });
    expect(parseMediaType(null)).toEqual({ type: '', charset: undefined });
  });

  it('parses bodies by content type', () => {
    expect(parseRequestBody(bytes('{"a":1}'), 'application/vnd.api+json')).toEqual({ a: 1 });
    expect(parseRequestBody(bytes('caf\xe9'.replace('\xe9', 'é')), 'text/plain')).toBe('café');
    expect(parseRequestBody(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), 'text/plain; charset=latin1')).toBe('café');
    expect(parseRequestBody(new Uint8Array(0), 'application/json')).toBeNull();
    expect(() => parseRequestBody(new Uint8Array([0xff, 0xfe, 0x7b]), 'application/json')).toThrow(/not valid utf-8/);
  });

  it('merges query and path parameters, path winning', () => {
    const merged = queryAndPathRecord(new URL('http://x/a?id=q&k=1&k=2&constructor=c'), { id: 'p' });
    expect({ ...merged }).toEqual({ id: 'p', k: ['1', '2'], constructor: 'c' });
  });
});

describe('pathAndQuery', () => {
  it('agrees with URL on path and query', () => {
    for (const url of ['http://h/a/b?x=1&y=%20z&x=2', 'http://h:8080/', 'http://h/p%C3%A9?', 'http://h', 'http://h/a#f', 'http://h/a?b=1?c=2']) {
      const ours = pathAndQuery(url);
      const ref = new URL(url);
      expect(ours.path).toBe(ref.pathname);
      expect([...(ours.query ?? [])]).toEqual([...ref.searchParams]);
    }
  });

  it('rejects nesting deeper than the limit even when brackets are few elsewhere', () => {
    expect(() => parseJsonText(`${'['.repeat(600)}${']'.repeat(600)}`)).toThrow(/nesting deeper than 512/);
    expect(parseJsonText(`${'['.repeat(500)}${']'.repeat(500)}`)).toBeInstanceOf(Array);
  });
});
