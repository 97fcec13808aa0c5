import crypto from 'node:crypto';
import { UnsecuredJWT, base64url, decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { PipeError } from '../../errors.js';
import { testContext } from '../../security/test-support/context.js';
import { ecPair, edPair, hmacSecret, rsaPair, type PemPair } from '../../security/test-support/keys.js';
import type { Json, JsonObject } from '../../types.js';
import schema from './schema.json' with { type: 'json' };
import { run } from './jwt.js';

const T0 = Date.UTC(2030, 0, 1, 12);
let clockMs = T0;
const ctx = testContext(() => clockMs);

let rsa: PemPair;
let ec: PemPair;
let ed: PemPair;
const secret = hmacSecret();
beforeAll(() => {
  rsa = rsaPair();
  ec = ecPair();
  ed = edPair();
  clockMs = T0;
});

/** Long-lived account objects, as the service keeps them in ctx.accounts. */
const accounts: Record<string, JsonObject> = {};
function account(name: string): JsonObject {
  if (!accounts[name]) {
    const fields: Record<string, () => JsonObject> = {
      hs: () => ({ key: secret }),
      rsa: () => ({ key: rsa.privatePem, alg: 'RS256', kid: 'rsa-1' }),
      rsaPublic: () => ({ key: rsa.publicPem }),
      ec: () => ({ key: ec.privatePem, alg: 'ES256' }),
      ecPublic: () => ({ key: ec.publicPem }),
      ed: () => ({ key: ed.privatePem, alg: 'EdDSA' }),
      edPublic: () => ({ key: ed.publicPem }),
    };
    accounts[name] = fields[name]!();
  }
  return accounts[name]!;
}

function jwt(params: JsonObject): Promise<Json> {
  const name = params['account'];
  return run(typeof name === 'string' ? { ...params, accountFields: account(name) } : params, null, ctx);
}

async function signed(
  params: JsonObject,
): Promise<{ token: string; jti: string; expiresAt: number; issuedAt: number }> {
  return (await jwt({ operation: 'sign', ...params })) as {
    token: string;
    jti: string;
    expiresAt: number;
    issuedAt: number;
  };
}

async function expectPipeError(
  promise: Promise<unknown>,
  code: number,
  kind: string,
  message?: RegExp,
): Promise<PipeError> {
  const err = await promise.then(
    () => {
      throw new Error('expected a PipeError');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PipeError);
  const pipeError = err as PipeError;
  expect({ code: pipeError.code, kind: pipeError.kind }).toEqual({ code, kind });
  if (message) expect(pipeError.message).toMatch(message);
  return pipeError;
}

describe('jwt sign / verify round trips', () => {
  it.each([
    ['HS256', 'hs', 'hs'],
    ['RS256', 'rsa', 'rsa'],
    ['RS256', 'rsa', 'rsaPublic'],
    ['ES256', 'ec', 'ec'],
    ['ES256', 'ec', 'ecPublic'],
    ['EdDSA', 'ed', 'ed'],
    ['EdDSA', 'ed', 'edPublic'],
  ])('%s: signed with %s, verified with %s', async (alg, signer, verifier) => {
    const out = await signed({
      account: signer,
      subject: 'client-1',
      issuer: 'https://id.test',
      audience: 'orders-api',
      'expires-in': 900,
      claims: { scope: 'orders:read', tier: 2 },
    });
    expect(out.issuedAt).toBe(T0 / 1000);
    expect(out.expiresAt).toBe(T0 / 1000 + 900);
    expect(out.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(decodeProtectedHeader(out.token).alg).toBe(alg);

    const verified = await jwt({
      operation: 'verify',
      account: verifier,
      token: out.token,
      issuer: 'https://id.test',
      audience: 'orders-api',
      subject: 'client-1',
    });
    expect(verified).toMatchObject({
      valid: true,
      header: { alg, typ: 'JWT' },
      claims: {
        sub: 'client-1',
        iss: 'https://id.test',
        aud: 'orders-api',
        scope: 'orders:read',
        tier: 2,
        jti: out.jti,
        exp: out.expiresAt,
      },
    });
  });

  it('puts the account kid (or its thumbprint) in the header', async () => {
    expect(decodeProtectedHeader((await signed({ account: 'rsa' })).token).kid).toBe('rsa-1');
    expect(decodeProtectedHeader((await signed({ account: 'ec' })).token).kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(decodeProtectedHeader((await signed({ account: 'hs' })).token).kid).toBeUndefined();
  });

  it('lets parameters own registered claims and keeps odd claim names as data', async () => {
    const claims = JSON.parse(
      '{"exp": 1, "sub": "spoofed", "__proto__": {"admin": true}, "constructor": "c"}',
    ) as JsonObject;
    const out = await signed({ account: 'hs', subject: 'real', jti: 'fixed-id', claims });
    expect(out.jti).toBe('fixed-id');
    const { claims: read } = (await jwt({ operation: 'decode', token: out.token })) as { claims: JsonObject };
    expect(read['sub']).toBe('real');
    expect(read['exp']).toBe(out.expiresAt);
    expect(Object.hasOwn(read, '__proto__')).toBe(true);
    expect(read['constructor']).toBe('c');
    expect(({} as Record<string, unknown>)['admin']).toBeUndefined();
  });

  it('sets nbf from not-before and refuses the token until then', async () => {
    const out = await signed({ account: 'hs', 'not-before': 60 });
    await expectPipeError(jwt({ operation: 'verify', account: 'hs', token: out.token }), 401, 'INVALID_TOKEN', /nbf/);
    expect(await jwt({ operation: 'verify', account: 'hs', token: out.token, leeway: 60 })).toMatchObject({
      valid: true,
    });
  });
});

describe('jwt verify rejections', () => {
  it('refuses an expired token, unless within the leeway', async () => {
    const out = await signed({ account: 'hs', 'expires-in': 60 });
    clockMs = T0 + 90_000;
    try {
      await expectPipeError(
        jwt({ operation: 'verify', account: 'hs', token: out.token }),
        401,
        'INVALID_TOKEN',
        /expired/,
      );
      expect(await jwt({ operation: 'verify', account: 'hs', token: out.token, leeway: 45 })).toMatchObject({
        valid: true,
      });
    } finally {
      clockMs = T0;
    }
  });

  it('refuses wrong issuer, audience and subject', async () => {
    const { token } = await signed({ account: 'ec', issuer: 'https://id.test', audience: ['a', 'b'], subject: 's' });
    await expectPipeError(
      jwt({ operation: 'verify', account: 'ec', token, issuer: 'https://other.test' }),
      401,
      'INVALID_TOKEN',
      /"iss"/,
    );
    await expectPipeError(
      jwt({ operation: 'verify', account: 'ec', token, audience: 'c' }),
      401,
      'INVALID_TOKEN',
      /"aud"/,
    );
    await expectPipeError(
      jwt({ operation: 'verify', account: 'ec', token, subject: 'x' }),
      401,
      'INVALID_TOKEN',
      /"sub"/,
    );
    expect(await jwt({ operation: 'verify', account: 'ec', token, audience: 'b' })).toMatchObject({ valid: true });
  });

  it('refuses a tampered payload', async () => {
    const { token } = await signed({ account: 'rsa', claims: { role: 'user' } });
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload!))) as JsonObject;
    const forged = `${header}.${base64url.encode(JSON.stringify({ ...claims, role: 'admin' }))}.${signature}`;
    await expectPipeError(
      jwt({ operation: 'verify', account: 'rsaPublic', token: forged }),
      401,
      'INVALID_TOKEN',
      /signature/,
    );
  });

  it('refuses alg:none', async () => {
    const none = new UnsecuredJWT({ sub: 'admin' }).setExpirationTime(T0 / 1000 + 60).encode();
    for (const account of ['hs', 'rsaPublic', 'ed']) {
      await expectPipeError(jwt({ operation: 'verify', account, token: none }), 401, 'INVALID_TOKEN');
    }
  });

  it('refuses HS256 forged with the RSA public key as the secret', async () => {
    const header = base64url.encode(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const payload = base64url.encode(JSON.stringify({ sub: 'admin', exp: T0 / 1000 + 60 }));
    const signature = crypto.createHmac('sha256', rsa.publicPem).update(`${header}.${payload}`).digest('base64url');
    await expectPipeError(
      jwt({ operation: 'verify', account: 'rsaPublic', token: `${header}.${payload}.${signature}` }),
      401,
      'INVALID_TOKEN',
      /not allowed/,
    );
  });

  it('refuses a token from another signer and garbage', async () => {
    const { token } = await signed({ account: 'ec' });
    await expectPipeError(jwt({ operation: 'verify', account: 'hs', token }), 401, 'INVALID_TOKEN');
    await expectPipeError(
      jwt({ operation: 'verify', account: 'hs', token: 'not.a.jwt' }),
      401,
      'INVALID_TOKEN',
      /malformed/,
    );
    await expectPipeError(
      jwt({ operation: 'verify', account: 'hs', token: 'x'.repeat(20_000) }),
      401,
      'INVALID_TOKEN',
      /too long/,
    );
  });
});

describe('jwt decode and configuration errors', () => {
  it('decodes without verifying', async () => {
    const none = new UnsecuredJWT({ sub: 'anyone' }).encode();
    expect(await jwt({ operation: 'decode', token: none })).toEqual({
      claims: { sub: 'anyone' },
      header: { alg: 'none' },
    });
    await expectPipeError(jwt({ operation: 'decode', token: 'garbage' }), 400, 'INVALID_TOKEN');
  });

  it('reports account and parameter problems without echoing the key', async () => {
    const err = await expectPipeError(
      run({ operation: 'sign', account: 'weak', accountFields: { key: 'short-secret-value' } }, null, ctx),
      500,
      'ACCOUNT_CONFIGURATION',
      /at least 32 bytes/,
    );
    expect(err.message).not.toContain('short-secret-value');
    await expectPipeError(
      jwt({ operation: 'sign', account: 'rsaPublic' }),
      500,
      'ACCOUNT_CONFIGURATION',
      /cannot sign/,
    );
    await expectPipeError(jwt({ operation: 'sign', account: 'ec', algorithm: 'RS256' }), 500, 'ACCOUNT_CONFIGURATION');
    await expectPipeError(run({ operation: 'sign', account: 'missing' }, null, ctx), 500, 'ACCOUNT_CONFIGURATION');
    await expectPipeError(jwt({ operation: 'sign', account: 'hs', 'expires-in': -5 }), 400, 'INVALID_PARAMETER');
    await expectPipeError(jwt({ operation: 'verify', account: 'hs' }), 400, 'INVALID_PARAMETER', /token is required/);
    await expectPipeError(jwt({ operation: 'rotate' }), 400, 'INVALID_PARAMETER');
  });

  it('declares every parameter the implementation reads', () => {
    const read = [
      'operation',
      'account',
      'token',
      'claims',
      'subject',
      'issuer',
      'audience',
      'expires-in',
      'jti',
      'not-before',
      'leeway',
      'algorithm',
      'fail-on-error',
    ];
    expect(Object.keys(schema.params.properties).sort()).toEqual([...read].sort());
    expect(schema.params.additionalProperties).toBe(false);
  });
});
