/**
 * The csv-import example end to end (built with the real CLI, run in process on the embedded
 * backends): CSV files uploaded over HTTP File are parsed, validated row by row and stored, the
 * rejected rows answered as a CSV; a larger file streams to the batch pipeline; malformed CSV and
 * XML are 400s naming the line; an XML purchase order is typed by its schema and acknowledged in XML.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildService } from '../../test/e2e/in-process.js';
import { tempDir } from '../../test/e2e/service-process.js';
import type { Service } from '../../runtime/service/create-service.js';
import type { JsonObject } from '../../runtime/types.js';

const here = import.meta.dirname;
const sample = (name: string): string => fs.readFileSync(path.join(here, 'samples', name), 'utf8');

let service: Service;

beforeAll(async () => {
  const built = await buildService([here], 'csv-import');
  service = await built.runtime.createService(built.definition, {
    dataDir: path.join(tempDir('csv-import-data'), 'data'),
    env: { LOG_LEVEL: 'warn' },
  });
  await service.start();
});

afterAll(async () => {
  await service?.stop(1000);
});

function upload(route: string, csv: string, fileName = 'customers.csv'): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), fileName);
  return Promise.resolve(service.app.request(route, { method: 'POST', body: form }));
}

async function customer(id: number): Promise<{ status: number; body: JsonObject }> {
  const res = await service.app.request(`/csv-import/customers/${id}`);
  return { status: res.status, body: (await res.json()) as JsonObject };
}

describe('csv-import', () => {
  it('stores the valid rows and answers the rejected ones as a CSV', async () => {
    const res = await upload('/csv-import/customers', sample('customers.csv'));
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('x-imported')).toBe('3');
    expect(res.headers.get('x-rejected')).toBe('4');
    expect(await res.text()).toBe(
      [
        'line,reason,id,name,email,credit,active',
        '4,id: must be integer,x,Caio,caio@example.com,10,true',
        '5,"email: must match format ""email""",4,Dora,not-an-email,10,true',
        '6,credit: must be >= 0,5,Eva,eva@example.com,-3,true',
        '8,"expected 5 fields, found 2",,,,,',
        '',
      ].join('\n'),
    );
    expect(await customer(1)).toMatchObject({
      status: 200,
      body: { id: 1, name: 'Ana Souza', credit: 1500.5, active: true },
    });
    expect(await customer(2)).toMatchObject({ status: 200, body: { name: 'Souza, Bia', credit: 0, active: false } });
    const fabio = await customer(6);
    expect(fabio.body).toMatchObject({ name: 'Fábio "Fab" Lima', active: true });
    expect(Object.hasOwn(fabio.body, 'credit')).toBe(false);
    expect((await customer(4)).status).toBe(404);
  });

  it('answers 200 with the count when every row is valid', async () => {
    const res = await upload('/csv-import/customers', 'id,name,email\n100,Hugo,hugo@example.com\n');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ imported: 1 });
  });

  it('malformed CSV is a 400 naming the line and field, and nothing is stored', async () => {
    const res = await upload(
      '/csv-import/customers',
      'id,name,email\n200,Ivo,ivo@example.com\n201,"Jo"e,jo@example.com\n',
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as JsonObject;
    expect(body).toMatchObject({ code: 400 });
    expect(String(body['message'])).toContain('line 3, field 2');
    expect((await customer(200)).status).toBe(404);
  });

  it('streams a larger file to the batch pipeline', async () => {
    const rows = Array.from({ length: 1203 }, (_, i) => `${1000 + i},Customer ${i},c${i}@example.com,${i % 50}`);
    rows.splice(600, 0, '0,Nobody,nobody@example.com,1');
    const res = await upload('/csv-import/customers/large', `id,name,email,credit\n${rows.join('\n')}\n`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as JsonObject;
    expect(body).toMatchObject({ imported: 1203, batches: 3 });
    expect(body['rejected']).toEqual([
      {
        line: 602,
        reason: 'id: must be >= 1',
        record: { id: '0', name: 'Nobody', email: 'nobody@example.com', credit: '1' },
      },
    ]);
    expect(await customer(2202)).toMatchObject({ status: 200, body: { name: 'Customer 1202', credit: 2 } });
  });

  it('streams an XML catalog product by product: valid ones stored, the others answered with line and reason', async () => {
    const res = await upload('/csv-import/catalog.xml', sample('catalog.xml'), 'catalog.xml');
    expect(res.status).toBe(200);
    const body = (await res.json()) as JsonObject;
    expect(body['imported']).toBe(3);
    expect(body['rejected']).toEqual([
      {
        line: 5,
        reason: '/sku must match pattern "^[A-Z]+-[0-9]+$"',
        record: { sku: 'bad sku', name: 'Mystery', price: '1' },
      },
      { line: 6, reason: '/price must be number', record: { sku: 'INK-9', name: 'Ink', price: 'free' } },
    ]);
    const pen = await service.app.request('/csv-import/products/PEN-01');
    expect(await pen.json()).toMatchObject({ sku: 'PEN-01', name: 'Pen & cap', price: 1.25, tag: ['office'] });
    const notebook = await service.app.request('/csv-import/products/NOTE-5');
    expect(await notebook.json()).toMatchObject({ tag: ['office', 'paper'], price: 4.5 });
    expect((await service.app.request('/csv-import/products/INK-9')).status).toBe(404);
  });

  it('parses an XML purchase order by its schema and acknowledges it in XML', async () => {
    const res = await service.app.request('/csv-import/orders.xml', {
      method: 'POST',
      body: sample('purchase-order.xml'),
      headers: { 'content-type': 'application/xml' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      order: 'PO-1001',
      customer: 'Ana Souza & Co.',
      total: 21.5,
      acknowledgement:
        '<?xml version="1.0" encoding="UTF-8"?>\n<acknowledgement order="PO-1001">\n  <items>2</items>\n  <status>accepted</status>\n</acknowledgement>\n',
    });
  });

  it('refuses malformed XML, a DOCTYPE, and an order that does not fit its schema', async () => {
    const post = (body: string): Promise<Response> =>
      Promise.resolve(
        service.app.request('/csv-import/orders.xml', {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/xml' },
        }),
      );
    const malformed = await post('<order id="PO-1">\n<customer>x</order>');
    expect(malformed.status).toBe(400);
    expect(await malformed.text()).toContain('line 2');
    const doctype = await post('<!DOCTYPE order [<!ENTITY a "aaaaaaaaaa">]><order id="PO-1">&a;</order>');
    expect(doctype.status).toBe(400);
    expect(await doctype.text()).toContain('DOCTYPE');
    const invalid = await post(
      '<order id="PO-2"><customer>x</customer><item sku="A"><qty>0</qty><price>1</price></item></order>',
    );
    expect(invalid.status).toBe(422);
  });
});
