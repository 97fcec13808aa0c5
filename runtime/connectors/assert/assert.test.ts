/**
 * Assert v2 shapes from the reference: true → the message passes; false with fail-on-error (the
 * default) → `{ timestamp, error, code }` through a PipeError; false without it → the step outputs
 * `{ success: false, error, internalErrorMessage, code }` (via runtime/steps.ts).
 */
import { describe, expect, it } from 'vitest';
import { PipeError } from '../../errors.js';
import { fakeContext } from '../../service/test-support/fake-context.js';
import { step } from '../../steps.js';
import { run } from './assert.js';

describe('assert connector', () => {
  const { ctx } = fakeContext();

  it('passes the message when the condition is true', async () => {
    const message = { number: 1 };
    expect(await run({ condition: true }, message, ctx)).toBe(message);
  });

  it('anything but true fails (null, false, "true")', async () => {
    for (const condition of [false, null, 'true', 1]) {
      await expect(run({ condition }, {}, ctx)).rejects.toBeInstanceOf(PipeError);
    }
  });

  it('false with fail-on-error (default): PipeError with the configured message and status', async () => {
    const error = (await run({ condition: false, 'error-message': 'Unauthorized', status: 401 }, {}, ctx).catch(
      (e: unknown) => e,
    )) as PipeError;
    expect(error.message).toBe('Unauthorized');
    expect(error.code).toBe(401);
    expect(error.details).toEqual({ internalErrorMessage: 'Internal Error' });
  });

  it('false without fail-on-error: the step continues with success: false', async () => {
    const out = await step(
      ctx,
      { connector: 'assert', source: 't.pipe:1', failOnError: false },
      run,
      { condition: false, 'internal-message': 'why' },
      {},
    );
    expect(out).toEqual({
      success: false,
      kind: 'ASSERTION',
      message: 'Error',
      error: 'Error',
      code: 500,
      internalErrorMessage: 'why',
    });
  });

  it('false with fail-on-error: the step throws', async () => {
    await expect(
      step(ctx, { connector: 'assert', source: 't.pipe:1', failOnError: true }, run, { condition: false }, {}),
    ).rejects.toBeInstanceOf(PipeError);
  });
});
