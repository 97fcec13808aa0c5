/**
 * JWT verification shared by the bearer authenticator and the `jwt` connector.
 *
 * In: a compact token, a key source (local key or remote JWKS, with its algorithm allow-list) and the
 * claim checks (issuer, audience, leeway, clock). Out: the verified claims and protected header, or a
 * `TokenError` whose message is safe to return to the caller (it never contains key material).
 * `exp` is required: a token that never expires cannot be revoked by time.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors as joseErrors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
} from 'jose';
import type { KeyObject } from 'node:crypto';
import type { JsonObject } from '../types.js';
import type { VerificationKey } from './keys.js';

/** A token that failed verification; `message` is a short description fit for error_description. */
export class TokenError extends Error {
  override readonly name = 'TokenError';
}

/** A key ready for jose: a local KeyObject or a remote JWKS resolver (fetched lazily, cached by jose). */
export interface TokenKey {
  readonly key: KeyObject | JWTVerifyGetKey;
  readonly algorithms: readonly string[];
}

export interface TokenChecks {
  readonly issuer?: string | readonly string[];
  readonly audience?: string | readonly string[];
  /** Required `sub` value. */
  readonly subject?: string;
  readonly leewaySeconds?: number;
  /** Current time in ms (defaults to the system clock). */
  readonly now?: number;
}

export interface VerifiedToken {
  readonly claims: JsonObject;
  readonly header: JsonObject;
}

/** Upper bound on a compact token's length; larger inputs are refused before any parsing. */
export const MAX_TOKEN_LENGTH = 16 * 1024;

const REMOTE_JWKS_TIMEOUT_MS = 5000;

/** Turns a verification key description into a jose key (creating the remote JWKS resolver once). */
export function tokenKeyOf(source: VerificationKey): TokenKey {
  if (source.kind === 'static') return { key: source.key, algorithms: source.algorithms };
  if (source.kind === 'set') {
    return { key: createLocalJWKSet(source.jwks as unknown as JSONWebKeySet), algorithms: source.algorithms };
  }
  return {
    key: createRemoteJWKSet(source.url, { timeoutDuration: REMOTE_JWKS_TIMEOUT_MS }),
    algorithms: source.algorithms,
  };
}

/**
 * Verifies signature, algorithm, `exp`/`nbf` (with leeway), issuer and audience.
 *
 * @example
 *   const { claims } = await verifyToken(token, tokenKeyOf(verificationKeyOf(fields)), { issuer: 'https://id.example.com' });
 */
export async function verifyToken(token: string, tokenKey: TokenKey, checks: TokenChecks = {}): Promise<VerifiedToken> {
  if (token.length > MAX_TOKEN_LENGTH) throw new TokenError('token is too long');
  try {
    const options = {
      algorithms: [...tokenKey.algorithms],
      requiredClaims: ['exp'],
      clockTolerance: Math.max(0, checks.leewaySeconds ?? 0),
      ...(checks.now !== undefined ? { currentDate: new Date(checks.now) } : {}),
      ...(checks.issuer !== undefined ? { issuer: toMutable(checks.issuer) } : {}),
      ...(checks.audience !== undefined ? { audience: toMutable(checks.audience) } : {}),
      ...(checks.subject !== undefined ? { subject: checks.subject } : {}),
    };
    const result =
      typeof tokenKey.key === 'function'
        ? await jwtVerify(token, tokenKey.key, options)
        : await jwtVerify(token, tokenKey.key, options);
    return { claims: result.payload as JsonObject, header: result.protectedHeader as JsonObject };
  } catch (err) {
    throw new TokenError(describeFailure(err));
  }
}

function toMutable(value: string | readonly string[]): string | string[] {
  return typeof value === 'string' ? value : [...value];
}

/** A caller-safe description of why verification failed. */
export function describeFailure(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'token expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    return err.reason === 'check_failed'
      ? `"${err.claim}" claim check failed`
      : `"${err.claim}" claim ${err.reason.replace(/_/g, ' ')}`;
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'signature verification failed';
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return 'token algorithm not allowed';
  if (err instanceof joseErrors.JWKSNoMatchingKey) return 'no matching key in the key set';
  if (err instanceof joseErrors.JWKSTimeout) return 'key set request timed out';
  if (err instanceof joseErrors.JWKSInvalid || err instanceof joseErrors.JWKSMultipleMatchingKeys)
    return 'key set unusable';
  if (err instanceof joseErrors.JWSInvalid || err instanceof joseErrors.JWTInvalid) return 'malformed token';
  if (err instanceof joseErrors.JOSENotSupported) return 'token algorithm not supported';
  if (err instanceof joseErrors.JOSEError) return 'invalid token';
  // Network failures of the JWKS fetch and key-type mismatches (e.g. HS256 with a public key).
  return 'invalid token';
}
