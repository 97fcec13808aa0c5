/**
 * Circuit breakers per outbound target (a REST origin, a database, a broker), on cockatiel's
 * CircuitBreakerPolicy: after `failures` consecutive failures the circuit opens and calls fail at
 * once with 503 CIRCUIT_OPEN (no connection, no wait); after `halfOpenAfterMs` one call is let
 * through (half-open): its success closes the circuit, its failure opens it again. Calls made
 * while that probe is out wait for its outcome (cockatiel's half-open), then run or fail fast.
 *
 * What counts as a failure is the caller's: transient failures (unreachable, timeout, 5xx), never a
 * 4xx — a rejected request says nothing about the target's health. The state of every circuit is
 * the gauge `pipec_circuit_state{target}` (0 closed, 1 half-open, 2 open).
 *
 * Used through the connections registry (`ctx.services.connections.guard(target, run)`), so every
 * connector that talks to a server gets the same breaker without code of its own.
 */
import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
  type CircuitBreakerPolicy,
} from 'cockatiel';
import { PipeError } from '../errors.js';

export interface BreakerOptions {
  /** Consecutive failures that open the circuit; 0 turns breakers off. */
  readonly failures: number;
  /** Time an open circuit waits before letting one probe through, ms. */
  readonly halfOpenAfterMs: number;
}

export const DEFAULT_BREAKER: BreakerOptions = { failures: 5, halfOpenAfterMs: 30_000 };

/** What a guarded call says about the target's health. */
export interface GuardOptions<T> {
  /** A thrown error that counts against the target (default: a PipeError that is not permanent). */
  readonly failed?: (err: unknown) => boolean;
  /** A result that counts against the target (an HTTP 5xx answered as data). */
  readonly failedResult?: (result: T) => boolean;
}

/** The breakers' state changes, for the metric and the log. */
export type BreakerListener = (target: string, state: 'closed' | 'half-open' | 'open') => void;

/** The value of `pipec_circuit_state` for each state. */
export const CIRCUIT_STATE_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;

/** The breaker options from the environment: PIPEC_BREAKER_FAILURES, PIPEC_BREAKER_HALF_OPEN_MS. */
export function breakerOptionsFromEnv(env: NodeJS.ProcessEnv): BreakerOptions {
  const failures = wholeNumber(env['PIPEC_BREAKER_FAILURES']) ?? DEFAULT_BREAKER.failures;
  const halfOpenAfterMs = wholeNumber(env['PIPEC_BREAKER_HALF_OPEN_MS']) ?? DEFAULT_BREAKER.halfOpenAfterMs;
  return { failures, halfOpenAfterMs: Math.max(1, halfOpenAfterMs) };
}

function wholeNumber(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,9}$/.test(text.trim())) return undefined;
  return Number(text.trim());
}

/** One circuit per target, made on first use. */
export class CircuitBreakers {
  private readonly circuits = new Map<string, CircuitBreakerPolicy>();
  /** Bounded: targets come from URLs that may be built from data. */
  private static readonly MAX_TARGETS = 10_000;

  constructor(
    private readonly options: BreakerOptions,
    private readonly listener?: BreakerListener,
  ) {}

  /** Runs `run` through the target's circuit; an open circuit throws 503 CIRCUIT_OPEN without running it. */
  async guard<T>(target: string, run: () => Promise<T>, opts: GuardOptions<T> = {}): Promise<T> {
    if (this.options.failures === 0) return run();
    const failed = opts.failed ?? ((err: unknown) => !(err instanceof PipeError) || !err.permanent);
    const circuit = this.circuitOf(target, failed, opts.failedResult as ((result: unknown) => boolean) | undefined);
    try {
      return await circuit.execute(run);
    } catch (err) {
      if (err instanceof BrokenCircuitError) {
        throw new PipeError(`the circuit to ${target} is open after repeated failures; not calling it`, {
          code: 503,
          kind: 'CIRCUIT_OPEN',
          cause: err,
          details: { target, retryAfter: Math.ceil(this.options.halfOpenAfterMs / 1000) },
        });
      }
      throw err;
    }
  }

  /** The circuit's state (closed for a target never called). */
  state(target: string): 'closed' | 'half-open' | 'open' {
    const circuit = this.circuits.get(target);
    return circuit ? stateName(circuit.state) : 'closed';
  }

  private circuitOf(
    target: string,
    failed: (err: unknown) => boolean,
    failedResult: ((result: unknown) => boolean) | undefined,
  ): CircuitBreakerPolicy {
    let circuit = this.circuits.get(target);
    if (circuit) return circuit;
    if (this.circuits.size >= CircuitBreakers.MAX_TARGETS) this.forgetClosed();
    let policy = handleWhen((err) => failed(err));
    if (failedResult) policy = policy.orWhenResult((result) => failedResult(result));
    else policy = policy.orWhenResult(() => false);
    const breaker = new ConsecutiveBreaker(this.options.failures);
    circuit = circuitBreaker(policy, { halfOpenAfter: this.options.halfOpenAfterMs, breaker });
    circuit.onStateChange((state) => this.listener?.(target, stateName(state)));
    this.circuits.set(target, circuit);
    return circuit;
  }

  /** Drops the closed circuits (they hold no state worth keeping but their count). */
  private forgetClosed(): void {
    for (const [target, circuit] of this.circuits) {
      if (circuit.state === CircuitState.Closed) this.circuits.delete(target);
    }
  }
}

function stateName(state: CircuitState): 'closed' | 'half-open' | 'open' {
  if (state === CircuitState.HalfOpen) return 'half-open';
  if (state === CircuitState.Open || state === CircuitState.Isolated) return 'open';
  return 'closed';
}
