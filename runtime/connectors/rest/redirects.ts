/**
 * Redirect decisions for the `rest` connector (pure): a request and the 3xx response it got in, the
 * request to send next out (or undefined: the response is final).
 *
 * Follows the fetch standard's method rules (303, and 301/302 after POST, become a GET without body;
 * 307/308 keep method and body) and drops every credential when the origin changes — Authorization,
 * Cookie, Proxy-Authorization, the account's API-key header and API-key query parameter — so a
 * redirect cannot hand an account's secret to another host (or to plain http).
 */
import type { HttpRequest } from './http.js';

export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
/** Headers that describe a body; dropped together with the body. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

/** Where an account put its secret: dropped when a redirect leaves the origin. */
export interface SensitiveParts {
  readonly headers: readonly string[];
  readonly query: readonly string[];
}

/**
 * @example nextRequest({ url: https://a/x, method: 'POST', … }, 303, '/y', { headers: [], query: [] })
 *   → { url: https://a/y, method: 'GET', body: undefined, headers without content-type }
 * @example a 307 to https://b/ drops Authorization and the api-key header and query parameter.
 */
export function nextRequest(
  request: HttpRequest,
  status: number,
  location: string | null,
  sensitive: SensitiveParts,
): HttpRequest | undefined {
  if (!REDIRECT_STATUSES.has(status) || location === null) return undefined;
  let url: URL;
  try {
    url = new URL(location, request.url);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const becomesGet =
    status === 303 ? request.method !== 'HEAD' : (status === 301 || status === 302) && request.method === 'POST';
  const dropped = new Set<string>();
  if (becomesGet) for (const name of BODY_HEADERS) dropped.add(name);
  if (url.origin !== request.url.origin) {
    for (const name of [...CREDENTIAL_HEADERS, ...sensitive.headers]) dropped.add(name.toLowerCase());
    for (const name of sensitive.query) url.searchParams.delete(name);
  }
  return {
    url,
    method: becomesGet ? 'GET' : request.method,
    headers: request.headers.filter(([name]) => !dropped.has(name.toLowerCase())),
    body: becomesGet ? undefined : request.body,
  };
}
