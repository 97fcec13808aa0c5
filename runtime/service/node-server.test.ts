import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  connectionLimitsFromEnv,
  DEFAULT_CONNECTION_LIMITS,
  ListenError,
  serve,
  type RunningServer,
} from './node-server.js';
import { PipeError } from '../errors.js';
import type { Json } from '../types.js';
import { httpTrigger, makeTestService, pipelineOf, type TestService } from './test-support/test-service.js';

let t: TestService;
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await t?.service.stop(100);
});

describe('serve() on a real socket', () => {
  it('serves the app, enforces limits on chunked bodies, and closes', async () => {
    const echo = pipelineOf(
      'echo',
      httpTrigger('/echo', ['POST'], { maxBodySize: 64 }),
      async (m) => (m as { body: unknown }).body as null,
    );
    t = await makeTestService([echo]);
    await t.service.start();
    server = await serve(t.service, { port: 0, hostname: '127.0.0.1' });
    expect(server.port).toBeGreaterThan(0);
    const base = `http://127.0.0.1:${server.port}`;

    const ok = await fetch(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"hello":"world"}',
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ body: { hello: 'world' } });

    const big = await rawPost(server.port, '/echo', ['{"a":"', 'x'.repeat(40), 'y'.repeat(40), '"}']);
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body)).toMatchObject({ error: 'Request size limit exceeded', code: 413 });

    const small = await rawPost(server.port, '/echo', ['{"a":', '1}']);
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
    const some = pipelineOf(
      'some',
      httpTrigger('/some/:id', ['POST'], { envelope: ['queryAndPath', 'contentType'] }),
      async (m) => m,
    );
    t = await makeTestService([whole, bodyOnly, some]);
    await t.service.start();
    server = await serve(t.service, { port: 0, hostname: '127.0.0.1' });
    const post = async (path: string, contentType: string, body: string): Promise<Record<string, unknown>> => {
      const res = await fetch(`http://127.0.0.1:${server?.port ?? 0}${path}`, {
        method: 'POST',
        headers: { 'content-type': contentType, 'x-a': '1' },
        body,
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { body: Record<string, unknown> }).body;
    };

    const all = await post('/whole/7?q=1', 'application/json', '{"a":1}');
    expect(Object.keys(all)).toEqual(['body', 'headers', 'queryAndPath', 'method', 'path', 'contentType']);
    expect(all).toMatchObject({
      body: { a: 1 },
      headers: { 'x-a': '1' },
      queryAndPath: { q: '1', id: '7' },
      method: 'POST',
      path: '/whole/7',
    });

    // The body is still parsed by its Content-Type when no header record is made.
    expect(await post('/body-only/7?q=1', 'application/x-www-form-urlencoded', 'a=1&a=2')).toEqual({
      body: { a: ['1', '2'] },
    });
    expect(await post('/some/7?q=1', 'application/json; charset=utf-8', '{"a":1}')).toEqual({
      body: { a: 1 },
      queryAndPath: { q: '1', id: '7' },
      contentType: 'application/json; charset=utf-8',
    });
  });
});

/** A raw TCP client: what it received, and whether the server closed the connection. */
interface RawClient {
  readonly socket: Socket;
  received(): string;
  readonly closed: Promise<void>;
}

function rawClient(port: number): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    let data = '';
    const socket = connect({ host: '127.0.0.1', port }, () => resolve({ socket, received: () => data, closed }));
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('utf8');
    });
    socket.on('error', () => undefined);
    socket.once('error', reject);
  });
}

/** Writes `text` one character at a time, `everyMs` apart, until the socket closes. */
function trickle(socket: Socket, text: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(text[i++] ?? '');
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

/**
 * A POST over a real socket: a string body goes with its Content-Length, a list of chunks chunked
 * (no Content-Length). The answer's status, headers and body.
 */
function rawPost(
  port: number,
  path: string,
  body: string | readonly string[],
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const framing =
    typeof body === 'string'
      ? { 'content-length': String(Buffer.byteLength(body)) }
      : { 'transfer-encoding': 'chunked' };
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...framing, ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    for (const chunk of typeof body === 'string' ? [body] : body) req.write(chunk);
    req.end();
  });
}

/** What must not differ between two answers (the id and time of an error differ per request). */
function comparable(answer: { status: number; headers: Record<string, unknown>; body: string }): unknown {
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  delete body['executionId'];
  delete body['timestamp'];
  const { date: _date, ...headers } = answer.headers;
  return { status: answer.status, headers, body };
}

describe('a body-only route answered without the adapter (Service.serveNode)', () => {
  it('answers exactly as through @hono/node-server and Hono, refusals and failures included', async () => {
    const reply = pipelineOf(
      'reply',
      httpTrigger('/reply', ['POST'], { maxBodySize: 4096, envelope: ['body'] }),
      (m) => {
        const body = (m as { body: Record<string, unknown> }).body;
        if (body['fail']) throw new PipeError('no such order', { code: 404, kind: 'NOT_FOUND' });
        if (body['bad']) return { code: 200, body: {}, headers: { 'x-order': 'A-1', 'x-bad': 'a\u0001b' } };
        return { code: 201, body: { got: body }, headers: { 'x-order': 'A-1' } } as unknown as Json;
      },
    );
    t = await makeTestService([reply]);
    await t.service.start();
    server = await serve(t.service, { port: 0, hostname: '127.0.0.1' });
    const serveNode = vi.spyOn(t.service, 'serveNode');
    const cases = ['{"a":[1,"ü"]}', '{"fail":true}', '{"a":', '['.repeat(600) + ']'.repeat(600), ''];
    for (const body of cases) {
      const taken = serveNode.mock.results.filter((r) => r.value === true).length;
      const direct = await rawPost(server.port, '/reply', body);
      expect(serveNode.mock.results.filter((r) => r.value === true).length).toBe(taken + 1);
      // A query string and an upper-case Host are left to the adapter, which serves the same route.
      const adapted = await rawPost(server.port, '/reply?via=adapter', body, { host: `LOCALHOST:${server.port}` });
      expect(serveNode.mock.results.filter((r) => r.value === true).length).toBe(taken + 1);
      expect(comparable(direct)).toEqual(comparable(adapted));
    }
    const ok = await rawPost(server.port, '/reply', '{"a":1}');
    expect(ok).toMatchObject({ status: 201, headers: { 'x-order': 'A-1', 'content-length': '15' } });
    // A header Node refuses to write is a failure of the reply: a 500, without the headers set before it.
    const bad = await rawPost(server.port, '/reply', '{"bad":true}');
    expect(bad.status).toBe(500);
    expect(bad.headers['x-order']).toBeUndefined();
    expect(JSON.parse(bad.body)).toMatchObject({ code: 500, error: 'Internal error' });
    // A body declared longer than the limit is left to the adapter, which drains it after the 413.
    const big = await rawPost(server.port, '/reply', `{"a":"${'x'.repeat(5000)}"}`);
    expect(big.status).toBe(413);
    expect(serveNode.mock.results.at(-1)?.value).toBe(false);
  });

  it('leaves requests to the adapter while the service drains', async () => {
    const echo = pipelineOf('echo', httpTrigger('/echo', ['POST'], { envelope: ['body'] }), (m) => m);
    t = await makeTestService([echo]);
    await t.service.start();
    server = await serve(t.service, { port: 0, hostname: '127.0.0.1' });
    expect((await rawPost(server.port, '/echo', '{}')).status).toBe(200);
    await t.service.stop(100);
    const late = await rawPost(server.port, '/echo', '{}');
    expect(late.status).toBe(503);
    expect(JSON.parse(late.body)).toMatchObject({ code: 503, error: 'Service is shutting down' });
  });
});

describe('connection hygiene', () => {
  const quick = { headerTimeoutMs: 300, bodyTimeoutMs: 600, idleTimeoutMs: 300, maxConnectionsPerClient: 4 };
  const echo = () =>
    pipelineOf('echo', httpTrigger('/echo', ['POST', 'GET']), async (m) => (m as { body: unknown }).body as null);

  it('a body that trickles in is cut off with 408 once the body timeout passes', async () => {
    t = await makeTestService([echo()]);
    await t.service.start();
    server = await serve(t.service, { port: 0, hostname: '127.0.0.1', limits: quick });
    const client = await rawClient(server.port);
    client.socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n');
    client.socket.write('Content-Length: 1000\r\n\r\n{');
    trickle(client.socket, '"a":"'.padEnd(999, 'x'), 50);
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('headers that trickle in are cut off with 408 once the header timeout passes', async () => {
    t = await makeTestService([echo()]);
    await t.service.start();
    server = await serve(t.service, { port: 0, hostname: '127.0.0.1', limits: quick });
    const client = await rawClient(server.port);
    trickle(client.socket, `GET /echo HTTP/1.1\r\nHost: x\r\nX-Slow: ${'y'.repeat(500)}\r\n\r\n`, 20);
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes an idle keep-alive connection after the idle timeout', async () => {
    t = await makeTestService([echo()]);
    await t.service.start();
    server = await serve(t.service, { port: 0, hostname: '127.0.0.1', limits: quick });
    const client = await rawClient(server.port);
    client.socket.write('GET /echo HTTP/1.1\r\nHost: x\r\n\r\n');
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('answers 429 to connections over the per-client cap, and serves again once one closes', async () => {
    t = await makeTestService([echo()]);
    await t.service.start();
    const patient = { ...quick, headerTimeoutMs: 20_000, bodyTimeoutMs: 20_000, idleTimeoutMs: 20_000 };
    server = await serve(t.service, { port: 0, hostname: '127.0.0.1', limits: patient });
    const held = await Promise.all([1, 2, 3, 4].map(() => rawClient(server?.port ?? 0)));
    const extra = await rawClient(server.port);
    extra.socket.write('GET /echo HTTP/1.1\r\nHost: x\r\n\r\n');
    await extra.closed;
    expect(extra.received()).toMatch(/^HTTP\/1\.1 429 /);
    expect(extra.received()).toContain('Too many connections from this address');
    held[0]?.socket.destroy();
    await held[0]?.closed;
    // The close is counted when the server sees it: retry until it has.
    const url = `http://127.0.0.1:${server.port}/echo`;
    await vi.waitFor(async () => expect((await fetch(url)).status).toBe(200), { timeout: 5_000 });
    for (const h of held) h.socket.destroy();
  });

  it('listens on the interface HOST names', async () => {
    t = await makeTestService([echo()]);
    server = await serve(t.service, { port: 0 }, { HOST: '127.0.0.1' });
    expect(server.address).toBe('127.0.0.1');
  });

  it('reports a port in use as one sentence', async () => {
    t = await makeTestService([echo()]);
    server = await serve(t.service, { port: 0, hostname: '127.0.0.1' });
    const second = serve(t.service, { port: server.port, hostname: '127.0.0.1' });
    const sentence = `^port ${server.port} is already in use \\(127\\.0\\.0\\.1:${server.port}\\)`;
    await expect(second).rejects.toThrow(new RegExp(sentence));
    await expect(second).rejects.toBeInstanceOf(ListenError);
  });

  it('reads the limits from the environment', () => {
    expect(connectionLimitsFromEnv({})).toEqual(DEFAULT_CONNECTION_LIMITS);
    expect(
      connectionLimitsFromEnv({
        PIPEC_HEADER_TIMEOUT_MS: '1000',
        PIPEC_BODY_TIMEOUT_MS: '2000',
        PIPEC_IDLE_TIMEOUT_MS: '3000',
        PIPEC_MAX_CONNECTIONS_PER_CLIENT: '0',
      }),
    ).toEqual({ headerTimeoutMs: 1000, bodyTimeoutMs: 2000, idleTimeoutMs: 3000, maxConnectionsPerClient: 0 });
    const unreadable = connectionLimitsFromEnv({ PIPEC_BODY_TIMEOUT_MS: 'soon' });
    expect(unreadable.bodyTimeoutMs).toBe(DEFAULT_CONNECTION_LIMITS.bodyTimeoutMs);
  });
});
