import { Headers } from 'undici';
import { describe, expect, it } from 'vitest';
import { PipeError } from '../../errors.js';
import {
  clientBasicAuthorization,
  grantOf,
  OAuth2TokenCache,
  oauth2ConfigOf,
  refreshTime,
  type TokenGrant,
} from './oauth2-token-cache.js';

const never = new AbortController().signal;
const account = (): Record<string, string> => ({
  type: 'oauth2',
  'token-url': 'https://idp.example.com/token',
  'client-id': 'c',
  'client-secret': 's',
});

function requester(grants: Array<TokenGrant | Error>) {
  let calls = 0;
  const next = async (): Promise<TokenGrant> => {
    const grant = grants[Math.min(calls, grants.length - 1)];
    calls++;
    if (grant instanceof Error || grant === undefined) throw grant ?? new Error('no grant');
    return grant;
  };
  return { next, calls: () => calls };
}

describe('refreshTime', () => {
  it('refreshes 30 s before expiry, or halfway for short tokens, and never without expires_in', () => {
    expect(refreshTime(1_000, 3600)).toBe(1_000 + 3_600_000 - 30_000);
    expect(refreshTime(0, 40)).toBe(20_000);
    expect(refreshTime(0, undefined)).toBeUndefined();
  });
});

describe('OAuth2TokenCache', () => {
  it('keeps a token without expires_in until invalidated, and invalidates only the token given', async () => {
    const source = requester([
      { accessToken: 'a', expiresIn: undefined },
      { accessToken: 'b', expiresIn: undefined },
    ]);
    const cache = new OAuth2TokenCache(source.next);
    const fields = account();
    const clock = { now: () => 0 };
    expect(await cache.accessToken(fields, 'idp', { now: () => 1e12 }, never)).toBe('a');
    cache.invalidate(fields, 'stale-token');
    expect(await cache.accessToken(fields, 'idp', clock, never)).toBe('a');
    cache.invalidate(fields, 'a');
    expect(await cache.accessToken(fields, 'idp', clock, never)).toBe('b');
    expect(source.calls()).toBe(2);
  });

  it('keeps tokens per account object', async () => {
    const source = requester([
      { accessToken: 'a', expiresIn: 60 },
      { accessToken: 'b', expiresIn: 60 },
    ]);
    const cache = new OAuth2TokenCache(source.next);
    const clock = { now: () => 0 };
    expect(await cache.accessToken(account(), 'one', clock, never)).toBe('a');
    expect(await cache.accessToken(account(), 'two', clock, never)).toBe('b');
  });

  it('a failed request is not cached: the next call asks again', async () => {
    const source = requester([new PipeError('down', { code: 502 }), { accessToken: 'a', expiresIn: 60 }]);
    const cache = new OAuth2TokenCache(source.next);
    const fields = account();
    await expect(cache.accessToken(fields, 'idp', { now: () => 0 }, never)).rejects.toThrow('down');
    expect(await cache.accessToken(fields, 'idp', { now: () => 0 }, never)).toBe('a');
  });

  it('a caller whose execution aborts leaves; the shared request still serves the others', async () => {
    let release: (grant: TokenGrant) => void = () => undefined;
    const cache = new OAuth2TokenCache(
      () =>
        new Promise((resolve) => {
          release = resolve;
        }),
    );
    const fields = account();
    const controller = new AbortController();
    const leaving = cache.accessToken(fields, 'idp', { now: () => 0 }, controller.signal);
    const staying = cache.accessToken(fields, 'idp', { now: () => 0 }, never);
    controller.abort(new Error('gone'));
    await expect(leaving).rejects.toThrow('gone');
    release({ accessToken: 'shared', expiresIn: 60 });
    expect(await staying).toBe('shared');
  });

  it('names missing account fields without values', () => {
    expect(() => oauth2ConfigOf({ type: 'oauth2', 'token-url': 'https://x/t', 'client-id': 'c' }, 'idp')).toThrow(
      "oauth2 account lacks 'client-secret'",
    );
    expect(() => oauth2ConfigOf({ ...account(), 'token-url': 'not a url' }, 'idp')).toThrow(
      "'token-url' is not an absolute URL",
    );
  });
});

describe('token responses', () => {
  const response = (status: number, body: unknown) => ({
    status,
    statusText: '',
    headers: new Headers(),
    body: new TextEncoder().encode(JSON.stringify(body)),
  });

  it('reads access_token and expires_in (number or numeric string)', () => {
    expect(grantOf(response(200, { access_token: 't', token_type: 'bearer', expires_in: 60 }), 'idp')).toEqual({
      accessToken: 't',
      expiresIn: 60,
    });
    expect(grantOf(response(200, { access_token: 't', expires_in: '90' }), 'idp')).toEqual({
      accessToken: 't',
      expiresIn: 90,
    });
    expect(grantOf(response(200, { access_token: 't', expires_in: -1 }), 'idp').expiresIn).toBeUndefined();
  });

  it('refuses responses without a token, non-Bearer tokens and error statuses', () => {
    expect(() => grantOf(response(200, { token_type: 'bearer' }), 'idp')).toThrow('without an access_token');
    expect(() => grantOf(response(200, { access_token: 't', token_type: 'mac' }), 'idp')).toThrow('other than Bearer');
    expect(() => grantOf(response(400, { error: 'invalid_scope <script>' }), 'idp')).toThrow(
      /refused the token request: 400$/,
    );
  });

  it('form-encodes client id and secret before Basic encoding (RFC 6749 §2.3.1)', () => {
    expect(clientBasicAuthorization('a b', 'p:w')).toBe(`Basic ${Buffer.from('a+b:p%3Aw').toString('base64')}`);
  });
});
