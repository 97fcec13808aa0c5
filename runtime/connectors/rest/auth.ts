/**
 * Account → credentials for one `rest` request. In: the step's account fields (`type` plus the
 * type's fields) and api-key placement; out: the headers and query parameters to add, and where the
 * secret went (so redirects can drop it). Supported types:
 *   basic   { username, password }  → Authorization: Basic base64(username:password)   (RFC 7617)
 *   bearer  { token }               → Authorization: Bearer <token>
 *   api-key { key }                 → <api-key-header>: <key>, or ?<api-key-query>=<key>
 *   secret-key { key }              → the same as api-key (a key the API takes as its API key)
 *   oauth2  { token-url, client-id, client-secret, scope?, audience? } → Authorization: Bearer <cached token>
 * Errors name the account and the missing field, never a value.
 */
import { PipeError } from '../../errors.js';
import type { ExecutionContext } from '../../types.js';
import type { OAuth2TokenCache } from './oauth2-token-cache.js';
import type { AccountFields, RestParams } from './params.js';
import type { SensitiveParts } from './redirects.js';

export interface Credentials {
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly query: ReadonlyArray<readonly [string, string]>;
  readonly sensitive: SensitiveParts;
  /** The OAuth2 access token used, so a 401 can invalidate exactly this token. */
  readonly oauth2Token?: string;
}

export const NO_CREDENTIALS: Credentials = { headers: [], query: [], sensitive: { headers: [], query: [] } };

export const ACCOUNT_TYPES = ['basic', 'bearer', 'api-key', 'secret-key', 'oauth2'] as const;

function accountError(accountName: string, problem: string): PipeError {
  return new PipeError(`rest: account ${accountName}: ${problem}`, { code: 500, kind: 'ACCOUNT_CONFIGURATION' });
}

function requiredField(account: AccountFields, accountName: string, field: string): string {
  const value = Object.hasOwn(account, field) ? account[field] : undefined;
  if (typeof value !== 'string' || value === '')
    throw accountError(accountName, `the ${String(account['type'])} account lacks '${field}'`);
  // A line break in a header value would split the request; the value itself is never echoed.
  if (/[\0-\x08\x0a-\x1f\x7f]/.test(value)) throw accountError(accountName, `'${field}' contains a control character`);
  return value;
}

function bearer(token: string): Credentials {
  return { headers: [['authorization', `Bearer ${token}`]], query: [], sensitive: { headers: [], query: [] } };
}

/** The credentials the request carries; NO_CREDENTIALS when the step names no account. */
export async function credentialsFor(
  params: RestParams,
  ctx: ExecutionContext,
  tokens: OAuth2TokenCache,
): Promise<Credentials> {
  const account = params.account;
  if (account === undefined) return NO_CREDENTIALS;
  const name = params.accountName ?? '(unnamed)';
  const type = Object.hasOwn(account, 'type') ? account['type'] : undefined;
  switch (type) {
    case 'basic': {
      const username = requiredField(account, name, 'username');
      if (username.includes(':')) throw accountError(name, `'username' cannot contain ':' with Basic authentication`);
      const password = requiredField(account, name, 'password');
      const encoded = Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
      return { headers: [['authorization', `Basic ${encoded}`]], query: [], sensitive: { headers: [], query: [] } };
    }
    case 'bearer':
      return bearer(requiredField(account, name, 'token'));
    case 'api-key':
    case 'secret-key': {
      const key = requiredField(account, name, 'key');
      if (params.apiKeyQuery !== undefined) {
        return {
          headers: [],
          query: [[params.apiKeyQuery, key]],
          sensitive: { headers: [], query: [params.apiKeyQuery] },
        };
      }
      return {
        headers: [[params.apiKeyHeader, key]],
        query: [],
        sensitive: { headers: [params.apiKeyHeader], query: [] },
      };
    }
    case 'oauth2': {
      const token = await tokens.accessToken(account, name, ctx.services.clock, ctx.signal);
      return { ...bearer(token), oauth2Token: token };
    }
    default:
      throw accountError(
        name,
        `type ${typeof type === 'string' ? `'${type}' ` : ''}is not supported by rest (use ${ACCOUNT_TYPES.join(', ')})`,
      );
  }
}
