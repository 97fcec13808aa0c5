import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Json } from '../../types.js';
import { dispositionFileName, safeFileName, type HttpFileTriggerSpec } from './http-file.js';
import { makeTestService, pipelineOf, type TestService } from '../../service/test-support/test-service.js';

let t: TestService;
afterEach(async () => {
  await t?.service.stop(200);
});

function fileTrigger(maxFileSize = 1024 * 1024): HttpFileTriggerSpec {
  return { kind: 'http-file', methods: ['POST'], path: '/upload', maxFileSize };
}

interface FileEntry {
  fileName: string;
  originalFileName: string | null;
  param: string;
  contentType: string;
  size: number;
  path: string;
}

/** Reads every uploaded file while the execution runs, and returns what it saw. */
const inspectFiles = pipelineOf('upload', fileTrigger(), async (m, ctx) => {
  const message = m as unknown as { files: FileEntry[]; body: Json };
  return {
    body: message.body,
    files: message.files.map((f) => ({
      ...f,
      content: readFileSync(f.path, 'utf8'),
      insideWorkDir: f.path.startsWith(ctx.workDir + '/'),
    })),
  } as unknown as Json;
});

describe('HTTP File trigger', () => {
  it('stores two multipart files in the work folder and removes them afterwards', async () => {
    t = await makeTestService([inspectFiles]);
    const form = new FormData();
    form.append('note', 'two receipts');
    form.append('receipt', new Blob(['%PDF-1 first'], { type: 'application/pdf' }), '../../etc/passwd.pdf');
    form.append('receipt', new Blob(['second,file'], { type: 'text/csv' }), 'b.csv');
    const res = await t.service.app.request('/upload', { method: 'POST', body: form });
    expect(res.status).toBe(200);
    const { body } = (await res.json()) as {
      body: { body: Json; files: Array<FileEntry & { content: string; insideWorkDir: boolean }> };
    };
    expect(body.body).toEqual({ note: 'two receipts' });
    expect(body.files).toHaveLength(2);
    const [first, second] = body.files;
    expect(first).toMatchObject({
      param: 'receipt',
      originalFileName: 'passwd.pdf',
      contentType: 'application/pdf',
      size: 12,
      content: '%PDF-1 first',
      insideWorkDir: true,
    });
    expect(first?.fileName).toMatch(/^[0-9a-f-]{36}\.pdf$/);
    expect(second).toMatchObject({
      originalFileName: 'b.csv',
      contentType: 'text/csv',
      size: 11,
      content: 'second,file',
      insideWorkDir: true,
    });
    for (const f of body.files) expect(existsSync(f.path)).toBe(false);
    expect(readdirSync(join(t.dataDir, 'tmp'))).toEqual([]);
  });

  it('keeps repeated and prototype-named fields as own data', async () => {
    const fieldsOnly = pipelineOf('fields', fileTrigger(), async (m) => {
      const fields = (m as { body: Record<string, Json> }).body;
      return {
        own: Object.keys(fields),
        proto: Object.getPrototypeOf(fields) === Object.prototype,
        protoField: Object.getOwnPropertyDescriptor(fields, '__proto__')?.value ?? null,
        tag: fields['tag'] ?? null,
      } as Json;
    });
    t = await makeTestService([fieldsOnly]);
    const form = new FormData();
    form.append('__proto__', 'data');
    form.append('tag', 'a');
    form.append('tag', 'b');
    const res = await t.service.app.request('/upload', { method: 'POST', body: form });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { body: Json }).body).toEqual({
      own: ['__proto__', 'tag'],
      proto: true,
      protoField: 'data',
      tag: ['a', 'b'],
    });
    expect(({} as Record<string, unknown>)['tag']).toBeUndefined();
  });

  it('accepts a raw body upload as one file with param "body"', async () => {
    t = await makeTestService([inspectFiles]);
    const res = await t.service.app.request('/upload', {
      method: 'POST',
      headers: { 'content-type': 'application/pdf', 'content-disposition': 'attachment; filename="report.pdf"' },
      body: '%PDF raw',
    });
    expect(res.status).toBe(200);
    const { body } = (await res.json()) as { body: { body: Json; files: FileEntry[] } };
    expect(body.body).toBeNull();
    expect(body.files).toEqual([
      expect.objectContaining({
        param: 'body',
        originalFileName: 'report.pdf',
        contentType: 'application/pdf',
        size: 8,
      }),
    ]);
    expect(body.files[0]?.fileName).toMatch(/\.pdf$/);
  });

  it('answers 413 when a file exceeds maxFileSize, and leaves no files behind', async () => {
    const small = pipelineOf('upload', fileTrigger(100), async () => 'should not run');
    t = await makeTestService([small]);
    const form = new FormData();
    form.append('f', new Blob(['x'.repeat(500)], { type: 'text/plain' }), 'big.txt');
    const res = await t.service.app.request('/upload', { method: 'POST', body: form });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({
      error: 'Request size limit exceeded',
      code: 413,
      executionId: expect.any(String),
    });
    expect(readdirSync(join(t.dataDir, 'tmp'))).toEqual([]);
  });

  it('answers 413 on a raw upload over the limit (declared and streamed)', async () => {
    const small = pipelineOf('upload', fileTrigger(100), async () => 'should not run');
    t = await makeTestService([small]);
    const declared = await t.service.app.request('/upload', {
      method: 'POST',
      headers: { 'content-type': 'application/pdf' },
      body: 'y'.repeat(101),
    });
    expect(declared.status).toBe(413);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array(80));
        c.enqueue(new Uint8Array(80));
        c.close();
      },
    });
    const streamed = await t.service.app.request(
      new Request('http://localhost/upload', {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: stream,
        duplex: 'half',
      } as RequestInit & { duplex: 'half' }),
    );
    expect(streamed.status).toBe(413);
  });

  it('answers 400 on a malformed multipart body', async () => {
    t = await makeTestService([inspectFiles]);
    const res = await t.service.app.request('/upload', {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=XYZ' },
      body: '--XYZ\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated',
    });
    expect(res.status).toBe(400);
  });

  it('answers 400, not 500, to a multipart Content-Type without a boundary, and logs no stack', async () => {
    t = await makeTestService([inspectFiles]);
    const types = ['multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; charset=utf-8'];
    for (const contentType of types) {
      const headers = { 'content-type': contentType };
      const res = await t.service.app.request('/upload', { method: 'POST', headers, body: 'abc' });
      expect(res.status, contentType).toBe(400);
      expect(await res.json()).toMatchObject({ code: 400, error: expect.stringContaining('boundary') });
    }
    expect(t.logs.text).not.toContain('"stack"');
  });

  it('generates safe names and reads Content-Disposition file names', () => {
    expect(safeFileName('../../x.PDF', 'application/pdf')).toMatch(/^[0-9a-f-]{36}\.PDF$/);
    expect(safeFileName('noext', 'application/pdf')).toMatch(/^[0-9a-f-]{36}\.pdf$/);
    expect(safeFileName('evil.pdf/../../x', 'application/x-unknown')).toMatch(/^[0-9a-f-]{36}$/);
    expect(dispositionFileName('attachment; filename="a b.pdf"')).toBe('a b.pdf');
    expect(dispositionFileName("attachment; filename*=UTF-8''na%C3%AFve.txt")).toBe('naïve.txt');
    expect(dispositionFileName(null)).toBeNull();
  });
});
