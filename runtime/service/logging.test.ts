import { describe, expect, it } from 'vitest';
import { createLogger, maskSecrets, REDACTED, redactRecord, routeProcessOutput, secretValues } from './logging.js';
import { LogCapture } from './test-support/test-service.js';

describe('redactRecord', () => {
  it('redacts secret keys at the top level and one level down, whatever their case', () => {
    const input = {
      password: 'p',
      user: { Password: 'q', name: 'ana' },
      deep: { inner: { password: 'kept: two levels down' } },
      apiKey: 'k',
    };
    expect(redactRecord(input)).toEqual({
      password: REDACTED,
      user: { Password: REDACTED, name: 'ana' },
      deep: { inner: { password: 'kept: two levels down' } },
      apiKey: REDACTED,
    });
    expect(input.password).toBe('p'); // the caller's object is not changed
  });

  it('redacts secret headers in `headers` at the top level and one level down', () => {
    const out = redactRecord({
      headers: { authorization: 'Bearer x', accept: 'a' },
      request: { headers: { cookie: 'c', 'X-Api-Key': 'k' } },
    });
    expect(out).toEqual({
      headers: { authorization: REDACTED, accept: 'a' },
      request: { headers: { cookie: REDACTED, 'X-Api-Key': REDACTED } },
    });
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

describe('secretValues', () => {
  it('masks credentials of accounts, not their addresses', () => {
    const secrets = secretValues({
      db: { type: 'connection', url: 'postgres://app:s3cret@db/orders', port: 5432 },
      smtp: { type: 'connection', url: 'smtp://127.0.0.1:587', username: 'mailer', password: 'hunter22' },
      api: { type: 'secret-key', key: 'sk-live-123456' },
      keyed: { type: 'connection', url: 'https://api.example.com/v1?apikey=abcdef' },
    });
    expect(secrets).toEqual(['https://api.example.com/v1?apikey=abcdef', 'sk-live-123456', 'hunter22', 's3cret']);
    expect(maskSecrets('the connection to postgres://app:s3cret@db/orders failed', secrets)).toBe(
      'the connection to postgres://app:[REDACTED]@db/orders failed',
    );
    expect(maskSecrets('email: cannot reach 127.0.0.1:587', secrets)).toBe('email: cannot reach 127.0.0.1:587');
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

describe('routeProcessOutput', () => {
  it('turns console lines and process warnings into JSON records, and can be undone', async () => {
    const capture = new LogCapture();
    const undo = routeProcessOutput(createLogger({ level: 'debug', service: 's', destination: capture }));
    try {
      console.log('reader closed', { reason: 'x' });
      console.error('!!! boom');
      process.emitWarning('SSL modes are aliases', { code: 'PIPEC_TEST_WARNING' });
      await new Promise((r) => setImmediate(r));
    } finally {
      undo();
    }
    const records = capture.records;
    expect(records.map((r) => [r['level'], r['msg']])).toEqual([
      [30, "reader closed { reason: 'x' }"],
      [50, '!!! boom'],
      [40, 'SSL modes are aliases'],
    ]);
    expect(records[2]).toMatchObject({ source: 'process', code: 'PIPEC_TEST_WARNING' });
    expect(process.listeners('warning').length).toBeGreaterThan(0);
  });
});
