/**
 * Test support shared by the OAuth2 examples (token service, token generator, protected API):
 * a fresh ES256 key pair and admin apikey per run (passed to the service through env, as in
 * production), building an example folder with the real CLI, and a small client for the token
 * service's four operations over real HTTP.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { hashSecret } from '../../runtime/connectors/hash/hash.js';
import { REPO_ROOT, runCli, tempDir } from '../../test/e2e/service-process.js';

export const TOKEN_PATH = '/oauth2/token';
export const ISSUER = 'pipec-oauth2-token-service';
export const AUDIENCE = 'pipec-examples-api';

export interface SigningKeys {
  readonly privatePem: string;
  readonly publicPem: string;
  readonly kid: string;
}

/** A new P-256 key pair: the examples' accounts read it from TOKEN_SIGNING_KEY / TOKEN_VERIFY_KEY. */
export function generateSigningKeys(): SigningKeys {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    kid: `test-${crypto.randomUUID()}`,
  };
}

export interface TokenServiceSecrets {
  readonly keys: SigningKeys;
  readonly adminApikey: string;
  /** Environment for a service that contains the token service (and verifiers of its tokens). */
  readonly env: Record<string, string>;
}

/** Keys and an admin apikey (stored as its scrypt hash, as the README tells operators to do). */
export async function tokenServiceSecrets(extraEnv: Record<string, string> = {}): Promise<TokenServiceSecrets> {
  const keys = generateSigningKeys();
  const adminApikey = crypto.randomBytes(24).toString('base64url');
  return {
    keys,
    adminApikey,
    env: {
      TOKEN_SIGNING_KEY: keys.privatePem,
      TOKEN_SIGNING_KID: keys.kid,
      TOKEN_VERIFY_KEY: keys.publicPem,
      OAUTH2_ADMIN_APIKEY_HASH: await hashSecret(adminApikey),
      ...extraEnv,
    },
  };
}

/** `pipec build <example folders>` into a fresh directory; returns the output directory. */
export async function buildExamples(folders: readonly string[], name: string): Promise<string> {
  const outDir = path.join(tempDir(name), 'out');
  const inputs = folders.map((folder) => path.join(REPO_ROOT, 'examples', folder));
  // protected-api imports the token service from a sibling folder: the project is examples/.
  const root = path.join(REPO_ROOT, 'examples');
  const built = await runCli(['build', ...inputs, '--root', root, '--out', outDir, '--name', name, '--color', 'never']);
  if (built.code !== 0) throw new Error(`pipec build failed:\n${built.output.err.join('\n')}`);
  return outDir;
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

async function answer(res: Response): Promise<HttpAnswer> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export interface Credentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface TokenResponse {
  readonly token_type: string;
  readonly expires_in: number;
  readonly ext_expires_in: number;
  readonly access_token: string;
  readonly refresh_token: string;
  readonly scope: string;
}

/** The token service's operations, as a client would call them. */
export class TokenServiceClient {
  constructor(
    readonly baseUrl: string,
    private readonly adminApikey: string,
  ) {}

  postJson(body: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    return fetch(`${this.baseUrl}${TOKEN_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }).then(answer);
  }

  postForm(fields: Record<string, string>, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    return fetch(`${this.baseUrl}${TOKEN_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    }).then(answer);
  }

  async create(partnerId: string, role?: 'salesperson' | 'manager' | 'admin'): Promise<Credentials> {
    const res = await this.postJson({
      partnerId,
      executionType: 'create',
      apikey: this.adminApikey,
      ...(role ? { role } : {}),
    });
    if (res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as unknown as Credentials;
  }

  async token(credentials: Credentials): Promise<TokenResponse> {
    const res = await this.postJson({
      grant_type: 'client_credentials',
      username: credentials.clientId,
      password: credentials.clientSecret,
    });
    if (res.status !== 200) throw new Error(`token answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as unknown as TokenResponse;
  }

  /** A refresh request authenticated as `credentials` (RFC 6749 §6), or without client authentication (null). */
  refresh(refreshToken: string, credentials: Credentials | null): Promise<HttpAnswer> {
    const auth = credentials ? { username: credentials.clientId, password: credentials.clientSecret } : {};
    return this.postJson({ grant_type: 'refresh_token', refresh_token: refreshToken, ...auth });
  }

  delete(clientId: string, apikey = this.adminApikey): Promise<HttpAnswer> {
    return this.postJson({ clientId, executionType: 'delete', apikey });
  }
}

/** `Basic base64(urlencode(id):urlencode(secret))`, RFC 6749 §2.3.1. */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  const encode = (v: string): string => encodeURIComponent(v).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}

/** The given secrets that occur in a log text (each secret at least 16 characters long). */
export function secretsFoundInLogs(logs: string, secrets: readonly string[]): string[] {
  return secrets.filter((secret) => {
    if (secret.length < 16) throw new Error('scan only for long secrets; short ones match by chance');
    return logs.includes(secret);
  });
}
