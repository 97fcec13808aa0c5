import { describe, expect, it } from 'vitest';
import { PipeError } from '../errors.js';
import { connectionFailure, connectionTarget, describeTarget } from './connection-account.js';
import { AMQP } from './amqp-link.js';
import { MQTT } from './mqtt-link.js';

describe('connection accounts', () => {
  it("reads a URL, with the fields' credentials winning over the URL's, and keeps them out of the URL", () => {
    const target = connectionTarget({ url: 'amqp://u:from-url@broker.local:5673/vh', password: 'from-field' }, AMQP);
    expect(target).toMatchObject({ username: 'u', password: 'from-field', tls: undefined });
    expect(target.url.toString()).toBe('amqp://broker.local:5673/vh');
    expect(describeTarget(target, AMQP)).toBe('RabbitMQ at amqp://broker.local:5673');
  });

  it("builds the URL from host and port, with the protocol's default port", () => {
    expect(connectionTarget({ host: 'mq', username: 'a' }, MQTT).url.toString()).toBe('mqtt://mq:1883');
    expect(connectionTarget({ host: 'mq', port: 8883 }, MQTT).url.toString()).toBe('mqtt://mq:8883');
  });

  it('turns TLS on for a secure scheme or tls: true, with the PEM fields', () => {
    expect(connectionTarget({ url: 'amqps://b' }, AMQP).tls).toEqual({});
    const target = connectionTarget({ host: 'b', tls: true, ca: 'CA PEM' }, AMQP);
    expect(target.url.protocol).toBe('amqps:');
    expect(target.tls).toEqual({ ca: 'CA PEM' });
  });

  it('refuses an account that names no server, or one of another protocol', () => {
    expect(() => connectionTarget({ username: 'u' }, AMQP)).toThrow(PipeError);
    expect(() => connectionTarget({ url: 'redis://x' }, AMQP)).toThrow(/must start with amqp:\/\/ or amqps:\/\//);
    expect(() => connectionTarget(undefined, AMQP)).toThrow(/no account fields/);
  });

  it('classifies socket failures into the common kinds', () => {
    const err = (code: string): Error => Object.assign(new Error(`connect ${code}`), { code });
    expect(connectionFailure(err('ECONNREFUSED'), 'X')).toMatchObject({ kind: 'CONNECTION_REFUSED', code: 503 });
    expect(connectionFailure(err('ENOTFOUND'), 'X')).toMatchObject({ kind: 'CONNECTION_REFUSED', code: 503 });
    expect(connectionFailure(err('ETIMEDOUT'), 'X')).toMatchObject({ kind: 'TIMEOUT', code: 504 });
    expect(connectionFailure(err('ECONNRESET'), 'X')).toMatchObject({ kind: 'UNAVAILABLE', code: 503 });
    expect(connectionFailure(err('ERR_TLS_CERT_ALTNAME_INVALID'), 'X')).toMatchObject({ kind: 'TLS', code: 502 });
    expect(connectionFailure(new Error('whatever'), 'X', { auth: true })).toMatchObject({
      kind: 'AUTHENTICATION_FAILED',
      code: 502,
    });
    expect(connectionFailure(new Error('something else'), 'X')).toBeUndefined();
  });
});
