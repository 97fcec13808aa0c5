import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, UnsecuredJWT, base64url } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAuthenticator, parseBasicCredentials, tokenScopes, type AuthResult, type AuthSpec } from './auth.js';
import { publicJwks } from './jwks.js';
import { ecPair, edPair, hmacSecret, rsaPair, type PemPair } from './test-support/keys.js';

const NOW = Date.UTC(2030, 0, 1); // a fixed clock, in ms
const nowSeconds = Math.floor(NOW / 1000);
const url = new URL('http://svc.test/orders');

let rsa: PemPair;
let ec: PemPair;
let ed: PemPair;
/** A second RSA pair that no account holds: a stranger's key. */
let strangerRsa: PemPair;
const secret = hmacSecret();

beforeAll(() => {
  rsa = rsaPair();
  ec = ecPair();
  ed = edPair();
  strangerRsa = rsaPair();
});
afterEach(() => vi.restoreAllMocks());

function accounts(): Record<string, Record<string, string | string[]>> {
  return {
    shared: { key: secret },
    rsaSigner: { key: rsa.privatePem, alg: 'RS256', kid: 'rsa-1' },
    rsaPublic: { key: rsa.publicPem },
    ecSigner: { key: ec.privatePem, alg: 'ES256' },
    ecPublic: { key: ec.publicPem },
    edSigner: { key: ed.privatePem, alg: 'EdDSA', kid: 'ed-1' },
    edPublic: { key: ed.publicPem },
    partners: { keys: ['key-one-aaaaaaaa', 'key-two-bbbbbbbb'] },
    single: { key: 'only-key-cccccccc' },
    admin: { username: 'alice', password: 'wonder:land' },
  };
}

interface TokenOptions {
  alg?: string;
  kid?: string;
  claims?: Record<string, unknown>;
  exp?: number | null;
  iss?: string;
  aud?: string;
}

async function token(key: crypto.KeyObject | Uint8Array, opts: TokenOptions = {}): Promise<string> {
  const jwt = new SignJWT({ sub: 'client-1', scope: 'orders:read orders:write', ...(opts.claims ?? {}) })
    .setProtectedHeader({ alg: opts.alg ?? 'HS256', ...(opts.kid ? { kid: opts.kid } : {}) })
    .setIssuedAt(nowSeconds)
    .setIssuer(opts.iss ?? 'https://id.test')
    .setAudience(opts.aud ?? 'orders-api');
  if (opts.exp !== null) jwt.setExpirationTime(opts.exp ?? nowSeconds + 300);
  return jwt.sign(key);
}

const hsKey = (): Uint8Array => new TextEncoder().encode(secret);
const privateKey = (pem: string): crypto.KeyObject => crypto.createPrivateKey(pem);

function request(headers: Record<string, string> = {}, at: URL = url): { headers: Headers; url: URL } {
  return { headers: new Headers(headers), url: at };
}

const bearer = (t: string): { headers: Headers; url: URL } => request({ authorization: `Bearer ${t}` });

function authenticate(spec: AuthSpec, opts: Parameters<typeof createAuthenticator>[2] = {}) {
  return createAuthenticator(spec, accounts(), { now: () => NOW, ...opts });
}

function expectFailure(result: AuthResult, status: 401 | 403): Extract<AuthResult, { ok: false }> {
  expect(result.ok).toBe(false);
  if (result.ok) throw new Error('unreachable');
  expect(result.status).toBe(status);
  return result;
}

const baseBearer = { type: 'bearer', issuer: 'https://id.test', audience: 'orders-api' } as const;

describe('bearer: round trips per algorithm', () => {
  it.each([
    ['HS256', 'shared', () => hsKey()],
    ['RS256', 'rsaSigner', () => privateKey(rsa.privatePem)],
    ['RS256', 'rsaPublic', () => privateKey(rsa.privatePem)],
    ['ES256', 'ecSigner', () => privateKey(ec.privatePem)],
    ['ES256', 'ecPublic', () => privateKey(ec.privatePem)],
    ['EdDSA', 'edSigner', () => privateKey(ed.privatePem)],
    ['EdDSA', 'edPublic', () => privateKey(ed.privatePem)],
  ] as const)('%s verified through account %s', async (alg, account, key) => {
    const auth = authenticate({ ...baseBearer, account });
    const result = await auth(bearer(await token(key(), { alg })));
    expect(result).toMatchObject({
      ok: true,
      principal: { scheme: 'bearer', subject: 'client-1', scopes: ['orders:read', 'orders:write'] },
    });
  });
});

describe('bearer: rejections', () => {
  it('asks for credentials without an error code when no bearer token is sent', async () => {
    const result = expectFailure(await authenticate({ ...baseBearer, account: 'shared' })(request()), 401);
    expect(result.wwwAuthenticate).toBe('Bearer realm="pipec"');
  });

  it('flags a malformed Authorization header as invalid_request', async () => {
    const result = expectFailure(
      await authenticate({ ...baseBearer, account: 'shared' })(request({ authorization: 'Bearer a b' })),
      401,
    );
    expect(result.wwwAuthenticate).toContain('error="invalid_request"');
  });

  it('refuses an expired token, and accepts it within the leeway', async () => {
    const expired = await token(hsKey(), { exp: nowSeconds - 30 });
    const strict = expectFailure(await authenticate({ ...baseBearer, account: 'shared' })(bearer(expired)), 401);
    expect(strict.wwwAuthenticate).toBe(
      'Bearer realm="pipec", error="invalid_token", error_description="token expired"',
    );
    const lenient = await authenticate({ ...baseBearer, account: 'shared', leewaySeconds: 60 })(bearer(expired));
    expect(lenient.ok).toBe(true);
  });

  it('refuses a token without exp', async () => {
    const result = expectFailure(
      await authenticate({ ...baseBearer, account: 'shared' })(bearer(await token(hsKey(), { exp: null }))),
      401,
    );
    expect(result.error).toContain('"exp"');
  });

  it('refuses a wrong issuer and a wrong audience', async () => {
    const auth = authenticate({ ...baseBearer, account: 'shared' });
    expect(expectFailure(await auth(bearer(await token(hsKey(), { iss: 'https://evil.test' }))), 401).error).toContain(
      '"iss"',
    );
    expect(expectFailure(await auth(bearer(await token(hsKey(), { aud: 'other-api' }))), 401).error).toContain('"aud"');
  });

  it('accepts one of several audiences', async () => {
    const auth = authenticate({ ...baseBearer, account: 'shared', audience: ['a', 'orders-api'] });
    expect((await auth(bearer(await token(hsKey())))).ok).toBe(true);
  });

  it('refuses a tampered payload', async () => {
    const [header, , signature] = (await token(hsKey())).split('.');
    const forged = base64url.encode(
      JSON.stringify({
        sub: 'admin',
        scope: 'orders:read',
        exp: nowSeconds + 300,
        iss: 'https://id.test',
        aud: 'orders-api',
      }),
    );
    const result = expectFailure(
      await authenticate({ ...baseBearer, account: 'shared' })(bearer(`${header}.${forged}.${signature}`)),
      401,
    );
    expect(result.error).toBe('signature verification failed');
  });

  it('refuses an alg:none token', async () => {
    const unsecured = new UnsecuredJWT({ sub: 'admin', scope: 'orders:read' })
      .setIssuer('https://id.test')
      .setAudience('orders-api')
      .setExpirationTime(nowSeconds + 300)
      .encode();
    for (const account of ['shared', 'rsaPublic']) {
      const result = expectFailure(await authenticate({ ...baseBearer, account })(bearer(unsecured)), 401);
      expect(result.wwwAuthenticate).toContain('error="invalid_token"');
    }
  });

  it('refuses HS256 signed with the RSA public key as the HMAC secret (key confusion)', async () => {
    const header = base64url.encode(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const payload = base64url.encode(
      JSON.stringify({ sub: 'admin', exp: nowSeconds + 300, iss: 'https://id.test', aud: 'orders-api' }),
    );
    const signature = crypto.createHmac('sha256', rsa.publicPem).update(`${header}.${payload}`).digest('base64url');
    const forged = `${header}.${payload}.${signature}`;
    for (const account of ['rsaPublic', 'rsaSigner']) {
      const result = expectFailure(await authenticate({ ...baseBearer, account })(bearer(forged)), 401);
      expect(result.error).toBe('token algorithm not allowed');
    }
  });

  it('refuses a token signed by another key of the same type', async () => {
    const result = expectFailure(
      await authenticate({ ...baseBearer, account: 'rsaPublic' })(
        bearer(await token(privateKey(strangerRsa.privatePem), { alg: 'RS256' })),
      ),
      401,
    );
    expect(result.error).toBe('signature verification failed');
  });

  it('refuses an algorithm outside the configured allow-list', async () => {
    const auth = authenticate({ ...baseBearer, account: 'rsaPublic', algorithms: ['PS256'] });
    expect(
      expectFailure(await auth(bearer(await token(privateKey(rsa.privatePem), { alg: 'RS256' }))), 401).error,
    ).toBe('token algorithm not allowed');
  });

  it('refuses at creation an allow-list that does not fit the key', () => {
    expect(() => authenticate({ ...baseBearer, account: 'rsaPublic', algorithms: ['HS256'] })).toThrow(/fits the key/);
    expect(() => authenticate({ ...baseBearer, account: 'missing' })).toThrow(/not declared/);
  });
});

describe('bearer: scopes, claims, revocation', () => {
  it('answers 403 insufficient_scope when a scope is missing', async () => {
    const auth = authenticate({ ...baseBearer, account: 'shared', scopes: ['orders:read', 'orders:delete'] });
    const result = expectFailure(await auth(bearer(await token(hsKey()))), 403);
    expect(result.wwwAuthenticate).toContain('error="insufficient_scope"');
    expect(result.wwwAuthenticate).toContain('scope="orders:read orders:delete"');
  });

  it('answers 403 when the token carries no scope at all', async () => {
    const auth = authenticate({ ...baseBearer, account: 'shared', scopes: ['orders:read'] });
    expectFailure(await auth(bearer(await token(hsKey(), { claims: { scope: undefined } }))), 403);
  });

  it('reads scopes from an scp array', async () => {
    const auth = authenticate({ ...baseBearer, account: 'shared', scopes: ['admin'] });
    const result = await auth(bearer(await token(hsKey(), { claims: { scope: undefined, scp: ['admin', 'x'] } })));
    expect(result.ok).toBe(true);
    expect(tokenScopes({ scope: 'a  b', scp: ['b', 'c', 3] })).toEqual(['a', 'b', 'c']);
  });

  it('checks required claims by value or array membership', async () => {
    const auth = authenticate({ ...baseBearer, account: 'shared', claims: { tenant: 'acme', roles: 'manager' } });
    expect(
      (await auth(bearer(await token(hsKey(), { claims: { tenant: 'acme', roles: ['sales', 'manager'] } })))).ok,
    ).toBe(true);
    const wrong = expectFailure(
      await auth(bearer(await token(hsKey(), { claims: { tenant: 'other', roles: 'manager' } }))),
      401,
    );
    expect(wrong.error).toBe('"tenant" claim check failed');
  });

  it('does not treat inherited properties as claims', async () => {
    const auth = authenticate({ ...baseBearer, account: 'shared', claims: { constructor: 'x' } });
    expectFailure(await auth(bearer(await token(hsKey()))), 401);
  });

  it('consults isRevoked with the jti and refuses tokens without one', async () => {
    const isRevoked = vi.fn(async (jti: string) => jti === 'revoked-1');
    const auth = authenticate({ ...baseBearer, account: 'shared' }, { isRevoked });
    expect((await auth(bearer(await token(hsKey(), { claims: { jti: 'live-1' } })))).ok).toBe(true);
    expect(expectFailure(await auth(bearer(await token(hsKey(), { claims: { jti: 'revoked-1' } }))), 401).error).toBe(
      'token revoked',
    );
    expect(expectFailure(await auth(bearer(await token(hsKey()))), 401).error).toBe('token has no jti');
    expect(isRevoked.mock.calls.map((c) => c[0])).toEqual(['live-1', 'revoked-1']);
  });
});

describe('bearer: remote JWKS', () => {
  let server: http.Server;
  let jwksUrl: string;
  let fetches = 0;

  beforeAll(async () => {
    const jwks = await publicJwks(accounts());
    server = http.createServer((_req, res) => {
      fetches += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('verifies tokens whose kid is in the served key set and caches the set', async () => {
    const auth = authenticate({ ...baseBearer, jwksUrl });
    const byRsa = await token(privateKey(rsa.privatePem), { alg: 'RS256', kid: 'rsa-1' });
    const byEd = await token(privateKey(ed.privatePem), { alg: 'EdDSA', kid: 'ed-1' });
    expect((await auth(bearer(byRsa))).ok).toBe(true);
    expect((await auth(bearer(byEd))).ok).toBe(true);
    expect(fetches).toBe(1);
  });

  it('refuses a token signed by a key outside the set, and HS256 tokens', async () => {
    const auth = authenticate({ ...baseBearer, jwksUrl });
    const stranger = await token(privateKey(strangerRsa.privatePem), { alg: 'RS256', kid: 'rsa-1' });
    expect(expectFailure(await auth(bearer(stranger)), 401).error).toBe('signature verification failed');
    expect(expectFailure(await auth(bearer(await token(hsKey(), { kid: 'rsa-1' }))), 401).error).toBe(
      'token algorithm not allowed',
    );
  });

  it('reads the JWKS URL from a public-key account', async () => {
    const auth = createAuthenticator({ ...baseBearer, account: 'idp' }, { idp: { key: jwksUrl } }, { now: () => NOW });
    expect((await auth(bearer(await token(privateKey(rsa.privatePem), { alg: 'RS256', kid: 'rsa-1' })))).ok).toBe(true);
  });

  it('answers 401 (not a crash) when the key set cannot be fetched', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/jwks`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const auth = authenticate({ ...baseBearer, jwksUrl: deadUrl });
    const result = expectFailure(
      await auth(bearer(await token(privateKey(rsa.privatePem), { alg: 'RS256', kid: 'rsa-1' }))),
      401,
    );
    expect(result.wwwAuthenticate).toContain('error="invalid_token"');
  });

  it('refuses plain-http JWKS URLs to non-loopback hosts', () => {
    expect(() => authenticate({ ...baseBearer, jwksUrl: 'http://idp.example.com/jwks' })).toThrow(/https/);
  });
});

describe('api-key', () => {
  it('accepts any configured key from the default header, comparing in constant time', async () => {
    const spy = vi.spyOn(crypto, 'timingSafeEqual');
    const auth = authenticate({ type: 'api-key', in: 'header', name: '', account: 'partners' });
    const result = await auth(request({ 'x-api-key': 'key-two-bbbbbbbb' }));
    expect(result).toEqual({ ok: true, principal: { scheme: 'api-key', account: 'partners', keyIndex: 1 } });
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it('refuses a wrong, missing or repeated key', async () => {
    const auth = authenticate({ type: 'api-key', in: 'header', name: 'apikey', account: 'single' });
    expect(expectFailure(await auth(request({ apikey: 'only-key-ccccccccX' })), 401).error).toBe('invalid API key');
    const missing = expectFailure(await auth(request()), 401);
    expect(missing.error).toBe('missing API key');
    expect(missing.wwwAuthenticate).toBe('ApiKey realm="pipec", header="apikey"');
    const headers = new Headers();
    headers.append('apikey', 'only-key-cccccccc');
    headers.append('apikey', 'only-key-cccccccc');
    expect(expectFailure(await auth({ headers, url }), 401).error).toBe('malformed API key');
  });

  it('reads the key from the query string', async () => {
    const auth = authenticate({ type: 'api-key', in: 'query', name: 'key', account: 'single' });
    expect((await auth(request({}, new URL('http://svc.test/x?key=only-key-cccccccc')))).ok).toBe(true);
    expectFailure(await auth(request({}, new URL('http://svc.test/x?key=wrong'))), 401);
    expectFailure(await auth(request({}, new URL('http://svc.test/x?key=only-key-cccccccc&key=b'))), 401);
    expectFailure(await auth(request({ key: 'only-key-cccccccc' })), 401);
  });
});

describe('basic', () => {
  const basic = (user: string, pass: string): { headers: Headers; url: URL } =>
    request({ authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` });

  it('accepts the right pair (password may contain colons) and compares both fields', async () => {
    const spy = vi.spyOn(crypto, 'timingSafeEqual');
    const auth = authenticate({ type: 'basic', account: 'admin', realm: 'ops "area"' });
    expect(await auth(basic('alice', 'wonder:land'))).toEqual({
      ok: true,
      principal: { scheme: 'basic', username: 'alice' },
    });
    expect(spy).toHaveBeenCalledTimes(2);
    spy.mockClear();
    const wrongUser = expectFailure(await auth(basic('bob', 'wonder:land')), 401);
    expect(spy).toHaveBeenCalledTimes(2);
    expect(wrongUser.wwwAuthenticate).toBe('Basic realm="ops \\"area\\"", charset="UTF-8"');
  });

  it('refuses a wrong password, a missing header and malformed credentials', async () => {
    const auth = authenticate({ type: 'basic', account: 'admin' });
    expect(expectFailure(await auth(basic('alice', 'wonder')), 401).error).toBe('invalid credentials');
    expect(expectFailure(await auth(request()), 401).error).toBe('missing credentials');
    expect(expectFailure(await auth(request({ authorization: 'Basic !!!' })), 401).error).toBe('malformed credentials');
  });

  it('parses credentials strictly', () => {
    expect(parseBasicCredentials(`basic ${Buffer.from('u:p:q').toString('base64')}`)).toEqual({
      username: 'u',
      password: 'p:q',
    });
    expect(parseBasicCredentials(`Basic ${Buffer.from('no-colon').toString('base64')}`)).toBeNull();
    expect(parseBasicCredentials(`Basic ${Buffer.from([0x75, 0x3a, 0xff]).toString('base64')}`)).toBeNull();
    expect(parseBasicCredentials('Bearer abc')).toBeNull();
    expect(parseBasicCredentials(`Basic ${'A'.repeat(5000)}`)).toBeNull();
  });

  it('refuses an account without a password at creation', () => {
    expect(() =>
      createAuthenticator({ type: 'basic', account: 'a' }, { a: { type: 'basic', username: 'x', password: '' } }),
    ).toThrow(/non-empty/);
  });
});
