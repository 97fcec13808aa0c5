/**
 * The redis connector against the real Redis server (test/support/servers.ts): every operation,
 * expiry, the error kinds (wrong credentials, a refused connection, wrong type), and a server that
 * goes away behind a TCP proxy and comes back (UNAVAILABLE while away, /ready-style reports, then
 * commands work again without a new step).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createServer, type AddressInfo } from 'node:net';
import { PipeError } from '../../errors.js';
import type { Json } from '../../types.js';
import { ConnectionRegistry } from '../../service/connections.js';
import { createLogger } from '../../service/logging.js';
import { fakeContext } from '../../service/test-support/fake-context.js';
import { REDIS_URL, serverAvailable, uniqueName } from '../../../test/support/servers.js';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.js';
import { freePort } from '../../../test/support/ports.js';
import { run, type RedisParams } from './redis.js';

const up = await serverAvailable('Redis', REDIS_URL, 6379);
const account = { url: REDIS_URL };

function context(fields: Readonly<Record<string, Json>> = account) {
  const connections = new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' }));
  const { ctx } = fakeContext({});
  return { ctx: { ...ctx, services: { ...ctx.services, connections } }, connections, fields };
}

describe.runIf(up)('redis connector (real server)', () => {
  const prefix = uniqueName('pipec-redis');
  const { ctx, connections } = context();
  const redis = (
    operation: RedisParams['operation'],
    params: Omit<Partial<RedisParams>, 'operation'>,
    message: Json = null,
  ) => run({ operation, account: 'cache', accountFields: account, ...params } as RedisParams, message, ctx);
  let admin: Redis;

  beforeAll(() => {
    admin = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    admin.disconnect();
    await connections.closeAll();
  });

  it('sets and gets strings and JSON, with expiry and only-if-absent', async () => {
    const key = `${prefix}:greeting`;
    expect(await redis('set', { key, value: 'hello', expire: 60_000 })).toEqual({ key, stored: true });
    expect(await redis('get', { key })).toEqual({ key, value: 'hello', found: true });
    const ttl = await admin.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await redis('set', { key, value: 'other', 'only-if-absent': true })).toEqual({ key, stored: false });
    const doc = `${prefix}:doc`;
    await redis('set', { key: doc, value: { id: 7, tags: ['a'] } });
    expect(await admin.get(doc)).toBe('{"id":7,"tags":["a"]}');
    expect(await redis('get', { key: doc, as: 'json' })).toEqual({
      key: doc,
      value: { id: 7, tags: ['a'] },
      found: true,
    });
    expect(await redis('get', { key: `${prefix}:missing` })).toEqual({
      key: `${prefix}:missing`,
      value: null,
      found: false,
    });
    await expect(redis('get', { key, as: 'json' })).rejects.toMatchObject({ kind: 'VALUE_NOT_JSON', code: 502 });
  });

  it('increments, expires and deletes', async () => {
    const key = `${prefix}:counter`;
    expect(await redis('increment', { key })).toEqual({ key, value: 1 });
    expect(await redis('increment', { key, by: 41 })).toEqual({ key, value: 42 });
    expect(await redis('expire', { key, expire: 30_000 })).toEqual({ key, updated: true });
    expect(await redis('expire', { key: `${prefix}:none`, expire: 30_000 })).toEqual({
      key: `${prefix}:none`,
      updated: false,
    });
    expect(await redis('delete', { keys: [key, `${prefix}:none`] })).toEqual({ deleted: 1 });
    await redis('set', { key, value: 'x' });
    await expect(redis('increment', { key })).rejects.toMatchObject({ kind: 'NOT_A_NUMBER', code: 409 });
  });

  it('works with hashes', async () => {
    const key = `${prefix}:hash`;
    expect(await redis('hash-set', { key, fields: { name: 'Ada', age: 36, __proto__x: 'p' } })).toEqual({
      key,
      added: 3,
    });
    expect(await redis('hash-get', { key, field: 'age', as: 'json' })).toEqual({
      key,
      field: 'age',
      value: 36,
      found: true,
    });
    expect(await redis('hash-get-all', { key })).toEqual({
      key,
      fields: { name: 'Ada', age: '36', __proto__x: 'p' },
      found: true,
    });
    expect(await redis('hash-delete', { key, fields: ['age', 'nope'] })).toEqual({ key, deleted: 1 });
    await expect(redis('get', { key })).rejects.toMatchObject({ kind: 'WRONG_TYPE', code: 409 });
  });

  it('keeps a field named __proto__ as data', async () => {
    const key = `${prefix}:proto`;
    await admin.hset(key, '__proto__', 'polluted?');
    const out = (await redis('hash-get-all', { key })) as { fields: Record<string, unknown> };
    expect(Object.keys(out.fields)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted?']).toBeUndefined();
  });

  it('works with lists', async () => {
    const key = `${prefix}:list`;
    expect(await redis('list-push', { key, values: ['a', { b: 1 }] })).toEqual({ key, length: 2 });
    expect(await redis('list-push', { key, values: ['z'], end: 'left' })).toEqual({ key, length: 3 });
    expect(await redis('list-range', { key })).toEqual({ key, values: ['z', 'a', '{"b":1}'] });
    expect(await redis('list-pop', { key, as: 'json' })).toEqual({ key, value: { b: 1 }, found: true });
    expect(await redis('list-pop', { key, end: 'left' })).toEqual({ key, value: 'z', found: true });
  });

  it('publishes the message (or `message`) to a channel', async () => {
    const channel = `${prefix}:events`;
    const subscriber = new Redis(REDIS_URL);
    const received: string[] = [];
    await subscriber.subscribe(channel);
    const got = new Promise<void>((resolve) =>
      subscriber.on('message', (_c: string, m: string) => {
        received.push(m);
        if (received.length === 2) resolve();
      }),
    );
    expect(await redis('publish', { channel }, { id: 1 })).toEqual({ channel, receivers: 1 });
    await redis('publish', { channel, message: 'plain' });
    await got;
    expect(received).toEqual(['{"id":1}', 'plain']);
    subscriber.disconnect();
  });

  it('fails with AUTHENTICATION_FAILED for wrong credentials', async () => {
    const wrong = context({ url: REDIS_URL, username: uniqueName('nobody'), password: 'wrong' });
    const err = await run(
      { operation: 'get', account: 'bad', accountFields: wrong.fields, key: 'k' },
      null,
      wrong.ctx,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PipeError);
    expect(err).toMatchObject({ kind: 'AUTHENTICATION_FAILED', code: 502 });
    expect(String((err as Error).message)).not.toContain('wrong');
    expect(wrong.connections.notReady()).toEqual(['redis:bad']);
  });

  it('fails with CONNECTION_REFUSED when nothing listens, and tries again on the next use', async () => {
    const port = await freePort();
    const refused = context({ host: '127.0.0.1', port });
    const params: RedisParams = { operation: 'get', account: 'down', accountFields: refused.fields, key: 'k' };
    await expect(run(params, null, refused.ctx)).rejects.toMatchObject({ kind: 'CONNECTION_REFUSED', code: 503 });
    await expect(run(params, null, refused.ctx)).rejects.toMatchObject({ kind: 'CONNECTION_REFUSED', code: 503 });
    expect(refused.connections.notReady()).toEqual(['redis:down']);
  });

  it('fails with TIMEOUT against a server that does not answer, and opens its circuit after five', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const hung = context({ host: '127.0.0.1', port });
    const params: RedisParams = {
      operation: 'get',
      account: 'hung',
      accountFields: hung.fields,
      key: 'k',
      timeout: 100,
    };
    try {
      for (let i = 0; i < 5; i++)
        await expect(run(params, null, hung.ctx)).rejects.toMatchObject({ kind: 'TIMEOUT', code: 504 });
      await expect(run(params, null, hung.ctx)).rejects.toMatchObject({ kind: 'CIRCUIT_OPEN', code: 503 });
    } finally {
      silent.close();
      await hung.connections.closeAll();
    }
  });

  it('answers UNAVAILABLE while the server is away, and works again when it is back', async () => {
    const target = new URL(REDIS_URL);
    const proxy: TcpProxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    const through = context({ url: proxy.url(REDIS_URL) });
    const key = `${prefix}:outage`;
    const params = (operation: RedisParams['operation'], extra: Partial<RedisParams> = {}): RedisParams =>
      ({ operation, account: 'proxied', accountFields: through.fields, key, ...extra }) as RedisParams;
    try {
      await run(params('set', { value: 'before' }), null, through.ctx);
      proxy.cut();
      await expect(run(params('get'), null, through.ctx)).rejects.toMatchObject({ code: 503 });
      expect(through.connections.notReady()).toEqual(['redis:proxied']);
      proxy.restore();
      // The client reconnects by itself (backoff from 250 ms): the next commands succeed.
      let value: Json = null;
      for (let i = 0; i < 100 && value === null; i++) {
        value = await run(params('get'), null, through.ctx).then(
          (out) => (out as { value: Json }).value,
          () => null,
        );
        if (value === null) await new Promise((r) => setTimeout(r, 100));
      }
      expect(value).toBe('before');
      expect(through.connections.notReady()).toEqual([]);
    } finally {
      await through.connections.closeAll();
      await proxy.close();
    }
  });
});
