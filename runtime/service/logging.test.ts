import { describe, expect, it } from 'vitest';
import { createLogger, REDACTED, redactRecord } from './logging.js';
import { LogCapture } from './test-support/test-service.js';

describe('redactRecord', () => {
  it('redacts secret keys at the top level and one level down, whatever their case', () => {
    const input = { password: 'p', user: { Password: 'q', name: 'ana' }, deep: { inner: { password: 'kept: two levels down' } }, apiKey: 'k' };
    expect(redactRecord(input)).toEqual({
      password: REDACTED, user: { Password: REDACTED, name: 'ana' }, deep: { inner: { password: 'kept: two levels down' } }, apiKey: REDACTED,
    });
    expect(input.password).toBe('p'); // the caller's object is not changed
  });

  it('redacts secret headers in `headers` at the top level and one level down', () => {
    const out = redactRecord({ headers: { authorization: 'Bearer x', accept: 'a' }, request: { headers: { cookie: 'c', 'X-Api-Key': 'k' } } });
    expect(out).toEqual({ headers: { authorization: REDACTED, accept: 'a' }, request: { headers: { cookie: REDACTED, 'X-Api-Key': REDACTED } } });
  });

  it('returns a record without secrets as it is, and keeps __proto__ a plain key', () => {
    const clean = { a: 1, b: { c: 'd' } };
    expect(redactRecord(clean)).toBe(clean);
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "secret": "s"}') as Record<string, unknown>;
    const out = redactRecord(hostile);
    expect(out['secret']).toBe(REDACTED);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('createLogger', () => {
  it('applies the redaction to log lines and child bindings', () => {
    const logs = new LogCapture();
    const logger = createLogger({ level: 'info', destination: logs });
    logger.child({ password: 'child-secret', pipeline: 'p' }).info({ headers: { authorization: 'Bearer t' } }, 'hello');
    expect(logs.text).not.toContain('child-secret');
    expect(logs.text).not.toContain('Bearer t');
    expect(logs.records[0]).toMatchObject({ pipeline: 'p', msg: 'hello', headers: { authorization: REDACTED } });
  });
});
