import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { PipeError } from '../../errors.js';
import { fakeContext } from '../../service/test-support/fake-context.js';
import type { CompiledValidator, Json, JsonObject } from '../../types.js';
import { run, type XmlParams } from './xml.js';

const workDir = mkdtempSync(join(tmpdir(), 'xml-test-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
const ctx = () => fakeContext({ workDir }).ctx;

const parse = (params: Partial<XmlParams>): Promise<Json> =>
  run({ operation: 'parse', ...params } as XmlParams, null, ctx());
const generate = (params: Partial<XmlParams>): Promise<Json> =>
  run({ operation: 'generate', ...params } as XmlParams, null, ctx());

async function failure(promise: Promise<unknown>): Promise<PipeError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PipeError);
  return err as PipeError;
}

const ORDER = `<?xml version="1.0" encoding="UTF-8"?>
<o:order xmlns:o="urn:orders" id="7">
  <o:customer vip="true">Ann &amp; Bob &#x263A;</o:customer>
  <o:item sku="A1"><o:qty>2</o:qty></o:item>
  <!-- a comment with <!DOCTYPE x> inside is no DOCTYPE -->
  <o:note><![CDATA[<b>bold</b>]]></o:note>
</o:order>`;

describe('xml parse', () => {
  it('reads elements, attributes, namespaces, entities and CDATA', async () => {
    expect(await parse({ text: ORDER })).toEqual({
      'o:order': {
        '@xmlns:o': 'urn:orders',
        '@id': '7',
        'o:customer': { '#text': 'Ann & Bob ☺', '@vip': 'true' },
        'o:item': { '@sku': 'A1', 'o:qty': '2' },
        'o:note': '<b>bold</b>',
      },
    });
    expect(await parse({ text: ORDER, namespaces: 'strip', attributes: false })).toEqual({
      order: { customer: 'Ann & Bob ☺', item: { qty: '2' }, note: '<b>bold</b>' },
    });
  });

  it('takes another attribute prefix, or none', async () => {
    expect(await parse({ text: '<p sku="A"><n>y</n></p>', 'attribute-prefix': '' })).toEqual({
      p: { sku: 'A', n: 'y' },
    });
    expect(await parse({ text: '<p sku="A"/>', 'attribute-prefix': '_' })).toEqual({ p: { _sku: 'A' } });
    expect((await failure(parse({ text: '<p/>', 'attribute-prefix': 'x' }))).kind).toBe('BAD_XML_PARAMS');
  });

  it('shapes the document by its schema: scalars converted, single elements as lists, then validated', async () => {
    const schema = {
      type: 'object',
      required: ['order'],
      properties: {
        order: {
          type: 'object',
          required: ['item'],
          properties: {
            '@id': { type: 'integer' },
            item: { type: 'array', items: { $ref: '#/definitions/item' } },
          },
        },
      },
      definitions: {
        item: {
          type: 'object',
          properties: { qty: { type: 'integer', minimum: 1 }, gift: { type: 'boolean' }, sku: { type: 'string' } },
        },
      },
    };
    const validator = new Ajv({ allErrors: true }).compile(schema) as unknown as CompiledValidator;
    const text = '<order id="7"><item><sku>007</sku><qty>2</qty><gift>true</gift></item></order>';
    expect(await parse({ text, validator, shape: schema as unknown as Json })).toEqual({
      order: { '@id': 7, item: [{ sku: '007', qty: 2, gift: true }] },
    });
    const bad = await failure(
      parse({
        text: '<order><item><qty>0</qty></item><item><qty>x</qty></item></order>',
        validator,
        shape: schema as unknown as Json,
      }),
    );
    expect(bad.kind).toBe('INVALID_DOCUMENT');
    expect(bad.code).toBe(422);
    expect((bad.details as JsonObject)['validation']).toEqual([
      '/order/item/0/qty must be >= 1',
      '/order/item/1/qty must be integer',
    ]);
  });

  it('malformed XML is a 400 with line and column', async () => {
    const err = await failure(parse({ text: '<a>\n  <b>1</c>\n</a>' }));
    expect(err.kind).toBe('MALFORMED_XML');
    expect(err.code).toBe(400);
    expect(err.details).toEqual({ line: 2, column: 7 });
    expect(err.message).toContain('line 2, column 7');
    expect((await failure(parse({ text: '' }))).kind).toBe('MALFORMED_XML');
  });

  it('refuses a DOCTYPE anywhere: no entity expansion (billion laughs, external entities)', async () => {
    const laughs =
      '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]>\n<lolz>&lol2;</lolz>';
    const err = await failure(parse({ text: laughs }));
    expect(err.kind).toBe('XML_DOCTYPE_REFUSED');
    expect(err.details).toEqual({ line: 2, column: 1 });
    const external = '<a><!DOCTYPE b [<!ENTITY x SYSTEM "file:///etc/passwd">]>&x;</a>';
    expect((await failure(parse({ text: external }))).kind).toBe('XML_DOCTYPE_REFUSED');
    // An undeclared entity stays text: nothing is looked up.
    expect(await parse({ text: '<a>&x;</a>' })).toEqual({ a: '&x;' });
  });

  it('refuses nesting deeper than max-depth', async () => {
    const deep = (n: number): string => `${'<a>'.repeat(n)}1${'</a>'.repeat(n)}`;
    expect(await parse({ text: deep(3), 'max-depth': 3 })).toEqual({ a: { a: { a: '1' } } });
    const err = await failure(parse({ text: deep(4), 'max-depth': 3 }));
    expect(err.kind).toBe('XML_TOO_DEEP');
    expect((await failure(parse({ text: deep(10_000) }))).kind).toBe('XML_TOO_DEEP');
  });

  it('keeps __proto__ and other object-method names as data', async () => {
    const out = (await parse({
      text: '<a __proto__="x"><__proto__><polluted>1</polluted></__proto__><constructor>c</constructor><toString>t</toString></a>',
    })) as JsonObject;
    const a = out['a'] as JsonObject;
    expect(Object.hasOwn(a, '__proto__')).toBe(true);
    expect(a['__proto__']).toEqual({ polluted: '1' });
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype);
    expect(a['constructor']).toBe('c');
    expect(a['toString']).toBe('t');
    expect(a['@__proto__']).toBe('x');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('reads a file of the work folder, within max-size', async () => {
    const path = join(workDir, 'order.xml');
    writeFileSync(path, '\uFEFF<a><b>1</b></a>');
    expect(await parse({ file: { path } })).toEqual({ a: { b: '1' } });
    expect((await failure(parse({ file: { path }, 'max-size': 5 }))).kind).toBe('XML_TOO_LARGE');
    expect((await failure(parse({ text: '<a/>', 'max-size': 2 }))).kind).toBe('XML_TOO_LARGE');
    expect((await failure(parse({ file: '/etc/hostname' }))).kind).toBe('FILE_FORBIDDEN');
    expect((await failure(parse({ text: 5 }))).kind).toBe('BAD_XML_PARAMS');
  });
});

describe('xml parse, record by record', () => {
  const ITEM = {
    type: 'object',
    required: ['@sku', 'qty'],
    properties: {
      '@sku': { type: 'string' },
      qty: { type: 'integer', minimum: 1 },
      tag: { type: 'array', items: { type: 'string' } },
    },
  };
  const validator = new Ajv({ allErrors: true }).compile(ITEM) as unknown as CompiledValidator;
  const shape = ITEM as unknown as Json;
  const CATALOG = [
    '<?xml version="1.0"?>',
    '<c:catalog xmlns:c="urn:c">',
    '  <!-- <c:item> in a comment is no record -->',
    '  <c:item sku="A"><c:qty>2</c:qty><c:tag>x</c:tag></c:item>',
    '  <c:other><c:item sku="nested, not at the path"/></c:other>',
    '  <c:item sku="B"><c:qty>0</c:qty></c:item>',
    '  <c:item sku="C">',
    '    <c:qty>5</c:qty><c:tag>y</c:tag><c:tag>z</c:tag><![CDATA[</c:item>]]>',
    '  </c:item>',
    '  <c:item sku=">"><c:qty>1</c:qty></c:item>',
    '</c:catalog>',
  ].join('\n');

  it('reads each element at the path as a record, shaped and validated, rejecting with line and reason', async () => {
    const out = (await parse({
      text: CATALOG,
      record: 'catalog/item',
      namespaces: 'strip',
      validator,
      shape,
      'on-invalid': 'reject',
    })) as JsonObject;
    expect(out['records']).toEqual([
      { '@sku': 'A', qty: 2, tag: ['x'] },
      { '@sku': 'C', qty: 5, tag: ['y', 'z'], '#text': '</c:item>' },
      { '@sku': '>', qty: 1 },
    ]);
    expect(out['recordCount']).toBe(3);
    expect(out['rejected']).toEqual([{ line: 6, reason: '/qty must be >= 1', record: { '@sku': 'B', qty: '0' } }]);
    const kept = (await parse({ text: CATALOG, record: 'c:catalog/c:item' })) as JsonObject;
    expect(kept['recordCount']).toBe(4);
    const failed = await failure(
      parse({ text: CATALOG, record: 'catalog/item', namespaces: 'strip', validator, shape }),
    );
    expect(failed.kind).toBe('RECORD_INVALID');
    expect(failed.details).toEqual({ line: 6, reason: '/qty must be >= 1' });
  });

  it('streams a file in chunks, hands batches to a pipeline, and limits records', async () => {
    const path = join(workDir, 'catalog.xml');
    const items = Array.from({ length: 2500 }, (_, i) => `<item sku="S${i}"><qty>${i + 1}</qty></item>`).join('\n');
    writeFileSync(path, `<catalog>\n${items}\n</catalog>`);
    const calls: JsonObject[] = [];
    const base = ctx();
    const execute = async (_p: string, payload: Json): Promise<Json> => {
      calls.push(payload as JsonObject);
      return {};
    };
    const c = { ...base, services: { ...base.services, execute } };
    const out = (await run(
      {
        operation: 'parse',
        file: { path },
        record: 'catalog/item',
        validator,
        shape,
        'batch-pipeline': 'load',
        'batch-size': 1000,
      },
      null,
      c,
    )) as JsonObject;
    expect(out).toMatchObject({ records: [], recordCount: 2500, rejectedCount: 0, batches: 3 });
    expect(calls.map((b) => (b['records'] as Json[]).length)).toEqual([1000, 1000, 500]);
    expect(calls[1]).toMatchObject({ firstLine: 1002, batch: 1 });
    expect((calls[2]?.['records'] as Json[])[499]).toEqual({ '@sku': 'S2499', qty: 2500 });
    expect((await failure(parse({ file: { path }, record: 'catalog/item', 'max-records': 10 }))).kind).toBe(
      'TOO_MANY_RECORDS',
    );
  });

  it('is as strict and safe as a whole document', async () => {
    const malformed = await failure(parse({ text: '<c>\n<item><qty>1</item>\n</c>', record: 'c/item' }));
    expect(malformed.kind).toBe('MALFORMED_XML');
    expect(malformed.details).toEqual({ line: 2, column: 13 });
    const unclosed = await failure(parse({ text: '<c><item/>', record: 'c/item' }));
    expect(unclosed.message).toContain('still open');
    const inRecord = await failure(parse({ text: '<c>\n\n<item a="1" a="2"/></c>', record: 'c/item' }));
    expect(inRecord.kind).toBe('MALFORMED_XML');
    expect((inRecord.details as JsonObject)['line']).toBe(3);
    expect(
      (await failure(parse({ text: '<c><!DOCTYPE x [<!ENTITY a "b">]><item>&a;</item></c>', record: 'c/item' }))).kind,
    ).toBe('XML_DOCTYPE_REFUSED');
    expect(
      (await failure(parse({ text: `<c>${'<d>'.repeat(70)}${'</d>'.repeat(70)}</c>`, record: 'c/item' }))).kind,
    ).toBe('XML_TOO_DEEP');
    expect(
      (await failure(parse({ text: `<c><item>${'x'.repeat(100)}</item></c>`, record: 'c/item', 'max-size': 50 }))).kind,
    ).toBe('XML_TOO_LARGE');
    expect((await failure(parse({ text: `<c><!--${'x'.repeat(100)}`, record: 'c/item', 'max-size': 50 }))).kind).toBe(
      'XML_TOO_LARGE',
    );
    const proto = (await parse({
      text: '<c><__proto__><polluted>1</polluted></__proto__></c>',
      record: 'c/__proto__',
    })) as JsonObject;
    expect(proto['records']).toEqual([{ polluted: '1' }]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('xml generate', () => {
  it('writes attributes, text, repeated elements, escapes, and round-trips', async () => {
    const document: JsonObject = {
      order: {
        '@id': 7,
        customer: { '@vip': true, '#text': 'Ann & <Bob>' },
        item: [{ sku: 'A"1' }, { sku: 'B2' }],
        empty: null,
      },
    };
    const out = (await generate({ document })) as JsonObject;
    expect(out['text']).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<order id="7">',
        '  <customer vip="true">Ann &amp; &lt;Bob&gt;</customer>',
        '  <item>',
        '    <sku>A&quot;1</sku>',
        '  </item>',
        '  <item>',
        '    <sku>B2</sku>',
        '  </item>',
        '  <empty/>',
        '</order>',
        '',
      ].join('\n'),
    );
    expect(await parse({ text: String(out['text']) })).toEqual({
      order: {
        '@id': '7',
        customer: { '@vip': 'true', '#text': 'Ann & <Bob>' },
        item: [{ sku: 'A"1' }, { sku: 'B2' }],
        empty: '',
      },
    });
    expect(((await generate({ document: { a: { b: 1 } }, indent: 0, declaration: false })) as JsonObject)['text']).toBe(
      '<a><b>1</b></a>\n',
    );
  });

  it('writes __proto__ fields as elements, and refuses names that are no XML names', async () => {
    const document = JSON.parse('{"a":{"__proto__":{"p":1}}}') as Json;
    expect(((await generate({ document, indent: 0, declaration: false })) as JsonObject)['text']).toBe(
      '<a><__proto__><p>1</p></__proto__></a>\n',
    );
    expect((await failure(generate({ document: { 'a b': 1 } }))).kind).toBe('BAD_XML_DOCUMENT');
    expect((await failure(generate({ document: { a: 1, b: 2 } }))).kind).toBe('BAD_XML_PARAMS');
  });

  it('writes a file of the work folder', async () => {
    const out = (await generate({ document: { a: 'x' }, 'to-file': 'out.xml', declaration: false })) as JsonObject;
    const file = out['file'] as JsonObject;
    expect(file).toMatchObject({ originalFileName: 'out.xml', contentType: 'application/xml', size: 9 });
    expect(readFileSync(String(file['path']), 'utf8')).toBe('<a>x</a>\n');
  });
});
