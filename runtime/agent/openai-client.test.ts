/** The OpenAI-compatible client: error mapping, retry-after capping, usage conversion. */
import { afterEach, describe, expect, it } from 'vitest';
import { cappedRetryAfterMs, createOpenAiModel, MAX_RETRY_AFTER_MS } from './openai-client.js';
import { chatCompletion, startScriptedOpenAi, type ScriptedServer } from './test-support/scripted-openai-server.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const signal = new AbortController().signal;

describe('createOpenAiModel', () => {
  it('returns the message and usage', async () => {
    server = await startScriptedOpenAi([chatCompletion({ content: 'hi', usage: { prompt: 3, completion: 2 } })]);
    const model = createOpenAiModel({ apiKey: 'k', baseURL: server.baseUrl, timeout: 2000, maxRetries: 0 });
    const reply = await model.complete({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, signal);
    expect(reply.message.content).toBe('hi');
    expect(reply.usage).toEqual({ inputTokenCount: 3, outputTokenCount: 2, totalTokenCount: 5 });
  });

  it('does not retry a 401 and reports it as 502 with the upstream status', async () => {
    server = await startScriptedOpenAi([{ status: 401, body: { error: { message: 'bad key' } } }]);
    const model = createOpenAiModel({ apiKey: 'sk-secret', baseURL: server.baseUrl, timeout: 2000, maxRetries: 2 });
    const failure = model.complete({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, signal);
    await expect(failure).rejects.toMatchObject({
      code: 502,
      kind: 'AGENT_MODEL_ERROR',
      details: { modelStatus: 401 },
    });
    await expect(failure).rejects.not.toThrow(/sk-secret/);
    expect(server.requests).toHaveLength(1);
  });

  it('reports an unreachable API as 502', async () => {
    const model = createOpenAiModel({ apiKey: 'k', baseURL: 'http://127.0.0.1:1/v1', timeout: 2000, maxRetries: 0 });
    await expect(
      model.complete({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, signal),
    ).rejects.toMatchObject({ code: 502, kind: 'AGENT_MODEL_UNREACHABLE' });
  });
});

describe('cappedRetryAfterMs', () => {
  it('caps server-requested waits', () => {
    expect(cappedRetryAfterMs('250', null, 0)).toBe(250);
    expect(cappedRetryAfterMs(null, '2', 0)).toBe(2000);
    expect(cappedRetryAfterMs(null, '3600', 0)).toBe(MAX_RETRY_AFTER_MS);
    expect(cappedRetryAfterMs(null, new Date(60_000).toUTCString(), 0)).toBe(MAX_RETRY_AFTER_MS);
    expect(cappedRetryAfterMs(null, null, 0)).toBeUndefined();
    expect(cappedRetryAfterMs('-5', null, 0)).toBe(0);
  });
});
