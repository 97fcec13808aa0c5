/**
 * Shared by the HTTP triggers: an engine outcome as a web Response. A failure answers with the
 * public part of its error object — message, code, execution id, and what the client needs to fix
 * its request (validation violations, the size limit, the fields a `fail` step wrote) — while
 * where it failed (the step, its `.pipe` file and line), internal messages (Assert's
 * `internalErrorMessage`), links to other executions and upstream answers stay in the log.
 * `PIPEC_DEBUG_ERRORS=1` (development) answers with the whole error object instead.
 */
import type { JsonObject } from '../types.js';
import type { EngineOutcome } from './execution.js';
import { mapFailure, mapResult, toWebResponse, type HttpResponseParts } from './result-mapping.js';

/** How much of a failure a reply shows: the public part, or everything (debug switch). */
export type ErrorDetail = 'public' | 'debug';

/** The debug switch, read once when the service is created. */
export function errorDetailFromEnv(env: NodeJS.ProcessEnv): ErrorDetail {
  const value = env['PIPEC_DEBUG_ERRORS'];
  return value === '1' || value === 'true' ? 'debug' : 'public';
}

/** Every failure reply has these. */
const BASE_FIELDS = ['timestamp', 'error', 'message', 'code', 'executionId'] as const;

/** Details that tell the client what to fix, by error kind. */
const PUBLIC_DETAILS: Readonly<Record<string, readonly string[]>> = {
  VALIDATION: ['violations', 'validation'],
  PAYLOAD_TOO_LARGE: ['limit'],
  // Which backend is away (as /ready names it) and when to try again (also the Retry-After header).
  BACKEND_UNAVAILABLE: ['backend', 'retryAfter'],
  // The pipeline's wait queue is full (load shedding): when to try again.
  OVERLOADED: ['retryAfter'],
  // An outbound circuit is open and the pipeline let the failure through: when it probes again.
  CIRCUIT_OPEN: ['retryAfter'],
  // A repeat of an idempotency key whose first request still runs.
  IDEMPOTENCY_IN_PROGRESS: ['retryAfter'],
};

/**
 * Fields a `fail` step's object may not carry into a reply: the engine adds them (the step with its
 * source location, child executions of `execute`) or they are meant for operators only.
 */
const LOG_ONLY_FIELDS = new Set([
  'step',
  'internalErrorMessage',
  'pipelineName',
  'childExecutionId',
  'timeoutMs',
  'stack',
  'cause',
]);

/** The part of a failure's error object a client sees (pure). */
export function publicErrorObject(kind: string, errorObject: JsonObject): JsonObject {
  const out: JsonObject = {};
  if (kind === 'FAIL') {
    // A `fail` step with an object: the pipeline author wrote these fields for the client.
    for (const [key, value] of Object.entries(errorObject)) if (!LOG_ONLY_FIELDS.has(key)) out[key] = value;
    return out;
  }
  for (const key of PUBLIC_DETAILS[kind] ?? [])
    if (Object.hasOwn(errorObject, key)) out[key] = errorObject[key] ?? null;
  for (const key of BASE_FIELDS) if (Object.hasOwn(errorObject, key)) out[key] = errorObject[key] ?? null;
  return out;
}

/** Turns outcomes into the parts of their responses, showing failures as `detail` says. */
export function outcomePartsMaker(detail: ErrorDetail = 'public'): (outcome: EngineOutcome) => HttpResponseParts {
  return (outcome) => {
    if (outcome.ok) return mapResult(outcome.result);
    const body =
      detail === 'debug'
        ? { ...outcome.errorObject, kind: outcome.error.kind }
        : publicErrorObject(outcome.error.kind, outcome.errorObject);
    return mapFailure(outcome.error.code, body);
  };
}

/** Turns outcomes into responses, showing failures as `detail` says. */
export function outcomeResponder(detail: ErrorDetail = 'public'): (outcome: EngineOutcome) => Response {
  const partsOf = outcomePartsMaker(detail);
  return (outcome) => toWebResponse(partsOf(outcome));
}

/** The public reply of an outcome (see outcomeResponder). */
export const outcomeResponse = outcomeResponder('public');
