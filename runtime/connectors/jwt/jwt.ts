/**
 * The `jwt` connector: signs, verifies or decodes JSON Web Tokens with an account's key.
 *
 * In: params (see schema.json) with the referenced account's fields in `params.accountFields`.
 * Out:
 *   sign   → { token, jti, expiresAt, issuedAt }           (times are NumericDate seconds)
 *   verify → { valid: true, claims, header }               or throws PipeError 401 INVALID_TOKEN
 *   decode → { claims, header }                            NO signature or expiry check: never trust it
 * The algorithm allow-list always comes from the key type (keys.ts), so a token cannot pick
 * `alg: none` or turn an RSA public key into an HMAC secret. Errors never carry key material.
 */
import crypto from 'node:crypto';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { PipeError } from '../../errors.js';
import { AccountError, signingKeyOf, verificationKeyOf, type AccountFields } from '../../security/keys.js';
import { MAX_TOKEN_LENGTH, TokenError, tokenKeyOf, verifyToken, type TokenKey } from '../../security/verify-token.js';
import type { ConnectorRun, ExecutionContext, Json, JsonObject } from '../../types.js';

const DEFAULT_EXPIRES_IN_SECONDS = 3600;
/** Ten years: longer lifetimes are almost certainly a unit mistake (ms given as seconds). */
const MAX_EXPIRES_IN_SECONDS = 10 * 365 * 24 * 3600;
/** Claims the step parameters own; a value in `claims` for one of these is overridden by the parameter. */
const REGISTERED_CLAIMS = ['iat', 'exp', 'nbf', 'jti', 'sub', 'iss', 'aud'] as const;

/**
 * @example
 *   await run({ operation: 'sign', account: 'signer', accountFields, subject: 'client-1', 'expires-in': 900,
 *               claims: { scope: 'orders:read' } }, message, ctx)
 *   // → { token: 'eyJ…', jti: '5f0c…', expiresAt: 1893457800, issuedAt: 1893456900 }
 */
export const run: ConnectorRun = async (params, _message, ctx) => {
  const operation = params['operation'];
  switch (operation) {
    case 'sign':
      return sign(params, ctx);
    case 'verify':
      return verify(params, ctx);
    case 'decode':
      return decode(params);
    default:
      throw invalidParameter(`operation must be sign, verify or decode`);
  }
};

// ───────────────────────────── params ─────────────────────────────

function invalidParameter(message: string): PipeError {
  return new PipeError(`jwt: ${message}`, { code: 400, kind: 'INVALID_PARAMETER' });
}

function param(params: JsonObject, name: string): Json | undefined {
  return Object.hasOwn(params, name) ? params[name] : undefined;
}

function optionalString(params: JsonObject, name: string): string | undefined {
  const value = param(params, name);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalidParameter(`${name} must be a string`);
  return value;
}

function optionalSeconds(params: JsonObject, name: string, max: number): number | undefined {
  const value = param(params, name);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw invalidParameter(`${name} must be a whole number of seconds between 0 and ${max}`);
  }
  return value;
}

function optionalAudience(params: JsonObject): string | string[] | undefined {
  const value = param(params, 'audience');
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v): v is string => typeof v === 'string')) return value;
  throw invalidParameter('audience must be a string or an array of strings');
}

function accountFieldsOf(params: JsonObject): AccountFields {
  const fields = param(params, 'accountFields');
  if (fields === undefined || fields === null || typeof fields !== 'object' || Array.isArray(fields)) {
    throw new PipeError('jwt: the account has no fields (is it declared?)', {
      code: 500,
      kind: 'ACCOUNT_CONFIGURATION',
    });
  }
  return fields;
}

function requiredToken(params: JsonObject): string {
  const token = optionalString(params, 'token');
  if (token === undefined) throw invalidParameter('token is required');
  if (token.length > MAX_TOKEN_LENGTH)
    throw new PipeError('jwt: token is too long', { code: 401, kind: 'INVALID_TOKEN' });
  return token;
}

/** Runs key-handling code, turning account problems into a safe configuration error. */
async function withAccount<T>(params: JsonObject, work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AccountError) {
      const account = optionalString(params, 'account') ?? '(unnamed)';
      throw new PipeError(`jwt: account ${account}: ${err.message}`, { code: 500, kind: 'ACCOUNT_CONFIGURATION' });
    }
    throw err;
  }
}

// ───────────────────────────── sign ─────────────────────────────

/** The custom claims as a fresh object, each key set as an own property (so `__proto__` stays data). */
function customClaims(params: JsonObject): JsonObject {
  const claims = param(params, 'claims');
  const payload: JsonObject = {};
  if (claims === undefined || claims === null) return payload;
  if (typeof claims !== 'object' || Array.isArray(claims)) throw invalidParameter('claims must be an object');
  for (const [name, value] of Object.entries(claims)) {
    if ((REGISTERED_CLAIMS as readonly string[]).includes(name)) continue;
    Object.defineProperty(payload, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return payload;
}

async function sign(params: JsonObject, ctx: ExecutionContext): Promise<JsonObject> {
  const fields = accountFieldsOf(params);
  const signing = await withAccount(params, () => signingKeyOf(fields, optionalString(params, 'algorithm')));
  const issuedAt = Math.floor(ctx.services.clock.now() / 1000);
  const expiresAt =
    issuedAt + (optionalSeconds(params, 'expires-in', MAX_EXPIRES_IN_SECONDS) ?? DEFAULT_EXPIRES_IN_SECONDS);
  const notBefore = optionalSeconds(params, 'not-before', MAX_EXPIRES_IN_SECONDS);
  const jti = optionalString(params, 'jti') ?? crypto.randomUUID();
  const subject = optionalString(params, 'subject');
  const issuer = optionalString(params, 'issuer');
  const audience = optionalAudience(params);

  const jwt = new SignJWT(customClaims(params))
    .setProtectedHeader({ alg: signing.alg, typ: 'JWT', ...(signing.kid !== undefined ? { kid: signing.kid } : {}) })
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .setJti(jti);
  if (notBefore !== undefined) jwt.setNotBefore(issuedAt + notBefore);
  if (subject !== undefined) jwt.setSubject(subject);
  if (issuer !== undefined) jwt.setIssuer(issuer);
  if (audience !== undefined) jwt.setAudience(audience);
  const token = await withAccount(params, () => jwt.sign(signing.key));
  return { token, jti, expiresAt, issuedAt };
}

// ───────────────────────────── verify ─────────────────────────────

/**
 * Verification keys per account object and algorithm, so PEM parsing and remote JWKS fetching happen
 * once per account rather than per execution. Keyed weakly by the account's fields object (the
 * service's long-lived `ctx.accounts[name]`), so nothing outlives the accounts it was built from.
 */
const tokenKeys = new WeakMap<object, Map<string, TokenKey>>();

function cachedTokenKey(fields: AccountFields, algorithm: string | undefined): TokenKey {
  let byAlgorithm = tokenKeys.get(fields);
  if (!byAlgorithm) {
    byAlgorithm = new Map();
    tokenKeys.set(fields, byAlgorithm);
  }
  const cacheKey = algorithm ?? '';
  let tokenKey = byAlgorithm.get(cacheKey);
  if (!tokenKey) {
    tokenKey = tokenKeyOf(verificationKeyOf(fields, algorithm !== undefined ? [algorithm] : undefined));
    byAlgorithm.set(cacheKey, tokenKey);
  }
  return tokenKey;
}

async function verify(params: JsonObject, ctx: ExecutionContext): Promise<JsonObject> {
  const token = requiredToken(params);
  const fields = accountFieldsOf(params);
  const tokenKey = await withAccount(params, () => cachedTokenKey(fields, optionalString(params, 'algorithm')));
  try {
    const { claims, header } = await verifyToken(token, tokenKey, {
      issuer: optionalString(params, 'issuer'),
      audience: optionalAudience(params),
      subject: optionalString(params, 'subject'),
      leewaySeconds: optionalSeconds(params, 'leeway', MAX_EXPIRES_IN_SECONDS) ?? 0,
      now: ctx.services.clock.now(),
    });
    return { valid: true, claims, header };
  } catch (err) {
    if (err instanceof TokenError)
      throw new PipeError(`invalid token: ${err.message}`, { code: 401, kind: 'INVALID_TOKEN' });
    throw err;
  }
}

// ───────────────────────────── decode ─────────────────────────────

/** Reads header and claims WITHOUT verifying anything: for routing or display, never for trust. */
function decode(params: JsonObject): JsonObject {
  const token = requiredToken(params);
  try {
    return { claims: decodeJwt(token) as JsonObject, header: decodeProtectedHeader(token) as JsonObject };
  } catch {
    throw new PipeError('invalid token: malformed token', { code: 400, kind: 'INVALID_TOKEN' });
  }
}
