/**
 * The service's public JSON Web Key Set: what `/.well-known/jwks.json` serves so other services can
 * verify tokens this service signs with its private-key accounts.
 *
 * In: every account's fields by name. Out: `{ keys: [...] }` with one public JWK (kid, alg,
 * use: "sig") per private-key account, ordered by account name so the document is stable.
 */
import type { Json, JsonObject } from '../types.js';
import { accountTypeOf, publicJwkOf } from './keys.js';

/**
 * @example
 *   await publicJwks({ signer: { key: pem, alg: 'ES256', kid: 'k1' }, openai: { key: 'sk-…' } })
 *   // → { keys: [{ kty: 'EC', crv: 'P-256', x: '…', y: '…', kid: 'k1', alg: 'ES256', use: 'sig' }] }
 */
export async function publicJwks(
  accounts: Readonly<Record<string, Readonly<Record<string, Json>>>>,
): Promise<{ keys: JsonObject[] }> {
  const names = Object.keys(accounts).sort();
  const keys: JsonObject[] = [];
  for (const name of names) {
    const fields = accounts[name];
    if (!fields || !isPrivateKeyAccount(fields)) continue;
    keys.push(await publicJwkOf(fields));
  }
  return { keys };
}

function isPrivateKeyAccount(fields: Readonly<Record<string, Json>>): boolean {
  try {
    return accountTypeOf(fields) === 'private-key';
  } catch {
    // Accounts without key fields (e.g. other connectors' custom accounts) are simply not signers.
    return false;
  }
}
