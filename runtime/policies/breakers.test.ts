import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PipeError } from '../errors.js';
import { breakerOptionsFromEnv, CircuitBreakers } from './breakers.js';

// Cockatiel reads the wall clock (Date.now) to know when an open circuit may probe: the tests move
// it instead of waiting.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.parse('2026-03-02T10:00:00Z'));
});
afterEach(() => vi.useRealTimers());

const down = (): Promise<never> =>
  Promise.reject(new PipeError('unreachable', { code: 502, kind: 'REST_UNREACHABLE' }));
const up = (): Promise<string> => Promise.resolve('ok');

async function failTimes(breakers: CircuitBreakers, target: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++)
    await expect(breakers.guard(target, down)).rejects.toMatchObject({ kind: 'REST_UNREACHABLE' });
}

describe('CircuitBreakers', () => {
  it('opens after the threshold of consecutive failures and then fails fast with 503 CIRCUIT_OPEN, without calling', async () => {
    const changes: string[] = [];
    const breakers = new CircuitBreakers({ failures: 3, halfOpenAfterMs: 10_000 }, (target, state) =>
      changes.push(`${target} ${state}`),
    );
    await failTimes(breakers, 'rest https://crm.example.com', 3);
    expect(breakers.state('rest https://crm.example.com')).toBe('open');
    const call = vi.fn(up);
    await expect(breakers.guard('rest https://crm.example.com', call)).rejects.toMatchObject({
      kind: 'CIRCUIT_OPEN',
      code: 503,
      details: { target: 'rest https://crm.example.com', retryAfter: 10 },
    });
    expect(call).not.toHaveBeenCalled();
    expect(changes).toEqual(['rest https://crm.example.com open']);
    // Other targets are not affected.
    await expect(breakers.guard('rest https://erp.example.com', up)).resolves.toBe('ok');
  });

  it('a success in between starts the count again (consecutive failures)', async () => {
    const breakers = new CircuitBreakers({ failures: 3, halfOpenAfterMs: 10_000 });
    await failTimes(breakers, 't', 2);
    await breakers.guard('t', up);
    await failTimes(breakers, 't', 2);
    expect(breakers.state('t')).toBe('closed');
  });

  it('after half-open-after lets one probe through: success closes the circuit, failure opens it again', async () => {
    const changes: string[] = [];
    const breakers = new CircuitBreakers({ failures: 2, halfOpenAfterMs: 10_000 }, (_t, state) => changes.push(state));
    await failTimes(breakers, 't', 2);
    vi.setSystemTime(Date.now() + 9_000);
    await expect(breakers.guard('t', up)).rejects.toMatchObject({ kind: 'CIRCUIT_OPEN' });
    vi.setSystemTime(Date.now() + 1_000);
    await expect(breakers.guard('t', down)).rejects.toMatchObject({ kind: 'REST_UNREACHABLE' });
    expect(breakers.state('t')).toBe('open');
    vi.setSystemTime(Date.now() + 10_000);
    await expect(breakers.guard('t', up)).resolves.toBe('ok');
    expect(breakers.state('t')).toBe('closed');
    expect(changes).toEqual(['open', 'half-open', 'open', 'half-open', 'closed']);
  });

  it('while the probe is out, other calls wait for its outcome instead of reaching the target', async () => {
    const breakers = new CircuitBreakers({ failures: 1, halfOpenAfterMs: 1_000 });
    await failTimes(breakers, 't', 1);
    vi.setSystemTime(Date.now() + 1_000);
    let finish: (value: string) => void = () => undefined;
    let started: () => void = () => undefined;
    const probing = new Promise<void>((resolve) => {
      started = resolve;
    });
    const probe = breakers.guard(
      't',
      () =>
        new Promise<string>((resolve) => {
          finish = resolve;
          started();
        }),
    );
    await probing;
    const second = vi.fn(up);
    const waiting = breakers.guard('t', second);
    await Promise.resolve();
    expect(second).not.toHaveBeenCalled();
    finish('ok');
    await expect(probe).resolves.toBe('ok');
    await expect(waiting).resolves.toBe('ok');
    expect(second).toHaveBeenCalledTimes(1);
  });

  it('permanent failures (a 4xx) say nothing about the target and do not count', async () => {
    const breakers = new CircuitBreakers({ failures: 2, halfOpenAfterMs: 1_000 });
    for (let i = 0; i < 5; i++) {
      await expect(
        breakers.guard('t', () => Promise.reject(new PipeError('no', { code: 404, kind: 'REST_CLIENT_ERROR' }))),
      ).rejects.toMatchObject({ code: 404 });
    }
    expect(breakers.state('t')).toBe('closed');
  });

  it('counts results the caller calls failures (a 5xx answered as data)', async () => {
    const breakers = new CircuitBreakers({ failures: 2, halfOpenAfterMs: 1_000 });
    const answer = (): Promise<{ status: number }> => Promise.resolve({ status: 503 });
    await breakers.guard('t', answer, { failedResult: (r) => r.status >= 500 });
    await breakers.guard('t', answer, { failedResult: (r) => r.status >= 500 });
    expect(breakers.state('t')).toBe('open');
  });

  it('failures: 0 turns breakers off', async () => {
    const breakers = new CircuitBreakers({ failures: 0, halfOpenAfterMs: 1_000 });
    await failTimes(breakers, 't', 20);
    expect(breakers.state('t')).toBe('closed');
  });

  it('reads its options from PIPEC_BREAKER_FAILURES and PIPEC_BREAKER_HALF_OPEN_MS', () => {
    expect(breakerOptionsFromEnv({})).toEqual({ failures: 5, halfOpenAfterMs: 30_000 });
    expect(breakerOptionsFromEnv({ PIPEC_BREAKER_FAILURES: '0', PIPEC_BREAKER_HALF_OPEN_MS: '500' })).toEqual({
      failures: 0,
      halfOpenAfterMs: 500,
    });
    expect(breakerOptionsFromEnv({ PIPEC_BREAKER_FAILURES: 'x' })).toEqual({ failures: 5, halfOpenAfterMs: 30_000 });
  });
});
