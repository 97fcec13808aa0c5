import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { OWN_JWKS_KEY, withDevelopmentKeys, withOwnKeySet } from './development-keys.js';
import { signingKeyOf, verificationKeyOf } from './keys.js';
import { tokenKeyOf, verifyToken } from './verify-token.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pipec-dev-keys-'));
  dirs.push(dir);
  return dir;
}

describe('development keys', () => {
  const accounts = { signer: { type: 'private-key', key: null, alg: 'ES256' }, other: { type: 'api-key', key: 'k' } };

  it('makes a key for a key-less private-key account once, keeps it in the data folder, and reuses it', async () => {
    const dir = dataDir();
    const made: Array<[string, boolean]> = [];
    const first = withDevelopmentKeys(accounts, {
      dataDir: dir,
      env: {},
      onMadeKey: (a, _f, created) => made.push([a, created]),
    });
    const file = path.join(dir, 'keys', 'signer.pem');
    expect(fs.readFileSync(file, 'utf8')).toBe(first['signer']?.['key']);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect((await signingKeyOf(first['signer'] ?? {})).alg).toBe('ES256');
    expect(first['other']).toBe(accounts.other);
    const again = withDevelopmentKeys(accounts, {
      dataDir: dir,
      env: {},
      onMadeKey: (a, _f, created) => made.push([a, created]),
    });
    expect(again['signer']?.['key']).toBe(first['signer']?.['key']);
    expect(made).toEqual([
      ['signer', true],
      ['signer', false],
    ]);
  });

  it('two data folders make two different keys (nothing is shared or published)', () => {
    const a = withDevelopmentKeys(accounts, { dataDir: dataDir(), env: {}, onMadeKey: () => undefined });
    const b = withDevelopmentKeys(accounts, { dataDir: dataDir(), env: {}, onMadeKey: () => undefined });
    expect(a['signer']?.['key']).not.toBe(b['signer']?.['key']);
  });

  it('refuses to make one under NODE_ENV=production', () => {
    expect(() =>
      withDevelopmentKeys(accounts, {
        dataDir: dataDir(),
        env: { NODE_ENV: 'production' },
        onMadeKey: () => undefined,
      }),
    ).toThrow(/signer has no key/);
  });

  it('leaves accounts that have a key alone', () => {
    const given = { signer: { type: 'private-key', key: '-----BEGIN PRIVATE KEY-----…', alg: 'ES256' } };
    expect(
      withDevelopmentKeys(given, { dataDir: dataDir(), env: { NODE_ENV: 'production' }, onMadeKey: () => undefined }),
    ).toBe(given);
  });

  it('a public-key account keyed with the own key set verifies what the service signs, nothing else', async () => {
    const withKeys = withDevelopmentKeys(accounts, { dataDir: dataDir(), env: {}, onMadeKey: () => undefined });
    const resolved = await withOwnKeySet({ ...withKeys, verifier: { type: 'public-key', key: OWN_JWKS_KEY } });
    const tokenKey = tokenKeyOf(verificationKeyOf(resolved['verifier'] ?? {}));
    const signing = await signingKeyOf(resolved['signer'] ?? {});
    const exp = Math.floor(Date.now() / 1000) + 60;
    const token = await new SignJWT({ role: 'admin' })
      .setProtectedHeader({ alg: 'ES256', kid: signing.kid ?? '' })
      .setExpirationTime(exp)
      .sign(signing.key);
    expect((await verifyToken(token, tokenKey)).claims['role']).toBe('admin');
    const stranger = await signingKeyOf(
      withDevelopmentKeys(accounts, { dataDir: dataDir(), env: {}, onMadeKey: () => undefined })['signer'] ?? {},
    );
    const forged = await new SignJWT({ role: 'admin' })
      .setProtectedHeader({ alg: 'ES256', kid: signing.kid ?? '' })
      .setExpirationTime(exp)
      .sign(stranger.key);
    await expect(verifyToken(forged, tokenKey)).rejects.toThrow('signature verification failed');
  });
});
