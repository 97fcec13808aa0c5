import crypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PipeError } from '../../errors.js';
import { testContext } from '../../security/test-support/context.js';
import type { Json, JsonObject } from '../../types.js';
import { parseScryptHash, run } from './hash.js';
import schema from './schema.json' with { type: 'json' };

const ctx = testContext();
const hash = (params: JsonObject): Promise<Json> => run(params, null, ctx);

afterEach(() => vi.restoreAllMocks());

async function expectPipeError(promise: Promise<unknown>, kind: string): Promise<void> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PipeError);
  expect((err as PipeError).kind).toBe(kind);
  expect((err as PipeError).code).toBe(400);
}

describe('hash / verify', () => {
  it('round-trips a secret and refuses a wrong one', async () => {
    const { hash: stored } = (await hash({ operation: 'hash', value: 'client-secret-1' })) as { hash: string };
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await hash({ operation: 'verify', value: 'client-secret-1', hash: stored })).toEqual({ valid: true });
    expect(await hash({ operation: 'verify', value: 'client-secret-2', hash: stored })).toEqual({ valid: false });
    expect(await hash({ operation: 'verify', value: '', hash: stored })).toEqual({ valid: false });
  });

  it('salts every hash', async () => {
    const a = (await hash({ operation: 'hash', value: 'same' })) as { hash: string };
    const b = (await hash({ operation: 'hash', value: 'same' })) as { hash: string };
    expect(a.hash).not.toBe(b.hash);
  });

  it('compares derived keys with crypto.timingSafeEqual', async () => {
    const { hash: stored } = (await hash({ operation: 'hash', value: 'pw' })) as { hash: string };
    const spy = vi.spyOn(crypto, 'timingSafeEqual');
    await hash({ operation: 'verify', value: 'wrong', hash: stored });
    await hash({ operation: 'verify', value: 'pw', hash: stored });
    expect(spy).toHaveBeenCalledTimes(2);
    expect(spy.mock.results.map((r) => r.value)).toEqual([false, true]);
  });

  it('verifies hashes with other (bounded) cost parameters', async () => {
    const salt = crypto.randomBytes(16);
    const key = crypto.scryptSync('pw', salt, 32, { N: 1024, r: 8, p: 1 });
    const stored = `scrypt$1024$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
    expect(await hash({ operation: 'verify', value: 'pw', hash: stored })).toEqual({ valid: true });
  });

  it('refuses malformed or abusive stored hashes', async () => {
    const salt = crypto.randomBytes(16).toString('base64url');
    const key = crypto.randomBytes(32).toString('base64url');
    for (const bad of [
      'plain-text',
      `bcrypt$1024$8$1$${salt}$${key}`,
      `scrypt$1000$8$1$${salt}$${key}`, // N not a power of two
      `scrypt$${2 ** 22}$8$1$${salt}$${key}`, // N too large
      `scrypt$1024$64$1$${salt}$${key}`, // r too large
      `scrypt$1024$8$1$${salt}$short`, // key too short
      `scrypt$1024$8$1$${salt}$${key}$extra`,
      `scrypt$01024$8$1$${salt}$${key}`,
    ]) {
      expect(parseScryptHash(bad)).toBeNull();
    }
    await expectPipeError(hash({ operation: 'verify', value: 'pw', hash: 'plain-text' }), 'INVALID_HASH');
  });

  it('bounds and type-checks the value', async () => {
    await expectPipeError(hash({ operation: 'hash', value: 'x'.repeat(4097) }), 'INVALID_PARAMETER');
    await expectPipeError(hash({ operation: 'hash', value: 42 }), 'INVALID_PARAMETER');
    await expectPipeError(hash({ operation: 'crack' }), 'INVALID_PARAMETER');
  });
});

describe('random and sha256', () => {
  it('generates base64url random values of the requested size', async () => {
    const a = (await hash({ operation: 'random' })) as { value: string };
    const b = (await hash({ operation: 'random' })) as { value: string };
    expect(Buffer.from(a.value, 'base64url')).toHaveLength(32);
    expect(a.value).not.toBe(b.value);
    expect(
      Buffer.from(((await hash({ operation: 'random', bytes: 48 })) as { value: string }).value, 'base64url'),
    ).toHaveLength(48);
    await expectPipeError(hash({ operation: 'random', bytes: 0 }), 'INVALID_PARAMETER');
    await expectPipeError(hash({ operation: 'random', bytes: 4096 }), 'INVALID_PARAMETER');
  });

  it('computes a hex SHA-256 digest', async () => {
    expect(await hash({ operation: 'sha256', value: 'abc' })).toEqual({
      hash: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    });
  });

  it('declares every parameter the implementation reads', () => {
    expect(Object.keys(schema.params.properties).sort()).toEqual([
      'bytes',
      'fail-on-error',
      'hash',
      'operation',
      'value',
    ]);
  });
});
