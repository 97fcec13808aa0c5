/**
 * The order-flow benchmark's baseline: the same work as examples/order-flow written by hand on
 * Hono + @hono/node-server + ajv (validate with all errors → 400, restructure, total, route,
 * respond 200). Run as its own process: `node --import tsx bench/baseline/server.ts` with PORT set
 * (the bench transpiles it to JavaScript first, and points ORDER_SCHEMA at the schema file).
 * Prints `listening <port>` on stdout once it accepts connections.
 */
import { readFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { Ajv } from 'ajv';
import { Hono } from 'hono';

interface OrderItem {
  sku: string;
  qty: number;
  unitPrice: number;
}
interface Order {
  orderId: string;
  customer: { name: string; email: string };
  items: OrderItem[];
}

const schemaPath =
  process.env['ORDER_SCHEMA'] ?? new URL('../../examples/order-flow/order.schema.json', import.meta.url);
const validateOrder = new Ajv({ allErrors: true }).compile<Order>(
  JSON.parse(readFileSync(schemaPath, 'utf8')) as object,
);

function route(total: number): string {
  if (total < 500) return 'auto-approve';
  if (total < 2000) return 'manager-approval';
  return 'director-approval';
}

const app = new Hono();
app.post('/order-flow/orders', async (c) => {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    return c.json({ error: 'the body is not JSON' }, 400);
  }
  if (!validateOrder(body)) return c.json({ error: 'invalid order', violations: validateOrder.errors }, 400);
  const lines = body.items.map((item) => ({ code: item.sku, quantity: item.qty, price: item.unitPrice }));
  let total = 0;
  for (const line of lines) total += line.quantity * line.price;
  return c.json({
    id: body.orderId,
    client: { name: body.customer.name, email: body.customer.email },
    lines,
    total,
    route: route(total),
  });
});

const port = Number(process.env['PORT'] ?? '8090');
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`listening ${info.port}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => process.exit(0));
