import { describe, expect, it } from 'vitest';
import { PipeError } from '../errors.js';
import type { EngineOutcome } from '../service/execution.js';
import { deliver, errorLine } from './broker-delivery.js';

const NO_WAIT = { initialMs: 1, maxMs: 1, multiplier: 1 };
const ok = (): EngineOutcome => ({ ok: true, executionId: 'e', result: null });
const failed = (code: number, outcome: 'error' | 'invalid' = 'error'): EngineOutcome => ({
  ok: false,
  executionId: `e-${code}`,
  error: new PipeError('boom', { code, kind: 'BOOM' }),
  errorObject: {},
  outcome,
});

describe('deliver', () => {
  it('runs again after a failure that may pass, until it succeeds', async () => {
    const attempts: number[] = [];
    const result = await deliver(
      async (n) => {
        attempts.push(n);
        return n < 3 ? failed(503) : ok();
      },
      { maxDeliveries: 5, backoff: NO_WAIT, signal: new AbortController().signal },
    );
    expect(result).toEqual({ kind: 'done', attempts: 3 });
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('gives up after max-deliveries, and at once on a permanent failure or an invalid message', async () => {
    const signal = new AbortController().signal;
    expect(await deliver(async () => failed(500), { maxDeliveries: 2, backoff: NO_WAIT, signal })).toMatchObject({
      kind: 'failed',
      reason: 'max-deliveries',
      attempts: 2,
    });
    expect(await deliver(async () => failed(404), { maxDeliveries: 5, backoff: NO_WAIT, signal })).toMatchObject({
      kind: 'failed',
      reason: 'permanent-error',
      attempts: 1,
    });
    expect(
      await deliver(async () => failed(422, 'invalid'), { maxDeliveries: 5, backoff: NO_WAIT, signal }),
    ).toMatchObject({ kind: 'failed', reason: 'permanent-error', attempts: 1 });
  });

  it('does not count a run the service refused (overloaded, stopping) as an attempt', async () => {
    const shed: EngineOutcome = {
      ok: false,
      executionId: 'e',
      error: new PipeError('overloaded', { code: 503, kind: 'OVERLOADED' }),
      errorObject: {},
      outcome: 'error',
    };
    const answers = [shed, shed, failed(503), shed, ok()];
    const attempts: number[] = [];
    const result = await deliver(
      async (n) => {
        attempts.push(n);
        return answers.shift()!;
      },
      { maxDeliveries: 2, backoff: NO_WAIT, signal: new AbortController().signal },
    );
    expect(result).toEqual({ kind: 'done', attempts: 2 });
    expect(attempts).toEqual([1, 1, 1, 2, 2]);
  });

  it('starts no further run once the service stops', async () => {
    const stop = new AbortController();
    let runs = 0;
    const result = await deliver(
      async () => {
        runs++;
        stop.abort();
        return failed(503);
      },
      { maxDeliveries: 5, backoff: { initialMs: 60_000, maxMs: 60_000, multiplier: 1 }, signal: stop.signal },
    );
    expect(result).toEqual({ kind: 'stopped', attempts: 1 });
    expect(runs).toBe(1);
  });

  it('says the last error in one bounded line', () => {
    expect(errorLine(new PipeError('the CRM answered 404', { code: 404, kind: 'REST_CLIENT_ERROR' }))).toBe(
      '404 REST_CLIENT_ERROR: the CRM answered 404',
    );
    expect(errorLine(new PipeError('x'.repeat(5000))).length).toBe(1000);
  });
});
