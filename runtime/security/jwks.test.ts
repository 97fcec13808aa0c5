import crypto from 'node:crypto';
import { SignJWT, createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { publicJwks } from './jwks.js';
import { ecPair, edPair, rsaPair, type PemPair } from './test-support/keys.js';

let rsa: PemPair;
let ec: PemPair;
let ed: PemPair;
beforeAll(() => {
  rsa = rsaPair();
  ec = ecPair();
  ed = edPair();
});

describe('publicJwks', () => {
  it('lists one public JWK per private-key account, sorted by account name', async () => {
    const { keys } = await publicJwks({
      zeta: { key: rsa.privatePem, alg: 'RS256', kid: 'rsa-2030' },
      alpha: { key: ec.privatePem },
      mid: { key: ed.privatePem, alg: 'EdDSA', kid: 'ed' },
      openai: { key: 'sk-not-a-signer' },
      verifier: { key: rsa.publicPem },
      admin: { username: 'a', password: 'b' },
      custom: { region: 'eu' },
    });
    expect(keys.map((k) => [k['kty'], k['alg'], k['use']])).toEqual([
      ['EC', 'ES256', 'sig'],
      ['OKP', 'EdDSA', 'sig'],
      ['RSA', 'RS256', 'sig'],
    ]);
    expect(keys[2]?.['kid']).toBe('rsa-2030');
    // Without a kid the RFC 7638 thumbprint is used: 43 base64url characters.
    expect(keys[0]?.['kid']).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('never exposes private key members', async () => {
    const { keys } = await publicJwks({
      a: { key: rsa.privatePem },
      b: { key: ec.privatePem },
      c: { key: ed.privatePem },
    });
    for (const key of keys)
      for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key).not.toHaveProperty(member);
  });

  it('verifies tokens signed with the account key and the same kid', async () => {
    const { keys } = await publicJwks({ signer: { key: ec.privatePem, alg: 'ES256' } });
    const kid = String(keys[0]?.['kid']);
    const token = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setExpirationTime('5m')
      .sign(crypto.createPrivateKey(ec.privatePem));
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys } as unknown as JSONWebKeySet));
    expect(payload.sub).toBe('x');
  });
});
