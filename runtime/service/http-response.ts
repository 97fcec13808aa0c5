/**
 * Shared by the HTTP triggers: an engine outcome, or a PipeError raised before the execution
 * started, as a web Response.
 */
import { PipeError } from '../errors.js';
import type { EngineOutcome } from './execution.js';
import { mapFailure, mapResult, requestError, toWebResponse } from './result-mapping.js';

export function outcomeResponse(outcome: EngineOutcome): Response {
  if (outcome.ok) return toWebResponse(mapResult(outcome.result));
  return toWebResponse(mapFailure(outcome.error.code, outcome.errorObject));
}

/** A refusal before any execution (bad body, too large, draining): no execution id exists. */
export function refusalResponse(err: PipeError, now: number): Response {
  return toWebResponse(requestError(err.code, err.message, now, err.details ?? {}));
}
