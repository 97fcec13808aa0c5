import { afterEach, describe, expect, it } from 'vitest';
import type { HttpFileTriggerSpec } from '../triggers/http-file/http-file.js';
import { toAuthSpec, toRateLimitSpec } from './trigger-guard.js';
import { httpTrigger, makeTestService, pipelineOf, type TestService } from './test-support/test-service.js';

let t: TestService;
afterEach(async () => {
  await t?.service.stop(100);
});

const accounts = {
  partners: { keys: ['key-one-0123456789', 'key-two-0123456789'] },
  admin: { username: 'alice', password: 'correct horse battery' },
};

describe('trigger guards', () => {
  it('api-key auth: 401 with WWW-Authenticate before the pipeline runs, 200 with a key', async () => {
    let runs = 0;
    const p = pipelineOf(
      'guarded',
      httpTrigger('/g', ['POST'], { auth: { type: 'api-key', in: 'header', name: 'x-api-key', account: 'partners' } }),
      async () => {
        runs++;
        return 'ok';
      },
    );
    t = await makeTestService([p], { accounts });
    const refused = await t.service.app.request('/g', { method: 'POST' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('ApiKey');
    expect(await refused.json()).toMatchObject({ code: 401, error: 'missing API key' });
    const wrong = await t.service.app.request('/g', { method: 'POST', headers: { 'x-api-key': 'nope' } });
    expect(wrong.status).toBe(401);
    expect(runs).toBe(0);
    const ok = await t.service.app.request('/g', { method: 'POST', headers: { 'x-api-key': 'key-two-0123456789' } });
    expect(ok.status).toBe(200);
    expect(runs).toBe(1);
  });

  it('basic auth guards http-file triggers too', async () => {
    const spec: HttpFileTriggerSpec = {
      kind: 'http-file',
      methods: ['POST'],
      path: '/up',
      maxFileSize: 1000,
      auth: { type: 'basic', account: 'admin' },
    };
    t = await makeTestService([pipelineOf('up', spec, async () => 'stored')], { accounts });
    expect((await t.service.app.request('/up', { method: 'POST', body: 'x' })).status).toBe(401);
    const auth = `Basic ${Buffer.from('alice:correct horse battery').toString('base64')}`;
    const ok = await t.service.app.request('/up', {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(ok.status).toBe(200);
  });

  it('rate limit: 429 with Retry-After beyond max per window', async () => {
    let now = 1_000_000;
    const p = pipelineOf(
      'limited',
      httpTrigger('/l', ['POST'], { rateLimit: { max: 2, window: 60_000 } }),
      async () => 'ok',
    );
    t = await makeTestService([p], {}, { clock: { now: () => now } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await t.service.app.request('/l', { method: 'POST' })).status);
    expect(statuses).toEqual([200, 200, 429]);
    const refused = await t.service.app.request('/l', { method: 'POST' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    now += 120_000;
    expect((await t.service.app.request('/l', { method: 'POST' })).status).toBe(200);
  });

  it('a trigger naming an undeclared account fails at creation', async () => {
    const p = pipelineOf(
      'bad',
      httpTrigger('/b', ['POST'], { auth: { type: 'api-key', account: 'missing' } }),
      async () => null,
    );
    await expect(makeTestService([p], { accounts })).rejects.toThrow(/account 'missing' is not declared/);
  });

  it('reads .pipe spellings of auth and rate-limit options', () => {
    expect(
      toAuthSpec({
        type: 'bearer',
        'jwks-url': 'https://idp/jwks',
        leeway: 30_000,
        scopes: ['a'],
        audience: ['x', 'y'],
      }),
    ).toEqual({ type: 'bearer', jwksUrl: 'https://idp/jwks', leewaySeconds: 30, scopes: ['a'], audience: ['x', 'y'] });
    expect(toRateLimitSpec({ max: 5, window: 1000, key: 'principal' })).toEqual({
      max: 5,
      window: 1000,
      key: 'principal',
    });
    expect(toRateLimitSpec({ max: 5, window: 1000, key: { header: 'x-client' } })).toEqual({
      max: 5,
      window: 1000,
      key: { header: 'x-client' },
    });
    expect(() => toAuthSpec({ type: 'magic' })).toThrow('auth: unknown type "magic"');
  });
});
