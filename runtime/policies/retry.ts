/**
 * The `retry` step option: one policy for every connector (runtime/steps.ts applies it around the
 * connector's `run`). Attempts, exponential backoff with equal jitter (the backoff of the event
 * trigger, runtime/backends/backoff.ts), a cap on each wait and a total budget, and which failures
 * are retried: by error kind, and by the status the other side answered. A failure that carries
 * `Retry-After` (a 429 or 503) waits what the server asked for, when that fits in the budget.
 *
 * Time comes from a `Pacer` (the service's clock): tests inject one that records the waits and moves
 * time on without sleeping.
 */
import { backoffDelay } from '../backends/backoff.js';
import { PipeError } from '../errors.js';
import type { Json } from '../types.js';

/** The compiled `retry: { … }` of one step (every field filled from the connector's defaults). */
export interface RetrySpec {
  /** Attempts in all, the first included (2 = one retry). */
  readonly attempts: number;
  /** Wait before the second attempt, ms. */
  readonly initialMs: number;
  /** Longest single wait, ms (a Retry-After longer than this is still honoured within the budget). */
  readonly maxDelayMs: number;
  readonly multiplier: number;
  /** Time for all attempts and waits together, ms; 0 = no budget. */
  readonly budgetMs: number;
  /** Error kinds retried (`TIMEOUT`, `REST_UNREACHABLE`, …). */
  readonly kinds: readonly string[];
  /**
   * Statuses retried: what the other side answered — an output whose status field has it (an
   * HTTP error answered as data), or an error whose `details.status` has it.
   */
  readonly statuses: readonly number[];
  /**
   * The output field that holds a status (the connector's `x-pipe-retry.output`), for connectors
   * that answer an HTTP error as data (`rest`): such an output is retried like a failure.
   */
  readonly outputStatus?: string;
  /** The output field with the response headers (for `retry-after`). */
  readonly outputHeaders?: string;
}

/** How the retry loop reads and spends time. */
export interface Pacer {
  now(): number;
  /** Waits `ms`; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  readonly random?: () => number;
}

/** One retried failure, for the log and metrics. */
export interface RetryNotice {
  readonly attempt: number;
  readonly delayMs: number;
  readonly kind: string;
  readonly status: number | undefined;
  /** The wait came from the server's Retry-After. */
  readonly retryAfter: boolean;
}

/** What one failed attempt says about trying again. */
interface Failure {
  readonly retryable: boolean;
  readonly kind: string;
  readonly status: number | undefined;
  /** Retry-After in ms, when the failure carried one. */
  readonly retryAfterMs: number | undefined;
}

/**
 * Runs `attempt` until it succeeds, fails in a way the spec does not retry, or attempts or budget
 * run out. The last failure is thrown (or the last output returned) as the attempt gave it.
 */
export async function runWithRetry(
  spec: RetrySpec,
  attempt: () => Json | Promise<Json>,
  pacer: Pacer,
  signal: AbortSignal,
  onRetry?: (notice: RetryNotice) => void,
): Promise<Json> {
  const started = pacer.now();
  for (let n = 1; ; n++) {
    let failure: Failure;
    let thrown: { error: unknown } | undefined;
    let output: Json | undefined;
    try {
      output = await attempt();
      failure = outputFailure(spec, output, pacer.now());
      if (!failure.retryable) return output;
    } catch (err) {
      thrown = { error: err };
      failure = errorFailure(spec, err, pacer.now());
      if (!failure.retryable) throw err;
    }
    const delay = nextDelay(spec, n, failure, pacer.now() - started, pacer.random ?? Math.random);
    if (n >= spec.attempts || delay === undefined || signal.aborted) {
      if (thrown) throw thrown.error;
      return output as Json;
    }
    const retryAfter = failure.retryAfterMs !== undefined;
    onRetry?.({ attempt: n, delayMs: delay, kind: failure.kind, status: failure.status, retryAfter });
    await pacer.sleep(delay, signal);
  }
}

/**
 * The wait before attempt `n + 1`, or undefined when it does not fit in the budget (a Retry-After
 * beyond the remaining budget gives up at once rather than sleep and fail anyway).
 */
export function nextDelay(
  spec: RetrySpec,
  n: number,
  failure: Failure,
  elapsedMs: number,
  random: () => number,
): number | undefined {
  const policy = { initialMs: spec.initialMs, maxMs: spec.maxDelayMs, multiplier: spec.multiplier };
  const backoff = backoffDelay(policy, n, random);
  const delay = failure.retryAfterMs === undefined ? backoff : Math.max(failure.retryAfterMs, 0);
  if (spec.budgetMs > 0 && elapsedMs + delay >= spec.budgetMs) return undefined;
  return delay;
}

function errorFailure(spec: RetrySpec, err: unknown, now: number): Failure {
  if (!(err instanceof PipeError)) return { retryable: false, kind: 'INTERNAL', status: 500, retryAfterMs: undefined };
  const retryAfter = err.details?.['retryAfter'];
  const given = typeof retryAfter === 'string' || typeof retryAfter === 'number';
  const retryAfterMs = given ? parseRetryAfter(String(retryAfter), now) : undefined;
  // A status is what the other side answered (a `rest` error's details.status), never the error's
  // own code: a response too large is a 502 of ours, not a 502 of the server.
  const remote = err.details?.['status'];
  const answered = typeof remote === 'number' ? remote : undefined;
  const retryable = spec.kinds.includes(err.kind) || (answered !== undefined && spec.statuses.includes(answered));
  return { retryable, kind: err.kind, status: answered ?? err.code, retryAfterMs };
}

function outputFailure(spec: RetrySpec, output: Json, now: number): Failure {
  const none: Failure = { retryable: false, kind: 'OK', status: undefined, retryAfterMs: undefined };
  if (spec.outputStatus === undefined || !isObject(output)) return none;
  const status = output[spec.outputStatus];
  if (typeof status !== 'number' || !spec.statuses.includes(status)) return none;
  const headers = spec.outputHeaders === undefined ? undefined : output[spec.outputHeaders];
  const header = isObject(headers) ? headers['retry-after'] : undefined;
  const retryAfterMs = typeof header === 'string' ? parseRetryAfter(header, now) : undefined;
  return { retryable: true, kind: 'STATUS', status, retryAfterMs };
}

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);
}

/** Retry-After is either delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when neither. */
export function parseRetryAfter(value: string, now: number): number | undefined {
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (!Number.isFinite(at) || !/[A-Za-z]/.test(text)) return undefined;
  return Math.max(0, at - now);
}

/** Waits on the real timers. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
