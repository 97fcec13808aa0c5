/**
 * OAuth 2.0 client-credentials tokens for `rest` steps whose account is `oauth2 { token-url,
 * client-id, client-secret, scope?, audience? }`.
 *
 * In: the account's fields, the execution's clock and abort signal. Out: an access token, fetched
 * from `token-url` (RFC 6749 §4.4: form POST `grant_type=client_credentials`, client authenticated
 * with HTTP Basic per §2.3.1) and cached per account until 30 s before it expires (half its lifetime
 * for tokens shorter than a minute, so short-lived tokens are not fetched on every call).
 * Concurrent calls share one in-flight token request; a caller whose execution aborts stops waiting
 * without cancelling the request for the others.
 *
 * The cache is keyed by the account-fields object: the service keeps one object per declared account
 * for its whole life (`ctx.accounts[name]`), so the key is stable, and a WeakMap lets a discarded
 * account (e.g. a reloaded service) take its token with it. Error messages never contain the client
 * secret, the token or the token endpoint's response body.
 */
import { PipeError } from '../../errors.js';
import type { Clock } from '../../types.js';
import { describeTarget, exchange, type HttpResponse } from './http.js';
import type { AccountFields } from './params.js';

export interface OAuth2Config {
  readonly tokenUrl: URL;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope: string | undefined;
  readonly audience: string | undefined;
}

export interface TokenGrant {
  readonly accessToken: string;
  /** Lifetime in seconds; undefined when the server did not say (the token is kept until a 401). */
  readonly expiresIn: number | undefined;
}

/** Fetches a token; replaceable so the cache's timing rules can be tested without a server. */
export type TokenRequester = (config: OAuth2Config, accountName: string) => Promise<TokenGrant>;

interface CachedToken {
  readonly accessToken: string;
  /** Clock time after which the token is fetched again; undefined = until invalidated. */
  readonly refreshAt: number | undefined;
}

interface Entry {
  current?: CachedToken;
  pending?: Promise<CachedToken>;
}

const REFRESH_MARGIN_MS = 30_000;
const TOKEN_TIMEOUT_MS = 30_000;
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

export class OAuth2TokenCache {
  readonly #entries = new WeakMap<AccountFields, Entry>();

  constructor(private readonly requestToken: TokenRequester = requestClientCredentialsToken) {}

  /** A valid access token for the account: cached, or fetched (once for all concurrent callers). */
  async accessToken(account: AccountFields, accountName: string, clock: Clock, signal: AbortSignal): Promise<string> {
    const config = oauth2ConfigOf(account, accountName);
    let entry = this.#entries.get(account);
    if (entry === undefined) {
      entry = {};
      this.#entries.set(account, entry);
    }
    const current = entry.current;
    if (current !== undefined && (current.refreshAt === undefined || clock.now() < current.refreshAt))
      return current.accessToken;
    entry.pending ??= this.#fetch(entry, config, accountName, clock);
    return (await untilAborted(entry.pending, signal)).accessToken;
  }

  /** Forgets the token after the API refused it (401), unless another call already replaced it. */
  invalidate(account: AccountFields, accessToken: string): void {
    const entry = this.#entries.get(account);
    if (entry?.current?.accessToken === accessToken) delete entry.current;
  }

  async #fetch(entry: Entry, config: OAuth2Config, accountName: string, clock: Clock): Promise<CachedToken> {
    const requestedAt = clock.now();
    try {
      const grant = await this.requestToken(config, accountName);
      const token: CachedToken = {
        accessToken: grant.accessToken,
        refreshAt: refreshTime(requestedAt, grant.expiresIn),
      };
      entry.current = token;
      return token;
    } finally {
      delete entry.pending;
    }
  }
}

/** When to fetch again: 30 s before expiry, or halfway for tokens that live less than a minute. */
export function refreshTime(requestedAt: number, expiresInSeconds: number | undefined): number | undefined {
  if (expiresInSeconds === undefined) return undefined;
  const lifetime = expiresInSeconds * 1000;
  return requestedAt + lifetime - Math.min(REFRESH_MARGIN_MS, lifetime / 2);
}

function accountError(accountName: string, problem: string): PipeError {
  return new PipeError(`rest: account ${accountName}: ${problem}`, { code: 500, kind: 'ACCOUNT_CONFIGURATION' });
}

/** Reads the oauth2 fields; names missing fields, never values. */
export function oauth2ConfigOf(account: AccountFields, accountName: string): OAuth2Config {
  const text = (name: string, required: boolean): string | undefined => {
    const value = Object.hasOwn(account, name) ? account[name] : undefined;
    if (value === undefined || value === null || value === '') {
      if (required) throw accountError(accountName, `oauth2 account lacks '${name}'`);
      return undefined;
    }
    if (typeof value !== 'string') throw accountError(accountName, `'${name}' must be a string`);
    return value;
  };
  let tokenUrl: URL;
  try {
    tokenUrl = new URL(text('token-url', true) ?? '');
  } catch {
    throw accountError(accountName, `'token-url' is not an absolute URL`);
  }
  if (tokenUrl.protocol !== 'https:' && tokenUrl.protocol !== 'http:')
    throw accountError(accountName, `'token-url' must be http(s)`);
  return {
    tokenUrl,
    clientId: text('client-id', true) ?? '',
    clientSecret: text('client-secret', true) ?? '',
    scope: text('scope', false),
    audience: text('audience', false),
  };
}

/** RFC 6749 §2.3.1: id and secret are form-urlencoded before they are joined and base64-encoded. */
export function clientBasicAuthorization(clientId: string, clientSecret: string): string {
  const encode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`, 'utf8').toString('base64')}`;
}

/** The client-credentials grant over HTTP, with its own timeout (it may serve several executions). */
export async function requestClientCredentialsToken(config: OAuth2Config, accountName: string): Promise<TokenGrant> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (config.scope !== undefined) form.set('scope', config.scope);
  if (config.audience !== undefined) form.set('audience', config.audience);
  const response = await exchange(
    {
      url: config.tokenUrl,
      method: 'POST',
      headers: [
        ['content-type', 'application/x-www-form-urlencoded'],
        ['accept', 'application/json'],
        ['authorization', clientBasicAuthorization(config.clientId, config.clientSecret)],
      ],
      body: form.toString(),
    },
    { connectTimeout: TOKEN_TIMEOUT_MS, readTimeout: TOKEN_TIMEOUT_MS, maxResponseSize: MAX_TOKEN_RESPONSE_BYTES },
    new AbortController().signal,
  );
  return grantOf(
    response,
    `rest: account ${accountName}: the token endpoint ${describeTarget('POST', config.tokenUrl)}`,
  );
}

/** Checks a token response (RFC 6749 §5.1 / §5.2). */
export function grantOf(response: HttpResponse, where: string): TokenGrant {
  const document = parseObject(response.body);
  if (response.status < 200 || response.status > 299) {
    const code = document?.['error'];
    // Only the standard error code is echoed: error_description is free text from another system.
    const reason = typeof code === 'string' && /^[\w.-]{1,64}$/.test(code) ? ` (${code})` : '';
    throw new PipeError(`${where} refused the token request: ${response.status}${reason}`, {
      code: 502,
      kind: 'REST_OAUTH2_TOKEN',
    });
  }
  const accessToken = document?.['access_token'];
  if (typeof accessToken !== 'string' || accessToken === '') {
    throw new PipeError(`${where} answered without an access_token`, { code: 502, kind: 'REST_OAUTH2_TOKEN' });
  }
  const tokenType = document?.['token_type'];
  if (tokenType !== undefined && (typeof tokenType !== 'string' || tokenType.toLowerCase() !== 'bearer')) {
    throw new PipeError(`${where} issued a token type other than Bearer`, { code: 502, kind: 'REST_OAUTH2_TOKEN' });
  }
  return { accessToken, expiresIn: secondsOf(document?.['expires_in']) };
}

function parseObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** expires_in as positive seconds; some servers send it as a string. */
function secondsOf(value: unknown): number | undefined {
  const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

/** Waits for a shared promise, but lets this caller leave when its own execution aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
