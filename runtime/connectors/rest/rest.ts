/**
 * The `rest` connector (REST V2): calls an HTTP API and outputs `{ status, statusMessage, body,
 * headers }` (see schema.json for every parameter).
 *
 * In: params with every `{{ }}` evaluated and, when the step names an account, its fields in
 * `params.accountFields`. Out: the response as data — also for 4xx/5xx unless stop-on-client-error /
 * stop-on-server-error, which throw PipeError(code = status, kind REST_CLIENT_ERROR / RATE_LIMITED (429) /
 * REST_SERVER_ERROR, details { status, body, retryAfter? }). Calls go through the circuit breaker
 * of the URL's origin (503 CIRCUIT_OPEN while it is open). Transport failures throw 502 REST_UNREACHABLE,
 * 504 TIMEOUT or 502 REST_RESPONSE_TOO_LARGE.
 * Order of work per call: parse params → [attempt: credentials → send (following redirects) →
 * on 401 with an oauth2 account, refresh the token once and resend] → retry 5xx / network errors →
 * stop-on-*-error check. Logs carry method, origin and path only: never headers, query or bodies.
 */
import { PipeError } from '../../errors.js';
import type { ConnectorRun, ExecutionContext, JsonObject } from '../../types.js';
import { credentialsFor, type Credentials } from './auth.js';
import { describeTarget, exchange, RestTransportError, type HttpRequest, type HttpResponse } from './http.js';
import { OAuth2TokenCache } from './oauth2-token-cache.js';
import { invalidParameter, parseRestParams, type RestParams } from './params.js';
import { MAX_REDIRECTS, nextRequest, type SensitiveParts } from './redirects.js';
import { toOutput } from './response.js';
import { withRetries } from './retry.js';

/** For the service's shutdown: closes the keep-alive connection pools of every rest step. */
export { closeConnectionPools } from './http.js';

/**
 * Tokens of oauth2 accounts, shared by every rest step of the process (a token is per account, not
 * per step). Module-level because `run` is the connector contract; entries are weakly keyed by the
 * account objects (see oauth2-token-cache.ts).
 */
const oauth2Tokens = new OAuth2TokenCache();

/**
 * @example
 *   await run({ url: 'https://api.example.com/customers/42', method: 'GET', account: 'crm',
 *               accountFields: { type: 'bearer', token: '…' }, retries: 2 }, message, ctx)
 *   // → { status: 200, statusMessage: 'OK', body: { id: 42, … }, headers: { 'content-type': 'application/json' } }
 */
export const run: ConnectorRun = async (params, _message, ctx) => {
  const spec = parseRestParams(params);
  const target = describeTarget(spec.method, spec.url);
  try {
    const response = await withRetries<HttpResponse>(
      {
        retries: spec.retries,
        baseMs: spec.retryBackoff,
        signal: ctx.signal,
        retryResult: (result) => result.status >= 500,
        retryError: (err) => err instanceof RestTransportError && err.retryable,
        onRetry: (attempt, delayMs, outcome) => {
          const why = 'result' in outcome ? { status: outcome.result.status } : { err: errorText(outcome.error) };
          ctx.log.warn({ target, attempt, delayMs, ...why }, 'rest: retrying');
        },
      },
      // Each attempt goes through the circuit breaker of the target's origin: a host that keeps
      // failing (unreachable, timeouts, 5xx) is not called while its circuit is open (503 CIRCUIT_OPEN).
      () =>
        ctx.services.connections.guard(`rest ${spec.url.origin}`, () => sendAuthenticated(spec, ctx), {
          failed: (err) => err instanceof RestTransportError || (err instanceof PipeError && err.kind === 'TIMEOUT'),
          failedResult: (result) => result.status >= 500,
        }),
    );
    const output = toOutput(response);
    ctx.log.debug({ target, status: response.status }, 'rest: response');
    stopOnErrorStatus(spec, target, response, output);
    return output;
  } catch (err) {
    if (err instanceof PipeError) throw err;
    // A wait ended by the execution's abort signal rejects with the signal's reason.
    if (ctx.signal.aborted)
      throw new PipeError(`rest: ${target} was aborted (execution timeout or shutdown)`, {
        code: 504,
        kind: 'TIMEOUT',
        cause: err,
      });
    throw err;
  }
};

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** One attempt: with the account's credentials; after a 401, a fresh OAuth2 token and one more try. */
async function sendAuthenticated(spec: RestParams, ctx: ExecutionContext): Promise<HttpResponse> {
  const credentials = await credentialsFor(spec, ctx, oauth2Tokens);
  const response = await sendFollowingRedirects(requestOf(spec, credentials), spec, credentials.sensitive, ctx);
  if (response.status !== 401 || credentials.oauth2Token === undefined || spec.account === undefined) return response;
  oauth2Tokens.invalidate(spec.account, credentials.oauth2Token);
  ctx.log.info(
    { target: describeTarget(spec.method, spec.url) },
    'rest: 401 with an OAuth2 token; fetching a new token',
  );
  const fresh = await credentialsFor(spec, ctx, oauth2Tokens);
  return sendFollowingRedirects(requestOf(spec, fresh), spec, fresh.sensitive, ctx);
}

async function sendFollowingRedirects(
  first: HttpRequest,
  spec: RestParams,
  sensitive: SensitiveParts,
  ctx: ExecutionContext,
): Promise<HttpResponse> {
  let request = first;
  for (let redirects = 0; ; redirects++) {
    const response = await exchange(request, spec, ctx.signal);
    if (!spec.followRedirects) return response;
    const next = nextRequest(request, response.status, response.headers.get('location'), sensitive);
    if (next === undefined) return response;
    if (redirects >= MAX_REDIRECTS) {
      throw new PipeError(
        `rest: ${describeTarget(spec.method, spec.url)} redirected more than ${MAX_REDIRECTS} times`,
        {
          code: 502,
          kind: 'REST_TOO_MANY_REDIRECTS',
        },
      );
    }
    request = next;
  }
}

/** The first request: params + credentials (the account's headers replace same-named step headers). */
export function requestOf(spec: RestParams, credentials: Credentials): HttpRequest {
  const url = new URL(spec.url);
  for (const [name, value] of credentials.query) url.searchParams.set(name, value);
  const accountHeaders = new Set(credentials.headers.map(([name]) => name.toLowerCase()));
  const headers = spec.headers.filter(([name]) => !accountHeaders.has(name.toLowerCase()));
  const payload = encodeBody(spec, headerValue(headers, 'content-type'));
  if (payload.contentType !== undefined) headers.push(['content-type', payload.contentType]);
  return { url, method: spec.method, headers: [...headers, ...credentials.headers], body: payload.text };
}

function headerValue(headers: ReadonlyArray<readonly [string, string]>, name: string): string | undefined {
  return headers.find(([candidate]) => candidate.toLowerCase() === name)?.[1];
}

interface EncodedBody {
  readonly text: string | undefined;
  /** Set only when the step did not declare a Content-Type. */
  readonly contentType: string | undefined;
}

/** The body as text: JSON by default; raw → as given; object + form Content-Type → urlencoded. */
export function encodeBody(spec: RestParams, declaredContentType: string | undefined): EncodedBody {
  const body = spec.body;
  if (body === undefined) return { text: undefined, contentType: undefined };
  const mediaType = declaredContentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (spec.raw) {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return { text, contentType: declaredContentType === undefined ? 'text/plain; charset=utf-8' : undefined };
  }
  if (
    mediaType === 'application/x-www-form-urlencoded' &&
    body !== null &&
    typeof body === 'object' &&
    !Array.isArray(body)
  ) {
    return { text: formEncode(body), contentType: undefined };
  }
  return {
    text: JSON.stringify(body),
    contentType: declaredContentType === undefined ? 'application/json' : undefined,
  };
}

function formEncode(fields: JsonObject): string {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== null && typeof item === 'object')
        throw invalidParameter(`body.${name}: a form field must be a string, number, boolean or list of them`);
      if (item !== null) form.append(name, String(item));
    }
  }
  return form.toString();
}

function stopOnErrorStatus(spec: RestParams, target: string, response: HttpResponse, output: JsonObject): void {
  const status = response.status;
  const client = status >= 400 && status <= 499 && spec.stopOnClientError;
  const server = status >= 500 && status <= 599 && spec.stopOnServerError;
  if (!client && !server) return;
  const reason = response.statusText === '' ? '' : ` ${response.statusText}`;
  // Retry-After of a 429 or 503 travels with the error: the step's `retry` waits what it says.
  const retryAfter = status === 429 || status === 503 ? response.headers.get('retry-after') : null;
  throw new PipeError(`rest: ${target} answered ${status}${reason}`, {
    code: status,
    kind: status === 429 ? 'RATE_LIMITED' : client ? 'REST_CLIENT_ERROR' : 'REST_SERVER_ERROR',
    details: { status, body: output['body'] ?? null, ...(retryAfter !== null ? { retryAfter } : {}) },
  });
}
