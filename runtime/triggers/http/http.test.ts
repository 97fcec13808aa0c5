import { afterEach, describe, expect, it } from 'vitest';
import { PipeError } from '../../errors.js';
import { Reply, type CompiledValidator, type Json } from '../../types.js';
import { httpTrigger, makeTestService, pipelineOf, type TestService } from '../../service/test-support/test-service.js';

const echo = pipelineOf('echo', httpTrigger('/echo/:id', ['POST', 'GET']), async (m) => m);

/** A hand-written validator in ajv's shape: requires an object with a numeric `total`. */
const requireTotal: CompiledValidator = Object.assign(
  (data: unknown): boolean => {
    const ok =
      typeof data === 'object' && data !== null && typeof (data as Record<string, unknown>)['total'] === 'number';
    requireTotal.errors = ok
      ? null
      : [
          {
            instancePath: '',
            schemaPath: '#/required',
            keyword: 'required',
            params: { missingProperty: 'total' },
            message: "must have required property 'total'",
          },
        ];
    return ok;
  },
  { errors: null },
);

let t: TestService;
afterEach(async () => {
  await t?.service.stop(100);
});

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

describe('HTTP trigger envelope', () => {
  it('passes the Digibee envelope with lower-case headers, query and path params', async () => {
    t = await makeTestService([echo]);
    const res = await t.service.app.request('/echo/42?x=1&x=2&y=z', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Custom': 'A' },
      body: '{"a":1}',
    });
    expect(res.status).toBe(200);
    const { body } = (await json(res)) as { body: Record<string, unknown> };
    expect(body['body']).toEqual({ a: 1 });
    expect(body['headers']).toMatchObject({ 'x-custom': 'A', 'content-type': 'application/json' });
    expect(body['queryAndPath']).toEqual({ x: ['1', '2'], y: 'z', id: '42' });
    expect(body['method']).toBe('POST');
    expect(body['path']).toBe('/echo/42');
    expect(body['contentType']).toBe('application/json');
  });

  it('keeps __proto__ keys as data', async () => {
    t = await makeTestService([echo]);
    const res = await t.service.app.request('/echo/1?__proto__=q', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"__proto__":{"polluted":true}}',
    });
    const { body } = (await json(res)) as { body: Record<string, Record<string, unknown>> };
    expect(JSON.stringify(body['body'])).toBe('{"__proto__":{"polluted":true}}');
    expect(body['queryAndPath']?.['__proto__']).toBe('q');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('parses forms into objects and keeps text as text', async () => {
    t = await makeTestService([echo]);
    const form = await t.service.app.request('/echo/1', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1&b=x%20y&a=2',
    });
    expect(((await json(form))['body'] as Record<string, unknown>)['body']).toEqual({ a: ['1', '2'], b: 'x y' });
    const text = await t.service.app.request('/echo/1', {
      method: 'POST',
      headers: { 'content-type': 'text/xml' },
      body: '<a/>',
    });
    expect(((await json(text))['body'] as Record<string, unknown>)['body']).toBe('<a/>');
    const none = await t.service.app.request('/echo/1', { method: 'GET' });
    expect(((await json(none))['body'] as Record<string, unknown>)['body']).toBeNull();
  });
});

describe('HTTP trigger bad input', () => {
  it('answers malformed JSON with 400 naming the problem', async () => {
    t = await makeTestService([echo]);
    const res = await t.service.app.request('/echo/1', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":',
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body['code']).toBe(400);
    expect(String(body['error'])).toMatch(/^Malformed JSON body: .*(position|end of JSON)/i);
  });

  it('gives a refused request an id that one log line carries too', async () => {
    t = await makeTestService([echo]);
    const headers = { 'content-type': 'application/json' };
    const res = await t.service.app.request('/echo/1', { method: 'POST', headers, body: '[' });
    const body = await json(res);
    expect(body['executionId']).toMatch(/^[0-9a-f-]{36}$/);
    const logged = t.logs.records.filter((r) => r['msg'] === 'request refused');
    const line = { executionId: body['executionId'], code: 400, method: 'POST', path: '/echo/1' };
    expect(logged).toEqual([expect.objectContaining(line)]);
  });

  it('refuses JSON nested deeper than the limit with 400', async () => {
    t = await makeTestService([echo]);
    const deep = '['.repeat(600) + ']'.repeat(600);
    const res = await t.service.app.request('/echo/1', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: deep,
    });
    expect(res.status).toBe(400);
    expect(String((await json(res))['error'])).toContain('nesting deeper than 512');
  });

  it('answers 413 on a declared Content-Length over the limit', async () => {
    const small = pipelineOf('small', httpTrigger('/small', ['POST'], { maxBodySize: 10 }), async (m) => m);
    t = await makeTestService([small]);
    const res = await t.service.app.request('/small', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '11' },
      body: '"123456789"',
    });
    expect(res.status).toBe(413);
    expect(await json(res)).toMatchObject({ error: 'Request size limit exceeded', code: 413 });
  });

  it('answers 413 on a chunked body that streams past the limit', async () => {
    const small = pipelineOf('small', httpTrigger('/small', ['POST'], { maxBodySize: 10 }), async (m) => m);
    t = await makeTestService([small]);
    const chunks = ['"12345', '67890', '12"'];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const req = new Request('http://localhost/small', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit & { duplex: 'half' });
    expect(req.headers.get('content-length')).toBeNull();
    const res = await t.service.app.request(req);
    expect(res.status).toBe(413);
  });

  it('answers an unknown route with a JSON 404', async () => {
    t = await makeTestService([echo]);
    const res = await t.service.app.request('/nope', { method: 'POST' });
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ code: 404, error: 'No route for POST /nope' });
  });

  it('answers a schema violation with 422 listing violations and the execution id', async () => {
    const strict = pipelineOf(
      'strict',
      httpTrigger('/strict', ['POST'], { validateBody: requireTotal }),
      async (m) => m,
    );
    t = await makeTestService([strict]);
    const res = await t.service.app.request('/strict', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"x":1}',
    });
    expect(res.status).toBe(422);
    const body = await json(res);
    expect(body).toMatchObject({
      code: 422,
      error: 'Request body does not match the schema',
      violations: [{ path: '/total', message: "must have required property 'total'" }],
    });
    expect(typeof body['executionId']).toBe('string');
    const ok = await t.service.app.request('/strict', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"total":1}',
    });
    expect(ok.status).toBe(200);
  });
});

describe('HTTP trigger failures', () => {
  it('maps a PipeError to its status and error object', async () => {
    const failing = pipelineOf('failing', httpTrigger('/fail'), async () => {
      throw new PipeError('upstream refused', {
        code: 502,
        kind: 'REST_CLIENT_ERROR',
        step: 'lookup',
        details: { status: 503 },
      });
    });
    t = await makeTestService([failing]);
    const res = await t.service.app.request('/fail', { method: 'POST' });
    expect(res.status).toBe(502);
    const body = await json(res);
    // The reply carries the message, code and execution id; the step and the upstream answer stay in the log.
    expect(Object.keys(body).sort()).toEqual(['code', 'error', 'executionId', 'message', 'timestamp']);
    expect(body).toMatchObject({ error: 'upstream refused', message: 'upstream refused', code: 502 });
    expect(body['executionId']).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof body['timestamp']).toBe('number');
  });

  it('answers with the whole error object under PIPEC_DEBUG_ERRORS=1', async () => {
    const failing = pipelineOf('failing', httpTrigger('/fail'), async () => {
      throw new PipeError('upstream refused', {
        code: 502,
        kind: 'REST_CLIENT_ERROR',
        step: 'lookup',
        details: { status: 503 },
      });
    });
    t = await makeTestService([failing], {}, { env: { PIPEC_DEBUG_ERRORS: '1' } });
    const body = await json(await t.service.app.request('/fail', { method: 'POST' }));
    expect(body).toMatchObject({
      error: 'upstream refused',
      code: 502,
      step: 'lookup',
      status: 503,
      kind: 'REST_CLIENT_ERROR',
    });
  });

  it('keeps the fields a `fail` step wrote, without its source location', async () => {
    const failing = pipelineOf('failing', httpTrigger('/fail'), async () => {
      throw new PipeError('{"reason":"out of stock"}', {
        code: 409,
        kind: 'FAIL',
        step: 'fail (shop.pipe:12)',
        details: { reason: 'out of stock' },
      });
    });
    t = await makeTestService([failing]);
    const body = await json(await t.service.app.request('/fail', { method: 'POST' }));
    expect(body).toMatchObject({ reason: 'out of stock', code: 409 });
    expect(body).not.toHaveProperty('step');
    expect(JSON.stringify(body)).not.toContain('shop.pipe');
  });

  it('hides unexpected exceptions behind a generic 500 and keeps serving', async () => {
    let calls = 0;
    const flaky = pipelineOf('flaky', httpTrigger('/flaky'), async () => {
      calls++;
      if (calls === 1) throw new TypeError('secret internals at /srv/app.js');
      return { fine: true };
    });
    t = await makeTestService([flaky]);
    const res = await t.service.app.request('/flaky', { method: 'POST' });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('secret internals');
    expect(text).not.toContain('at ');
    expect(JSON.parse(text)).toMatchObject({ error: 'Internal error', code: 500 });
    expect(t.logs.text).toContain('secret internals');
    const next = await t.service.app.request('/flaky', { method: 'POST' });
    expect(next.status).toBe(200);
    expect(await json(next)).toEqual({ body: { fine: true } });
  });

  it('times out with 500 "execution timed out" and aborts the signal', async () => {
    let aborted = false;
    const slow = pipelineOf(
      'slow',
      httpTrigger('/slow'),
      (_m, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            resolve(null);
          });
        }),
      { timeout: 50 },
    );
    t = await makeTestService([slow]);
    const res = await t.service.app.request('/slow', { method: 'POST' });
    expect(res.status).toBe(500);
    expect(await json(res)).toMatchObject({ error: 'execution timed out', code: 500 });
    expect(aborted).toBe(true);
  });
});

describe('result mapping through the app', () => {
  const cases: Array<[string, Json | Reply, number, string | null, string]> = [
    ['plain message → wrapper', { a: 1 }, 200, 'application/json; charset=utf-8', '{"body":{"a":1}}'],
    [
      'code + error',
      { code: 404, error: 'not here' },
      404,
      'application/json; charset=utf-8',
      '{"code":404,"error":"not here"}',
    ],
    ['code + body + Content-Type', { code: 201, body: '<ok/>', 'Content-Type': 'text/xml' }, 201, 'text/xml', '<ok/>'],
    [
      'code + object body',
      { code: 202, body: { queued: true } },
      202,
      'application/json; charset=utf-8',
      '{"queued":true}',
    ],
    ['Reply JSON', new Reply(201, { id: 7 }, { 'X-Id': '7' }), 201, 'application/json; charset=utf-8', '{"id":7}'],
    ['Reply text', new Reply(200, 'hello'), 200, 'text/plain; charset=utf-8', 'hello'],
    ['Reply 204', new Reply(204, null), 204, null, ''],
  ];
  for (const [name, result, status, type, body] of cases) {
    it(name, async () => {
      t = await makeTestService([pipelineOf('r', httpTrigger('/r'), async () => result)]);
      const res = await t.service.app.request('/r', { method: 'POST' });
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe(type);
      expect(await res.text()).toBe(body);
      if (result instanceof Reply && result.headers['X-Id']) expect(res.headers.get('x-id')).toBe('7');
    });
  }
});
