/**
 * How an execution's ending becomes an HTTP response (pure; no Hono types).
 * - `Reply` (a `respond` step) → its status, body and headers.
 * - A final message `{ code, error, … }` → status `code`, the message as body (Digibee convention).
 * - A final message `{ code, body, "Content-Type"?, headers? }` → status `code`, body `body`.
 * - Anything else → 200 with the Digibee wrapper `{ "body": <final message> }`.
 * - A failure → status `err.code`, the standard error object as body.
 */
import { NO_HEADERS, Reply, type Json, type JsonObject } from '../types.js';

export interface HttpResponseParts {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** null for statuses that must not carry a body (204, 304). */
  readonly body: string | null;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';
/** Set by the HTTP layer itself; a pipeline must not forge them. */
const RESERVED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade']);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const NO_BODY_STATUSES = new Set([204, 205, 304]);

export function isHttpStatus(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 200 && value <= 599;
}

function isObject(value: Json | undefined): value is JsonObject {
  return value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);
}

/** True when the record has an own enumerable key (without listing them all). */
function hasAnyKey(record: object): boolean {
  for (const key in record) if (Object.hasOwn(record, key)) return true;
  return false;
}

/** Keeps valid header names with string-ish values free of line breaks. */
function safeHeaders(
  source: Readonly<Record<string, Json>> | Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!hasAnyKey(source)) return out;
  for (const [name, raw] of Object.entries(source)) {
    if (!TOKEN.test(name) || RESERVED_HEADERS.has(name.toLowerCase())) continue;
    if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') continue;
    const value = String(raw);
    if (/[\r\n\0]/.test(value)) continue;
    out[name.toLowerCase()] = value;
  }
  return out;
}

/** Serialises a body: strings as text unless a content type says otherwise, the rest as JSON. */
function withBody(
  status: number,
  body: Json,
  headers: Record<string, string>,
  contentType?: string,
): HttpResponseParts {
  if (NO_BODY_STATUSES.has(status)) return { status, headers, body: null };
  const type = contentType ?? headers['content-type'];
  // `headers` is this response's own record (safeHeaders or a literal): set the type in place.
  headers['content-type'] = type ?? (typeof body === 'string' ? TEXT_TYPE : JSON_TYPE);
  return { status, headers, body: typeof body === 'string' ? body : JSON.stringify(body) };
}

export function mapResult(result: Json | Reply): HttpResponseParts {
  if (result instanceof Reply) {
    const status = isHttpStatus(result.status) ? result.status : 500;
    return withBody(status, result.body, result.headers === NO_HEADERS ? {} : safeHeaders(result.headers));
  }
  if (isObject(result) && isHttpStatus(result['code'])) {
    const status = result['code'];
    if (Object.hasOwn(result, 'error')) return withBody(status, result, {});
    if (Object.hasOwn(result, 'body')) {
      const headers = isObject(result['headers']) ? safeHeaders(result['headers']) : {};
      const declaredType = result['Content-Type'] ?? result['content-type'];
      const contentType = typeof declaredType === 'string' && !/[\r\n\0]/.test(declaredType) ? declaredType : undefined;
      return withBody(status, result['body'] ?? null, headers, contentType);
    }
  }
  return withBody(200, { body: result }, {});
}

export function mapFailure(code: number, errorObject: JsonObject): HttpResponseParts {
  const status = code >= 400 && code <= 599 ? code : 500;
  // A backend away (503 BACKEND_UNAVAILABLE) says when to come back.
  const retryAfter = errorObject['retryAfter'];
  const headers: Record<string, string> =
    (status === 503 || status === 429 || status === 409) && typeof retryAfter === 'number' && retryAfter > 0
      ? { 'retry-after': String(Math.ceil(retryAfter)) }
      : {};
  return withBody(status, errorObject, headers);
}

/** An error body for requests refused before an execution existed (404, 400, 413, 503). */
export function requestError(code: number, message: string, now: number, extra: JsonObject = {}): HttpResponseParts {
  return mapFailure(code, { ...extra, timestamp: now, error: message, message, code });
}

export function toWebResponse(parts: HttpResponseParts): Response {
  return new Response(parts.body, { status: parts.status, headers: parts.headers });
}
