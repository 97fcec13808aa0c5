/**
 * Key material from account fields: which kind of account a record is, the key that signs tokens,
 * the key (or remote JWKS) that verifies them, and the algorithm allow-list each key permits.
 *
 * In: an account's fields as plain JSON (env() already resolved by the service), e.g.
 *   { key: "-----BEGIN PRIVATE KEY-----…", alg: "ES256", kid: "2024-01" }     (private-key)
 *   { key: "https://issuer.example.com/.well-known/jwks.json" }               (public-key, remote)
 *   { key: "a-32-byte-or-longer-shared-secret…" }                             (secret-key)
 * Out: node KeyObjects plus the algorithms they may be used with. The allow-list always follows from
 * the key type, so a token cannot choose `alg: none` or HS256-with-the-RSA-public-key-as-secret.
 * Error messages name fields, never their values: keys must not end up in logs.
 */
import crypto, { type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { Json, JsonObject } from '../types.js';

export type AccountFields = Readonly<Record<string, Json>>;
export type AccountType = 'secret-key' | 'private-key' | 'public-key' | 'basic' | 'api-key';

/** A misconfigured account (wrong type, unreadable key, unsupported algorithm). */
export class AccountError extends Error {
  override readonly name = 'AccountError';
}

export interface SigningKey {
  readonly alg: string;
  readonly key: KeyObject;
  /** Key id put in the token header (account `kid`, else the RFC 7638 thumbprint of an asymmetric key). */
  readonly kid?: string;
}

export type VerificationKey =
  | { readonly kind: 'static'; readonly key: KeyObject; readonly algorithms: readonly string[] }
  | { readonly kind: 'remote'; readonly url: URL; readonly algorithms: readonly string[] }
  /** A JSON Web Key Set held by the account (e.g. the service's own, development-keys.ts). */
  | {
      readonly kind: 'set';
      readonly jwks: { readonly keys: readonly JsonObject[] };
      readonly algorithms: readonly string[];
    };

const HMAC_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const;
/** RFC 7518 §3.2: an HMAC key must be at least as long as the hash output. */
const HMAC_MIN_BYTES: Readonly<Record<string, number>> = { HS256: 32, HS384: 48, HS512: 64 };
const RSA_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'] as const;
const EC_ALGORITHM_BY_CURVE: Readonly<Record<string, string>> = {
  prime256v1: 'ES256',
  secp384r1: 'ES384',
  secp521r1: 'ES512',
};
const EDDSA_ALGORITHMS = ['EdDSA', 'Ed25519'] as const;

/** Every asymmetric algorithm: the default allow-list for a remote JWKS (never HS*, never none). */
export const ASYMMETRIC_ALGORITHMS: readonly string[] = [
  ...RSA_ALGORITHMS,
  'ES256',
  'ES384',
  'ES512',
  ...EDDSA_ALGORITHMS,
];

/** An own string field of the account, or undefined (inherited keys such as `__proto__` are ignored). */
export function stringField(fields: AccountFields, name: string): string | undefined {
  if (!Object.hasOwn(fields, name)) return undefined;
  const value = fields[name];
  return typeof value === 'string' ? value : undefined;
}

function ownField(fields: AccountFields, name: string): Json | undefined {
  return Object.hasOwn(fields, name) ? fields[name] : undefined;
}

function isPem(text: string): boolean {
  return text.includes('-----BEGIN ');
}

function isUrl(text: string): boolean {
  return /^https?:\/\//i.test(text.trim());
}

/** PEMs copied into environment variables often arrive with literal `\n`; restore the newlines. */
function normalizePem(text: string): string {
  return text.includes('\n') ? text : text.replace(/\\n/g, '\n');
}

/**
 * The account's type: its explicit `type` field when present, else inferred from its fields
 * (username+password → basic, keys[] → api-key, private PEM → private-key, public PEM/URL → public-key,
 * any other string key → secret-key).
 */
export function accountTypeOf(fields: AccountFields): AccountType {
  const declared = stringField(fields, 'type');
  if (
    declared === 'secret-key' ||
    declared === 'private-key' ||
    declared === 'public-key' ||
    declared === 'basic' ||
    declared === 'api-key'
  ) {
    return declared;
  }
  if (stringField(fields, 'username') !== undefined && stringField(fields, 'password') !== undefined) return 'basic';
  if (Array.isArray(ownField(fields, 'keys'))) return 'api-key';
  if (stringField(fields, 'jwks-url') !== undefined || stringField(fields, 'jwksUrl') !== undefined)
    return 'public-key';
  const key = ownField(fields, 'key');
  if (typeof key === 'string') {
    if (isPem(key) || isPem(normalizePem(key))) return /PRIVATE KEY-----/.test(key) ? 'private-key' : 'public-key';
    if (isUrl(key)) return 'public-key';
    return 'secret-key';
  }
  if (key !== null && typeof key === 'object' && !Array.isArray(key)) {
    return Object.hasOwn(key, 'd') ? 'private-key' : 'public-key';
  }
  throw new AccountError('account has no usable key fields (expected key, keys, or username and password)');
}

/** The algorithms an asymmetric key may be used with, from its type and curve. */
export function algorithmsForKey(key: KeyObject): readonly string[] {
  if (key.type === 'secret') return HMAC_ALGORITHMS;
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return RSA_ALGORITHMS;
    case 'rsa-pss':
      return ['PS256', 'PS384', 'PS512'];
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve ?? '';
      const alg = EC_ALGORITHM_BY_CURVE[curve];
      if (!alg) throw new AccountError(`unsupported elliptic curve ${curve || '(unknown)'}`);
      return [alg];
    }
    case 'ed25519':
      return EDDSA_ALGORITHMS;
    default:
      throw new AccountError(`unsupported key type ${key.asymmetricKeyType ?? '(unknown)'}`);
  }
}

function defaultAlgorithm(key: KeyObject): string {
  const first = algorithmsForKey(key)[0];
  if (!first) throw new AccountError('key has no usable algorithm');
  return first;
}

function readPrivateKey(fields: AccountFields): KeyObject {
  const key = ownField(fields, 'key');
  try {
    if (typeof key === 'string') return crypto.createPrivateKey(normalizePem(key));
    if (key !== null && typeof key === 'object' && !Array.isArray(key)) {
      return crypto.createPrivateKey({ key: key as crypto.JsonWebKey, format: 'jwk' });
    }
  } catch {
    // The parser's message can quote key bytes; report only which field failed.
    throw new AccountError('account field `key` is not a readable private key (PEM PKCS#8/PKCS#1/SEC1 or JWK)');
  }
  throw new AccountError('account field `key` is missing');
}

function readPublicKey(fields: AccountFields): KeyObject {
  const key = ownField(fields, 'key');
  try {
    if (typeof key === 'string') {
      const pem = normalizePem(key);
      if (pem.includes('-----BEGIN CERTIFICATE-----')) return new crypto.X509Certificate(pem).publicKey;
      return crypto.createPublicKey(pem);
    }
    if (key !== null && typeof key === 'object' && !Array.isArray(key)) {
      return crypto.createPublicKey({ key: key as crypto.JsonWebKey, format: 'jwk' });
    }
  } catch {
    throw new AccountError('account field `key` is not a readable public key (PEM SPKI, certificate or JWK)');
  }
  throw new AccountError('account field `key` is missing');
}

function readSecretKey(fields: AccountFields): KeyObject {
  const key = stringField(fields, 'key');
  if (key === undefined || key.length === 0) throw new AccountError('account field `key` is missing or empty');
  return crypto.createSecretKey(Buffer.from(key, 'utf8'));
}

/** Narrows `allowed` to `requested` (never widens it); an empty result is a configuration error. */
export function restrictAlgorithms(allowed: readonly string[], requested?: readonly string[]): readonly string[] {
  if (!requested || requested.length === 0) return allowed;
  const result = allowed.filter((alg) => requested.includes(alg));
  if (result.length === 0) {
    throw new AccountError(
      `none of the algorithms ${requested.join(', ')} fits the key (allowed: ${allowed.join(', ')})`,
    );
  }
  return result;
}

function checkHmacLength(key: KeyObject, alg: string): void {
  const min = HMAC_MIN_BYTES[alg] ?? 32;
  if ((key.symmetricKeySize ?? 0) < min) {
    throw new AccountError(`a ${alg} secret must be at least ${min} bytes long`);
  }
}

/** RFC 7638 thumbprint: a stable kid for keys that declare none. */
async function thumbprintOf(publicKey: KeyObject): Promise<string> {
  return calculateJwkThumbprint(publicKey.export({ format: 'jwk' }) as JWK, 'sha256');
}

/**
 * The key that signs tokens for a secret-key or private-key account. `algorithm` (a step parameter)
 * overrides the account's `alg` but must fit the key.
 *
 * @example
 *   const { key, alg, kid } = await signingKeyOf({ key: pem, alg: 'ES256' });
 */
export async function signingKeyOf(fields: AccountFields, algorithm?: string): Promise<SigningKey> {
  const type = accountTypeOf(fields);
  const requested = algorithm ?? stringField(fields, 'alg');
  if (type === 'secret-key') {
    const key = readSecretKey(fields);
    const [alg] = restrictAlgorithms(HMAC_ALGORITHMS, requested ? [requested] : ['HS256']);
    checkHmacLength(key, alg!);
    const kid = stringField(fields, 'kid');
    return kid === undefined ? { key, alg: alg! } : { key, alg: alg!, kid };
  }
  if (type === 'private-key') {
    const key = readPrivateKey(fields);
    const alg = requested ? restrictAlgorithms(algorithmsForKey(key), [requested])[0]! : defaultAlgorithm(key);
    // An empty kid (an unset variable with "" as its fallback) counts as none.
    const kid = stringField(fields, 'kid') || (await thumbprintOf(crypto.createPublicKey(key)));
    return { key, alg, kid };
  }
  throw new AccountError(`a ${type} account cannot sign tokens (use secret-key or private-key)`);
}

/**
 * How tokens are verified for an account: a local key (secret, public, or the public half of a
 * private key) or a remote JWKS URL, with the algorithm allow-list narrowed by `algorithms`.
 * Remote JWKS must use https except on loopback hosts (local development and tests).
 */
export function verificationKeyOf(fields: AccountFields, algorithms?: readonly string[]): VerificationKey {
  const type = accountTypeOf(fields);
  const accountAlg = stringField(fields, 'alg');
  const narrow = (allowed: readonly string[]): readonly string[] =>
    restrictAlgorithms(restrictAlgorithms(allowed, accountAlg ? [accountAlg] : undefined), algorithms);
  if (type === 'secret-key') {
    const key = readSecretKey(fields);
    // Only the HMAC sizes this secret is long enough for (RFC 7518 §3.2).
    const fitting = HMAC_ALGORITHMS.filter((alg) => (key.symmetricKeySize ?? 0) >= (HMAC_MIN_BYTES[alg] ?? 32));
    if (fitting.length === 0) throw new AccountError('an HMAC secret must be at least 32 bytes long');
    return { kind: 'static', key, algorithms: narrow(fitting) };
  }
  if (type === 'private-key') {
    const key = crypto.createPublicKey(readPrivateKey(fields));
    return { kind: 'static', key, algorithms: narrow(algorithmsForKey(key)) };
  }
  if (type === 'public-key') {
    const set = keySetOf(ownField(fields, 'key'));
    if (set) return { kind: 'set', jwks: set, algorithms: narrow(ASYMMETRIC_ALGORITHMS) };
    const key = stringField(fields, 'key');
    const url =
      stringField(fields, 'jwks-url') ?? stringField(fields, 'jwksUrl') ?? (key && isUrl(key) ? key.trim() : undefined);
    if (url !== undefined) return { kind: 'remote', url: jwksUrlOf(url), algorithms: narrow(ASYMMETRIC_ALGORITHMS) };
    const publicKey = readPublicKey(fields);
    return { kind: 'static', key: publicKey, algorithms: narrow(algorithmsForKey(publicKey)) };
  }
  throw new AccountError(`a ${type} account cannot verify tokens (use secret-key, private-key or public-key)`);
}

/** A `{ keys: [...] }` document given as the key, or undefined. */
function keySetOf(key: Json | undefined): { keys: JsonObject[] } | undefined {
  if (key === null || typeof key !== 'object' || Array.isArray(key) || !Object.hasOwn(key, 'keys')) return undefined;
  const keys = key['keys'];
  if (!Array.isArray(keys) || !keys.every((k) => k !== null && typeof k === 'object' && !Array.isArray(k))) {
    throw new AccountError('account field `key` holds a key set whose `keys` is not a list of JWKs');
  }
  return { keys: keys as JsonObject[] };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Parses a JWKS URL, refusing plain http to anything but loopback (keys fetched in clear can be swapped). */
export function jwksUrlOf(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AccountError('JWKS URL is not a valid URL');
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return url;
  throw new AccountError('JWKS URL must use https (plain http is accepted only for loopback hosts)');
}

/**
 * The public JWK of a private-key account, ready for a JWKS document: `kty`, key members, `kid`,
 * `alg`, `use: "sig"`. Never includes private members.
 */
export async function publicJwkOf(fields: AccountFields): Promise<JsonObject> {
  const signing = await signingKeyOf(fields);
  const jwk = crypto.createPublicKey(signing.key).export({ format: 'jwk' });
  const out: JsonObject = {};
  for (const [name, value] of Object.entries(jwk)) {
    if (typeof value === 'string') out[name] = value;
  }
  out['kid'] = signing.kid ?? '';
  out['alg'] = signing.alg;
  out['use'] = 'sig';
  return out;
}
