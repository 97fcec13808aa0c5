/**
 * Keys a service makes for itself, so that a service started with no configuration (`npm start`)
 * signs with a key nobody else has, instead of a key published with the examples.
 *
 * - A `private-key` account whose `key` is empty (its environment variable unset) gets a key pair
 *   made at its first start and kept in `<data folder>/keys/<account>.pem` (mode 0600): tokens it
 *   signs stay valid across restarts. Each replica with its own data folder makes its own key, and
 *   the key is only as safe as that folder: this is for development. With `NODE_ENV=production`
 *   the service refuses to start instead. Production keys come from the environment
 *   (`env("TOKEN_SIGNING_KEY")`) or a file (`TOKEN_SIGNING_KEY_FILE`, see env-values.ts).
 * - A `public-key` account whose `key` is `/.well-known/jwks.json` verifies with the service's own
 *   key set: the public halves of its private-key accounts, the document that path serves. A
 *   verifier in the same service as the signer then needs no key of its own.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Json } from '../types.js';
import { publicJwks } from './jwks.js';
import { AccountError, stringField } from './keys.js';

export type Accounts = Readonly<Record<string, Readonly<Record<string, Json>>>>;

/** The `key` of a public-key account that means "this service's own JWKS". */
export const OWN_JWKS_KEY = '/.well-known/jwks.json';

/** Key pairs for each algorithm an account may declare. */
const KEY_PAIRS: Readonly<Record<string, () => crypto.KeyObject>> = {
  ES256: () => crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey,
  ES384: () => crypto.generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey,
  ES512: () => crypto.generateKeyPairSync('ec', { namedCurve: 'secp521r1' }).privateKey,
  EdDSA: () => crypto.generateKeyPairSync('ed25519').privateKey,
  RS256: rsa,
  RS384: rsa,
  RS512: rsa,
  PS256: rsa,
  PS384: rsa,
  PS512: rsa,
};

function rsa(): crypto.KeyObject {
  return crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
}

export interface DevelopmentKeyOptions {
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  /** Told once per account that got a made key (never the key itself). */
  readonly onMadeKey: (account: string, file: string, created: boolean) => void;
}

function missing(value: Json | undefined): boolean {
  return value === undefined || value === null || value === '';
}

/** Accounts with a key for every key-less private-key account (made or read from the data folder). */
export function withDevelopmentKeys(accounts: Accounts, opts: DevelopmentKeyOptions): Accounts {
  const keyless = Object.keys(accounts).filter(
    (name) => accounts[name]?.['type'] === 'private-key' && missing(accounts[name]?.['key']),
  );
  if (keyless.length === 0) return accounts;
  if (opts.env['NODE_ENV'] === 'production') {
    throw new AccountError(
      `account ${keyless.join(', ')} has no key, and a production service does not make its own: ` +
        'set its key variable (or NAME_FILE)',
    );
  }
  const out: Record<string, Readonly<Record<string, Json>>> = Object.create(null) as Record<
    string,
    Readonly<Record<string, Json>>
  >;
  for (const [name, fields] of Object.entries(accounts)) {
    if (!keyless.includes(name)) {
      out[name] = fields;
      continue;
    }
    const { pem, file, created } = developmentKey(name, stringField(fields, 'alg') ?? 'ES256', opts.dataDir);
    opts.onMadeKey(name, file, created);
    out[name] = Object.freeze({ ...fields, key: pem });
  }
  return Object.freeze(out);
}

/** Reads `<dataDir>/keys/<account>.pem`, making it first when it does not exist. */
function developmentKey(
  account: string,
  alg: string,
  dataDir: string,
): { pem: string; file: string; created: boolean } {
  const dir = path.join(dataDir, 'keys');
  const file = path.join(dir, `${account.replace(/[^A-Za-z0-9_-]/g, '_')}.pem`);
  if (fs.existsSync(file)) return { pem: fs.readFileSync(file, 'utf8'), file, created: false };
  const make = KEY_PAIRS[alg];
  if (!make) throw new AccountError(`account ${account}: cannot make a development key for alg ${alg}`);
  const pem = make().export({ type: 'pkcs8', format: 'pem' }).toString();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    // `wx`: two replicas starting on one folder do not overwrite each other's key.
    fs.writeFileSync(file, pem, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      return { pem: fs.readFileSync(file, 'utf8'), file, created: false };
    throw err;
  }
  return { pem, file, created: true };
}

/** Accounts whose public-key `key` is OWN_JWKS_KEY get the service's own key set as their key. */
export async function withOwnKeySet(accounts: Accounts): Promise<Accounts> {
  const verifiers = Object.keys(accounts).filter(
    (name) => accounts[name]?.['type'] === 'public-key' && accounts[name]?.['key'] === OWN_JWKS_KEY,
  );
  if (verifiers.length === 0) return accounts;
  const own = await publicJwks(accounts);
  const out: Record<string, Readonly<Record<string, Json>>> = Object.create(null) as Record<
    string,
    Readonly<Record<string, Json>>
  >;
  for (const [name, fields] of Object.entries(accounts)) {
    out[name] = verifiers.includes(name) ? Object.freeze({ ...fields, key: own }) : fields;
  }
  return Object.freeze(out);
}
