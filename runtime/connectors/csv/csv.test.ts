import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { PipeError } from '../../errors.js';
import { fakeContext } from '../../service/test-support/fake-context.js';
import type { CompiledValidator, ExecutionContext, Json, JsonObject } from '../../types.js';
import { run, type CellType, type CsvParams } from './csv.js';

const workDir = mkdtempSync(join(tmpdir(), 'csv-test-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
const ctx = (overrides: Partial<ExecutionContext> = {}): ExecutionContext => fakeContext({ workDir, ...overrides }).ctx;

const ROW = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    name: { type: 'string', minLength: 1 },
    price: { type: 'number' },
    active: { type: 'boolean' },
  },
};
const validator = new Ajv({ allErrors: true }).compile(ROW) as unknown as CompiledValidator;
const types: [string, CellType][] = [
  ['id', 'integer'],
  ['name', 'string'],
  ['price', 'number'],
  ['active', 'boolean'],
];

const parse = (params: Partial<CsvParams>, c = ctx()): Promise<Json> =>
  run({ operation: 'parse', ...params } as CsvParams, null, c);
const generate = (params: Partial<CsvParams>, c = ctx()): Promise<Json> =>
  run({ operation: 'generate', ...params } as CsvParams, null, c);

async function failure(promise: Promise<unknown>): Promise<PipeError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PipeError);
  return err as PipeError;
}

describe('csv parse', () => {
  it('reads a header, quoting, delimiters and converts cells to the schema types', async () => {
    const text = 'id;name;price;active\n1;"Smith; John";9.5;true\n2;"say ""hi""\nthere";;FALSE\n';
    const out = (await parse({ text, delimiter: ';', validator, types })) as JsonObject;
    expect(out['rows']).toEqual([
      { id: 1, name: 'Smith; John', price: 9.5, active: true },
      { id: 2, name: 'say "hi"\nthere', active: false },
    ]);
    expect(out['rowCount']).toBe(2);
    expect(out['rejectedCount']).toBe(0);
  });

  it('without a schema rows are texts; header: false gives lists of cells; columns name them', async () => {
    expect(((await parse({ text: 'a,b\n1,2\n' })) as JsonObject)['rows']).toEqual([{ a: '1', b: '2' }]);
    expect(((await parse({ text: '1,2\n3,4\n', header: false })) as JsonObject)['rows']).toEqual([
      ['1', '2'],
      ['3', '4'],
    ]);
    expect(((await parse({ text: '1,2\n', header: false, columns: ['x', 'y'] })) as JsonObject)['rows']).toEqual([
      { x: '1', y: '2' },
    ]);
  });

  it('rejects invalid rows with their line and reason when asked, keeping the valid ones', async () => {
    const text = 'id,name,price\n1,Ann,1.5\n\nx,Bob,2\n3,"Multi\nline",abc\n4,Dan\n5,Eve,7\n';
    const out = (await parse({ text, validator, types, 'on-invalid': 'reject' })) as JsonObject;
    expect(out['rows']).toEqual([
      { id: 1, name: 'Ann', price: 1.5 },
      { id: 5, name: 'Eve', price: 7 },
    ]);
    const rejected = out['rejected'] as JsonObject[];
    expect(rejected.map((r) => r['line'])).toEqual([4, 5, 7]);
    expect(rejected[0]?.['reason']).toBe('id: must be integer');
    expect(rejected[0]?.['record']).toEqual({ id: 'x', name: 'Bob', price: '2' });
    expect(rejected[1]?.['reason']).toBe('price: must be number');
    expect(rejected[2]).toEqual({ line: 7, reason: 'expected 3 fields, found 2', record: ['4', 'Dan'] });
    expect(out['rejectedCount']).toBe(3);
  });

  it('fails on the first invalid row by default, naming its line', async () => {
    const err = await failure(parse({ text: 'id,name\n1,Ann\n0,Bob\n', validator, types }));
    expect(err.kind).toBe('ROW_INVALID');
    expect(err.code).toBe(422);
    expect(err.details).toMatchObject({ line: 3, reason: 'id: must be >= 1' });
  });

  it('a missing required cell is reported as missing', async () => {
    const out = (await parse({ text: 'id,name\n,Ann\n', validator, types, 'on-invalid': 'reject' })) as JsonObject;
    expect((out['rejected'] as JsonObject[])[0]?.['reason']).toBe('id: is missing');
  });

  it('malformed CSV is a 400 with line and field', async () => {
    const stray = await failure(parse({ text: 'a,b\n1,2\n3,"x"y\n' }));
    expect(stray.kind).toBe('MALFORMED_CSV');
    expect(stray.code).toBe(400);
    expect(stray.details).toEqual({ line: 3, column: 2 });
    expect(stray.message).toContain('line 3, field 2');
    const open = await failure(parse({ text: 'a,b\n1,"2\n3,4\n' }));
    expect(open.kind).toBe('MALFORMED_CSV');
    expect(open.message).toMatch(/Quote Not Closed/);
    const opening = await failure(parse({ text: 'a,b\n1,x"y"\n' }));
    expect(opening.kind).toBe('MALFORMED_CSV');
    const twice = await failure(parse({ text: 'a,a\n1,2\n' }));
    expect(twice.details).toEqual({ line: 1, column: 2 });
  });

  it('limits rows, rejected rows and record size', async () => {
    expect((await failure(parse({ text: 'a\n1\n2\n3\n', 'max-rows': 2 }))).kind).toBe('TOO_MANY_ROWS');
    const text = 'id,name\nx,a\ny,b\n';
    expect((await failure(parse({ text, validator, types, 'on-invalid': 'reject', 'max-rejected': 1 }))).kind).toBe(
      'TOO_MANY_REJECTED',
    );
    expect((await failure(parse({ text: `a\n${'x'.repeat(100)}\n`, 'max-record-size': 10 }))).kind).toBe(
      'RECORD_TOO_LARGE',
    );
  });

  it('keeps a __proto__ column as data', async () => {
    const out = (await parse({ text: '__proto__,b\n"{""polluted"":1}",2\n' })) as JsonObject;
    const row = (out['rows'] as JsonObject[])[0] as JsonObject;
    expect(Object.hasOwn(row, '__proto__')).toBe(true);
    expect(row['__proto__']).toBe('{"polluted":1}');
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('reads an uploaded file by its file object, and refuses files outside the work folder', async () => {
    const path = join(workDir, 'upload.csv');
    writeFileSync(path, '\uFEFFid,name\n1,Ann\n');
    const out = (await parse({ file: { path, originalFileName: 'orders.csv' }, validator, types })) as JsonObject;
    expect(out['rows']).toEqual([{ id: 1, name: 'Ann' }]);
    expect(((await parse({ file: 'upload.csv' })) as JsonObject)['rowCount']).toBe(1);
    expect((await failure(parse({ file: { path: join(workDir, 'nope.csv') } }))).kind).toBe('FILE_NOT_FOUND');
    expect((await failure(parse({ file: '../../etc/passwd' }))).kind).toBe('FILE_FORBIDDEN');
    symlinkSync('/etc/hostname', join(workDir, 'link.csv'));
    expect((await failure(parse({ file: 'link.csv' }))).kind).toBe('FILE_FORBIDDEN');
    expect((await failure(parse({ file: { name: 'x' } }))).kind).toBe('BAD_FILE_REFERENCE');
    expect((await failure(parse({ text: 42 }))).kind).toBe('BAD_CSV_PARAMS');
  });

  it('reads latin1 and UTF-16 files', async () => {
    writeFileSync(join(workDir, 'latin1.csv'), Buffer.from('name\nJos\xe9\n', 'latin1'));
    expect(((await parse({ file: 'latin1.csv', encoding: 'latin1' })) as JsonObject)['rows']).toEqual([
      { name: 'José' },
    ]);
    writeFileSync(
      join(workDir, 'utf16.csv'),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('name\nJosé\n', 'utf16le')]),
    );
    expect(((await parse({ file: 'utf16.csv', encoding: 'utf-16le' })) as JsonObject)['rows']).toEqual([
      { name: 'José' },
    ]);
    expect((await failure(parse({ file: 'latin1.csv', encoding: 'ebcdic' as 'latin1' }))).kind).toBe('BAD_CSV_PARAMS');
    // Text is already decoded.
    expect(((await parse({ text: 'name\nJosé ☺\n', encoding: 'latin1' })) as JsonObject)['rows']).toEqual([
      { name: 'José ☺' },
    ]);
  });

  it('streams valid rows to a batch pipeline instead of keeping them', async () => {
    const calls: { pipeline: string; payload: Json }[] = [];
    const execute = async (pipeline: string, payload: Json): Promise<Json> => {
      calls.push({ pipeline, payload });
      return {};
    };
    const c = ctx();
    const withExecute = { ...c, services: { ...c.services, execute } } as ExecutionContext;
    const text = `id,name\n${Array.from({ length: 5 }, (_, i) => `${i + 1},n${i + 1}`).join('\n')}\n0,bad\n`;
    const out = (await parse(
      { text, validator, types, 'batch-pipeline': 'load', 'batch-size': 2, 'on-invalid': 'reject' },
      withExecute,
    )) as JsonObject;
    expect(out).toMatchObject({ rows: [], rowCount: 5, rejectedCount: 1, batches: 3 });
    expect(calls.map((c) => c.pipeline)).toEqual(['load', 'load', 'load']);
    expect(calls[0]?.payload).toEqual({
      rows: [
        { id: 1, name: 'n1' },
        { id: 2, name: 'n2' },
      ],
      firstLine: 2,
      batch: 0,
    });
    expect(calls[2]?.payload).toEqual({ rows: [{ id: 5, name: 'n5' }], firstLine: 6, batch: 2 });
  });
});

describe('csv generate', () => {
  it('writes a header from the rows, quotes what needs it, writes nested values as JSON', async () => {
    const rows: Json[] = [
      { id: 1, name: 'a,b', tags: ['x'] },
      { id: 2, name: 'say "hi"', extra: null },
    ];
    const out = (await generate({ rows })) as JsonObject;
    expect(out['text']).toBe('id,name,tags,extra\n1,"a,b","[""x""]",\n2,"say ""hi""",,\n');
    expect(out['rowCount']).toBe(2);
  });

  it('takes columns with nested fields and headers, delimiters, CRLF and formula escaping', async () => {
    const rows = [{ line: 4, reason: 'bad', record: { id: 'x' } }];
    const columns = ['line', { field: 'record.id', header: 'id' }, 'reason'];
    expect(
      (
        (await generate({
          rows,
          columns,
          delimiter: ';',
          'record-delimiter': 'crlf',
        } as Partial<CsvParams>)) as JsonObject
      )['text'],
    ).toBe('line;id;reason\r\n4;x;bad\r\n');
    expect(((await generate({ rows: [['=1+1', 'ok']], 'escape-formulas': true })) as JsonObject)['text']).toBe(
      "'=1+1,ok\n",
    );
    expect(((await generate({ rows: [{ a: 1 }], header: false, 'quote-all': true })) as JsonObject)['text']).toBe(
      '"1"\n',
    );
  });

  it('round-trips through parse', async () => {
    const rows = [
      { id: 1, name: 'line\nbreak, and "quotes"' },
      { id: 2, name: '__proto__' },
    ];
    const text = ((await generate({ rows })) as JsonObject)['text'] as string;
    expect(((await parse({ text, validator, types })) as JsonObject)['rows']).toEqual(rows);
  });

  it('writes a file of the work folder and answers its file object', async () => {
    const out = (await generate({ rows: [{ a: 1 }], 'to-file': 'rejected.csv' })) as JsonObject;
    const file = out['file'] as JsonObject;
    expect(file).toMatchObject({ originalFileName: 'rejected.csv', contentType: 'text/csv', size: 4 });
    expect(String(file['fileName'])).toMatch(/\.csv$/);
    expect(readFileSync(String(file['path']), 'utf8')).toBe('a\n1\n');
    expect(((await parse({ file })) as JsonObject)['rows']).toEqual([{ a: '1' }]);
    expect((await failure(generate({ rows: 'x' as unknown as Json }))).kind).toBe('BAD_CSV_PARAMS');
  });
});
