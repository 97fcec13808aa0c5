import { describe, expect, it } from 'vitest';
import { Reply } from '../types.js';
import { mapFailure, mapResult } from './result-mapping.js';

describe('result mapping', () => {
  it('drops unsafe or reserved headers from replies', () => {
    const parts = mapResult(
      new Reply(
        200,
        { a: 1 },
        { 'X-Ok': 'yes', 'X-Bad': 'a\r\nSet-Cookie: x=1', 'Content-Length': '1', 'bad name': 'v' },
      ),
    );
    expect(parts.headers).toEqual({ 'x-ok': 'yes', 'content-type': 'application/json; charset=utf-8' });
  });

  it('uses headers of a { code, body, headers } message', () => {
    expect(mapResult({ code: 200, body: 'x', headers: { 'Cache-Control': 'no-store' } })).toEqual({
      status: 200,
      headers: { 'cache-control': 'no-store', 'content-type': 'text/plain; charset=utf-8' },
      body: 'x',
    });
  });

  it('wraps messages whose code is not an HTTP status', () => {
    expect(mapResult({ code: 0, error: 'x' })).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: '{"body":{"code":0,"error":"x"}}',
    });
    expect(mapResult({ code: 200 }).body).toBe('{"body":{"code":200}}');
    expect(mapResult(null).body).toBe('{"body":null}');
  });

  it('maps failures to their code, falling back to 500', () => {
    expect(mapFailure(404, { error: 'x' }).status).toBe(404);
    expect(mapFailure(200, { error: 'x' }).status).toBe(500);
    expect(mapFailure(1000, { error: 'x' }).status).toBe(500);
  });

  it('tells a client when to retry a 503 whose error object carries retryAfter (a backend away)', () => {
    expect(
      mapFailure(503, { error: 'nats is unavailable', backend: 'nats', retryAfter: 5 }).headers['retry-after'],
    ).toBe('5');
    expect(mapFailure(503, { error: 'draining' }).headers['retry-after']).toBeUndefined();
    expect(mapFailure(500, { error: 'x', retryAfter: 5 }).headers['retry-after']).toBeUndefined();
  });
});
