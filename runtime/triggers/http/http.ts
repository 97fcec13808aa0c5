/**
 * The HTTP trigger: one Hono route per method + path. The request body is read within
 * `maxBodySize` and parsed before an execution starts (bad requests never take a concurrency
 * slot); the envelope is the message; the trigger's body schema is checked inside the execution
 * (so a 422 carries an execution id); the outcome becomes the response. Authentication and rate
 * limits (trigger-guard.ts) run first, before any body byte is read.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { PipeError } from '../../errors.js';
import { isPending } from '../../steps.js';
import type { Clock, CompiledValidator, Json, JsonObject, PipelineModule, TriggerSpec } from '../../types.js';
import {
  buildEnvelope,
  declaresMoreThan,
  DEFAULT_MAX_BODY_SIZE,
  envelopeFields,
  headersRecordOf,
  onlyBody,
  parseRequestBody,
  readBodyLimited,
  readIncomingLimited,
  unreadIncoming,
} from '../../service/envelope.js';
import type { EngineOutcome, ExecutionEngine, TraceHeaders } from '../../service/execution.js';
import { outcomePartsMaker, outcomeResponder, type ErrorDetail } from '../../service/http-response.js';
import type { Refuse } from '../../service/refusal.js';
import type { ServiceMetrics } from '../../service/metrics.js';
import { createTriggerGuard } from '../../service/trigger-guard.js';
import type { RateLimitStore } from '../../security/rate-limit.js';
import type {
  DirectHandler,
  NodeHandler,
  RouteErrorHandler,
  RouteHandler,
  RouteRegistrar,
  TriggerRuntime,
} from '../../service/trigger-host.js';
import { abandonReply, writeParts, writeResponse } from '../../service/node-reply.js';
import { collectViolations, type Violation } from '../../service/validation.js';

export interface HttpTriggerSpec extends TriggerSpec {
  readonly kind: 'http';
  /** Upper-case methods. */
  readonly methods: readonly string[];
  /** Hono-style path with `:params`. */
  readonly path: string;
  /** Request body limit in bytes (default 5 MB). */
  readonly maxBodySize: number;
  /** Validates the parsed request body (ajv standalone); absent when no `body` schema is declared. */
  readonly validateBody?: CompiledValidator;
  readonly auth?: JsonObject;
  readonly rateLimit?: JsonObject;
  /** The envelope fields the pipeline reads (the compiler's analysis), besides `body`; absent: all. */
  readonly envelope?: readonly string[];
}

/** Serves a route of the service (TriggerHost.route); the mcp-tool and http-file triggers take it from here. */
export type { RouteRegistrar };

export interface HttpTriggerDeps {
  readonly engine: ExecutionEngine;
  readonly metrics: ServiceMetrics;
  readonly clock: Clock;
  /** Resolved account fields, for trigger authentication. */
  readonly accounts: Readonly<Record<string, Readonly<Record<string, Json>>>>;
  /** Answers requests refused before an execution (with an id, logged). */
  readonly refuse: Refuse;
  /** Rate-limit counters shared by replicas (absent: this process counts alone). */
  readonly rateLimits?: RateLimitStore;
  /** How much of a failure a reply shows (PIPEC_DEBUG_ERRORS). */
  readonly errorDetail: ErrorDetail;
}

const NO_PATH_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/** The web request of a Node request served without the adapter, for a refusal's log line (its method and URL). */
function webRequestOf(incoming: IncomingMessage): Request {
  return new Request(`http://${incoming.headers.host ?? 'localhost'}${incoming.url ?? '/'}`, {
    method: incoming.method ?? 'POST',
  });
}

/** The `body` of an envelope (null when absent). */
function bodyOf(message: Json): Json {
  if (message !== null && typeof message === 'object' && !Array.isArray(message) && Object.hasOwn(message, 'body')) {
    return message['body'] ?? null;
  }
  return null;
}

/** The body schema is checked against the request body, `message.body`. */
function validateHttpMessage(spec: HttpTriggerSpec, message: Json): Violation[] | null {
  return spec.validateBody ? collectViolations(spec.validateBody, bodyOf(message)) : null;
}

/** The envelope a pipeline test starts with: the given parts over an empty request to the trigger's route. */
export function testEnvelope(
  spec: { readonly methods: readonly string[]; readonly path: string },
  given: Json | undefined,
  extra: JsonObject = {},
): Json {
  const envelope: JsonObject = {
    body: null,
    headers: {},
    queryAndPath: {},
    method: spec.methods[0] ?? 'POST',
    path: spec.path,
    contentType: 'application/json',
    ...extra,
  };
  return given !== null && typeof given === 'object' && !Array.isArray(given) ? { ...envelope, ...given } : envelope;
}

export const trigger: TriggerRuntime<HttpTriggerSpec> = {
  attach(pipelines, host) {
    for (const p of pipelines) registerHttpTrigger((...args) => host.route(...args), p, p.trigger, host);
    return {};
  },
  validate: validateHttpMessage,
  testMessage: testEnvelope,
};

/** The shared counters of this pipeline's rate limit, when the service has a backend for them. */
export function sharedLimits(
  deps: HttpTriggerDeps,
  pipeline: PipelineModule,
): { store: RateLimitStore; scope: string } | undefined {
  return deps.rateLimits ? { store: deps.rateLimits, scope: pipeline.name } : undefined;
}

export function registerHttpTrigger(
  route: RouteRegistrar,
  pipeline: PipelineModule,
  spec: HttpTriggerSpec,
  deps: HttpTriggerDeps,
): void {
  const limit = spec.maxBodySize > 0 ? spec.maxBodySize : DEFAULT_MAX_BODY_SIZE;
  const guard = createTriggerGuard(spec, deps.accounts, deps.clock, deps.refuse, sharedLimits(deps, pipeline));
  const outcomeResponse = outcomeResponder(deps.errorDetail);
  const validate = spec.validateBody
    ? (message: Json): Violation[] | null => validateHttpMessage(spec, message)
    : undefined;
  // Hono path parameters are `:name` segments; a path without any has none to decode per request.
  const hasPathParams = spec.path.includes(':');
  // Only the envelope fields the pipeline reads are built (the compiler lists them).
  const fields = envelopeFields(spec.envelope);
  const bodyOnly = onlyBody(fields);
  /** A body that could not be read or parsed (a PipeError): counted and answered before any execution. */
  const refused = (err: unknown, raw: Request): Response | Promise<Response> => {
    if (!(err instanceof PipeError)) throw err;
    deps.metrics.requestsRejected.inc({ pipeline: pipeline.name, reason: String(err.code) });
    return deps.refuse(err, raw);
  };
  /** Runs the execution; `reply` turns its outcome into the answer (a Response, or parts for serveNode). */
  const answer = <R>(
    message: Json,
    traceHeaders: TraceHeaders,
    reply: (outcome: EngineOutcome) => R,
  ): R | Promise<R> => {
    const outcome = deps.engine.executeNow({
      pipeline: pipeline.name,
      message,
      validate,
      trigger: 'http',
      traceHeaders,
    });
    // A synchronous pipeline's outcome is answered without waiting for another promise turn.
    return isPending(outcome) ? outcome.then(reply) : reply(outcome);
  };
  // On Node, the raw request gives the headers and body without building web Headers and body
  // copies per request. A pipeline that reads only the body needs nothing else of the request,
  // not even Hono's: without a guard such a route is served straight from the Node request
  // (RouteTable.serveDirect, or serveNode without the adapter), with the web request (`raw`, made
  // from the Node one when there is none) only to answer a refusal.
  const answerBodyOnly = async <R>(
    raw: Request | undefined,
    incoming: IncomingMessage,
    reply: (outcome: EngineOutcome) => R,
    onError?: RouteErrorHandler,
  ): Promise<R | Response> => {
    try {
      const contentType = incoming.headers['content-type'];
      let body: Json;
      try {
        const bytes = await readIncomingLimited(incoming, limit);
        body = parseRequestBody(bytes, typeof contentType === 'string' ? contentType : null);
      } catch (err) {
        return await refused(err, raw ?? webRequestOf(incoming));
      }
      const response = answer({ body }, incoming.headers as TraceHeaders, reply);
      return isPending(response) ? await response : response;
    } catch (err) {
      // Served without Hono (a DirectHandler), a failure is answered as Hono's onError would.
      if (onError && err instanceof Error) return onError(err, raw ?? webRequestOf(incoming));
      throw err;
    }
  };
  const answerDirect: DirectHandler = (raw, incoming, onError) =>
    answerBodyOnly(raw, incoming, outcomeResponse, onError);
  const outcomeParts = outcomePartsMaker(deps.errorDetail);
  // Without the adapter only a body of a declared length within the limit: that one is read whole
  // (a longer or streamed one is left to the adapter, which drains what a refusal leaves unread).
  const answerNode: NodeHandler = (incoming, outgoing, onError) => {
    const declared = incoming.headers['content-length'];
    if (declared === undefined || declaresMoreThan(declared, limit)) return false;
    answerBodyOnly(undefined, incoming, (outcome) => writeParts(outgoing, outcomeParts(outcome)), onError)
      .then(
        // The reply wrote a success or failure itself; what comes back is a refusal or onError's answer.
        (answered) => (answered === undefined ? undefined : writeResponse(outgoing, answered)),
        (err: unknown) => abandonReply(outgoing, err),
      )
      .catch((err: unknown) => abandonReply(outgoing, err));
    return true;
  };
  const handler = async (c: Context): Promise<Response> => {
    let principal: JsonObject | null = null;
    if (guard) {
      const checked = await guard(c);
      if (checked.ok) principal = checked.principal;
      if (!checked.ok) {
        deps.metrics.requestsRejected.inc({ pipeline: pipeline.name, reason: String(checked.response.status) });
        return checked.response;
      }
    }
    const incoming = unreadIncoming(c.env);
    if (incoming !== undefined && bodyOnly) return answerBodyOnly(c.req.raw, incoming, outcomeResponse);
    // Elsewhere (app.request() in tests) the web Request gives them.
    const request = c.req.raw;
    const headers = incoming && fields.headers ? headersRecordOf(incoming) : undefined;
    const contentType = headers
      ? headers['content-type']
      : incoming
        ? incoming.headers['content-type']
        : request.headers.get('content-type');
    let body;
    try {
      const bytes = incoming ? await readIncomingLimited(incoming, limit) : await readBodyLimited(request, limit);
      body = parseRequestBody(bytes, typeof contentType === 'string' ? contentType : null);
    } catch (err) {
      return refused(err, request);
    }
    const message = buildEnvelope(
      {
        request,
        headers,
        pathParams: fields.queryAndPath && hasPathParams ? (c.req.param() as Record<string, string>) : NO_PATH_PARAMS,
        body,
        contentType: typeof contentType === 'string' ? contentType : null,
        principal,
      },
      fields,
    );
    return answer(message, (headers ?? incoming?.headers ?? request.headers) as TraceHeaders, outcomeResponse);
  };
  if (guard || !bodyOnly) route(pipeline.name, spec.methods, spec.path, handler);
  else route(pipeline.name, spec.methods, spec.path, handler, answerDirect, answerNode);
}
