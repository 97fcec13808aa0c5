import crypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { timingSafeEqualBytes, timingSafeEqualSecrets, timingSafeIndexOf } from './timing-safe.js';

afterEach(() => vi.restoreAllMocks());

describe('timingSafeEqualSecrets', () => {
  it('compares equal and unequal secrets of any length', () => {
    expect(timingSafeEqualSecrets('s3cret', 's3cret')).toBe(true);
    expect(timingSafeEqualSecrets('s3cret', 's3cres')).toBe(false);
    expect(timingSafeEqualSecrets('short', 'a much longer secret value')).toBe(false);
    expect(timingSafeEqualSecrets('', '')).toBe(true);
  });

  it('always compares 32-byte digests with crypto.timingSafeEqual, so lengths do not leak', () => {
    const spy = vi.spyOn(crypto, 'timingSafeEqual');
    timingSafeEqualSecrets('a', 'a-very-long-expected-secret');
    expect(spy).toHaveBeenCalledTimes(1);
    const [a, b] = spy.mock.calls[0] as [Buffer, Buffer];
    expect(a.length).toBe(32);
    expect(b.length).toBe(32);
  });
});

describe('timingSafeIndexOf', () => {
  it('finds the matching key and compares every candidate', () => {
    const spy = vi.spyOn(crypto, 'timingSafeEqual');
    expect(timingSafeIndexOf('k2', ['k1', 'k2', 'k3'])).toBe(1);
    expect(spy).toHaveBeenCalledTimes(3);
    expect(timingSafeIndexOf('nope', ['k1', 'k2'])).toBe(-1);
  });
});

describe('timingSafeEqualBytes', () => {
  it('refuses different lengths and compares equal lengths in constant time', () => {
    const spy = vi.spyOn(crypto, 'timingSafeEqual');
    expect(timingSafeEqualBytes(Buffer.from([1, 2]), Buffer.from([1, 2, 3]))).toBe(false);
    expect(timingSafeEqualBytes(Buffer.from([1, 2, 3]), Buffer.from([1, 2, 3]))).toBe(true);
    expect(spy).toHaveBeenCalledTimes(1);
  });
});
