import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from './node-server.js';
import { httpTrigger, makeTestService, pipelineOf, type TestService } from './test-support/test-service.js';

let t: TestService;
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  await t?.service.stop(100);
});

/** Sends a chunked (no Content-Length) request over a real socket. */
function chunkedPost(port: number, path: string, chunks: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

describe('serve() on a real socket', () => {
  it('serves the app, enforces limits on chunked bodies, and closes', async () => {
    const echo = pipelineOf('echo', httpTrigger('/echo', ['POST'], { maxBodySize: 64 }), async (m) => (m as { body: unknown }).body as null);
    t = await makeTestService([echo]);
    await t.service.start();
    server = await serve(t.service, { port: 0, hostname: '127.0.0.1' });
    expect(server.port).toBeGreaterThan(0);
    const base = `http://127.0.0.1:${server.port}`;

    const ok = await fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"hello":"world"}' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ body: { hello: 'world' } });

    const big = await chunkedPost(server.port, '/echo', ['{"a":"', 'x'.repeat(40), 'y'.repeat(40), '"}']);
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body)).toMatchObject({ error: 'Request size limit exceeded', code: 413 });

    const small = await chunkedPost(server.port, '/echo', ['{"a":', '1}']);
    expect(small.status).toBe(200);

    expect((await fetch(`${base}/ready`)).status).toBe(200);
    const { port } = server;
    await server.close();
    server = undefined;
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  });

  it('builds only the envelope fields the pipeline reads, from the Node request', async () => {
    const whole = pipelineOf('whole', httpTrigger('/whole/:id'), async (m) => m);
    const bodyOnly = pipelineOf('body-only', httpTrigger('/body-only/:id', ['POST'], { envelope: [] }), async (m) => m);
    const some = pipelineOf('some', httpTrigger('/some/:id', ['POST'], { envelope: ['queryAndPath', 'contentType'] }), async (m) => m);
    t = await makeTestService([whole, bodyOnly, some]);
    await t.service.start();
    server = await serve(t.service, { port: 0, hostname: '127.0.0.1' });
    const post = async (path: string, contentType: string, body: string): Promise<Record<string, unknown>> => {
      const res = await fetch(`http://127.0.0.1:${server?.port ?? 0}${path}`, { method: 'POST', headers: { 'content-type': contentType, 'x-a': '1' }, body });
      expect(res.status).toBe(200);
      return ((await res.json()) as { body: Record<string, unknown> }).body;
    };

    const all = await post('/whole/7?q=1', 'application/json', '{"a":1}');
    expect(Object.keys(all)).toEqual(['body', 'headers', 'queryAndPath', 'method', 'path', 'contentType']);
    expect(all).toMatchObject({ body: { a: 1 }, headers: { 'x-a': '1' }, queryAndPath: { q: '1', id: '7' }, method: 'POST', path: '/whole/7' });

    // The body is still parsed by its Content-Type when no header record is made.
    expect(await post('/body-only/7?q=1', 'application/x-www-form-urlencoded', 'a=1&a=2')).toEqual({ body: { a: ['1', '2'] } });
    expect(await post('/some/7?q=1', 'application/json; charset=utf-8', '{"a":1}'))
      .toEqual({ body: { a: 1 }, queryAndPath: { q: '1', id: '7' }, contentType: 'application/json; charset=utf-8' });
  });
});
