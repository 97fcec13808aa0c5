/**
 * The `rest` step's parameters, checked and normalised: JSON params in (every `{{ }}` already
 * evaluated, the account's fields in `accountFields`), a `RestParams` record out, or a PipeError 400
 * INVALID_PARAMETER naming the parameter. Pure: no IO, no clock.
 *
 * Example: { url: "https://api.example.com/c/7", query: { expand: ["a", "b"] }, retries: 2 }
 *   → { url: URL("https://api.example.com/c/7?expand=a&expand=b"), method: "GET", retries: 2, … }
 */
import { PipeError } from '../../errors.js';
import type { Json, JsonObject } from '../../types.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type AccountFields = Readonly<Record<string, Json>>;

export interface RestParams {
  /** Target with the `query` parameters already appended. */
  readonly url: URL;
  readonly method: HttpMethod;
  /** Header name/value pairs in declaration order (names as written; HTTP treats them case-insensitively). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** undefined = no body. */
  readonly body: Json | undefined;
  readonly raw: boolean;
  readonly connectTimeout: number;
  readonly readTimeout: number;
  readonly retries: number;
  readonly retryBackoff: number;
  readonly stopOnClientError: boolean;
  readonly stopOnServerError: boolean;
  readonly followRedirects: boolean;
  readonly maxResponseSize: number;
  readonly apiKeyHeader: string;
  readonly apiKeyQuery: string | undefined;
  /** The referenced account's fields (the same object for every call, so it can key caches). */
  readonly account: AccountFields | undefined;
  /** The account's name, for error messages (never its values). */
  readonly accountName: string | undefined;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 900_000;
const MAX_RETRIES = 10;
const MAX_RETRY_BACKOFF_MS = 60_000;
const DEFAULT_MAX_RESPONSE_SIZE = 10 * 1024 * 1024;
const MAX_RESPONSE_SIZE_LIMIT = 1024 * 1024 * 1024;

export function invalidParameter(message: string): PipeError {
  return new PipeError(`rest: ${message}`, { code: 400, kind: 'INVALID_PARAMETER' });
}

/** Reads and checks every parameter. Throws PipeError 400 INVALID_PARAMETER on the first bad one. */
export function parseRestParams(params: JsonObject): RestParams {
  const method = methodOf(params);
  const body = paramOf(params, 'body');
  if (body !== undefined && body !== null && (method === 'GET' || method === 'HEAD')) {
    throw invalidParameter(`a ${method} request cannot have a body`);
  }
  const account = accountOf(params);
  return {
    url: urlOf(params),
    method,
    headers: headersOf(params),
    body: body === null ? undefined : body,
    raw: booleanOf(params, 'raw', false),
    connectTimeout: integerOf(params, 'connect-timeout', DEFAULT_TIMEOUT_MS, 1, MAX_TIMEOUT_MS),
    readTimeout: integerOf(params, 'read-timeout', DEFAULT_TIMEOUT_MS, 1, MAX_TIMEOUT_MS),
    retries: integerOf(params, 'retries', 0, 0, MAX_RETRIES),
    retryBackoff: integerOf(params, 'retry-backoff', 200, 0, MAX_RETRY_BACKOFF_MS),
    stopOnClientError: booleanOf(params, 'stop-on-client-error', false),
    stopOnServerError: booleanOf(params, 'stop-on-server-error', false),
    followRedirects: booleanOf(params, 'follow-redirects', true),
    maxResponseSize: integerOf(params, 'max-response-size', DEFAULT_MAX_RESPONSE_SIZE, 1, MAX_RESPONSE_SIZE_LIMIT),
    apiKeyHeader: headerNameOf(params, 'api-key-header') ?? 'x-api-key',
    apiKeyQuery: nonEmptyStringOf(params, 'api-key-query'),
    account,
    accountName: account === undefined ? undefined : (nonEmptyStringOf(params, 'account') ?? '(unnamed)'),
  };
}

function paramOf(params: JsonObject, name: string): Json | undefined {
  return Object.hasOwn(params, name) ? params[name] : undefined;
}

function methodOf(params: JsonObject): HttpMethod {
  const value = paramOf(params, 'method');
  if (value === undefined || value === null) return 'GET';
  const upper = typeof value === 'string' ? value.toUpperCase() : undefined;
  const method = HTTP_METHODS.find((m) => m === upper);
  if (method === undefined) throw invalidParameter(`method must be one of ${HTTP_METHODS.join(', ')}`);
  return method;
}

function urlOf(params: JsonObject): URL {
  const value = paramOf(params, 'url');
  if (typeof value !== 'string' || value === '') throw invalidParameter('url is required');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidParameter('url is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidParameter('url must start with http:// or https://');
  // Credentials in the URL would bypass accounts and end up in logs; accounts are the place for them.
  if (url.username !== '' || url.password !== '')
    throw invalidParameter('url must not contain user:password@; use an account');
  for (const [name, value] of queryPairs(params)) url.searchParams.append(name, value);
  return url;
}

function queryPairs(params: JsonObject): Array<[string, string]> {
  const query = paramOf(params, 'query');
  if (query === undefined || query === null) return [];
  if (typeof query !== 'object' || Array.isArray(query)) throw invalidParameter('query must be an object');
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === null) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) pairs.push([name, scalarText(item, `query.${name}`)]);
  }
  return pairs;
}

function headersOf(params: JsonObject): Array<readonly [string, string]> {
  const headers = paramOf(params, 'headers');
  if (headers === undefined || headers === null) return [];
  if (typeof headers !== 'object' || Array.isArray(headers)) throw invalidParameter('headers must be an object');
  const pairs: Array<readonly [string, string]> = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === null) continue;
    if (!isHeaderName(name)) throw invalidParameter(`headers: '${name}' is not a valid header name`);
    const text = scalarText(value, `headers.${name}`);
    // Header values cannot carry line breaks (request splitting) or other control characters.
    if (/[\0-\x08\x0a-\x1f\x7f]/.test(text)) throw invalidParameter(`headers.${name} contains a control character`);
    pairs.push([name, text]);
  }
  return pairs;
}

/** RFC 9110 token characters. */
export function isHeaderName(name: string): boolean {
  return /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name);
}

function scalarText(value: Json, where: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw invalidParameter(`${where} must be a string, number or boolean`);
}

function booleanOf(params: JsonObject, name: string, fallback: boolean): boolean {
  const value = paramOf(params, name);
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw invalidParameter(`${name} must be true or false`);
  return value;
}

function integerOf(params: JsonObject, name: string, fallback: number, min: number, max: number): number {
  const value = paramOf(params, name);
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidParameter(`${name} must be a whole number between ${min} and ${max}`);
  }
  return value;
}

function nonEmptyStringOf(params: JsonObject, name: string): string | undefined {
  const value = paramOf(params, name);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalidParameter(`${name} must be a string`);
  return value;
}

function headerNameOf(params: JsonObject, name: string): string | undefined {
  const value = nonEmptyStringOf(params, name);
  if (value !== undefined && !isHeaderName(value)) throw invalidParameter(`${name} is not a valid header name`);
  return value;
}

function accountOf(params: JsonObject): AccountFields | undefined {
  const fields = paramOf(params, 'accountFields');
  if (fields === undefined || fields === null) {
    if (nonEmptyStringOf(params, 'account') !== undefined) {
      throw new PipeError('rest: the account has no fields (is it declared?)', {
        code: 500,
        kind: 'ACCOUNT_CONFIGURATION',
      });
    }
    return undefined;
  }
  if (typeof fields !== 'object' || Array.isArray(fields)) {
    throw new PipeError('rest: the account fields are not an object', { code: 500, kind: 'ACCOUNT_CONFIGURATION' });
  }
  return fields;
}
