/**
 * Trigger authentication: turns an `auth` block of an http / http-file / mcp-tool trigger into a
 * function the server calls before running the pipeline.
 *
 * In: the auth spec, every account's fields, and hooks (clock, revocation). Out: per request,
 * `{ ok: true, principal }` or `{ ok: false, status, wwwAuthenticate, error }` for the 401/403 reply.
 * Misconfiguration (unknown account, unreadable key) throws when the authenticator is created, so a
 * service with a broken auth block fails at start-up rather than on the first request.
 *
 * Principals by scheme:
 *   api-key → { scheme: "api-key", account: "partners", keyIndex: 0 }
 *   bearer  → { scheme: "bearer", subject: "client-1", scopes: ["orders:read"], claims: { … } }
 *   basic   → { scheme: "basic", username: "alice" }
 */
import type { Json, JsonObject } from '../types.js';
import {
  ASYMMETRIC_ALGORITHMS,
  jwksUrlOf,
  restrictAlgorithms,
  stringField,
  verificationKeyOf,
  type AccountFields,
} from './keys.js';
import { timingSafeEqualSecrets, timingSafeIndexOf } from './timing-safe.js';
import { MAX_TOKEN_LENGTH, TokenError, tokenKeyOf, verifyToken, type TokenKey } from './verify-token.js';

export type AuthSpec =
  | { type: 'api-key'; in: 'header' | 'query'; name: string; account: string }
  | {
      type: 'bearer';
      account?: string;
      jwksUrl?: string;
      issuer?: string;
      audience?: string | string[];
      scopes?: string[];
      claims?: Record<string, Json>;
      leewaySeconds?: number;
      algorithms?: string[];
    }
  | { type: 'basic'; account: string; realm?: string };

export type AuthResult =
  { ok: true; principal: JsonObject } | { ok: false; status: 401 | 403; wwwAuthenticate: string; error: string };

export interface AuthOptions {
  /** Current time in ms (token expiry); defaults to Date.now. */
  now?: () => number;
  /** Whether a token id has been revoked. When set, tokens without `jti` are refused. */
  isRevoked?: (jti: string) => Promise<boolean>;
}

export type AuthRequest = { headers: Headers; url: URL };
export type Authenticator = (req: AuthRequest) => Promise<AuthResult>;
type Accounts = Readonly<Record<string, AccountFields>>;

const REALM = 'pipec';
/** Longest credential header or parameter read; anything longer is refused unparsed. */
const MAX_CREDENTIAL_LENGTH = 4096;
const DEFAULT_API_KEY_HEADER = 'x-api-key';
const DEFAULT_API_KEY_QUERY = 'api_key';

/**
 * @example
 *   const auth = createAuthenticator({ type: 'bearer', account: 'signer', scopes: ['orders:read'] }, accounts);
 *   const result = await auth({ headers: c.req.raw.headers, url: new URL(c.req.url) });
 *   if (!result.ok) return c.json({ error: result.error }, result.status, { 'WWW-Authenticate': result.wwwAuthenticate });
 */
export function createAuthenticator(spec: AuthSpec, accounts: Accounts, opts: AuthOptions = {}): Authenticator {
  switch (spec.type) {
    case 'api-key':
      return createApiKeyAuthenticator(spec, accounts);
    case 'bearer':
      return createBearerAuthenticator(spec, accounts, opts);
    case 'basic':
      return createBasicAuthenticator(spec, accounts);
    default:
      throw new Error(`auth: unknown type ${String((spec as { type: unknown }).type)}`);
  }
}

// ───────────────────────────── shared ─────────────────────────────

function accountOf(accounts: Accounts, name: string): AccountFields {
  const fields = Object.hasOwn(accounts, name) ? accounts[name] : undefined;
  if (!fields) throw new Error(`auth: account '${name}' is not declared`);
  return fields;
}

/** An RFC 7230 quoted-string: backslash-escape `"` and `\`, drop control characters. */
export function quoted(value: string): string {
  // Control characters (CR/LF above all) could split or forge response headers.
  return `"${value.replace(/[\u0000-\u001f\u007f]/g, '').replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

function challenge(scheme: string, params: ReadonlyArray<readonly [string, string]>): string {
  return `${scheme} ${params.map(([name, value]) => `${name}=${quoted(value)}`).join(', ')}`;
}

// ───────────────────────────── api-key ─────────────────────────────

function apiKeysOf(fields: AccountFields): string[] {
  const keys = Object.hasOwn(fields, 'keys') ? fields['keys'] : undefined;
  if (Array.isArray(keys)) {
    const strings = keys.filter((k): k is string => typeof k === 'string' && k.length > 0);
    if (strings.length === 0) throw new Error('auth: api-key account has an empty `keys` list');
    return strings;
  }
  const key = stringField(fields, 'key');
  if (key === undefined || key.length === 0) throw new Error('auth: api-key account needs `key` or `keys`');
  return [key];
}

function createApiKeyAuthenticator(spec: Extract<AuthSpec, { type: 'api-key' }>, accounts: Accounts): Authenticator {
  const keys = apiKeysOf(accountOf(accounts, spec.account));
  const location = spec.in === 'query' ? 'query' : 'header';
  const name = spec.name || (location === 'header' ? DEFAULT_API_KEY_HEADER : DEFAULT_API_KEY_QUERY);
  const wwwAuthenticate = challenge('ApiKey', [
    ['realm', REALM],
    [location, name],
  ]);
  const fail = (error: string): AuthResult => ({ ok: false, status: 401, wwwAuthenticate, error });

  return async (req) => {
    const given = readApiKey(req, location, name);
    if (given === undefined) return fail('missing API key');
    if (given === null) return fail('malformed API key');
    const index = timingSafeIndexOf(given, keys);
    if (index < 0) return fail('invalid API key');
    return { ok: true, principal: { scheme: 'api-key', account: spec.account, keyIndex: index } };
  };
}

/** The presented key; undefined when absent, null when ambiguous (repeated) or oversized. */
function readApiKey(req: AuthRequest, location: 'header' | 'query', name: string): string | undefined | null {
  if (location === 'header') {
    const value = req.headers.get(name);
    if (value === null || value === '') return undefined;
    return value.length > MAX_CREDENTIAL_LENGTH || value.includes(',') ? null : value;
  }
  const values = req.url.searchParams.getAll(name);
  if (values.length === 0 || values[0] === '') return undefined;
  if (values.length > 1) return null;
  const value = values[0] ?? '';
  return value.length > MAX_CREDENTIAL_LENGTH ? null : value;
}

// ───────────────────────────── bearer ─────────────────────────────

type BearerSpec = Extract<AuthSpec, { type: 'bearer' }>;

/** RFC 6750 §2.1 b64token after the scheme name. */
const BEARER_HEADER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

function bearerTokenKey(spec: BearerSpec, accounts: Accounts): TokenKey {
  if (spec.jwksUrl !== undefined) {
    const algorithms = restrictAlgorithms(ASYMMETRIC_ALGORITHMS, spec.algorithms);
    return tokenKeyOf({ kind: 'remote', url: jwksUrlOf(spec.jwksUrl), algorithms });
  }
  if (spec.account === undefined) throw new Error('auth: bearer needs `account` or `jwksUrl`');
  const fields = accountOf(accounts, spec.account);
  return tokenKeyOf(verificationKeyOf(fields, spec.algorithms));
}

/** Scopes granted by a token: the space-separated `scope` claim and/or the `scp` claim (array or string). */
export function tokenScopes(claims: JsonObject): string[] {
  const scopes = new Set<string>();
  const add = (value: Json | undefined): void => {
    if (typeof value === 'string') for (const s of value.split(' ')) if (s) scopes.add(s);
    if (Array.isArray(value)) for (const s of value) if (typeof s === 'string' && s) scopes.add(s);
  };
  if (Object.hasOwn(claims, 'scope')) add(claims['scope']);
  if (Object.hasOwn(claims, 'scp')) add(claims['scp']);
  return [...scopes];
}

/** Whether a claim value satisfies a required value: deep JSON equality, or membership when the claim is an array. */
export function claimMatches(actual: Json | undefined, expected: Json): boolean {
  if (actual === undefined) return false;
  if (Array.isArray(actual) && !Array.isArray(expected)) return actual.some((item) => jsonEqual(item, expected));
  return jsonEqual(actual, expected);
}

function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => jsonEqual(item, b[i] as Json))
    );
  }
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  return aKeys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k] as Json, b[k] as Json));
}

function createBearerAuthenticator(spec: BearerSpec, accounts: Accounts, opts: AuthOptions): Authenticator {
  const tokenKey = bearerTokenKey(spec, accounts);
  const now = opts.now ?? Date.now;
  const requiredScopes = spec.scopes ?? [];
  const requiredClaims = Object.entries(spec.claims ?? {});
  const realm: [string, string] = ['realm', REALM];
  const unauthenticated: AuthResult = {
    ok: false,
    status: 401,
    wwwAuthenticate: challenge('Bearer', [realm]),
    error: 'missing bearer token',
  };
  const reject = (error: 'invalid_request' | 'invalid_token', description: string): AuthResult => ({
    ok: false,
    status: 401,
    wwwAuthenticate: challenge('Bearer', [realm, ['error', error], ['error_description', description]]),
    error: description,
  });

  return async (req) => {
    const header = req.headers.get('authorization');
    // No credentials of this scheme: a bare challenge without error code (RFC 6750 §3.1).
    if (header === null || !/^bearer(\s|$)/i.test(header)) return unauthenticated;
    if (header.length > MAX_TOKEN_LENGTH + 16) return reject('invalid_request', 'token is too long');
    const token = BEARER_HEADER.exec(header)?.[1];
    if (token === undefined) return reject('invalid_request', 'malformed Authorization header');

    let claims: JsonObject;
    try {
      ({ claims } = await verifyToken(token, tokenKey, {
        issuer: spec.issuer,
        audience: spec.audience,
        leewaySeconds: spec.leewaySeconds ?? 0,
        now: now(),
      }));
    } catch (err) {
      return reject('invalid_token', err instanceof TokenError ? err.message : 'invalid token');
    }

    for (const [name, expected] of requiredClaims) {
      if (!claimMatches(Object.hasOwn(claims, name) ? claims[name] : undefined, expected)) {
        return reject('invalid_token', `"${name}" claim check failed`);
      }
    }
    if (opts.isRevoked) {
      const jti = Object.hasOwn(claims, 'jti') ? claims['jti'] : undefined;
      if (typeof jti !== 'string' || jti === '') return reject('invalid_token', 'token has no jti');
      if (await opts.isRevoked(jti)) return reject('invalid_token', 'token revoked');
    }
    const scopes = tokenScopes(claims);
    const missing = requiredScopes.filter((s) => !scopes.includes(s));
    if (missing.length > 0) {
      return {
        ok: false,
        status: 403,
        wwwAuthenticate: challenge('Bearer', [
          realm,
          ['error', 'insufficient_scope'],
          ['error_description', 'token lacks a required scope'],
          ['scope', requiredScopes.join(' ')],
        ]),
        error: `insufficient_scope: requires ${requiredScopes.join(' ')}`,
      };
    }
    const subject = Object.hasOwn(claims, 'sub') && typeof claims['sub'] === 'string' ? claims['sub'] : null;
    return { ok: true, principal: { scheme: 'bearer', subject, scopes, claims } };
  };
}

// ───────────────────────────── basic ─────────────────────────────

const BASIC_HEADER = /^Basic +([A-Za-z0-9+/]+={0,2})$/i;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** `user:password` from a Basic Authorization header; null when absent or malformed. */
export function parseBasicCredentials(header: string | null): { username: string; password: string } | null {
  if (header === null || header.length > MAX_CREDENTIAL_LENGTH) return null;
  const encoded = BASIC_HEADER.exec(header)?.[1];
  if (encoded === undefined) return null;
  let decoded: string;
  try {
    decoded = strictUtf8.decode(Buffer.from(encoded, 'base64'));
  } catch {
    return null;
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function createBasicAuthenticator(spec: Extract<AuthSpec, { type: 'basic' }>, accounts: Accounts): Authenticator {
  const fields = accountOf(accounts, spec.account);
  const expectedUser = stringField(fields, 'username');
  const expectedPassword = stringField(fields, 'password');
  // An empty expected password would let an empty one in: refuse the configuration instead.
  if (!expectedUser || !expectedPassword)
    throw new Error(`auth: account '${spec.account}' needs a non-empty username and password`);
  const wwwAuthenticate = challenge('Basic', [
    ['realm', spec.realm ?? REALM],
    ['charset', 'UTF-8'],
  ]);

  return async (req) => {
    const header = req.headers.get('authorization');
    if (header === null) return { ok: false, status: 401, wwwAuthenticate, error: 'missing credentials' };
    const credentials = parseBasicCredentials(header);
    if (credentials === null) return { ok: false, status: 401, wwwAuthenticate, error: 'malformed credentials' };
    // Both comparisons always run, so timing does not reveal whether the username was right.
    const userMatches = timingSafeEqualSecrets(credentials.username, expectedUser);
    const passwordMatches = timingSafeEqualSecrets(credentials.password, expectedPassword);
    if (!(userMatches && passwordMatches))
      return { ok: false, status: 401, wwwAuthenticate, error: 'invalid credentials' };
    return { ok: true, principal: { scheme: 'basic', username: credentials.username } };
  };
}
