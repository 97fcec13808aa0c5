import { describe, expect, it } from 'vitest';
import { PipeError } from '../../errors.js';
import { fakeContext } from '../../service/test-support/fake-context.js';
import { run } from './publish.js';

describe('publish connector', () => {
  it('publishes the payload with headers and returns the input unchanged', async () => {
    const { ctx, backends } = fakeContext();
    const input = { body: { total: 3 } };
    const out = await run(
      { event: 'token-usage', payload: { tokens: 5 }, headers: { 'x-correlation': 'c1' } },
      input,
      ctx,
    );
    expect(out).toBe(input);
    const [sent] = backends.broker.published;
    expect(sent?.name).toBe('token-usage');
    expect(sent?.payload).toEqual({ tokens: 5 });
    expect(sent?.headers).toMatchObject({
      'x-correlation': 'c1',
      'x-pipec-source-execution': 'exec-1',
      'x-pipec-source-pipeline': 'p',
    });
  });

  it('publishes the current message when no payload is given', async () => {
    const { ctx, backends } = fakeContext();
    await run({ event: 'e' }, { a: 1 }, ctx);
    expect(backends.broker.published[0]?.payload).toEqual({ a: 1 });
  });

  it('fails with a PipeError when the broker refuses', async () => {
    const { ctx, backends } = fakeContext();
    await backends.broker.close();
    const failure = run({ event: 'e', payload: 1 }, null, ctx);
    await expect(failure).rejects.toBeInstanceOf(PipeError);
    await expect(failure).rejects.toMatchObject({
      code: 500,
      kind: 'PUBLISH_ERROR',
      message: 'could not publish event "e": broker closed',
    });
  });

  it("keeps the broker's status: 503 with its retry hint while away, 4xx for a refused payload", async () => {
    const { ctx, backends } = fakeContext();
    const broker = backends.broker;
    const answers = [
      new PipeError('nats is unavailable: disconnected', {
        code: 503,
        kind: 'BACKEND_UNAVAILABLE',
        details: { backend: 'nats', retryAfter: 5 },
      }),
      new PipeError('event payload cannot be stored: a string holds U+0000 (NUL)', {
        code: 422,
        kind: 'UNSTORABLE_JSON',
      }),
    ];
    broker.publish = async () => {
      throw answers.shift();
    };
    await expect(run({ event: 'e', payload: 1 }, null, ctx)).rejects.toMatchObject({
      code: 503,
      kind: 'BACKEND_UNAVAILABLE',
      details: { backend: 'nats', retryAfter: 5 },
      permanent: false,
    });
    await expect(run({ event: 'e', payload: 1 }, null, ctx)).rejects.toMatchObject({
      code: 422,
      kind: 'UNSTORABLE_JSON',
      permanent: true,
    });
  });
});
