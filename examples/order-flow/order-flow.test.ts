/**
 * The order-flow example end to end (built with the real CLI, run in process on the embedded
 * backends): the benchmark order answers expected.json, an invalid order answers 400 with every
 * violation, and totals on either side of 500 and 2000 take the other two routes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildService, postJson } from '../../test/e2e/in-process.js';
import { tempDir } from '../../test/e2e/service-process.js';
import type { Service } from '../../runtime/service/create-service.js';
import type { Json, JsonObject } from '../../runtime/types.js';

const here = import.meta.dirname;
const readJson = (file: string): JsonObject => JSON.parse(fs.readFileSync(path.join(here, file), 'utf8')) as JsonObject;
const order = readJson('order.json');

/** The order with one item of `qty` × `unitPrice` (so the total is known). */
function orderOf(qty: number, unitPrice: number): JsonObject {
  return { ...order, items: [{ sku: 'SKU-1', name: 'one', qty, unitPrice }] };
}

let service: Service;

beforeAll(async () => {
  const built = await buildService([here], 'order-flow');
  service = await built.runtime.createService(built.definition, {
    dataDir: path.join(tempDir('order-flow-data'), 'data'),
    env: { LOG_LEVEL: 'warn' },
  });
  await service.start();
});

afterAll(async () => {
  await service?.stop(1000);
});

describe('order-flow', () => {
  it('answers the benchmark order with expected.json', async () => {
    const res = await postJson(service, '/order-flow/orders', order);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(readJson('expected.json'));
  });

  it('refuses an invalid order with 400 and all its violations', async () => {
    const res = await postJson(service, '/order-flow/orders', readJson('bad-order.json'));
    expect(res.status).toBe(400);
    const body = res.body as { error: string; violations: Array<{ path: string }> };
    expect(body.error).toBe('invalid order');
    expect(body.violations.map((v) => v.path).sort()).toEqual(['$.items[2].qty', '$.orderId']);
  });

  it.each([
    [4, 100, 400, 'auto-approve'],
    [1, 499.99, 499.99, 'auto-approve'],
    [5, 100, 500, 'manager-approval'],
    [1, 1999.5, 1999.5, 'manager-approval'],
    [2, 1000, 2000, 'director-approval'],
  ])('routes %d × %d (total %d) to %s', async (qty, unitPrice, total, route) => {
    const res = await postJson(service, '/order-flow/orders', orderOf(qty, unitPrice));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      total,
      route,
      lines: [{ code: 'SKU-1', quantity: qty, price: unitPrice }] as Json,
    });
  });
});
