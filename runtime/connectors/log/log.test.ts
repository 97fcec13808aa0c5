import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../service/test-support/fake-context.js';
import { run } from './log.js';

describe('log connector', () => {
  it('logs at the given level with the execution id and returns the input', async () => {
    const { ctx, logs } = fakeContext();
    const input = { a: 1 };
    expect(await run({ message: 'order 7 received', level: 'warn' }, input, ctx)).toBe(input);
    const line = logs.records.at(-1);
    expect(line).toMatchObject({
      level: 40,
      msg: 'order 7 received',
      executionId: 'exec-1',
      pipeline: 'p',
      connector: 'log',
    });
  });

  it('defaults to info', async () => {
    const { ctx, logs } = fakeContext();
    await run({ message: 'hi' }, null, ctx);
    expect(logs.records.at(-1)).toMatchObject({ level: 30, msg: 'hi' });
  });

  it('masks account values that appear in the text', async () => {
    const { ctx, logs } = fakeContext({ accounts: { openai: { key: 'sk-live-abcdef123456' } } });
    await run({ message: 'calling with sk-live-abcdef123456 now' }, null, ctx);
    expect(logs.text).not.toContain('sk-live-abcdef123456');
    expect(logs.records.at(-1)?.['msg']).toBe('calling with [REDACTED] now');
  });
});
