import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter, QueueFull } from './concurrency.js';
import { InFlightTracker } from './shutdown.js';

describe('ConcurrencyLimiter', () => {
  it('lets at most `maxQueued` wait and refuses the next at once with QueueFull; reports the depth', async () => {
    const depths: number[] = [];
    const limiter = new ConcurrencyLimiter(1, 2, (queued) => depths.push(queued));
    const first = await limiter.acquire();
    const waiting = [limiter.acquire(), limiter.acquire()];
    await expect(limiter.acquire()).rejects.toBeInstanceOf(QueueFull);
    expect(limiter.queued).toBe(2);
    first();
    ((await waiting[0]) as () => void)();
    ((await waiting[1]) as () => void)();
    expect(depths).toEqual([1, 2, 1, 0]);
    expect(limiter.active).toBe(0);
    // With no queue at all, only free slots are granted.
    const none = new ConcurrencyLimiter(1, 0);
    const held = await none.acquire();
    await expect(none.acquire()).rejects.toBeInstanceOf(QueueFull);
    held();
  });

  it('grants slots in order and hands a released slot to the next waiter', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const order: string[] = [];
    const release1 = await limiter.acquire();
    const second = limiter.acquire().then((r) => {
      order.push('second');
      return r;
    });
    const third = limiter.acquire().then((r) => {
      order.push('third');
      return r;
    });
    expect(limiter.queued).toBe(2);
    release1();
    release1(); // releasing twice does not free two slots
    (await second)();
    (await third)();
    expect(order).toEqual(['second', 'third']);
    expect(limiter.active).toBe(0);
  });

  it('removes an aborted waiter from the queue', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const release = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    expect(limiter.queued).toBe(0);
    release();
    expect(limiter.active).toBe(0);
  });

  it('refuses a non-positive limit', () => {
    expect(() => new ConcurrencyLimiter(0)).toThrow(RangeError);
  });
});

describe('InFlightTracker', () => {
  it('drains tracked work or gives up after the grace period', async () => {
    const tracker = new InFlightTracker();
    void tracker.track(new Promise((r) => setTimeout(r, 10)));
    expect(await tracker.drain(1000)).toBe(true);
    void tracker.track(new Promise(() => undefined));
    expect(await tracker.drain(20)).toBe(false);
  });
});
