/**
 * The order-summary example end to end, built with the real CLI and run in process against the
 * real PostgreSQL and a real SMTP server process (test/support/smtp-server.ts): an order stored in
 * one transaction and its summary e-mailed by the event pipeline; a duplicate (409) and a line that
 * does not fit (422, rolled back); the SMTP server cut — the order is stored and answered 201, the
 * failure is recorded on the order and the summary goes out once the server is back; a recipient
 * the server refuses is not retried; and the service started while PostgreSQL is down answers 503
 * with /ready naming the database.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildService, postJson, type BuiltService } from '../../test/e2e/in-process.js';
import { tempDir } from '../../test/e2e/service-process.js';
import { PG_URL, serverAvailable, uniqueName } from '../../test/support/servers.js';
import { startSmtpTestServer, type SmtpTestServer } from '../../test/support/smtp-server.js';
import { startTcpProxy, type TcpProxy } from '../../test/support/tcp-proxy.js';
import { run as sqlRun } from '../../runtime/connectors/sql/sql.js';
import { sqlTestContext } from '../../runtime/connectors/sql/test-support.js';
import type { Service } from '../../runtime/service/create-service.js';
import type { Json, JsonObject } from '../../runtime/types.js';

vi.setConfig({ testTimeout: 60_000 });

const pgUp = await serverAvailable('PostgreSQL', PG_URL, 5432);

const admin = sqlTestContext();
const pg = async (sql: string, params: Json[] = []): Promise<JsonObject> =>
  (await sqlRun({ account: 'admin', accountFields: { url: PG_URL }, sql, params }, null, admin.ctx)) as JsonObject;

let built: BuiltService;
const services: Service[] = [];

async function startService(env: Record<string, string>): Promise<Service> {
  const service = await built.runtime.createService(built.definition, {
    dataDir: path.join(tempDir('order-summary-data'), 'data'),
    env: { LOG_LEVEL: 'silent', ...env },
  });
  services.push(service);
  await service.start();
  return service;
}

async function summaryOf(service: Service, orderId: string): Promise<JsonObject> {
  const res = await service.app.request(`/order-summary/orders/${orderId}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { summary: JsonObject }).summary;
}

beforeAll(async () => {
  built = await buildService([import.meta.dirname], 'order-summary');
}, 300_000);

afterAll(async () => {
  await Promise.all(services.map((s) => s.stop(1000)));
  await admin.connections.closeAll();
});

describe.runIf(pgUp)('order-summary against PostgreSQL and an SMTP server', () => {
  let smtp: SmtpTestServer;
  let proxy: TcpProxy;
  let service: Service;
  const id = (name: string): string => uniqueName(name).slice(0, 40);

  beforeAll(async () => {
    smtp = await startSmtpTestServer();
    // The service reaches the SMTP server through a proxy the tests can cut.
    proxy = await startTcpProxy('127.0.0.1', smtp.ports.implicit);
    await pg('DROP TABLE IF EXISTS summary_order_lines');
    await pg('DROP TABLE IF EXISTS summary_orders');
    service = await startService({
      ORDER_SUMMARY_POSTGRES_URL: PG_URL,
      ORDER_SUMMARY_SMTP_URL: `smtps://127.0.0.1:${proxy.port}`,
      ORDER_SUMMARY_SMTP_USER: smtp.username,
      ORDER_SUMMARY_SMTP_PASSWORD: smtp.password,
      ORDER_SUMMARY_SMTP_CA: smtp.ca,
    });
    expect((await postJson(service, '/order-summary/setup', {})).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    await smtp?.stop();
  });

  it('stores the order in one transaction, answers 201 and e-mails the summary', async () => {
    const orderId = id('A');
    const order = {
      orderId,
      customer: 'Ana <& Co>',
      email: 'ana@example.com',
      items: [
        { sku: 'PEN', qty: 2, unitPrice: 1.5 },
        { sku: 'INK', qty: 1, unitPrice: 7 },
      ],
    };
    expect(await postJson(service, '/order-summary/orders', order)).toEqual({
      status: 201,
      body: { orderId, total: 10, summary: 'queued' },
    });
    const lines = await pg('SELECT sku, qty FROM summary_order_lines WHERE order_id = $1 ORDER BY sku', [orderId]);
    expect(lines['rows']).toEqual([
      { sku: 'INK', qty: 1 },
      { sku: 'PEN', qty: 2 },
    ]);

    await vi.waitFor(
      async () => expect(await summaryOf(service, orderId)).toMatchObject({ status: 'sent', attempts: 1, error: null }),
      { timeout: 20_000, interval: 100 },
    );
    const mail = (await smtp.messages()).find((m) => m.subject === `Your order ${orderId}`);
    expect(mail?.to).toMatchObject({ text: 'ana@example.com' });
    expect(mail?.text).toContain('1 x INK at 7.00\n2 x PEN at 1.50\nTotal: 10');
    expect(mail?.html).toContain('Hello Ana &lt;&amp; Co&gt;,'); // the customer's name is escaped in the HTML
    expect((await summaryOf(service, orderId))['messageId']).toBe(mail?.messageId);
  });

  it('answers 409 for an order id that exists, 422 for a line that does not fit (nothing written)', async () => {
    const orderId = id('B');
    const order = { orderId, customer: 'Bia', email: 'bia@example.com', items: [{ sku: 'PEN', qty: 1, unitPrice: 1 }] };
    expect((await postJson(service, '/order-summary/orders', order)).status).toBe(201);
    const again = await postJson(service, '/order-summary/orders', order);
    expect(again).toMatchObject({ status: 409, body: { error: `order ${orderId} exists already` } });

    const tooLong = id('C');
    const res = await postJson(service, '/order-summary/orders', {
      ...order,
      orderId: tooLong,
      items: [{ sku: 'X'.repeat(30), qty: 1, unitPrice: 1 }],
    });
    expect(res.status).toBe(422);
    expect((await pg('SELECT 1 FROM summary_orders WHERE order_id = $1', [tooLong]))['rowCount']).toBe(0);
  });

  it('stores the order while the SMTP server is away, records the failure, and sends once it is back', async () => {
    proxy.cut();
    const orderId = id('D');
    try {
      const res = await postJson(service, '/order-summary/orders', {
        orderId,
        customer: 'Duda',
        email: 'duda@example.com',
        items: [{ sku: 'DESK', qty: 1, unitPrice: 450 }],
      });
      expect(res).toEqual({ status: 201, body: { orderId, total: 450, summary: 'queued' } });
      await vi.waitFor(
        async () => {
          const summary = await summaryOf(service, orderId);
          expect(summary).toMatchObject({ status: 'failed', messageId: null });
          expect(summary['error']).toMatch(/^CONNECTION_REFUSED: /);
        },
        { timeout: 20_000, interval: 100 },
      );
    } finally {
      proxy.restore();
    }
    // The broker delivers the event again (backoff 1 s, 2 s …): the summary goes out.
    await vi.waitFor(
      async () => {
        const summary = await summaryOf(service, orderId);
        expect(summary).toMatchObject({ status: 'sent', error: null });
        expect(summary['attempts']).toBeGreaterThanOrEqual(2);
      },
      { timeout: 30_000, interval: 200 },
    );
    expect((await smtp.messages()).filter((m) => m.subject === `Your order ${orderId}`)).toHaveLength(1);
  });

  it('records a recipient the server refuses and does not retry it; the order stays stored', async () => {
    const orderId = id('E');
    const res = await postJson(service, '/order-summary/orders', {
      orderId,
      customer: 'Eva',
      email: 'eva@reject.test',
      items: [{ sku: 'PEN', qty: 1, unitPrice: 1 }],
    });
    expect(res.status).toBe(201);
    await vi.waitFor(
      async () => {
        const summary = await summaryOf(service, orderId);
        expect(summary).toMatchObject({ status: 'failed', attempts: 1 });
        expect(summary['error']).toMatch(/^RECIPIENTS_REJECTED: /);
      },
      { timeout: 20_000, interval: 100 },
    );
    // A second order's summary goes out meanwhile: the refused one is in the dead letters, not retried.
    const next = id('F');
    expect(
      (
        await postJson(service, '/order-summary/orders', {
          orderId: next,
          customer: 'Fabi',
          email: 'fabi@example.com',
          items: [{ sku: 'INK', qty: 1, unitPrice: 7 }],
        })
      ).status,
    ).toBe(201);
    await vi.waitFor(async () => expect(await summaryOf(service, next)).toMatchObject({ status: 'sent' }), {
      timeout: 20_000,
      interval: 100,
    });
    expect(await summaryOf(service, orderId)).toMatchObject({ status: 'failed', attempts: 1 });
    // Queued again by hand (after the address was fixed, say): a second attempt is made.
    expect((await service.app.request(`/order-summary/orders/${orderId}/summary`, { method: 'POST' })).status).toBe(
      202,
    );
    await vi.waitFor(
      async () => expect(await summaryOf(service, orderId)).toMatchObject({ status: 'failed', attempts: 2 }),
      { timeout: 20_000, interval: 100 },
    );
    expect((await service.app.request(`/order-summary/orders/${next}/summary`, { method: 'POST' })).status).toBe(409); // sent already
  });
});

describe('order-summary while PostgreSQL is down', () => {
  it('starts, answers 503 for an order, and /ready names the database', async () => {
    const service = await startService({ ORDER_SUMMARY_POSTGRES_URL: 'postgres://postgres@127.0.0.1:1/nothing' });
    expect((await service.app.request('/ready')).status).toBe(200); // nothing connects at start
    const res = await postJson(service, '/order-summary/orders', {
      orderId: 'G-1',
      customer: 'Gil',
      email: 'gil@example.com',
      items: [{ sku: 'PEN', qty: 1, unitPrice: 1 }],
    });
    expect(res).toEqual({
      status: 503,
      body: expect.objectContaining({ message: 'the order database is unavailable' }),
    });
    const ready = await service.app.request('/ready');
    expect(ready.status).toBe(503);
    expect(JSON.stringify(await ready.json())).toContain('postgres order-summary-db');
    expect((await service.app.request('/health')).status).toBe(200);
  });
});
