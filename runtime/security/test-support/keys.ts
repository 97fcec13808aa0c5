/**
 * Test fixtures: freshly generated key pairs as PEM, and account records built from them.
 * Generated per test run (never committed), so no real key ever sits in the repository.
 */
import crypto from 'node:crypto';

export interface PemPair {
  readonly privatePem: string;
  readonly publicPem: string;
}

function pemPair(pair: crypto.KeyPairKeyObjectResult): PemPair {
  return {
    privatePem: pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicPem: pair.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}

export const rsaPair = (): PemPair => pemPair(crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }));
export const ecPair = (): PemPair => pemPair(crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }));
export const edPair = (): PemPair => pemPair(crypto.generateKeyPairSync('ed25519'));

/** A 32-byte HMAC secret as text. */
export const hmacSecret = (): string => crypto.randomBytes(32).toString('base64url').slice(0, 40);
