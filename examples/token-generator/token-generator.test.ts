/**
 * The token generator example end to end over real HTTP: the token service runs as one process
 * (the credential provider), the generator as another that calls it through TOKEN_GENERATOR_PROVIDER_URL.
 * Covers each role's claim set, every 401 path, and a provider that does not answer 200.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { jwtVerify, importSPKI, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, tempDir, type RunningService } from '../../test/e2e/service-process.js';
import { hashSecret } from '../../runtime/connectors/hash/hash.js';
import {
  AUDIENCE,
  ISSUER,
  TokenServiceClient,
  buildExamples,
  secretsFoundInLogs,
  tokenServiceSecrets,
  type TokenServiceSecrets,
} from '../oauth2-token-service/oauth2-test-support.js';

// scrypt checks and two-process round trips are slow on a loaded 2-core machine.
vi.setConfig({ testTimeout: 60_000 });

const GENERATE = '/token-generator/token';

const PROFILE = { name: 'Ana Souza', email: 'ana.souza@example.com', phone: '+55 11 5555-0100' };
const ADDRESS = { street: 'Avenida Paulista, 1000', city: 'São Paulo', postalCode: '01310-100', country: 'BR' };
const BANKING = { bankName: 'Banco Exemplo', iban: 'BR1500000000000010932840814P2', accountNumber: '10932840-8' };

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function generate(server: RunningService, body: unknown, apiKey: string | null): Promise<Answer> {
  return fetch(`${server.url}${GENERATE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // The API key travels as `apikey` in the body, as the token service's admin apikey does.
    body: JSON.stringify(apiKey === null || !isObject(body) ? body : { ...body, apikey: apiKey }),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }));
}

describe('token-generator example over real HTTP', () => {
  let secrets: TokenServiceSecrets;
  let provider: RunningService;
  let generator: RunningService;
  let client: TokenServiceClient;
  const apiKey = crypto.randomBytes(24).toString('base64url');
  const handedOut: string[] = [apiKey];
  let generatorOut: string;

  beforeAll(async () => {
    secrets = await tokenServiceSecrets();
    const [providerOut, builtGenerator] = [
      await buildExamples(['oauth2-token-service'], 'token-generator-provider'),
      await buildExamples(['token-generator'], 'token-generator'),
    ];
    generatorOut = builtGenerator;
    provider = await startServer(providerOut, secrets.env);
    generator = await startServer(generatorOut, {
      TOKEN_GENERATOR_PROVIDER_URL: `${provider.url}/oauth2/token`,
      TOKEN_GENERATOR_APIKEY_HASH: await hashSecret(apiKey),
      TOKEN_VERIFY_KEY: secrets.keys.publicPem,
    });
    client = new TokenServiceClient(provider.url, secrets.adminApikey);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([generator?.stop(), provider?.stop()]);
  });

  async function credentialsFor(
    role: 'salesperson' | 'manager' | 'admin',
  ): Promise<{ client_id: string; client_secret: string }> {
    const credentials = await client.create(`partner-${role}`, role);
    handedOut.push(credentials.clientSecret);
    return { client_id: credentials.clientId, client_secret: credentials.clientSecret };
  }

  const roles = [
    { role: 'salesperson', scope: 'profile', claims: { profile_claims: PROFILE } },
    { role: 'manager', scope: 'profile address', claims: { profile_claims: PROFILE, address_claims: ADDRESS } },
    {
      role: 'admin',
      scope: 'profile address banking',
      claims: { profile_claims: PROFILE, address_claims: ADDRESS, banking_claims: BANKING },
    },
  ] as const;

  for (const { role, scope, claims } of roles) {
    it(`${role}: the provider's token with exactly the ${scope} claims`, async () => {
      const credentials = await credentialsFor(role);
      const res = await generate(generator, credentials, apiKey);
      expect(res.status).toBe(200);
      expect(res.body['scope']).toBe(scope);
      expect(res.body['claims']).toEqual(claims);
      expect(res.body['metadata']).toMatchObject({
        token_type: 'Bearer',
        expires_in: 3600,
        client_id: credentials.client_id,
        role,
        issuer: ISSUER,
      });
      const accessToken = String(res.body['access_token']);
      handedOut.push(accessToken);
      // It is the token service's token, signed with its key.
      const { payload } = await jwtVerify(accessToken, await importSPKI(secrets.keys.publicPem, 'ES256'), {
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      expect(payload).toMatchObject({ sub: credentials.client_id, role });
    });
  }

  it('a missing or wrong API key → 401, before the credentials are looked at', async () => {
    const credentials = await credentialsFor('salesperson');
    for (const key of [null, 'wrong-key']) {
      const res = await generate(generator, credentials, key);
      expect(res.status).toBe(401);
    }
  });

  it('missing or empty client_id / client_secret → 401 Unauthorized (Assert)', async () => {
    const credentials = await credentialsFor('salesperson');
    for (const body of [
      { client_id: credentials.client_id },
      { client_secret: credentials.client_secret },
      { client_id: '', client_secret: 'x' },
      {},
      'text',
    ]) {
      const res = await generate(generator, body, apiKey);
      expect(res.status, JSON.stringify(body)).toBe(401);
      expect(res.body['error']).toBe('Unauthorized');
      // The Assert's internal message and the step stay in the log.
      expect(Object.keys(res.body).sort()).toEqual(['code', 'error', 'executionId', 'message', 'timestamp']);
    }
    // The child's log lines arrive on their own schedule.
    const internal = 'client_id and client_secret are required';
    await vi.waitFor(() => expect(generator.logs()).toContain(internal), { timeout: 10_000 });
  });

  it('invalid credentials: the provider answers 401, so does the generator', async () => {
    const credentials = await credentialsFor('manager');
    const wrongSecret = await generate(generator, { ...credentials, client_secret: 'not-the-secret' }, apiKey);
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body['error']).toBe('Unauthorized');
    const unknownClient = await generate(
      generator,
      { client_id: crypto.randomUUID(), client_secret: 'whatever' },
      apiKey,
    );
    expect(unknownClient.status).toBe(401);
    expect((await client.delete(credentials.client_id)).status).toBe(200);
    expect((await generate(generator, credentials, apiKey)).status).toBe(401);
  });

  it('never logs the API key, client secrets or tokens (generator and provider)', () => {
    expect(secretsFoundInLogs(generator.logs() + provider.logs(), handedOut)).toEqual([]);
  });

  describe('when the credential provider does not answer 200', () => {
    let failingProvider: http.Server;
    let failingGenerator: RunningService;

    // The stand-in provider answers by client: `a-client` 503; `no-token` 200 without a token;
    // `auditor` 200 with a token rightly signed for a role the generator does not know.
    beforeAll(async () => {
      failingProvider = http.createServer((req, res) => {
        let raw = '';
        req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
        req.on('end', () => {
          const username = String((JSON.parse(raw || '{}') as { username?: unknown }).username);
          const answer = (status: number, body: unknown): void => {
            res.writeHead(status, { 'content-type': 'application/json' });
            res.end(JSON.stringify(body));
          };
          if (username === 'no-token') return answer(200, { token_type: 'Bearer', expires_in: 3600 });
          if (username !== 'auditor') return answer(503, { error: 'temporarily_unavailable' });
          void new SignJWT({ role: 'auditor' })
            .setProtectedHeader({ alg: 'ES256' })
            .setIssuer(ISSUER)
            .setAudience(AUDIENCE)
            .setSubject('auditor')
            .setIssuedAt()
            .setExpirationTime('10m')
            .sign(crypto.createPrivateKey(secrets.keys.privatePem))
            .then((token) => answer(200, { token_type: 'Bearer', expires_in: 600, access_token: token }));
        });
      });
      await new Promise<void>((resolve) => failingProvider.listen(0, '127.0.0.1', resolve));
      const { port } = failingProvider.address() as AddressInfo;
      failingGenerator = await startServer(generatorOut, {
        TOKEN_GENERATOR_PROVIDER_URL: `http://127.0.0.1:${port}/oauth2/token`,
        TOKEN_GENERATOR_APIKEY_HASH: await hashSecret(apiKey),
        TOKEN_VERIFY_KEY: secrets.keys.publicPem,
        PIPEC_DATA_DIR: path.join(tempDir('token-generator-failing'), '.data'),
      });
    }, 60_000);

    afterAll(async () => {
      await failingGenerator?.stop();
      await new Promise((resolve) => failingProvider?.close(resolve));
    });

    it('raises an error: 502 naming the provider status', async () => {
      const res = await generate(failingGenerator, { client_id: 'a-client', client_secret: 'a-secret' }, apiKey);
      expect(res.status).toBe(502);
      expect(res.body['error']).toBe('credential provider answered 503');
    });

    it("a 200 without an access token is the provider's fault: 502", async () => {
      const res = await generate(failingGenerator, { client_id: 'no-token', client_secret: 'a-secret' }, apiKey);
      expect(res.status).toBe(502);
      expect(res.body['error']).toBe('credential provider answered 200 without an access_token');
    });

    it('a role the generator does not know gets 403 naming it and the roles there are', async () => {
      const res = await generate(failingGenerator, { client_id: 'auditor', client_secret: 'a-secret' }, apiKey);
      expect(res.status).toBe(403);
      expect(res.body['error']).toBe(
        "the role 'auditor' grants no claims: the roles are salesperson, manager and admin",
      );
    });
  });
});

// `npm start` serves every example from one service with no environment: the development keys and
// apikeys apply, and the generator calls the token service of its own service (PORT).
describe('all examples in one service with the embedded development defaults', () => {
  let server: RunningService;
  let outDir: string;
  const DEV_ADMIN_APIKEY = 'dev-only-oauth2-admin-apikey';
  const DEV_GENERATOR_API_KEY = 'dev-only-token-generator-apikey';

  beforeAll(async () => {
    outDir = await buildExamples(['.'], 'all-examples-oauth2');
    for (const name of [
      'TOKEN_SIGNING_KEY',
      'TOKEN_VERIFY_KEY',
      'TOKEN_GENERATOR_PROVIDER_URL',
      'OAUTH2_ADMIN_APIKEY_HASH',
    ]) {
      expect(process.env[name], `${name} is set in the environment; this test needs the defaults`).toBeUndefined();
    }
    server = await startServer(outDir);
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('signs with a key the service made at its first start, kept in its data folder', async () => {
    const keyFile = path.join(outDir, '.data', 'keys', 'oauth2_signer.pem');
    const made = crypto.createPrivateKey(fs.readFileSync(keyFile, 'utf8'));
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    type Jwks = { keys: Array<Record<string, unknown>> };
    const jwks = (await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as Jwks;
    expect(jwks.keys).toHaveLength(1);
    const madePublic = crypto.createPublicKey(made).export({ format: 'jwk' }) as Record<string, unknown>;
    expect(jwks.keys[0]).toMatchObject(madePublic);
    await vi.waitFor(() => expect(server.logs()).toContain('made a development key in the data folder'), {
      timeout: 10_000,
    });
    // A token signed with the key these examples used to publish is refused.
    const published = crypto.createPrivateKey(PUBLISHED_DEVELOPMENT_KEY);
    const forged = await new SignJWT({ role: 'admin', scope: 'profile address banking' })
      .setProtectedHeader({ alg: 'ES256', kid: 'dev-only-published-key' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('anyone')
      .setJti(crypto.randomUUID())
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(published);
    const res = await fetch(`${server.url}/protected-api/orders`, { headers: { authorization: `Bearer ${forged}` } });
    expect(res.status).toBe(401);
  });

  it('token service → token generator → protected API, end to end; the key survives a restart', async () => {
    const client = new TokenServiceClient(server.url, DEV_ADMIN_APIKEY);
    const credentials = await client.create('npm-start', 'manager');
    const generated = await generate(
      server,
      { client_id: credentials.clientId, client_secret: credentials.clientSecret },
      DEV_GENERATOR_API_KEY,
    );
    expect(generated.status).toBe(200);
    expect(generated.body).toMatchObject({
      scope: 'profile address',
      claims: { profile_claims: PROFILE, address_claims: ADDRESS },
    });
    const orders = await fetch(`${server.url}/protected-api/orders`, {
      headers: { authorization: `Bearer ${String(generated.body['access_token'])}` },
    });
    expect(orders.status).toBe(200);
    expect(await orders.json()).toMatchObject({ clientId: credentials.clientId, role: 'manager' });

    await server.stop();
    server = await startServer(outDir);
    const bearer = { authorization: `Bearer ${String(generated.body['access_token'])}` };
    const again = await fetch(`${server.url}/protected-api/orders`, { headers: bearer });
    expect(again.status).toBe(200);
  });
});

/** The ES256 key the examples published before they made their own (anyone could sign with it). */
const PUBLISHED_DEVELOPMENT_KEY = [
  '-----BEGIN PRIVATE KEY-----',
  'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgk9tBWLKRYwUfWeK/',
  '8PGNOpqlsPxNbxBqo5jA8TPGr76hRANCAASbHQ6vDOs9Bzs6w+PTNZGQglO2p8nZ',
  'oM1zkUt5Cmr7zEMF8NxOgKRbx0gKYLj5gHIAQ36u0RbeABeqpdgusZek',
  '-----END PRIVATE KEY-----',
  '',
].join('\n');
