import { describe, expect, it } from 'vitest';
import { AccountError, accountTypeOf, jwksUrlOf, signingKeyOf, verificationKeyOf } from './keys.js';
import { ecPair, rsaPair } from './test-support/keys.js';

describe('accountTypeOf', () => {
  it('uses the declared type or infers it from the fields', () => {
    const rsa = rsaPair();
    expect(accountTypeOf({ type: 'api-key', key: 'x' })).toBe('api-key');
    expect(accountTypeOf({ username: 'u', password: 'p' })).toBe('basic');
    expect(accountTypeOf({ keys: ['a'] })).toBe('api-key');
    expect(accountTypeOf({ key: rsa.privatePem })).toBe('private-key');
    expect(accountTypeOf({ key: rsa.publicPem })).toBe('public-key');
    expect(accountTypeOf({ key: 'https://id.example.com/jwks.json' })).toBe('public-key');
    expect(accountTypeOf({ key: 'plain-shared-secret' })).toBe('secret-key');
    expect(() => accountTypeOf({ region: 'eu' })).toThrow(AccountError);
  });
});

describe('signingKeyOf / verificationKeyOf', () => {
  it('refuses short HMAC secrets and algorithms that do not fit the key', async () => {
    await expect(signingKeyOf({ key: 'too-short' })).rejects.toThrow(/at least 32 bytes/);
    await expect(signingKeyOf({ key: 'x'.repeat(32), alg: 'HS512' })).rejects.toThrow(/at least 64 bytes/);
    await expect(signingKeyOf({ key: ecPair().privatePem, alg: 'RS256' })).rejects.toThrow(/fits the key/);
    await expect(signingKeyOf({ key: rsaPair().publicPem })).rejects.toThrow(/cannot sign/);
  });

  it('restricts verification to the algorithms the key supports', () => {
    const secret = verificationKeyOf({ key: 'x'.repeat(48) });
    expect(secret.algorithms).toEqual(['HS256', 'HS384']);
    expect(verificationKeyOf({ key: ecPair().publicPem }).algorithms).toEqual(['ES256']);
    expect(verificationKeyOf({ key: rsaPair().publicPem }, ['RS256', 'HS256']).algorithms).toEqual(['RS256']);
  });

  it('accepts PEMs whose newlines were escaped in an environment variable', async () => {
    const escaped = ecPair().privatePem.replace(/\n/g, '\\n');
    expect((await signingKeyOf({ key: escaped })).alg).toBe('ES256');
  });

  it('does not echo key material in errors', async () => {
    const garbage = '-----BEGIN PRIVATE KEY-----\nTOPSECRETBYTES\n-----END PRIVATE KEY-----';
    await expect(signingKeyOf({ key: garbage })).rejects.toThrow(AccountError);
    await signingKeyOf({ key: garbage }).catch((err: Error) => expect(err.message).not.toContain('TOPSECRET'));
  });

  it('requires https for remote key sets except on loopback', () => {
    expect(jwksUrlOf('https://id.example.com/jwks').hostname).toBe('id.example.com');
    expect(jwksUrlOf('http://127.0.0.1:8080/jwks').port).toBe('8080');
    expect(() => jwksUrlOf('http://id.example.com/jwks')).toThrow(/https/);
    expect(() => jwksUrlOf('file:///etc/passwd')).toThrow(/https/);
  });
});
