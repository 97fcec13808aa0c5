/**
 * The `store` connector over the embedded SQLite backend: every operation's parameters and output
 * shape, header `target` splitting, TTL from store options, and errors as PipeError.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionContext, JsonObject } from '../../types.js';
import { PipeError } from '../../errors.js';
import { createBackends, type Backends } from '../../backends/index.js';
import { run } from './store.js';
import { ConnectionRegistry } from '../../service/connections.js';
import { withDeclaredStoreOptions } from '../../service/store-options.js';

const dataDir = mkdtempSync(join(tmpdir(), 'pipec-store-connector-'));
let time = 1_700_000_000_000;
let backends: Backends;
let ctx: ExecutionContext;

beforeAll(async () => {
  const logger = pino({ level: 'silent' });
  backends = await createBackends({ dataDir, env: {}, clock: { now: () => time }, logger });
  const services = {
    clock: { now: () => time },
    store: backends.store,
    broker: backends.broker,
    connections: new ConnectionRegistry(pino({ level: 'silent' })),
    execute: async () => null,
  };
  ctx = {
    executionId: 'exec-1',
    pipeline: 'test',
    log: logger,
    metadata: {
      pipeline: { name: 'test' },
      execution: { key: 'exec-1', startTimestamp: time, timeout: 30000, redelivery: false },
    },
    steps: {},
    globals: {},
    accounts: {},
    services,
    signal: new AbortController().signal,
    workDir: dataDir,
  };
});

afterAll(async () => {
  await backends.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const call = (params: JsonObject): Promise<unknown> => run(params, {}, ctx);

describe('store connector', () => {
  it('inserts one or many documents and reports ids', async () => {
    const one = (await call({
      store: 'sales',
      operation: 'insert',
      document: { product: { price: 2500 }, name: 'tv' },
    })) as JsonObject;
    expect(one).toMatchObject({ data: [], updateCount: 1 });
    expect((one['ids'] as string[])[0]).toMatch(/^[0-9a-f-]{36}$/);
    const many = await call({
      target: 'sales.insert',
      document: [
        { _oId: '1', name: 'pen', product: { price: 2 } },
        { name: 'car', product: { price: 20000 } },
      ],
    });
    expect(many).toMatchObject({ data: [], updateCount: 2, ids: ['1', expect.any(String)] });
  });

  it('finds with query, sort, limit and skip; finds by id', async () => {
    const found = await call({
      store: 'sales',
      operation: 'find',
      query: { 'product.price': { $gt: 2000 } },
      sort: { 'product.price': -1 },
    });
    expect(found).toMatchObject({ rowCount: 2, data: [{ name: 'car' }, { name: 'tv' }] });
    expect(await call({ store: 'sales', operation: 'find', query: '{"name":"pen"}' })).toMatchObject({
      rowCount: 1,
      data: [{ _oId: '1' }],
    });
    expect(await call({ store: 'sales', operation: 'find', sort: { name: 1 }, limit: 1, skip: 1 })).toMatchObject({
      rowCount: 1,
      data: [{ name: 'pen' }],
    });
    expect(await call({ store: 'sales', operation: 'find-by-id', id: '1' })).toEqual({
      rowCount: 1,
      data: [{ _oId: '1', name: 'pen', product: { price: 2 } }],
    });
    expect(await call({ store: 'sales', operation: 'find-by-id', id: 'nope' })).toEqual({ rowCount: 0, data: [] });
  });

  it('updates, upserts and deletes with counts', async () => {
    expect(
      await call({
        store: 'sales',
        operation: 'update',
        query: { name: 'pen' },
        update: { $inc: { 'product.price': 1 } },
      }),
    ).toEqual({ data: [], updateCount: 1 });
    expect(
      await call({ store: 'sales', operation: 'update-by-id', id: '1', update: { $set: { sold: true } } }),
    ).toEqual({ data: [], updateCount: 1 });
    expect(await call({ store: 'sales', operation: 'find-by-id', id: 1 })).toMatchObject({
      data: [{ product: { price: 3 }, sold: true }],
    });
    expect(
      await call({
        store: 'sales',
        operation: 'update',
        query: { name: 'new' },
        update: { $set: { n: 1 } },
        upsert: true,
      }),
    ).toEqual({ data: [], updateCount: 1 });
    expect(await call({ store: 'sales', operation: 'delete', query: { name: { $in: ['new', 'car'] } } })).toEqual({
      data: [],
      updateCount: 2,
    });
    expect(await call({ store: 'sales', operation: 'delete-by-id', id: '1' })).toEqual({ data: [], updateCount: 1 });
  });

  it('matches numeric ids given as numbers on insert', async () => {
    await call({ store: 'nums', operation: 'insert', document: { _oId: 42, v: 1 } });
    expect(await call({ store: 'nums', operation: 'update-by-id', id: '42', update: { $set: { v: 2 } } })).toEqual({
      data: [],
      updateCount: 1,
    });
    expect(await call({ store: 'nums', operation: 'delete-by-id', id: 42 })).toEqual({ data: [], updateCount: 1 });
  });

  it('aggregates', async () => {
    await call({
      store: 'orders',
      operation: 'insert',
      document: [
        { c: 'a', v: 1 },
        { c: 'a', v: 2 },
        { c: 'b', v: 5 },
      ],
    });
    expect(
      await call({
        store: 'orders',
        operation: 'aggregate',
        pipeline: [{ $group: { _id: '$c', total: { $sum: '$v' } } }, { $sort: { _id: 1 } }],
      }),
    ).toEqual({
      data: [
        { _id: 'a', total: 3 },
        { _id: 'b', total: 5 },
      ],
      rowCount: 2,
    });
    expect(await call({ store: 'orders', operation: 'aggregate', pipeline: [{ $count: 'count' }] })).toEqual({
      data: [{ count: 3 }],
      rowCount: 1,
    });
  });

  it('creates unique indexes; duplicates fail with 409', async () => {
    expect(await call({ target: 'users.create-index', fields: { email: 1 }, unique: true })).toEqual({
      data: [],
      updateCount: 0,
    });
    await call({ store: 'users', operation: 'insert', document: { email: 'a@x' } });
    await expect(call({ store: 'users', operation: 'insert', document: { email: 'a@x' } })).rejects.toMatchObject({
      code: 409,
      kind: 'DUPLICATE_KEY',
    });
  });

  it('lists and drops indexes: { data, rowCount } and { data: [], updateCount }', async () => {
    await call({ target: 'accounts.create-index', fields: { email: 1 }, unique: true });
    const listed = (await call({ target: 'accounts.list-indexes' })) as { data: JsonObject[]; rowCount: number };
    expect(listed).toMatchObject({
      rowCount: 2,
      data: [
        { name: '_oId_', key: { _oId: 1 }, unique: true },
        { name: expect.stringMatching(/^pipec_uix_/), key: { email: 1 }, unique: true },
      ],
    });
    expect(await call({ target: 'accounts.drop-index', name: listed.data[1]?.['name'] as string })).toEqual({
      data: [],
      updateCount: 1,
    });
    expect(await call({ target: 'accounts.drop-index', fields: { email: 1 } })).toEqual({ data: [], updateCount: 0 });
    expect(await call({ target: 'accounts.list-indexes' })).toMatchObject({ rowCount: 1 });
    for (const params of [{}, { name: 'x', fields: { email: 1 } }, { name: 5 }, { fields: 'email' }] as JsonObject[]) {
      await expect(call({ target: 'accounts.drop-index', ...params }), JSON.stringify(params)).rejects.toMatchObject({
        code: 400,
        kind: 'BAD_STORE_PARAMS',
      });
    }
    await expect(call({ target: 'accounts.drop-index', name: '_oId_' })).rejects.toMatchObject({
      code: 400,
      kind: 'BAD_QUERY',
    });
  });

  it('reaches index administration through the declared-store wrapper of a service', async () => {
    const wrapped = { ...ctx, services: { ...ctx.services, store: withDeclaredStoreOptions(backends.store, {}) } };
    await run({ target: 'wrapped.create-index', fields: { sku: 1 } }, {}, wrapped);
    expect(await run({ target: 'wrapped.list-indexes' }, {}, wrapped)).toMatchObject({
      rowCount: 2,
      data: [{ name: '_oId_' }, { key: { sku: 1 } }],
    });
    expect(await run({ target: 'wrapped.drop-index', fields: { sku: 1 } }, {}, wrapped)).toEqual({
      data: [],
      updateCount: 1,
    });
  });

  it('queries through arrays of objects and merges aggregate results into another store', async () => {
    await call({
      target: 'carts.insert',
      document: [
        { _oId: 'c1', owner: 'ana', items: [{ price: 5 }, { price: 20 }] },
        { _oId: 'c2', owner: 'bob', items: [{ price: 3 }] },
      ],
    });
    expect(await call({ target: 'carts.find', query: { 'items.price': { $gt: 10 } } })).toMatchObject({
      rowCount: 1,
      data: [{ _oId: 'c1' }],
    });
    expect(await call({ target: 'carts.find', query: '{"items.price": 3}' })).toMatchObject({
      rowCount: 1,
      data: [{ _oId: 'c2' }],
    });
    const merged = await call({
      target: 'carts.aggregate',
      pipeline: [{ $project: { _oId: 1, owner: 1, prices: '$items.price' } }, { $merge: { into: 'cart-prices' } }],
    });
    expect(merged).toEqual({ data: [], rowCount: 0 });
    expect(await call({ target: 'cart-prices.find-by-id', id: 'c1' })).toEqual({
      rowCount: 1,
      data: [{ _oId: 'c1', owner: 'ana', prices: [5, 20] }],
    });
    await expect(call({ target: 'carts.find', sort: { 'items.price': 1 } })).rejects.toMatchObject({
      code: 400,
      kind: 'BAD_QUERY',
    });
  });

  it('applies the store declaration TTL (expire-after in ms or expireAfterSeconds)', async () => {
    await call({ store: 'cache', operation: 'insert', document: { k: 1 }, storeOptions: { 'expire-after': 60_000 } });
    await call({ store: 'cache2', operation: 'insert', document: { k: 1 }, storeOptions: { expireAfterSeconds: 120 } });
    time += 61_000;
    expect(await call({ store: 'cache', operation: 'find' })).toEqual({ data: [], rowCount: 0 });
    expect(await call({ store: 'cache2', operation: 'find' })).toMatchObject({ rowCount: 1 });
  });

  it('reports bad parameters as PipeError 400', async () => {
    const cases: JsonObject[] = [
      { store: 'sales', operation: 'drop' },
      { operation: 'find' },
      { target: 'nodot' },
      { store: 'sales', operation: 'insert' },
      { store: 'sales', operation: 'insert', document: [1] },
      { store: 'sales', operation: 'find', query: '{not json' },
      { store: 'sales', operation: 'find', query: [1] },
      { store: 'sales', operation: 'find', limit: -1 },
      { store: 'sales', operation: 'find-by-id' },
      { store: 'sales', operation: 'update', query: {} },
      { store: 'sales', operation: 'aggregate', pipeline: {} },
      { store: 'sales', operation: 'create-index' },
      { store: 'sales', operation: 'find', query: { $where: '1' } },
      { store: 'Bad Name', operation: 'find' },
    ];
    for (const params of cases) {
      const err = await call(params).catch((e: unknown) => e);
      expect(err, JSON.stringify(params)).toBeInstanceOf(PipeError);
      expect((err as PipeError).code, JSON.stringify(params)).toBe(400);
    }
  });

  it('has a schema whose operations match the implementation', () => {
    const schemaPath = join(dirname(fileURLToPath(import.meta.url)), 'schema.json');
    const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as {
      positional: string[];
      params: { required: string[]; properties: Record<string, { enum?: string[] }> };
    };
    expect(schema.positional).toEqual(['target']);
    expect(schema.params.required).toEqual(['store', 'operation']);
    expect(schema.params.properties['operation']?.enum).toEqual([
      'insert',
      'find',
      'find-by-id',
      'update',
      'update-by-id',
      'delete',
      'delete-by-id',
      'aggregate',
      'create-index',
      'list-indexes',
      'drop-index',
    ]);
  });
});
