/**
 * The protected API example end to end: the built service (protected-api imports the token
 * service) over real HTTP. Tokens of the token service pass; expired, tampered, wrong-audience,
 * wrong-issuer, foreign-key, `alg: none`, HS256-with-the-public-key and revoked tokens do not.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { SignJWT, base64url, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, tempDir, type RunningService } from '../../test/e2e/service-process.js';
import {
  AUDIENCE,
  ISSUER,
  TokenServiceClient,
  buildExamples,
  generateSigningKeys,
  secretsFoundInLogs,
  tokenServiceSecrets,
  type Credentials,
  type TokenServiceSecrets,
} from '../oauth2-token-service/oauth2-test-support.js';

// scrypt checks and two-process round trips are slow on a loaded 2-core machine.
vi.setConfig({ testTimeout: 60_000 });

const ORDERS = '/protected-api/orders';

/** One build for both servers below (they differ only in their environment). */
let built: Promise<string> | undefined;
const builtService = (): Promise<string> => (built ??= buildExamples(['protected-api'], 'protected-api'));

function callApi(
  server: RunningService,
  token: string | null,
): Promise<{ status: number; wwwAuthenticate: string | null; body: Record<string, unknown> }> {
  return fetch(`${server.url}${ORDERS}`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } }).then(
    async (res) => ({
      status: res.status,
      wwwAuthenticate: res.headers.get('www-authenticate'),
      body: (await res.json()) as Record<string, unknown>,
    }),
  );
}

/** A token signed with the test's copy of the signing key: valid unless the test breaks it on purpose. */
function signWith(
  key: crypto.KeyObject,
  claims: Record<string, unknown>,
  options: { audience?: string; issuer?: string; expiresAt?: number; kid?: string } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT', ...(options.kid ? { kid: options.kid } : {}) })
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setSubject('forged-client')
    .setJti(crypto.randomUUID())
    .setIssuedAt(now - 120)
    .setExpirationTime(options.expiresAt ?? now + 600)
    .sign(key);
}

describe('protected-api example over real HTTP', () => {
  let secrets: TokenServiceSecrets;
  let server: RunningService;
  let client: TokenServiceClient;
  const handedOut: string[] = [];

  beforeAll(async () => {
    secrets = await tokenServiceSecrets();
    server = await startServer(await builtService(), secrets.env);
    client = new TokenServiceClient(server.url, secrets.adminApikey);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  interface FreshToken {
    clientId: string;
    credentials: Credentials;
    accessToken: string;
    refreshToken: string;
  }

  async function freshToken(role?: 'salesperson' | 'manager' | 'admin'): Promise<FreshToken> {
    const credentials = await client.create('wayne', role);
    const token = await client.token(credentials);
    handedOut.push(credentials.clientSecret, token.access_token, token.refresh_token);
    return {
      clientId: credentials.clientId,
      credentials,
      accessToken: token.access_token,
      refreshToken: token.refresh_token,
    };
  }

  it('accepts a token of the token service and sees the caller', async () => {
    const { clientId, accessToken } = await freshToken('manager');
    const res = await callApi(server, accessToken);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ clientId, partnerId: 'wayne', role: 'manager', scopes: ['profile', 'address'] });
    expect(res.body['orders']).toHaveLength(2);
  });

  it('no token → 401 with a bare Bearer challenge', async () => {
    const res = await callApi(server, null);
    expect(res.status).toBe(401);
    expect(res.wwwAuthenticate).toBe('Bearer realm="pipec"');
  });

  it('a tampered token (claims changed, signature kept) → 401 invalid_token', async () => {
    const { accessToken } = await freshToken('salesperson');
    const [header, , signature] = accessToken.split('.');
    const claims = { ...decodeJwt(accessToken), role: 'admin', scope: 'profile address banking' };
    const tampered = `${header}.${base64url.encode(JSON.stringify(claims))}.${signature}`;
    const res = await callApi(server, tampered);
    expect(res.status).toBe(401);
    expect(res.wwwAuthenticate).toContain('error="invalid_token"');
  });

  it('alg: none → 401', async () => {
    const { accessToken } = await freshToken();
    const claims = decodeJwt(accessToken);
    const none = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url.encode(JSON.stringify(claims))}.`;
    expect((await callApi(server, none)).status).toBe(401);
  });

  it('HS256 signed with the public key as the HMAC secret (key confusion) → 401', async () => {
    const { accessToken } = await freshToken('admin');
    const claims = decodeJwt(accessToken);
    for (const secret of [
      secrets.keys.publicPem,
      crypto.createPublicKey(secrets.keys.publicPem).export({ format: 'der', type: 'spki' }),
    ]) {
      const confused = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .sign(new Uint8Array(secret instanceof Buffer ? secret : Buffer.from(secret)));
      const res = await callApi(server, confused);
      expect(res.status).toBe(401);
      expect(res.wwwAuthenticate).toContain('invalid_token');
    }
  });

  it('wrong audience, wrong issuer, expired, or another key → 401 (even with the right key for the rest)', async () => {
    const signingKey = crypto.createPrivateKey(secrets.keys.privatePem);
    const now = Math.floor(Date.now() / 1000);
    const cases = {
      audience: await signWith(signingKey, {}, { audience: 'some-other-api' }),
      issuer: await signWith(signingKey, {}, { issuer: 'https://evil.example' }),
      expired: await signWith(signingKey, {}, { expiresAt: now - 1 }),
      foreignKey: await signWith(
        crypto.createPrivateKey(generateSigningKeys().privatePem),
        {},
        { kid: secrets.keys.kid },
      ),
    };
    for (const [what, token] of Object.entries(cases)) {
      const res = await callApi(server, token);
      expect(res.status, what).toBe(401);
      expect(res.wwwAuthenticate, what).toContain('error="invalid_token"');
    }
  });

  it('a correctly signed token the token service never issued (unknown jti) → 401', async () => {
    const token = await signWith(crypto.createPrivateKey(secrets.keys.privatePem), { role: 'admin' });
    const res = await callApi(server, token);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_token', error_description: 'token revoked or unknown' });
  });

  it('a correctly signed token with an issued jti but claims of its own making → 401 (claims are bound)', async () => {
    // With the signing key (leaked, or a published development key), a caller could re-sign a real
    // token's jti with better claims: the record of that jti says what was really issued.
    const signingKey = crypto.createPrivateKey(secrets.keys.privatePem);
    const { clientId, accessToken } = await freshToken('salesperson');
    const issued = decodeJwt(accessToken);
    const resign = (claims: Record<string, unknown>, subject = clientId, expiresAt = issued.exp): Promise<string> => {
      const base = { jti: issued.jti, role: issued['role'], scope: issued['scope'], partnerId: issued['partnerId'] };
      return new SignJWT({ ...base, ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: secrets.keys.kid })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setSubject(subject)
        .setIssuedAt()
        .setExpirationTime(expiresAt ?? 0)
        .sign(signingKey);
    };
    // The same claims re-signed pass: the test forges nothing but what it changes below.
    expect((await callApi(server, await resign({}))).status).toBe(200);
    const forged = {
      role: await resign({ role: 'admin' }),
      scope: await resign({ scope: 'profile address banking' }),
      partner: await resign({ partnerId: 'another-partner' }),
      subject: await resign({}, 'another-client'),
      expiry: await resign({}, clientId, (issued.exp ?? 0) + 86_400),
    };
    for (const [what, token] of Object.entries(forged)) {
      const res = await callApi(server, token);
      expect(res.status, what).toBe(401);
      expect(res.body['error_description'], what).toBe('token revoked or unknown');
    }
  });

  it('deleting the credentials revokes their access tokens', async () => {
    const { clientId, accessToken } = await freshToken();
    expect((await callApi(server, accessToken)).status).toBe(200);
    expect((await client.delete(clientId)).status).toBe(200);
    const res = await callApi(server, accessToken);
    expect(res.status).toBe(401);
    expect(res.body['error_description']).toBe('token revoked or unknown');
  });

  it('replaying a spent refresh token revokes the access tokens of its family', async () => {
    const first = await freshToken();
    const rotated = await client.refresh(first.refreshToken, first.credentials);
    expect(rotated.status).toBe(200);
    const second = String(rotated.body['access_token']);
    handedOut.push(second, String(rotated.body['refresh_token']));
    expect((await callApi(server, first.accessToken)).status).toBe(200);
    expect((await callApi(server, second)).status).toBe(200);

    expect((await client.refresh(first.refreshToken, first.credentials)).status).toBe(400);
    expect((await callApi(server, first.accessToken)).status).toBe(401);
    expect((await callApi(server, second)).status).toBe(401);
  });

  it('never logs the tokens it checks', () => {
    expect(secretsFoundInLogs(server.logs(), handedOut)).toEqual([]);
  });
});

describe('protected-api with a 3-second access token lifetime (OAUTH2_ACCESS_TOKEN_TTL)', () => {
  let server: RunningService;
  let client: TokenServiceClient;

  beforeAll(async () => {
    const secrets = await tokenServiceSecrets({ OAUTH2_ACCESS_TOKEN_TTL: '3' });
    server = await startServer(await builtService(), {
      ...secrets.env,
      PIPEC_DATA_DIR: path.join(tempDir('protected-api-short-ttl'), '.data'),
    });
    client = new TokenServiceClient(server.url, secrets.adminApikey);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('a token of the service is refused once expires_in has passed (no leeway)', async () => {
    const token = await client.token(await client.create('stark'));
    expect(token.expires_in).toBe(3);
    const exp = decodeJwt(token.access_token).exp ?? 0;
    expect((await callApi(server, token.access_token)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now()) + 50));
    const late = await callApi(server, token.access_token);
    expect(late.status).toBe(401);
    expect(late.wwwAuthenticate).toContain('error="invalid_token"');
  });
});
