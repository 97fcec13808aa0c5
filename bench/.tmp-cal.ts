import { readFileSync } from 'node:fs';
import { joltToFunction } from '../compiler/jolt/index.js';
const input = JSON.parse(readFileSync('/work/shared/bench/jolt/shift-order/input.json','utf8'));
function hand(i: any) {
  const c = i.customer, a = c.address;
  return { orderNumber: i.orderId, client: { fullName: c.name, contact: { email: c.email }, tier: 'STANDARD' },
    shipTo: { line1: a.street, city: a.city, postalCode: a.zip, countryCode: a.country },
    lines: i.items.map((x: any) => ({ code: x.sku, description: x.name, quantity: x.qty, price: x.unitPrice, uom: 'EA' })), currency: i.currency, status: 'NEW' };
}
const fn = joltToFunction(JSON.parse(readFileSync('/work/shared/bench/jolt/shift-order/spec.json','utf8'))).fn!;
for (const [name, f] of [['hand', hand], ['jolt', (x: any) => fn(x, {})]] as const) {
  for (let r = 0; r < 3; r++) {
    const s = process.cpuUsage(); let n = 0;
    while (true) { for (let k = 0; k < 1000; k++) f(input); n += 1000; const u = process.cpuUsage(s); if (u.user + u.system > 1e6) { console.log(name, Math.round(n / (u.user + u.system) * 1e6)); break; } }
  }
}
