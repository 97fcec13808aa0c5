/**
 * One HTTP exchange for the `rest` connector: request in, status + headers + body bytes out, with the
 * connect timeout, read timeout, response size limit and the execution's abort signal applied.
 * Failures become PipeErrors (504 TIMEOUT, 502 REST_UNREACHABLE, 502 REST_RESPONSE_TOO_LARGE); the
 * `retryable` flag says whether the request can be sent again safely (it never reached the server,
 * or the connection broke).
 *
 * undici's own `fetch` is used with an undici `Agent` (not Node's global fetch): the connect
 * timeout is an Agent option, and an Agent is only guaranteed to work with the fetch of the same
 * undici version — Node's bundled undici changes with the Node version.
 * Redirects are never followed here (`redirect: 'manual'`): redirects.ts decides, so credentials
 * never travel to another origin.
 * Error messages carry the origin and path only: query strings may hold API keys.
 */
import type { Agent, Headers } from 'undici';
import { PipeError, type PipeErrorOptions } from '../../errors.js';
import { activeTraceHeaders } from '../../observability/propagation.js';

export interface HttpRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: string | undefined;
}

export interface HttpLimits {
  readonly connectTimeout: number;
  readonly readTimeout: number;
  readonly maxResponseSize: number;
}

export interface HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly body: Uint8Array;
}

/** A transport failure; `retryable` when sending the request again cannot do harm beyond a 5xx retry. */
export class RestTransportError extends PipeError {
  constructor(
    message: string,
    opts: PipeErrorOptions,
    readonly retryable: boolean,
  ) {
    super(message, opts);
  }
}

/**
 * Connection pools by connect timeout. Module-level on purpose: keep-alive connections are only
 * reused when the pool outlives one call. Bounded: past MAX_POOLS distinct timeouts, a call gets a
 * private pool that is closed after it.
 */
const pools = new Map<number, Agent>();
const MAX_POOLS = 16;

function agentOptions(connectTimeout: number): Agent.Options {
  // headers/body timeouts off: the read timeout (an AbortSignal) bounds the whole response instead.
  return { connect: { timeout: connectTimeout }, headersTimeout: 0, bodyTimeout: 0 };
}

/** undici loads with the first REST call, not when a service that has a `rest` step starts. */
type UndiciModule = { readonly Agent: typeof import('undici').Agent; readonly fetch: typeof import('undici').fetch };
let undiciModule: Promise<UndiciModule> | undefined;
function undici(): Promise<UndiciModule> {
  undiciModule ??= import('undici').then((m) => ({ Agent: m.Agent, fetch: m.fetch }));
  return undiciModule;
}

async function withAgent<T>(connectTimeout: number, use: (agent: Agent) => Promise<T>): Promise<T> {
  const pooled = pools.get(connectTimeout);
  if (pooled) return use(pooled);
  const { Agent } = await undici();
  if (pools.size < MAX_POOLS) {
    const agent = new Agent(agentOptions(connectTimeout));
    pools.set(connectTimeout, agent);
    return use(agent);
  }
  const agent = new Agent(agentOptions(connectTimeout));
  try {
    return await use(agent);
  } finally {
    void agent.close();
  }
}

/** Closes the pooled keep-alive connections (service shutdown); later calls open new pools. */
export async function closeConnectionPools(): Promise<void> {
  const agents = [...pools.values()];
  pools.clear();
  await Promise.all(agents.map((agent) => agent.close()));
}

/** Where a request went, safe for messages and logs: no query string, no credentials. */
export function describeTarget(method: string, url: URL): string {
  return `${method} ${url.origin}${url.pathname}`;
}

/** Sends the request and reads the whole response body within the limits. */
export async function exchange(
  request: HttpRequest,
  limits: HttpLimits,
  executionSignal: AbortSignal,
): Promise<HttpResponse> {
  const target = describeTarget(request.method, request.url);
  if (executionSignal.aborted) throw executionAborted(target, executionSignal.reason);
  const readTimer = AbortSignal.timeout(limits.readTimeout);
  const signal = AbortSignal.any([executionSignal, readTimer]);
  try {
    const { fetch } = await undici();
    return await withAgent(limits.connectTimeout, async (dispatcher) => {
      const response = await fetch(request.url, {
        method: request.method,
        headers: withTraceContext(request.headers),
        ...(request.body === undefined ? {} : { body: request.body }),
        redirect: 'manual',
        signal,
        dispatcher,
      });
      const body = await readLimited(response.body, response.headers, limits.maxResponseSize, target);
      return { status: response.status, statusText: response.statusText, headers: response.headers, body };
    });
  } catch (err) {
    if (err instanceof PipeError) throw err;
    if (executionSignal.aborted) throw executionAborted(target, err);
    if (readTimer.aborted) {
      throw new RestTransportError(
        `rest: ${target} did not answer within the read timeout (${limits.readTimeout} ms)`,
        {
          code: 504,
          kind: 'TIMEOUT',
          cause: err,
        },
        false,
      );
    }
    if (causeCode(err) === 'UND_ERR_CONNECT_TIMEOUT') {
      throw new RestTransportError(
        `rest: could not connect to ${target} within the connect timeout (${limits.connectTimeout} ms)`,
        {
          code: 504,
          kind: 'TIMEOUT',
          cause: err,
        },
        true,
      );
    }
    throw new RestTransportError(
      `rest: ${target} is unreachable (${failureText(err)})`,
      {
        code: 502,
        kind: 'REST_UNREACHABLE',
        cause: err,
      },
      true,
    );
  }
}

/**
 * The request headers plus the W3C trace context of the running step (tracing on), unless the
 * step sets `traceparent` itself.
 */
function withTraceContext(headers: ReadonlyArray<readonly [string, string]>): Array<[string, string]> {
  const out = headers.map(([name, value]): [string, string] => [name, value]);
  const trace = activeTraceHeaders();
  for (const name of Object.keys(trace)) {
    if (!headers.some(([existing]) => existing.toLowerCase() === name)) out.push([name, trace[name] as string]);
  }
  return out;
}

function executionAborted(target: string, cause: unknown): PipeError {
  return new PipeError(`rest: ${target} was aborted (execution timeout or shutdown)`, {
    code: 504,
    kind: 'TIMEOUT',
    cause,
  });
}

function tooLarge(target: string, limit: number): PipeError {
  return new PipeError(`rest: the response of ${target} is larger than max-response-size (${limit} bytes)`, {
    code: 502,
    kind: 'REST_RESPONSE_TOO_LARGE',
  });
}

/** Reads the body into memory, refusing more than `limit` bytes (decompressed) before buffering them. */
async function readLimited(
  stream: ReadableStream<Uint8Array> | null,
  headers: Headers,
  limit: number,
  target: string,
): Promise<Uint8Array> {
  if (stream === null) return new Uint8Array(0);
  const declared = Number(headers.get('content-length') ?? Number.NaN);
  // Content-Length counts encoded bytes; only an uncompressed body can be refused before reading.
  if (Number.isFinite(declared) && declared > limit && !headers.has('content-encoding')) {
    await stream.cancel().catch(() => undefined);
    throw tooLarge(target, limit);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(target, limit);
    }
    chunks.push(value);
  }
  return concat(chunks, size);
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function causeCode(err: unknown): string | undefined {
  const cause = err instanceof Error ? err.cause : undefined;
  const code = cause !== null && typeof cause === 'object' && 'code' in cause ? cause.code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** The network-level reason (e.g. "ECONNREFUSED"), never request data. */
function failureText(err: unknown): string {
  const code = causeCode(err);
  if (code !== undefined) return code;
  const cause = err instanceof Error ? err.cause : undefined;
  if (cause instanceof Error) return cause.message;
  return err instanceof Error ? err.message : String(err);
}
