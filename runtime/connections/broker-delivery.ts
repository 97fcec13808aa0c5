/**
 * What the `amqp` and `mqtt` triggers do with one message of an outside broker before they
 * acknowledge it: run the pipeline, and when it fails for a reason that may pass (a 5xx, a
 * timeout) run it again after a backoff, up to `maxDeliveries` runs. The caller acknowledges only
 * a `done` message; a `failed` one goes to its dead-letter destination (or back to the broker), a
 * `stopped` one (the service is stopping) is left unacknowledged, so the broker delivers it again.
 */
import type { PipeError } from '../errors.js';
import { backoffDelay, pause, type BackoffPolicy } from '../backends/backoff.js';
import type { EngineOutcome } from '../service/execution.js';

export type DeliveryResult =
  | { readonly kind: 'done'; readonly attempts: number }
  | {
      readonly kind: 'failed';
      /** permanent-error: a 4xx or an invalid message (not retried); max-deliveries: out of attempts. */
      readonly reason: 'permanent-error' | 'max-deliveries';
      readonly attempts: number;
      readonly executionId: string;
      /** The failure of the last run. */
      readonly error: PipeError;
    }
  | { readonly kind: 'stopped'; readonly attempts: number };

export interface DeliveryPolicy {
  readonly maxDeliveries: number;
  readonly backoff: BackoffPolicy;
  /** Aborted when the service stops: no further run starts. */
  readonly signal: AbortSignal;
  readonly random?: () => number;
}

/** Runs `execute` (1-based attempt) until it succeeds, fails for good, or the service stops. */
export async function deliver(
  execute: (attempt: number) => Promise<EngineOutcome>,
  policy: DeliveryPolicy,
): Promise<DeliveryResult> {
  let refusals = 0;
  for (let attempt = 1; ; attempt++) {
    if (policy.signal.aborted) return { kind: 'stopped', attempts: attempt - 1 };
    const outcome = await execute(attempt);
    if (outcome.ok) return { kind: 'done', attempts: attempt };
    if (policy.signal.aborted) return { kind: 'stopped', attempts: attempt };
    if (notRun(outcome)) {
      // The service refused to start the run (its pipeline's wait queue is full, or it is
      // stopping): no attempt of the message's, so it neither counts nor dead-letters it.
      attempt -= 1;
      refusals += 1;
      await pause(backoffDelay(policy.backoff, refusals, policy.random), policy.signal);
      continue;
    }
    refusals = 0;
    const permanent = outcome.outcome === 'invalid' || outcome.error.permanent;
    if (permanent || attempt >= policy.maxDeliveries) {
      return {
        kind: 'failed',
        reason: permanent ? 'permanent-error' : 'max-deliveries',
        attempts: attempt,
        executionId: outcome.executionId,
        error: outcome.error,
      };
    }
    await pause(backoffDelay(policy.backoff, attempt, policy.random), policy.signal);
  }
}

/** An execution the service did not run: shed (OVERLOADED) or refused while stopping. */
function notRun(outcome: Extract<EngineOutcome, { ok: false }>): boolean {
  return outcome.outcome === 'rejected' || outcome.error.kind === 'OVERLOADED';
}

/** The last error as one line for a dead-letter header or a log: `CODE KIND: message` (bounded). */
export function errorLine(error: PipeError): string {
  return `${error.code} ${error.kind}: ${error.message}`.slice(0, 1000);
}
