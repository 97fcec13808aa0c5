import { describe, expect, it } from 'vitest';
import { createRateLimiter, rateLimitClientKey } from './rate-limit.js';

/** A clock the test moves by hand. */
function manualClock(start = 0): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('fixed window', () => {
  it('allows max requests per window, then refuses until the window ends', () => {
    const clock = manualClock(0);
    const limit = createRateLimiter({ window: 10_000, max: 3, key: 'ip', algorithm: 'fixed' }, clock.now);
    expect([limit('a'), limit('a'), limit('a')].map((d) => d.remaining)).toEqual([2, 1, 0]);
    clock.advance(2_500);
    expect(limit('a')).toEqual({ allowed: false, retryAfterSeconds: 8, remaining: 0 });
    expect(limit('b').allowed).toBe(true); // clients are independent
    clock.advance(7_500);
    expect(limit('a')).toEqual({ allowed: true, retryAfterSeconds: 0, remaining: 2 });
  });
});

describe('sliding window', () => {
  it('weighs the previous window so a burst at a boundary is not doubled', () => {
    const clock = manualClock(0);
    const limit = createRateLimiter({ window: 10_000, max: 4, key: 'ip' }, clock.now);
    clock.advance(9_000);
    for (let i = 0; i < 4; i++) expect(limit('a').allowed).toBe(true);
    expect(limit('a').allowed).toBe(false);
    // 5% into the next window a fixed window would allow 4 more; the sliding estimate is 4 * 0.95 = 3.8.
    clock.advance(1_500);
    expect(limit('a').allowed).toBe(false);
    // 25% into the window the estimate is 4 * 0.75 = 3: exactly one more fits.
    clock.advance(2_000);
    expect(limit('a')).toMatchObject({ allowed: true, remaining: 0 });
    expect(limit('a').allowed).toBe(false);
  });

  it('reports a Retry-After after which a request is indeed allowed', () => {
    const clock = manualClock(0);
    const limit = createRateLimiter({ window: 60_000, max: 5, key: 'ip' }, clock.now);
    for (let i = 0; i < 5; i++) limit('a');
    const refused = limit('a');
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(72); // rest of this window (60s) + 20% of the next (12s)
    clock.advance(refused.retryAfterSeconds * 1000 - 1_000);
    expect(limit('a').allowed).toBe(false);
    clock.advance(1_000);
    expect(limit('a').allowed).toBe(true);
  });

  it('does not count refused requests, and forgets windows older than one window', () => {
    const clock = manualClock(0);
    const limit = createRateLimiter({ window: 1_000, max: 1, key: 'ip' }, clock.now);
    expect(limit('a').allowed).toBe(true);
    for (let i = 0; i < 50; i++) expect(limit('a').allowed).toBe(false);
    clock.advance(2_000);
    expect(limit('a')).toEqual({ allowed: true, retryAfterSeconds: 0, remaining: 0 });
  });
});

describe('memory bound', () => {
  it('keeps at most maxClients keys, evicting the least recently seen', () => {
    const limit = createRateLimiter({ window: 60_000, max: 1, key: 'ip', maxClients: 2 }, () => 0);
    limit('a');
    limit('b');
    expect(limit('a').allowed).toBe(false); // touches a: b is now the oldest
    limit('c'); // evicts b
    expect(limit('b').allowed).toBe(true); // b was forgotten (and now evicts a)
    expect(limit('c').allowed).toBe(false);
  });

  it('rejects nonsensical specs', () => {
    expect(() => createRateLimiter({ window: 0, max: 1, key: 'ip' })).toThrow(/window/);
    expect(() => createRateLimiter({ window: 1000, max: 0, key: 'ip' })).toThrow(/max/);
    expect(() => createRateLimiter({ window: 1000, max: 1.5, key: 'ip' })).toThrow(/max/);
  });
});

describe('rateLimitClientKey', () => {
  const headers = new Headers({ 'x-tenant': 'acme' });
  it('derives the key from ip, api key, principal or header, falling back to ip', () => {
    const apiKey = { scheme: 'api-key', account: 'partners', keyIndex: 1 };
    const bearer = { scheme: 'bearer', subject: 'client-1', scopes: [], claims: {} };
    expect(rateLimitClientKey('ip', { ip: '10.0.0.1', headers, principal: apiKey })).toBe('ip:10.0.0.1');
    expect(rateLimitClientKey('api-key', { ip: '10.0.0.1', headers, principal: apiKey })).toBe('api-key:partners#1');
    expect(rateLimitClientKey('api-key', { ip: '10.0.0.1', headers, principal: bearer })).toBe('ip:10.0.0.1');
    expect(rateLimitClientKey('principal', { ip: '10.0.0.1', headers, principal: bearer })).toBe('sub:client-1');
    expect(
      rateLimitClientKey('principal', { ip: '10.0.0.1', headers, principal: { scheme: 'basic', username: 'al' } }),
    ).toBe('user:al');
    expect(rateLimitClientKey('principal', { ip: '10.0.0.1', headers })).toBe('ip:10.0.0.1');
    expect(rateLimitClientKey({ header: 'x-tenant' }, { ip: '10.0.0.1', headers })).toBe('header:acme');
    expect(rateLimitClientKey({ header: 'x-missing' }, { ip: '10.0.0.1', headers })).toBe('ip:10.0.0.1');
  });
});
