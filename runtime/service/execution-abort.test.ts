import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter } from './concurrency.js';
import { ExecutionAbort } from './execution-abort.js';

describe('ExecutionAbort', () => {
  it('creates no AbortSignal until asked, and hands out one already aborted after the fact', () => {
    const abort = new ExecutionAbort();
    abort.abort(new Error('timed out'));
    abort.abort(new Error('second reason is ignored'));
    expect(abort.aborted).toBe(true);
    expect(abort.signal.aborted).toBe(true);
    expect((abort.signal.reason as Error).message).toBe('timed out');
  });

  it('aborts a signal handed out earlier and calls listeners once', () => {
    const abort = new ExecutionAbort();
    const signal = abort.signal;
    const seen: unknown[] = [];
    abort.onAbort((r) => seen.push(r));
    const unsubscribed = abort.onAbort((r) => seen.push(`never ${String(r)}`));
    unsubscribed();
    abort.abort('why');
    abort.abort('again');
    expect(signal.aborted).toBe(true);
    expect(seen).toEqual(['why']);
  });

  it('races work against the abort', async () => {
    const done = new ExecutionAbort();
    await expect(done.race(Promise.resolve(7))).resolves.toBe(7);
    const stuck = new ExecutionAbort();
    const racing = stuck.race(new Promise(() => undefined));
    stuck.abort(new Error('stop'));
    await expect(racing).rejects.toThrow('stop');
  });

  it('takes a queued execution out of the concurrency queue when it aborts', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const release = await limiter.acquire();
    const abort = new ExecutionAbort();
    const waiting = limiter.acquire(abort);
    expect(limiter.queued).toBe(1);
    abort.abort(new Error('timed out while queued'));
    await expect(waiting).rejects.toThrow('timed out while queued');
    expect(limiter.queued).toBe(0);
    release();
    expect(limiter.active).toBe(0);
  });
});
