/**
 * Execution errors. Connectors and generated code throw `PipeError`; the service turns it into the
 * standard error object `{ error, message, code, executionId }` (and the HTTP status `code`).
 * With fail-on-error off, generated code catches it and continues with `toFailureOutput(err)`.
 */
import type { Json, JsonObject } from './types.js';

export interface PipeErrorOptions {
  /** HTTP-like status; default 500. */
  readonly code?: number;
  /** Stable machine-readable kind, e.g. 'VALIDATION', 'TIMEOUT', 'REST_CLIENT_ERROR'. */
  readonly kind?: string;
  /** Label of the step (or connector kind) that failed. */
  readonly step?: string;
  /** Extra fields merged into the error object (e.g. `validation` for Validator v2). */
  readonly details?: JsonObject;
  readonly cause?: unknown;
  /** Overrides the classification by `code` (see `isPermanentStatus`). */
  readonly permanent?: boolean;
}

/**
 * Whether a failure with this status can succeed when tried again unchanged. A 4xx says the input
 * or the request is wrong (a validation failure, a refused payload, a 404 from a REST call), so
 * retrying is pointless — except 408 (timeout), 425 (too early) and 429 (rate limited), which say
 * "later". Every 5xx (timeouts, outages, shutdown, unknown failures) may pass on another attempt.
 */
export function isPermanentStatus(code: number): boolean {
  return code >= 400 && code < 500 && code !== 408 && code !== 425 && code !== 429;
}

export class PipeError extends Error {
  readonly code: number;
  readonly kind: string;
  readonly step: string | undefined;
  readonly details: JsonObject | undefined;
  /**
   * True when trying again cannot help (the event trigger dead-letters such a failure at once
   * instead of redelivering it); false when a later attempt may succeed. Defaults to the status
   * classification of `isPermanentStatus`.
   */
  readonly permanent: boolean;

  constructor(message: string, opts: PipeErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'PipeError';
    this.code = opts.code ?? 500;
    this.kind = opts.kind ?? 'ERROR';
    this.step = opts.step;
    this.details = opts.details;
    this.permanent = opts.permanent ?? isPermanentStatus(this.code);
  }
}

/** Any thrown value as a PipeError (unknown exceptions become 500 INTERNAL without leaking stacks). */
export function asPipeError(err: unknown, step?: string): PipeError {
  if (err instanceof PipeError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new PipeError(message, { code: 500, kind: 'INTERNAL', ...(step ? { step } : {}), cause: err });
}

/** The standard error object of a failed execution (also the message inside `catch` / `on-error`). */
export function toErrorObject(err: PipeError, executionId: string, now: number): JsonObject {
  return {
    ...(err.details ?? {}),
    timestamp: now,
    error: err.message,
    message: err.message,
    code: err.code,
    ...(err.step ? { step: err.step } : {}),
    executionId,
  };
}

/**
 * Output of a connector whose fail-on-error is off: the flow continues with `success: false`.
 * `kind` is the error kind (what `on-fail` and a `choice` route on).
 */
export function toFailureOutput(err: PipeError): JsonObject {
  const out: JsonObject = { success: false, message: err.message, error: err.message, code: err.code, kind: err.kind };
  if (err.details) for (const [k, v] of Object.entries(err.details)) out[k] = v as Json;
  return out;
}
