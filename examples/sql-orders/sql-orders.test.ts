/**
 * The sql-orders example end to end against the real PostgreSQL and MariaDB (built with the real
 * CLI, run in process): orders saved in one transaction (a failing line rolls the order back),
 * a duplicate answered 409, orders read back with typed rows, the poll pipeline writing every new
 * order's summary into MariaDB; and the service started while PostgreSQL is down, /ready naming it.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildService, postJson, type BuiltService } from '../../test/e2e/in-process.js';
import { tempDir } from '../../test/e2e/service-process.js';
import { IN_CI, MYSQL_URL, PG_URL, reachable } from '../../test/support/servers.js';
import { run as sqlRun } from '../../runtime/connectors/sql/sql.js';
import { sqlTestContext } from '../../runtime/connectors/sql/test-support.js';
import type { Service } from '../../runtime/service/create-service.js';
import type { Json, JsonObject } from '../../runtime/types.js';

vi.setConfig({ testTimeout: 60_000 });

const up = (await reachable(PG_URL, 5432)) && (await reachable(MYSQL_URL, 3306));
if (IN_CI && !up) throw new Error(`CI=true requires PostgreSQL (${PG_URL}) and MariaDB (${MYSQL_URL})`);
if (!up) console.warn('skipping the sql-orders example: PostgreSQL or MariaDB does not answer');

const here = import.meta.dirname;
const admin = sqlTestContext();
const on =
  (url: string) =>
  async (sql: string, params: Json[] = []): Promise<JsonObject> =>
    (await sqlRun({ account: 'admin', accountFields: { url }, sql, params }, null, admin.ctx)) as JsonObject;
const pg = on(PG_URL);
const maria = on(MYSQL_URL);

let built: BuiltService;
const services: Service[] = [];

async function startService(env: Record<string, string>): Promise<Service> {
  const service = await built.runtime.createService(built.definition, {
    dataDir: path.join(tempDir('sql-orders-data'), 'data'),
    env: { LOG_LEVEL: 'warn', ...env },
  });
  services.push(service);
  await service.start();
  return service;
}

beforeAll(async () => {
  built = await buildService([here], 'sql-orders');
});

afterAll(async () => {
  await Promise.all(services.map((s) => s.stop(1000)));
  await admin.connections.closeAll();
});

describe.runIf(up || IN_CI)('sql-orders against PostgreSQL and MariaDB', () => {
  let service: Service;

  beforeAll(async () => {
    await pg('DROP TABLE IF EXISTS sql_order_lines');
    await pg('DROP TABLE IF EXISTS sql_orders');
    await maria('DROP TABLE IF EXISTS sql_order_summaries');
    service = await startService({ SQL_ORDERS_POSTGRES_URL: PG_URL, SQL_ORDERS_MARIADB_URL: MYSQL_URL });
    expect((await postJson(service, '/sql-orders/setup', {})).status).toBe(200);
  });

  const order = {
    orderId: 'A-1',
    customer: 'Ana',
    items: [
      { sku: 'PEN', qty: 2, unitPrice: 1.5 },
      { sku: 'INK', qty: 1, unitPrice: 7 },
    ],
  };

  it('saves an order and its lines in one transaction and answers 201', async () => {
    const res = await postJson(service, '/sql-orders/orders', order);
    expect(res).toEqual({ status: 201, body: { orderId: 'A-1', total: 10, lines: 2 } });
    const lines = await pg('SELECT sku, qty, unit_price FROM sql_order_lines WHERE order_id = $1 ORDER BY sku', [
      'A-1',
    ]);
    expect(lines['rows']).toEqual([
      { sku: 'INK', qty: 1, unit_price: '7.00' },
      { sku: 'PEN', qty: 2, unit_price: '1.50' },
    ]);
  });

  it('answers 409 for an order id that exists already', async () => {
    const res = await postJson(service, '/sql-orders/orders', order);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'order A-1 exists already' });
  });

  it('rolls the order back when one of its lines does not fit (422, nothing written)', async () => {
    const res = await postJson(service, '/sql-orders/orders', {
      orderId: 'B-2',
      customer: 'Bia',
      items: [{ sku: 'X'.repeat(30), qty: 1, unitPrice: 1 }],
    });
    expect(res.status).toBe(422);
    expect((await pg('SELECT order_id FROM sql_orders WHERE order_id = $1', ['B-2']))['rowCount']).toBe(0);
  });

  it('reads an order back with typed rows, and answers 404 for an unknown one', async () => {
    const found = await service.app.request('/sql-orders/orders/A-1');
    expect(found.status).toBe(200);
    // NUMERIC total and COUNT(*) arrive as text from PostgreSQL; the row schema makes them numbers.
    expect(await found.json()).toEqual({ orderId: 'A-1', customer: 'Ana', total: 10, lines: 2 });
    expect((await service.app.request('/sql-orders/orders/nope')).status).toBe(404);
  });

  it('polls every new order into a MariaDB summary, once', async () => {
    expect(
      (
        await postJson(service, '/sql-orders/orders', {
          orderId: 'C-3',
          customer: 'Caio',
          items: [{ sku: 'DESK', qty: 1, unitPrice: 450 }],
        })
      ).status,
    ).toBe(201);
    await vi.waitFor(
      async () => {
        const rows = await maria('SELECT order_id, customer, total FROM sql_order_summaries ORDER BY order_id');
        expect(rows['rows']).toEqual([
          { order_id: 'A-1', customer: 'Ana', total: '10.00' },
          { order_id: 'C-3', customer: 'Caio', total: '450.00' },
        ]);
      },
      { timeout: 20_000, interval: 100 },
    );
  });
});

describe('sql-orders while PostgreSQL is down', () => {
  it('starts, answers 503 for an order, and /ready names the database', async () => {
    const service = await startService({
      SQL_ORDERS_POSTGRES_URL: 'postgres://postgres@127.0.0.1:1/nothing',
      SQL_ORDERS_MARIADB_URL: MYSQL_URL,
    });
    expect((await service.app.request('/health')).status).toBe(200);
    const res = await postJson(service, '/sql-orders/orders', {
      orderId: 'D-4',
      customer: 'Duda',
      items: [{ sku: 'PEN', qty: 1, unitPrice: 1 }],
    });
    expect(res.status).toBe(503);
    const ready = await service.app.request('/ready');
    expect(ready.status).toBe(503);
    expect(JSON.stringify(await ready.json())).toContain('postgres orders-db');
  });
});
