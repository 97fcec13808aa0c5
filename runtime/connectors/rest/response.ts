/**
 * A raw HTTP response → the `rest` step's output `{ status, statusMessage, body, headers }` (pure).
 * body: parsed JSON when the Content-Type says JSON and the text parses, else the text (decoded with
 * the declared charset, UTF-8 by default); null when empty. headers: lower-case names → values;
 * set-cookie is an array (its values cannot be joined with commas safely).
 * Keys coming from the server (`__proto__`, `constructor`…) are stored as own data properties.
 */
import type { Json, JsonObject } from '../../types.js';
import type { HttpResponse } from './http.js';

export function toOutput(response: HttpResponse): JsonObject {
  return {
    status: response.status,
    statusMessage: response.statusText,
    body: bodyOf(response.body, response.headers.get('content-type')),
    headers: headersOf(response.headers),
  };
}

/** Sets an own enumerable property, even for keys like `__proto__` (plain assignment would not). */
function defineData(target: JsonObject, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function headersOf(headers: HttpResponse['headers']): JsonObject {
  const out: JsonObject = {};
  for (const [name, value] of headers) {
    if (name === 'set-cookie') continue;
    defineData(out, name, value);
  }
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) defineData(out, 'set-cookie', cookies);
  return out;
}

/** JSON media types: application/json and any `+json` suffix (application/problem+json, …). */
export function isJsonMediaType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const mediaType = contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return mediaType === 'application/json' || mediaType === 'text/json' || /^[\w.-]+\/[\w.+-]+\+json$/.test(mediaType);
}

export function bodyOf(bytes: Uint8Array, contentType: string | null): Json {
  if (bytes.byteLength === 0) return null;
  const text = decodeText(bytes, charsetOf(contentType));
  if (!isJsonMediaType(contentType)) return text;
  try {
    // JSON.parse defines every key as an own data property, so `__proto__` stays data.
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

function charsetOf(contentType: string | null): string {
  const match = contentType === null ? null : /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return match?.[1] ?? 'utf-8';
}

function decodeText(bytes: Uint8Array, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    // An unknown charset label: UTF-8 is the most likely truth and never throws.
    return new TextDecoder('utf-8').decode(bytes);
  }
}
