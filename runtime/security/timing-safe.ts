/**
 * Constant-time comparison of secrets (API keys, passwords, digests).
 *
 * In: two strings or byte arrays. Out: whether they are equal. Both sides are hashed with SHA-256
 * first, so the comparison always runs over 32 bytes and neither the content nor the length of the
 * expected secret leaks through timing. `crypto.timingSafeEqual` is reached through the module
 * object (not a named import) so tests can observe that it is used.
 */
import crypto from 'node:crypto';

/** SHA-256 of a UTF-8 string or bytes. */
function digest(value: string | Uint8Array): Buffer {
  return crypto.createHash('sha256').update(value).digest();
}

/**
 * Whether `given` equals `expected`, in time independent of where they differ and of their lengths.
 *
 * @example
 *   timingSafeEqualSecrets(req.headers.get('x-api-key') ?? '', account.key) // true / false
 */
export function timingSafeEqualSecrets(given: string | Uint8Array, expected: string | Uint8Array): boolean {
  return crypto.timingSafeEqual(digest(given), digest(expected));
}

/**
 * Whether `given` equals any of `candidates`. Every candidate is compared (no early exit), so the
 * time does not reveal which key matched or how many keys exist before it. Returns the index of the
 * match, or -1.
 */
export function timingSafeIndexOf(given: string, candidates: readonly string[]): number {
  let found = -1;
  for (let i = 0; i < candidates.length; i++) {
    const equal = timingSafeEqualSecrets(given, candidates[i] ?? '');
    // Branch-free select keeps the first match without leaving the loop early.
    found = found === -1 && equal ? i : found;
  }
  return found;
}

/**
 * Constant-time equality of two byte arrays of the SAME, public length (e.g. a derived hash vs the
 * stored one, whose length is part of the public encoding). Unequal lengths return false.
 */
export function timingSafeEqualBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  return crypto.timingSafeEqual(a, b);
}
