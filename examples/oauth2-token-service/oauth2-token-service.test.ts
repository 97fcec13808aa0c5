/**
 * The OAuth2 token service example end to end: built with the real CLI, served by `node server.js`,
 * called over real HTTP — the four operations of the seed, the RFC 6749 forms (form bodies, HTTP
 * Basic, §5.2 errors), refresh rotation with family revocation, a real OAuth2 client library
 * (simple-oauth2), the self-call's concurrency rule, constant-time checks, log hygiene and the
 * rate limit.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Service, ServiceDefinition, ServiceOptions } from '../../runtime/service/create-service.js';
import { REPO_ROOT, runCli, startServer, tempDir, type RunningService } from '../../test/e2e/service-process.js';
import {
  AUDIENCE,
  ISSUER,
  TokenServiceClient,
  basicAuthorization,
  buildExamples,
  secretsFoundInLogs,
  tokenServiceSecrets,
  type Credentials,
  type TokenResponse,
  type TokenServiceSecrets,
} from './oauth2-test-support.js';

// scrypt checks and two-process round trips are slow on a loaded 2-core machine.
vi.setConfig({ testTimeout: 60_000 });

const EXAMPLE_DIR = path.join(REPO_ROOT, 'examples/oauth2-token-service');

/** The part of simple-oauth2's API these tests use (the package ships no type declarations). */
interface SimpleOAuth2AccessToken {
  readonly token: Record<string, unknown>;
  refresh(params?: Record<string, unknown>): Promise<SimpleOAuth2AccessToken>;
}
interface SimpleOAuth2 {
  ClientCredentials: new (config: {
    client: { id: string; secret: string };
    auth: { tokenHost: string; tokenPath: string };
    options?: { authorizationMethod?: 'header' | 'body'; bodyFormat?: 'form' | 'json' };
  }) => { getToken(params?: Record<string, unknown>): Promise<SimpleOAuth2AccessToken> };
}
const simpleOAuth2 = createRequire(import.meta.url)('simple-oauth2') as SimpleOAuth2;

describe('oauth2-token-service example over real HTTP', () => {
  let secrets: TokenServiceSecrets;
  let outDir: string;
  let server: RunningService;
  let client: TokenServiceClient;
  /** Every secret and token handed out, to scan the logs for at the end. */
  const handedOut: string[] = [];
  const remember = <T extends Credentials | TokenResponse>(value: T): T => {
    if ('clientSecret' in value) handedOut.push(value.clientSecret);
    if ('access_token' in value) handedOut.push(value.access_token, value.refresh_token);
    return value;
  };

  beforeAll(async () => {
    secrets = await tokenServiceSecrets();
    outDir = await buildExamples(['oauth2-token-service'], 'oauth2-token-service');
    server = await startServer(outDir, secrets.env);
    client = new TokenServiceClient(server.url, secrets.adminApikey);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  describe('create credentials (executionType: create)', () => {
    it('answers 201 with a clientId and clientSecret', async () => {
      const res = await client.postJson({ partnerId: 'acme', executionType: 'create', apikey: secrets.adminApikey });
      expect(res.status).toBe(201);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(Object.keys(res.body).sort()).toEqual(['clientId', 'clientSecret']);
      expect(res.body['clientId']).toMatch(/^[0-9a-f-]{36}$/);
      expect(String(res.body['clientSecret']).length).toBeGreaterThanOrEqual(43); // 32 random bytes
      remember(res.body as unknown as Credentials);
    });

    it('refuses a wrong or missing apikey with 401', async () => {
      for (const apikey of ['wrong-apikey', undefined]) {
        const res = await client.postJson({
          partnerId: 'acme',
          executionType: 'create',
          ...(apikey ? { apikey } : {}),
        });
        expect(res.status).toBe(401);
        expect(res.body['error']).toBe('unauthorized');
      }
    });

    it('refuses a missing partnerId and an unknown role with 400', async () => {
      const noPartner = await client.postJson({ executionType: 'create', apikey: secrets.adminApikey });
      expect(noPartner.status).toBe(400);
      expect(noPartner.body).toMatchObject({ error: 'invalid_request', error_description: 'partnerId is required' });
      const badRole = await client.postJson({
        partnerId: 'acme',
        executionType: 'create',
        apikey: secrets.adminApikey,
        role: 'root',
      });
      expect(badRole.status).toBe(400);
      expect(badRole.body['error']).toBe('invalid_request');
    });
  });

  describe('obtain a token (grant_type: client_credentials)', () => {
    let credentials: Credentials;
    beforeAll(async () => {
      credentials = remember(await client.create('acme', 'manager'));
    });

    it('JSON with username / password → the seed token response, expires_in in seconds', async () => {
      const res = await client.postJson({
        grant_type: 'client_credentials',
        username: credentials.clientId,
        password: credentials.clientSecret,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const token = remember(res.body as unknown as TokenResponse);
      expect(token).toEqual({
        token_type: 'Bearer',
        expires_in: 3600,
        ext_expires_in: 3600,
        access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
        refresh_token: expect.stringMatching(/^[\w-]{43}$/),
        scope: 'profile address',
      });
    });

    it('the access token is an ES256 JWT that verifies against the service JWKS', async () => {
      const token = remember(await client.token(credentials));
      expect(decodeProtectedHeader(token.access_token)).toMatchObject({ alg: 'ES256', kid: secrets.keys.kid });
      const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`));
      const { payload } = await jwtVerify(token.access_token, jwks, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['ES256'],
      });
      expect(payload).toMatchObject({
        sub: credentials.clientId,
        role: 'manager',
        scope: 'profile address',
        partnerId: 'acme',
      });
      expect(typeof payload.jti).toBe('string');
      expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
    });

    it('form body with client_id / client_secret (RFC 6749 §2.3.1)', async () => {
      const res = await client.postForm({
        grant_type: 'client_credentials',
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
      });
      expect(res.status).toBe(200);
      expect(remember(res.body as unknown as TokenResponse).token_type).toBe('Bearer');
    });

    it('form body with HTTP Basic client authentication', async () => {
      const res = await client.postForm(
        { grant_type: 'client_credentials' },
        { authorization: basicAuthorization(credentials.clientId, credentials.clientSecret) },
      );
      expect(res.status).toBe(200);
      expect(remember(res.body as unknown as TokenResponse).token_type).toBe('Bearer');
    });

    it('a wrong secret → 401 invalid_client with a Basic challenge (JSON, form and Basic alike)', async () => {
      const attempts = [
        client.postJson({
          grant_type: 'client_credentials',
          username: credentials.clientId,
          password: `${credentials.clientSecret}x`,
        }),
        client.postForm({ grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: 'nope' }),
        client.postForm(
          { grant_type: 'client_credentials' },
          { authorization: basicAuthorization(credentials.clientId, 'nope') },
        ),
      ];
      for (const res of await Promise.all(attempts)) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' });
        expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
      }
    });

    it('an unknown client, missing credentials or a malformed Basic header → 401 invalid_client', async () => {
      const unknown = await client.postJson({
        grant_type: 'client_credentials',
        username: crypto.randomUUID(),
        password: 'whatever',
      });
      const missing = await client.postJson({ grant_type: 'client_credentials' });
      const malformed = await client.postForm({ grant_type: 'client_credentials' }, { authorization: 'Basic !!!' });
      for (const res of [unknown, missing, malformed]) {
        expect(res.status).toBe(401);
        expect(res.body['error']).toBe('invalid_client');
      }
    });

    it('Basic credentials whose %-escapes do not decode → 401 invalid_client with the §5.2 headers', async () => {
      for (const raw of ['abc%zz:secret', `${credentials.clientId}:%E0%A4%A`, '%FF:x', 'id:%']) {
        const authorization = `Basic ${Buffer.from(raw).toString('base64')}`;
        const res = await client.postForm({ grant_type: 'client_credentials' }, { authorization });
        expect(res.status, raw).toBe(401);
        expect(res.body).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' });
        expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
    });

    it('two client authentication methods at once → 400 invalid_request', async () => {
      const res = await client.postForm(
        { grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret },
        { authorization: basicAuthorization(credentials.clientId, credentials.clientSecret) },
      );
      expect(res.status).toBe(400);
      expect(res.body['error']).toBe('invalid_request');
    });
  });

  describe('request errors (RFC 6749 §5.2)', () => {
    it('an unknown grant type → 400 unsupported_grant_type', async () => {
      const res = await client.postForm({ grant_type: 'password', username: 'a', password: 'b' });
      expect(res.status).toBe(400);
      expect(res.body['error']).toBe('unsupported_grant_type');
    });

    it('no operation, a non-object body or a repeated form field → 400 invalid_request', async () => {
      const none = await client.postJson({ hello: 'world' });
      const array = await client.postJson(['grant_type']);
      const repeated = await fetch(`${server.url}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&grant_type=refresh_token',
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
      for (const res of [none, array, repeated]) {
        expect(res.status).toBe(400);
        expect(res.body['error']).toBe('invalid_request');
      }
    });

    it('a refresh request without refresh_token → 400 invalid_request; an unknown one → 400 invalid_grant', async () => {
      const missing = await client.postForm({ grant_type: 'refresh_token' });
      expect(missing.status).toBe(400);
      expect(missing.body['error']).toBe('invalid_request');
      const credentials = remember(await client.create('acme'));
      const unknown = await client.refresh(crypto.randomBytes(32).toString('base64url'), credentials);
      expect(unknown.status).toBe(400);
      expect(unknown.body['error']).toBe('invalid_grant');
    });
  });

  describe('refresh (grant_type: refresh_token) — rotation and reuse detection', () => {
    it('a refresh token gives a new pair once; replaying it revokes the whole family', async () => {
      const credentials = remember(await client.create('globex', 'admin'));
      const first = remember(await client.token(credentials));

      const rotated = await client.refresh(first.refresh_token, credentials);
      expect(rotated.status).toBe(200);
      const second = remember(rotated.body as unknown as TokenResponse);
      expect(second).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'profile address banking' });
      expect(second.access_token).not.toBe(first.access_token);
      expect(second.refresh_token).not.toBe(first.refresh_token);

      const replay = await client.refresh(first.refresh_token, credentials);
      expect(replay.status).toBe(400);
      expect(replay.body).toMatchObject({ error: 'invalid_grant' });
      expect(String(replay.body['error_description'])).toContain('revoked');

      // The legitimate holder's newer refresh token died with the family.
      const afterReplay = await client.refresh(second.refresh_token, credentials);
      expect(afterReplay.status).toBe(400);
      expect(afterReplay.body['error']).toBe('invalid_grant');

      // Other grants of the same client are separate families and keep working.
      const fresh = remember(await client.token(credentials));
      expect((await client.refresh(fresh.refresh_token, credentials)).status).toBe(200);
    });

    it('a refresh without client authentication → 401 invalid_client; its client can still use it', async () => {
      const credentials = remember(await client.create('stark'));
      const token = remember(await client.token(credentials));
      const anonymous = await client.refresh(token.refresh_token, null);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body['error']).toBe('invalid_client');
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
      expect(anonymous.headers.get('cache-control')).toBe('no-store');
      const owner = await client.refresh(token.refresh_token, credentials);
      expect(owner.status).toBe(200);
      remember(owner.body as unknown as TokenResponse);
    });

    it('the client the token was issued to, and only it, can refresh it', async () => {
      const owner = remember(await client.create('initech'));
      const other = remember(await client.create('initech'));
      const token = remember(await client.token(owner));
      const wrongSecret = await client.postForm(
        { grant_type: 'refresh_token', refresh_token: token.refresh_token },
        { authorization: basicAuthorization(owner.clientId, 'nope') },
      );
      expect(wrongSecret.status).toBe(401);
      expect(wrongSecret.body['error']).toBe('invalid_client');
      const otherClient = await client.postForm(
        { grant_type: 'refresh_token', refresh_token: token.refresh_token },
        { authorization: basicAuthorization(other.clientId, other.clientSecret) },
      );
      expect(otherClient.status).toBe(400);
      expect(otherClient.body['error']).toBe('invalid_grant');
      const ownerRefresh = await client.postForm(
        { grant_type: 'refresh_token', refresh_token: token.refresh_token },
        { authorization: basicAuthorization(owner.clientId, owner.clientSecret) },
      );
      expect(ownerRefresh.status).toBe(200);
      remember(ownerRefresh.body as unknown as TokenResponse);
    });
  });

  describe('delete credentials (executionType: delete)', () => {
    it('answers { code: 200, message }, then the secret and refresh tokens stop working', async () => {
      const credentials = remember(await client.create('umbrella'));
      const token = remember(await client.token(credentials));

      const wrongKey = await client.delete(credentials.clientId, 'wrong-apikey');
      expect(wrongKey.status).toBe(401);

      const deleted = await client.delete(credentials.clientId);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({
        code: 200,
        message: `credentials of clientId ${credentials.clientId} deleted successfully`,
      });

      const again = await client.delete(credentials.clientId);
      expect(again.status).toBe(404);
      expect(again.body['code']).toBe(404);

      const tokenAfter = await client.postJson({
        grant_type: 'client_credentials',
        username: credentials.clientId,
        password: credentials.clientSecret,
      });
      expect(tokenAfter.status).toBe(401);
      expect(tokenAfter.body['error']).toBe('invalid_client');
      // The client no longer exists, so it cannot authenticate to refresh either.
      const refreshAfter = await client.refresh(token.refresh_token, credentials);
      expect(refreshAfter.status).toBe(401);
      expect(refreshAfter.body['error']).toBe('invalid_client');
    });

    it('refuses a missing clientId with 400', async () => {
      const res = await client.postJson({ executionType: 'delete', apikey: secrets.adminApikey });
      expect(res.status).toBe(400);
    });
  });

  describe('a real OAuth2 client library (simple-oauth2)', () => {
    const library = (
      credentials: Credentials,
      options: { authorizationMethod: 'header' | 'body'; bodyFormat: 'form' | 'json' },
    ) =>
      new simpleOAuth2.ClientCredentials({
        client: { id: credentials.clientId, secret: credentials.clientSecret },
        auth: { tokenHost: server.url, tokenPath: '/oauth2/token' },
        options,
      });

    for (const options of [
      { authorizationMethod: 'header', bodyFormat: 'form' },
      { authorizationMethod: 'body', bodyFormat: 'form' },
      { authorizationMethod: 'body', bodyFormat: 'json' },
    ] as const) {
      it(`obtains and refreshes a token (${options.authorizationMethod} credentials, ${options.bodyFormat} body)`, async () => {
        const credentials = remember(await client.create('hooli', 'salesperson'));
        const accessToken = await library(credentials, options).getToken();
        expect(accessToken.token).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'profile' });
        expect(accessToken.token['expires_at']).toBeInstanceOf(Date);
        handedOut.push(String(accessToken.token['access_token']), String(accessToken.token['refresh_token']));

        const refreshed = await accessToken.refresh();
        expect(refreshed.token['access_token']).not.toBe(accessToken.token['access_token']);
        handedOut.push(String(refreshed.token['access_token']), String(refreshed.token['refresh_token']));

        // The spent refresh token cannot be used again through the library either.
        await expect(accessToken.refresh()).rejects.toThrow(/400|Bad Request/);
      });
    }

    it('reports a wrong secret as the library error for 401', async () => {
      const credentials = await client.create('hooli');
      await expect(
        library(
          { ...credentials, clientSecret: 'wrong' },
          { authorizationMethod: 'header', bodyFormat: 'form' },
        ).getToken(),
      ).rejects.toThrow(/401|Unauthorized/);
    });
  });

  describe('security', () => {
    it('ships no private key: the examples hold no PEM private key', () => {
      const examples = path.join(REPO_ROOT, 'examples');
      const files = fs
        .readdirSync(examples, { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.(pipe|json|md)$/.test(f));
      expect(files.length).toBeGreaterThan(10);
      for (const file of files) {
        expect(fs.readFileSync(path.join(examples, file), 'utf8'), file).not.toMatch(/BEGIN (EC |RSA )?PRIVATE KEY/);
      }
    });

    it('checks secrets with the hash connector (scrypt + crypto.timingSafeEqual), never with ==', () => {
      const source = fs.readFileSync(path.join(EXAMPLE_DIR, 'oauth2-token-service.pipe'), 'utf8');
      // Each presented secret reaches exactly one kind of check: `hash verify`.
      const verifies = [...source.matchAll(/hash verify \w+ \{\s*value: \{\{ step\.request\.(\w+)/g)].map((m) => m[1]);
      expect(verifies.sort()).toEqual(['apikey', 'apikey', 'clientSecret', 'clientSecret']);
      const braces = [...source.matchAll(/\{\{([^}]*)\}\}/g)].map((m) => m[1] ?? '');
      const comparisons = braces.filter(
        (e) => /==|EQUALTO/.test(e) && /apikey|clientSecret|secretHash|password|client_secret/i.test(e),
      );
      expect(comparisons).toEqual([]);
      // The hash connector's verify compares derived keys with crypto.timingSafeEqual.
      const hashSource = fs.readFileSync(path.join(REPO_ROOT, 'runtime/connectors/hash/hash.ts'), 'utf8');
      expect(hashSource).toMatch(/return timingSafeEqualBytes\(derived, hash\.key\)/);
      const timingSafe = fs.readFileSync(path.join(REPO_ROOT, 'runtime/security/timing-safe.ts'), 'utf8');
      expect(timingSafe).toMatch(/return crypto\.timingSafeEqual\(a, b\)/);
    });

    it('a token request runs crypto.timingSafeEqual (observed in-process on the built service)', async () => {
      const runtime = (await import(pathToFileURL(path.join(outDir, 'runtime', 'index.js')).href)) as {
        createService(def: ServiceDefinition, opts?: ServiceOptions): Promise<Service>;
      };
      const definition = (
        (await import(pathToFileURL(path.join(outDir, 'service.js')).href)) as { service: ServiceDefinition }
      ).service;
      const service = await runtime.createService(definition, {
        dataDir: tempDir('oauth2-in-process'),
        env: { ...process.env, ...secrets.env },
        logger: pino({ level: 'silent' }),
      });
      const spy = vi.spyOn(crypto, 'timingSafeEqual');
      try {
        const post = async (body: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
          const res = await service.app.request('/oauth2/token', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          return { status: res.status, body: (await res.json()) as Record<string, unknown> };
        };
        const created = await post({ partnerId: 'spy', executionType: 'create', apikey: secrets.adminApikey });
        expect(created.status).toBe(201);
        expect(spy).toHaveBeenCalledTimes(1); // the admin apikey check
        spy.mockClear();
        const refused = await post({
          grant_type: 'client_credentials',
          username: created.body['clientId'],
          password: 'wrong',
        });
        expect(refused.status).toBe(401);
        expect(spy).toHaveBeenCalledTimes(1);
        const [derived, stored] = spy.mock.calls[0] as [Uint8Array, Uint8Array];
        expect(derived.length).toBe(32); // scrypt-derived keys, not the secrets themselves
        expect(stored.length).toBe(32);
      } finally {
        spy.mockRestore();
        await service.stop();
      }
    });

    it('fewer than 2 simultaneous executions is a build error (the pipeline executes itself)', async () => {
      const dir = tempDir('oauth2-concurrency-1');
      const source = fs.readFileSync(path.join(EXAMPLE_DIR, 'oauth2-token-service.pipe'), 'utf8');
      expect(source).toMatch(/pipeline oauth2-token-service \(concurrency: 8\)/);
      fs.writeFileSync(
        path.join(dir, 'oauth2-token-service.pipe'),
        source.replace('(concurrency: 8)', '(concurrency: 1)'),
      );
      const checked = await runCli(['check', dir, '--color', 'never']);
      expect(checked.code).toBe(1);
      const output = checked.output.err.join('\n') + checked.output.out.join('\n');
      expect(output).toContain('PIPE6003');
      expect(output).toContain('oauth2-token-service → oauth2-token-service');
      fs.writeFileSync(
        path.join(dir, 'oauth2-token-service.pipe'),
        source.replace('(concurrency: 8)', '(concurrency: 2)'),
      );
      expect((await runCli(['check', dir, '--color', 'never'])).code).toBe(0);
    });

    it('no client secret, apikey, token or key appears in the service logs', () => {
      expect(handedOut.length).toBeGreaterThan(20);
      const logs = server.logs();
      expect(logs).toContain('execution finished'); // the logs were captured
      const keyBody = secrets.keys.privatePem.split('\n')[1] ?? '';
      expect(secretsFoundInLogs(logs, [...handedOut, secrets.adminApikey, keyBody])).toEqual([]);
    });

    // Last: it exhausts this client's budget for the rest of the minute.
    it('more than 120 requests a minute from one address → 429 with Retry-After', async () => {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 130 && !statuses.includes(429); i += 10) {
        const batch = await Promise.all(
          Array.from({ length: 10 }, () =>
            fetch(`${server.url}/oauth2/token`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: '{}',
            }),
          ),
        );
        for (const res of batch) {
          statuses.push(res.status);
          if (res.status === 429) retryAfter = res.headers.get('retry-after');
          await res.arrayBuffer();
        }
      }
      expect(statuses).toContain(429);
      expect(Number(retryAfter)).toBeGreaterThan(0);
    });
  });
});
