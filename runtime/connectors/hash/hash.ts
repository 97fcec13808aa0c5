/**
 * The `hash` connector: password-style hashing and verification, random secrets, and SHA-256 digests.
 *
 * In: params `{ operation, value?, hash?, bytes? }` (see schema.json). Out:
 *   hash   → { hash: "scrypt$32768$8$1$<salt>$<key>" }   salted scrypt, self-describing, base64url parts
 *   verify → { valid: boolean }                           constant-time comparison of derived keys
 *   random → { value: "<bytes random bytes, base64url>" } client secrets, refresh tokens
 *   sha256 → { hash: "<hex>" }                            fast digest for looking up high-entropy tokens,
 *                                                         NOT for passwords (use hash/verify)
 * scrypt runs on the libuv thread pool (async), so hashing does not block the event loop.
 */
import crypto from 'node:crypto';
import { PipeError } from '../../errors.js';
import { timingSafeEqualBytes } from '../../security/timing-safe.js';
import type { ConnectorRun, Json, JsonObject } from '../../types.js';

/** Cost parameters of new hashes: N=2^15, r=8 (32 MiB, tens of ms), p=1. Stored hashes carry their own. */
export const SCRYPT_DEFAULTS = { N: 32768, r: 8, p: 1, saltBytes: 16, keyBytes: 32 } as const;
/** Bounds on parameters read from a stored hash, so a crafted hash cannot demand unbounded memory or CPU. */
const SCRYPT_LIMITS = {
  maxN: 2 ** 20,
  maxR: 32,
  maxP: 16,
  maxMemoryBytes: 256 * 1024 * 1024,
  minSalt: 8,
  maxSalt: 64,
  minKey: 16,
  maxKey: 64,
} as const;
/** Longest value hashed or verified: a password or secret, not a document. */
const MAX_SECRET_LENGTH = 4096;
/** Longest value digested with sha256. */
const MAX_DIGEST_INPUT_LENGTH = 1024 * 1024;
const DEFAULT_RANDOM_BYTES = 32;
const MAX_RANDOM_BYTES = 1024;

interface ScryptHash {
  readonly N: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly key: Buffer;
}

/**
 * @example
 *   const { hash } = await run({ operation: 'hash', value: clientSecret }, message, ctx);
 *   const { valid } = await run({ operation: 'verify', value: presented, hash }, message, ctx);
 */
export const run: ConnectorRun = async (params): Promise<JsonObject> => {
  switch (params['operation']) {
    case 'hash':
      return { hash: await hashSecret(secretValue(params)) };
    case 'verify':
      return { valid: await verifySecret(secretValue(params), storedHash(params)) };
    case 'random':
      return { value: crypto.randomBytes(randomLength(params)).toString('base64url') };
    case 'sha256':
      return {
        hash: crypto
          .createHash('sha256')
          .update(stringParam(params, 'value', MAX_DIGEST_INPUT_LENGTH))
          .digest('hex'),
      };
    default:
      throw invalidParameter('operation must be hash, verify, random or sha256');
  }
};

function invalidParameter(message: string): PipeError {
  return new PipeError(`hash: ${message}`, { code: 400, kind: 'INVALID_PARAMETER' });
}

function param(params: JsonObject, name: string): Json | undefined {
  return Object.hasOwn(params, name) ? params[name] : undefined;
}

function stringParam(params: JsonObject, name: string, maxLength: number): string {
  const value = param(params, name);
  if (typeof value !== 'string') throw invalidParameter(`${name} must be a string`);
  if (value.length > maxLength) throw invalidParameter(`${name} is longer than ${maxLength} characters`);
  return value;
}

function secretValue(params: JsonObject): string {
  return stringParam(params, 'value', MAX_SECRET_LENGTH);
}

function storedHash(params: JsonObject): ScryptHash {
  const encoded = stringParam(params, 'hash', 512);
  const parsed = parseScryptHash(encoded);
  if (!parsed) throw new PipeError('hash: hash is not a valid scrypt hash', { code: 400, kind: 'INVALID_HASH' });
  return parsed;
}

function randomLength(params: JsonObject): number {
  const value = param(params, 'bytes');
  if (value === undefined || value === null) return DEFAULT_RANDOM_BYTES;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_RANDOM_BYTES) {
    throw invalidParameter(`bytes must be a whole number between 1 and ${MAX_RANDOM_BYTES}`);
  }
  return value;
}

function deriveKey(value: string, hash: Omit<ScryptHash, 'key'>, keyBytes: number): Promise<Buffer> {
  // Node refuses scrypt above `maxmem` (32 MiB by default); allow exactly what these parameters need.
  const maxmem = 128 * hash.N * hash.r * 2;
  return new Promise((resolve, reject) => {
    crypto.scrypt(
      value.normalize('NFC'),
      hash.salt,
      keyBytes,
      { N: hash.N, r: hash.r, p: hash.p, maxmem },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

/** A new salted scrypt hash of `value` in the `scrypt$N$r$p$salt$key` form. */
export async function hashSecret(value: string): Promise<string> {
  const { N, r, p, saltBytes, keyBytes } = SCRYPT_DEFAULTS;
  const salt = crypto.randomBytes(saltBytes);
  const key = await deriveKey(value, { N, r, p, salt }, keyBytes);
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `value` matches a stored hash; the derived and stored keys are compared in constant time. */
export async function verifySecret(value: string, hash: ScryptHash): Promise<boolean> {
  const derived = await deriveKey(value, hash, hash.key.length);
  return timingSafeEqualBytes(derived, hash.key);
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Parses `scrypt$N$r$p$salt$key`, refusing anything malformed or outside SCRYPT_LIMITS. */
export function parseScryptHash(encoded: string): ScryptHash | null {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map((part) => (/^[1-9][0-9]{0,9}$/.test(part) ? Number(part) : NaN)) as [
    number,
    number,
    number,
  ];
  const [saltText, keyText] = [parts[4] ?? '', parts[5] ?? ''];
  if (!(N > 1 && N <= SCRYPT_LIMITS.maxN && (N & (N - 1)) === 0)) return null;
  if (!(r >= 1 && r <= SCRYPT_LIMITS.maxR && p >= 1 && p <= SCRYPT_LIMITS.maxP)) return null;
  if (128 * N * r > SCRYPT_LIMITS.maxMemoryBytes) return null;
  if (!BASE64URL.test(saltText) || !BASE64URL.test(keyText)) return null;
  const salt = Buffer.from(saltText, 'base64url');
  const key = Buffer.from(keyText, 'base64url');
  if (salt.length < SCRYPT_LIMITS.minSalt || salt.length > SCRYPT_LIMITS.maxSalt) return null;
  if (key.length < SCRYPT_LIMITS.minKey || key.length > SCRYPT_LIMITS.maxKey) return null;
  return { N, r, p, salt, key };
}
