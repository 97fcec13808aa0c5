import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PipeError } from '../../errors.js';
import type { Json, JsonObject } from '../../types.js';
import schema from './schema.json' with { type: 'json' };
import { closeConnectionPools, run } from './rest.js';
import { json, restTestContext, startTestServer, type TestServer } from './test-support.js';

let api: TestServer;
let other: TestServer;
beforeAll(async () => {
  api = await startTestServer();
  other = await startTestServer();
});
afterAll(async () => {
  await api.close();
  await other.close();
});
afterEach(() => {
  api.requests.length = 0;
  other.requests.length = 0;
  api.handle((_req, res) => res.end());
  other.handle((_req, res) => res.end());
});

type Output = { status: number; statusMessage: string; body: Json; headers: Record<string, Json> };

async function rest(params: JsonObject, ctx = restTestContext().ctx): Promise<Output> {
  return (await run(params, null, ctx)) as Output;
}

/** A test context whose log keeps the connector's `rest: retrying` lines (attempt, delayMs, why). */
function retryRecording(): { ctx: ReturnType<typeof restTestContext>['ctx']; retries: () => JsonObject[] } {
  const lines: JsonObject[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as JsonObject) });
  return { ctx: { ...restTestContext().ctx, log }, retries: () => lines.filter((l) => l['msg'] === 'rest: retrying') };
}

async function failure(promise: Promise<unknown>): Promise<PipeError> {
  const err = await promise.then(
    () => {
      throw new Error('expected a PipeError');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PipeError);
  return err as PipeError;
}

describe('schema.json', () => {
  it('describes every parameter and declares units and references', () => {
    const props = schema.params.properties as Record<string, Record<string, unknown>>;
    for (const [name, prop] of Object.entries(props)) expect(typeof prop['description'], name).toBe('string');
    expect(props['account']?.['x-pipe-ref']).toBe('account');
    expect(props['response-schema']?.['x-pipe-ref']).toBe('schema');
    expect(props['read-timeout']?.['x-pipe-unit']).toBe('ms');
    expect(props['max-response-size']?.['x-pipe-unit']).toBe('bytes');
    expect(schema.params.required).toEqual(['url']);
    expect('module' in schema).toBe(false);
  });
});

describe('requests', () => {
  it('GET sends query parameters (encoded, repeated for arrays, null left out) and headers', async () => {
    api.handle((req, res) => json(res, 200, { seen: req.url }));
    const out = await rest({
      url: `${api.origin}/customers/7?fixed=1`,
      query: { q: 'a b&c', tag: ['x', 'y'], n: 3, skip: null },
      headers: { 'X-Trace': 'abc', 'x-count': 2 },
    });
    expect(out).toEqual({
      status: 200,
      statusMessage: 'OK',
      body: { seen: '/customers/7?fixed=1&q=a+b%26c&tag=x&tag=y&n=3' },
      headers: expect.any(Object),
    });
    expect(api.requests[0]?.method).toBe('GET');
    expect(api.requests[0]?.headers['x-trace']).toBe('abc');
    expect(api.requests[0]?.headers['x-count']).toBe('2');
  });

  it('works again after the connection pools were closed (service shutdown)', async () => {
    api.handle((_req, res) => json(res, 200, { ok: true }));
    await rest({ url: `${api.origin}/before` });
    await closeConnectionPools();
    expect((await rest({ url: `${api.origin}/after` })).body).toEqual({ ok: true });
  });

  it('POST sends the body as JSON with Content-Type application/json', async () => {
    api.handle((req, res) => json(res, 201, { received: JSON.parse(req.body) as Json }));
    const out = await rest({ url: `${api.origin}/orders`, method: 'POST', body: { id: 1, items: ['a'] } });
    expect(out.status).toBe(201);
    expect(out.body).toEqual({ received: { id: 1, items: ['a'] } });
    expect(api.requests[0]?.headers['content-type']).toBe('application/json');
  });

  it('raw sends a string unchanged (text/plain unless a Content-Type is given)', async () => {
    await rest({ url: `${api.origin}/raw`, method: 'PUT', raw: true, body: '<a>1</a>' });
    await rest({
      url: `${api.origin}/raw`,
      method: 'PUT',
      raw: true,
      body: '<a>2</a>',
      headers: { 'Content-Type': 'application/xml' },
    });
    expect(api.requests.map((r) => [r.body, r.headers['content-type']])).toEqual([
      ['<a>1</a>', 'text/plain; charset=utf-8'],
      ['<a>2</a>', 'application/xml'],
    ]);
  });

  it('sends an object as a form when the Content-Type says so', async () => {
    await rest({
      url: `${api.origin}/form`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: { a: 'x y', b: [1, 2] },
    });
    expect(api.requests[0]?.body).toBe('a=x+y&b=1&b=2');
  });

  it('refuses a body on GET, a non-http URL and credentials in the URL', async () => {
    expect((await failure(rest({ url: `${api.origin}/x`, body: { a: 1 } }))).kind).toBe('INVALID_PARAMETER');
    expect((await failure(rest({ url: 'ftp://example.com/x' }))).code).toBe(400);
    expect((await failure(rest({ url: 'http://user:secret@127.0.0.1/x' }))).message).not.toContain('secret');
    expect((await failure(rest({ url: `${api.origin}/x`, headers: { 'x-bad': 'a\r\nInjected: 1' } }))).kind).toBe(
      'INVALID_PARAMETER',
    );
    expect(api.requests).toHaveLength(0);
  });
});

describe('responses', () => {
  it('parses JSON (also +json), returns text otherwise, null when empty', async () => {
    api.handle((req, res) => {
      if (req.url === '/json') return json(res, 200, { ok: true });
      if (req.url === '/problem') {
        res.writeHead(400, { 'content-type': 'application/problem+json' });
        return res.end('{"title":"bad"}');
      }
      if (req.url === '/broken') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{not json');
      }
      if (req.url === '/latin1') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
        return res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      }
      if (req.url === '/empty') {
        res.writeHead(204);
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('hello');
    });
    expect((await rest({ url: `${api.origin}/json` })).body).toEqual({ ok: true });
    expect((await rest({ url: `${api.origin}/problem` })).body).toEqual({ title: 'bad' });
    expect((await rest({ url: `${api.origin}/broken` })).body).toBe('{not json');
    expect((await rest({ url: `${api.origin}/latin1` })).body).toBe('café');
    expect((await rest({ url: `${api.origin}/text` })).body).toBe('hello');
    expect((await rest({ url: `${api.origin}/empty`, method: 'DELETE' })).body).toBeNull();
  });

  it('lower-cases header names and returns set-cookie as an array', async () => {
    api.handle((_req, res) => {
      res.setHeader('X-Request-Id', 'r-1');
      res.setHeader('Set-Cookie', ['a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT', 'b=2']);
      res.end();
    });
    const out = await rest({ url: `${api.origin}/h`, method: 'HEAD' });
    expect(out.headers['x-request-id']).toBe('r-1');
    expect(out.headers['set-cookie']).toEqual(['a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT', 'b=2']);
    expect(out.body).toBeNull();
  });

  it('keeps __proto__ and constructor keys of a JSON response as plain data', async () => {
    api.handle((_req, res) => {
      res.setHeader('__proto__', 'header-data');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"a":1}');
    });
    const out = await rest({ url: `${api.origin}/evil` });
    const body = out.body as Record<string, unknown>;
    expect(Object.hasOwn(body, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(body['a']).toBe(1);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(out.headers, '__proto__')?.value).toBe('header-data');
    expect(Object.getPrototypeOf(out.headers)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(out.body))).toEqual(
      JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"a":1}'),
    );
  });

  it('decompresses gzip and applies max-response-size to the decompressed body', async () => {
    const packed = gzipSync(JSON.stringify({ data: 'x'.repeat(5000) }));
    api.handle((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': String(packed.length),
      });
      res.end(packed);
    });
    expect(packed.length).toBeLessThan(1000);
    expect((await failure(rest({ url: `${api.origin}/gz`, 'max-response-size': 1000 }))).kind).toBe(
      'REST_RESPONSE_TOO_LARGE',
    );
    expect((await rest({ url: `${api.origin}/gz`, 'max-response-size': 6000 })).body).toEqual({
      data: 'x'.repeat(5000),
    });
  });

  it('refuses a response larger than max-response-size, declared or streamed', async () => {
    api.handle((req, res) => {
      if (req.url === '/declared') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2000' });
        return res.end('x'.repeat(2000));
      }
      res.writeHead(200, { 'content-type': 'text/plain' }); // chunked: no length up front
      res.write('x'.repeat(600));
      res.end('y'.repeat(600));
    });
    const declared = await failure(rest({ url: `${api.origin}/declared`, 'max-response-size': 1000 }));
    expect({ code: declared.code, kind: declared.kind }).toEqual({ code: 502, kind: 'REST_RESPONSE_TOO_LARGE' });
    const streamed = await failure(rest({ url: `${api.origin}/streamed`, 'max-response-size': 1000 }));
    expect(streamed.kind).toBe('REST_RESPONSE_TOO_LARGE');
    expect((await rest({ url: `${api.origin}/streamed`, 'max-response-size': 1200 })).body).toHaveLength(1200);
  });
});

describe('error statuses', () => {
  it('returns 404 as data by default', async () => {
    api.handle((_req, res) => json(res, 404, { error: 'not found' }));
    const out = await rest({ url: `${api.origin}/missing` });
    expect(out).toMatchObject({ status: 404, statusMessage: 'Not Found', body: { error: 'not found' } });
  });

  it('throws the status with stop-on-client-error', async () => {
    api.handle((_req, res) => json(res, 404, { error: 'not found' }));
    const err = await failure(rest({ url: `${api.origin}/missing?key=k`, 'stop-on-client-error': true }));
    expect({ code: err.code, kind: err.kind, details: err.details }).toEqual({
      code: 404,
      kind: 'REST_CLIENT_ERROR',
      details: { status: 404, body: { error: 'not found' } },
    });
    expect(err.message).toBe(`rest: GET ${api.origin}/missing answered 404 Not Found`);
  });

  it('retries a 5xx N times, then returns it (or throws it with stop-on-server-error)', async () => {
    api.handle((_req, res) => json(res, 503, { error: 'busy' }));
    const out = await rest({ url: `${api.origin}/flaky`, retries: 2, 'retry-backoff': 1 });
    expect(out.status).toBe(503);
    expect(api.requests).toHaveLength(3);
    api.requests.length = 0;
    const err = await failure(
      rest({ url: `${api.origin}/flaky`, retries: 1, 'retry-backoff': 1, 'stop-on-server-error': true }),
    );
    expect({ code: err.code, kind: err.kind }).toEqual({ code: 503, kind: 'REST_SERVER_ERROR' });
    expect(api.requests).toHaveLength(2);
  });

  it('stops retrying once the server recovers', async () => {
    api.handle((_req, res) => (api.requests.length < 2 ? json(res, 500, {}) : json(res, 200, { ok: true })));
    const out = await rest({
      url: `${api.origin}/recovering`,
      method: 'POST',
      body: {},
      retries: 5,
      'retry-backoff': 1,
    });
    expect(out.body).toEqual({ ok: true });
    expect(api.requests).toHaveLength(2);
  });

  it('never retries a 4xx', async () => {
    api.handle((_req, res) => json(res, 429, {}));
    expect((await rest({ url: `${api.origin}/limited`, retries: 3, 'retry-backoff': 1 })).status).toBe(429);
    expect(api.requests).toHaveLength(1);
  });
});

describe('transport failures', () => {
  it('a closed port is REST_UNREACHABLE (502), retried, and the message carries no query', async () => {
    const closed = await startTestServer();
    await closed.close();
    const recording = retryRecording();
    const err = await failure(
      rest({ url: `${closed.origin}/x?token=s3cret`, retries: 2, 'retry-backoff': 20 }, recording.ctx),
    );
    expect({ code: err.code, kind: err.kind }).toEqual({ code: 502, kind: 'REST_UNREACHABLE' });
    expect(err.message).toContain('ECONNREFUSED');
    expect(err.message).not.toContain('s3cret');
    // Two retries, backing off 10–20 ms, then 20–40 ms.
    const retries = recording.retries();
    expect(retries.map((r) => r['attempt'])).toEqual([1, 2]);
    expect(retries[0]?.['delayMs']).toBeGreaterThanOrEqual(10);
    expect(retries[1]?.['delayMs']).toBeGreaterThanOrEqual(20);
    expect(JSON.stringify(retries)).not.toContain('s3cret');
  });

  it('a server that accepts but never answers hits the read timeout (504 TIMEOUT), not retried', async () => {
    api.handle(() => undefined);
    const err = await failure(rest({ url: `${api.origin}/slow`, 'read-timeout': 100, retries: 2, 'retry-backoff': 1 }));
    expect({ code: err.code, kind: err.kind }).toEqual({ code: 504, kind: 'TIMEOUT' });
    expect(err.message).toContain('read timeout');
    expect(api.requests).toHaveLength(1);
  });

  it('the read timeout also covers a body that stops arriving', async () => {
    api.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    expect((await failure(rest({ url: `${api.origin}/stall`, 'read-timeout': 100 }))).kind).toBe('TIMEOUT');
  });

  it('an aborted execution stops the request with 504 TIMEOUT', async () => {
    api.handle(() => undefined);
    const test = restTestContext();
    setTimeout(() => test.abort(), 50);
    const err = await failure(rest({ url: `${api.origin}/slow`, retries: 3 }, test.ctx));
    expect({ code: err.code, kind: err.kind }).toEqual({ code: 504, kind: 'TIMEOUT' });
    expect(err.message).toContain('aborted');
  });

  describe('connect timeout', () => {
    // A listener whose process never calls accept(): once its accept queue is full, the kernel drops
    // new SYNs, so a connect hangs — a genuine connect timeout without leaving the machine.
    let child: ChildProcess;
    let port = 0;
    const fillers: net.Socket[] = [];
    beforeAll(async () => {
      child = spawn(
        process.execPath,
        [
          '-e',
          `
        const s = require('node:net').createServer();
        s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
          process.stdout.write(s.address().port + '\\n');
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 15000);
        });`,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      port = await new Promise<number>((resolve) =>
        child.stdout?.once('data', (d: Buffer) => resolve(Number(String(d).trim()))),
      );
      const connected: Array<Promise<unknown>> = [];
      for (let i = 0; i < 3; i++) {
        const socket = net.connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        fillers.push(socket);
        connected.push(new Promise((resolve) => socket.once('connect', resolve)));
      }
      // A backlog of 1 holds two connections (Linux: backlog + 1); the third one's SYN is dropped.
      await Promise.all(connected.slice(0, 2));
    });
    afterAll(() => {
      for (const socket of fillers) socket.destroy();
      child.kill();
    });

    it('gives 504 TIMEOUT and is retried (the request never reached the server)', async () => {
      const recording = retryRecording();
      const err = await failure(
        rest(
          { url: `http://127.0.0.1:${port}/x`, 'connect-timeout': 150, retries: 1, 'retry-backoff': 1 },
          recording.ctx,
        ),
      );
      expect({ code: err.code, kind: err.kind }).toEqual({ code: 504, kind: 'TIMEOUT' });
      expect(err.message).toContain('connect timeout (150 ms)');
      // The first attempt timed out connecting, and was retried.
      expect(recording.retries().map((r) => [r['attempt'], String(r['err'])])).toEqual([
        [1, expect.stringContaining('connect timeout (150 ms)')],
      ]);
    });
  });
});

describe('redirects', () => {
  it('follows a same-origin redirect with credentials, turning a 303 after POST into GET', async () => {
    api.handle((req, res) => {
      if (req.url === '/start') {
        res.writeHead(303, { location: '/done' });
        return res.end();
      }
      json(res, 200, { at: req.url });
    });
    const out = await rest({
      url: `${api.origin}/start`,
      method: 'POST',
      body: { a: 1 },
      account: 'crm',
      accountFields: { type: 'bearer', token: 'tok-1' },
    });
    expect(out.body).toEqual({ at: '/done' });
    expect(api.requests.map((r) => [r.method, r.headers.authorization, r.body])).toEqual([
      ['POST', 'Bearer tok-1', '{"a":1}'],
      ['GET', 'Bearer tok-1', ''],
    ]);
  });

  it('drops credentials when a redirect leaves the origin', async () => {
    api.handle((_req, res) => {
      res.writeHead(307, { location: `${other.origin}/elsewhere?api_key=key-1&keep=1` });
      res.end();
    });
    other.handle((req, res) => json(res, 200, { at: req.url }));
    const out = await rest({
      url: `${api.origin}/start`,
      method: 'PUT',
      body: { a: 1 },
      headers: { cookie: 'c=1', authorization: 'Bearer step', 'x-keep': 'yes' },
      account: 'k',
      accountFields: { type: 'api-key', key: 'key-1' },
      'api-key-query': 'api_key',
    });
    expect(out.body).toEqual({ at: '/elsewhere?keep=1' });
    const moved = other.requests[0];
    expect(moved?.method).toBe('PUT');
    expect(moved?.body).toBe('{"a":1}');
    expect(moved?.headers['cookie']).toBeUndefined();
    expect(moved?.headers.authorization).toBeUndefined();
    expect(moved?.headers['x-keep']).toBe('yes');
    expect(api.requests[0]?.url).toBe('/start?api_key=key-1');
  });

  it('returns the 3xx with follow-redirects off and gives up after 5 redirects', async () => {
    api.handle((_req, res) => {
      res.writeHead(302, { location: '/again' });
      res.end();
    });
    const out = await rest({ url: `${api.origin}/loop`, 'follow-redirects': false });
    expect(out).toMatchObject({ status: 302, headers: { location: '/again' } });
    api.requests.length = 0;
    expect((await failure(rest({ url: `${api.origin}/loop` }))).kind).toBe('REST_TOO_MANY_REDIRECTS');
    expect(api.requests).toHaveLength(6);
  });
});

describe('accounts', () => {
  it('basic, bearer, api-key (header or query) and secret-key authenticate the request', async () => {
    await rest({
      url: `${api.origin}/a`,
      account: 'b',
      accountFields: { type: 'basic', username: 'ana', password: 'pä:ss' },
    });
    await rest({ url: `${api.origin}/a`, account: 't', accountFields: { type: 'bearer', token: 'tok' } });
    await rest({ url: `${api.origin}/a`, account: 'k', accountFields: { type: 'api-key', key: 'k1' } });
    await rest({
      url: `${api.origin}/a`,
      account: 'k',
      accountFields: { type: 'api-key', key: 'k2' },
      'api-key-header': 'X-Key',
    });
    await rest({
      url: `${api.origin}/a?x=1`,
      account: 'k',
      accountFields: { type: 'api-key', key: 'k 3' },
      'api-key-query': 'apikey',
    });
    await rest({
      url: `${api.origin}/a`,
      account: 's',
      accountFields: { type: 'secret-key', key: 's1' },
      'api-key-header': 'X-Key',
    });
    const [basic, bearer, key, namedKey, queryKey, secretKey] = api.requests;
    expect(basic?.headers.authorization).toBe(`Basic ${Buffer.from('ana:pä:ss').toString('base64')}`);
    expect(bearer?.headers.authorization).toBe('Bearer tok');
    expect(key?.headers['x-api-key']).toBe('k1');
    expect(namedKey?.headers['x-key']).toBe('k2');
    expect(queryKey?.url).toBe('/a?x=1&apikey=k+3');
    expect(queryKey?.headers['x-api-key']).toBeUndefined();
    expect(secretKey?.headers['x-key']).toBe('s1');
  });

  it("the account's header replaces a step header of the same name", async () => {
    await rest({
      url: `${api.origin}/a`,
      headers: { Authorization: 'Bearer from-step' },
      account: 't',
      accountFields: { type: 'bearer', token: 'from-account' },
    });
    expect(api.requests[0]?.headers.authorization).toBe('Bearer from-account');
  });

  it('a misconfigured account is a 500 ACCOUNT_CONFIGURATION that names fields, not values', async () => {
    const missing = await failure(
      rest({ url: `${api.origin}/a`, account: 'b', accountFields: { type: 'basic', username: 'ana' } }),
    );
    expect({ code: missing.code, kind: missing.kind }).toEqual({ code: 500, kind: 'ACCOUNT_CONFIGURATION' });
    expect(missing.message).toBe("rest: account b: the basic account lacks 'password'");
    const unknown = await failure(
      rest({ url: `${api.origin}/a`, account: 'x', accountFields: { type: 'aws-v4', key: 'hidden' } }),
    );
    expect(unknown.message).not.toContain('hidden');
    const injected = await failure(
      rest({ url: `${api.origin}/a`, account: 't', accountFields: { type: 'bearer', token: 'a\r\nX-Evil: 1' } }),
    );
    expect(injected.message).not.toContain('Evil');
    expect(api.requests).toHaveLength(0);
  });
});

describe('oauth2 accounts', () => {
  let tokenServer: TestServer;
  let issued = 0;
  let expiresIn: number | string = 3600;
  beforeAll(async () => {
    tokenServer = await startTestServer((_req, res) => {
      issued++;
      json(res, 200, { access_token: `token-${issued}`, token_type: 'Bearer', expires_in: expiresIn });
    });
  });
  afterAll(() => tokenServer.close());
  afterEach(() => {
    tokenServer.requests.length = 0;
    issued = 0;
    expiresIn = 3600;
  });

  /** A fresh account object per test: the token cache is keyed by it. */
  function oauthAccount(extra: JsonObject = {}): JsonObject {
    return {
      type: 'oauth2',
      'token-url': `${tokenServer.origin}/oauth/token`,
      'client-id': 'client:1',
      'client-secret': 's&cret',
      ...extra,
    };
  }

  it('fetches the token once (client credentials, Basic client auth) and reuses it for 3 calls', async () => {
    const accountFields = oauthAccount({ scope: 'orders:read orders:write', audience: 'https://api' });
    const { ctx } = restTestContext();
    for (let i = 0; i < 3; i++) await rest({ url: `${api.origin}/orders`, account: 'idp', accountFields }, ctx);
    expect(tokenServer.requests).toHaveLength(1);
    const tokenRequest = tokenServer.requests[0];
    expect(tokenRequest?.method).toBe('POST');
    expect(tokenRequest?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(tokenRequest?.headers.authorization).toBe(`Basic ${Buffer.from('client%3A1:s%26cret').toString('base64')}`);
    expect(Object.fromEntries(new URLSearchParams(tokenRequest?.body))).toEqual({
      grant_type: 'client_credentials',
      scope: 'orders:read orders:write',
      audience: 'https://api',
    });
    expect(api.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-1',
      'Bearer token-1',
    ]);
  });

  it('shares one token request between concurrent calls', async () => {
    const accountFields = oauthAccount();
    const { ctx } = restTestContext();
    await Promise.all([1, 2, 3, 4].map(() => rest({ url: `${api.origin}/c`, account: 'idp', accountFields }, ctx)));
    expect(tokenServer.requests).toHaveLength(1);
  });

  it('refreshes within 30 s of expiry (clock from ctx.services.clock)', async () => {
    expiresIn = '300'; // some servers send a string
    const accountFields = oauthAccount();
    const test = restTestContext();
    await rest({ url: `${api.origin}/a`, account: 'idp', accountFields }, test.ctx);
    test.advance(269_000);
    await rest({ url: `${api.origin}/a`, account: 'idp', accountFields }, test.ctx);
    expect(tokenServer.requests).toHaveLength(1);
    test.advance(2_000); // 271 s: within 30 s of the 300 s lifetime
    await rest({ url: `${api.origin}/a`, account: 'idp', accountFields }, test.ctx);
    expect(tokenServer.requests).toHaveLength(2);
    expect(api.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-1',
      'Bearer token-2',
    ]);
  });

  it('on a 401 fetches a new token and retries once', async () => {
    api.handle((req, res) =>
      req.headers.authorization === 'Bearer token-1'
        ? json(res, 401, { error: 'revoked' })
        : json(res, 200, { ok: true }),
    );
    const accountFields = oauthAccount();
    const out = await rest({ url: `${api.origin}/a`, account: 'idp', accountFields });
    expect(out.body).toEqual({ ok: true });
    expect(tokenServer.requests).toHaveLength(2);
    expect(api.requests.map((r) => r.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it('returns a second 401 as data (no loop)', async () => {
    api.handle((_req, res) => json(res, 401, { error: 'nope' }));
    const out = await rest({ url: `${api.origin}/a`, account: 'idp', accountFields: oauthAccount() });
    expect(out.status).toBe(401);
    expect(api.requests).toHaveLength(2);
    expect(tokenServer.requests).toHaveLength(2);
  });

  it('a refused token request is 502 REST_OAUTH2_TOKEN without the secret or the description', async () => {
    tokenServer.handle((_req, res) =>
      json(res, 401, { error: 'invalid_client', error_description: 'secret s&cret is wrong' }),
    );
    const err = await failure(rest({ url: `${api.origin}/a`, account: 'idp', accountFields: oauthAccount() }));
    expect({ code: err.code, kind: err.kind }).toEqual({ code: 502, kind: 'REST_OAUTH2_TOKEN' });
    expect(err.message).toContain('401 (invalid_client)');
    expect(err.message).not.toContain('s&cret');
    expect(api.requests).toHaveLength(0);
    tokenServer.handle((_req, res) => {
      issued++;
      json(res, 200, { access_token: `token-${issued}`, token_type: 'Bearer', expires_in: expiresIn });
    });
  });
});
