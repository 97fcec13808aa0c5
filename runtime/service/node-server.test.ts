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
});
