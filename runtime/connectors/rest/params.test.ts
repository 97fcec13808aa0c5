import { describe, expect, it } from 'vitest';
import { parseRestParams } from './params.js';

describe('parseRestParams', () => {
  it('applies the defaults', () => {
    const spec = parseRestParams({ url: 'https://api.example.com/x' });
    expect(spec).toMatchObject({
      method: 'GET',
      raw: false,
      connectTimeout: 30_000,
      readTimeout: 30_000,
      retries: 0,
      retryBackoff: 200,
      stopOnClientError: false,
      stopOnServerError: false,
      followRedirects: true,
      maxResponseSize: 10 * 1024 * 1024,
      apiKeyHeader: 'x-api-key',
      apiKeyQuery: undefined,
      account: undefined,
      body: undefined,
    });
  });

  it('accepts response-schema and fail-on-error (used by the compiler and generated code)', () => {
    expect(() =>
      parseRestParams({ url: 'https://a/x', 'response-schema': { type: 'object' }, 'fail-on-error': true }),
    ).not.toThrow();
  });

  it('refuses out-of-range numbers, bad methods and header names with a 400 naming the parameter', () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ retries: 11 }, 'retries'],
      [{ 'read-timeout': 0 }, 'read-timeout'],
      [{ 'connect-timeout': 1.5 }, 'connect-timeout'],
      [{ 'max-response-size': '10MB' }, 'max-response-size'],
      [{ method: 'TRACE' }, 'method'],
      [{ headers: { 'bad name': 'x' } }, 'bad name'],
      [{ 'api-key-header': 'x y' }, 'api-key-header'],
      [{ query: { q: { nested: 1 } } }, 'query.q'],
      [{ raw: 'yes' }, 'raw'],
    ];
    for (const [params, name] of bad) {
      expect(() => parseRestParams({ url: 'https://a/x', ...params } as never), name).toThrow(name);
    }
  });

  it('refuses a step that names an account without fields', () => {
    expect(() => parseRestParams({ url: 'https://a/x', account: 'crm' })).toThrow('no fields');
  });
});
