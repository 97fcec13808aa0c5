/**
 * Whether each remote backend (PostgreSQL, NATS) is reachable right now. Its connection code
 * reports losses and recoveries here; `/ready` lists what is missing, and calls that need a missing
 * backend fail at once with 503 BACKEND_UNAVAILABLE and a Retry-After hint instead of waiting for
 * a timeout. Each change is logged once: one line when a backend goes away (with the reason), one
 * when it is back — not one per failed call or reconnect attempt.
 */
import type { Logger } from 'pino';
import { PipeError } from '../errors.js';

/** Seconds a client is told to wait before trying again while a backend is away. */
export const RETRY_AFTER_SECONDS = 5;

export class Dependency {
  private available = false;
  private lastReason: string | undefined = 'not connected yet';
  private everUp = false;
  private waiters: Array<() => void> = [];

  constructor(
    readonly name: string,
    private readonly logger: Logger,
  ) {}

  get up(): boolean {
    return this.available;
  }

  /** Why it is unavailable (undefined while up). */
  get reason(): string | undefined {
    return this.available ? undefined : this.lastReason;
  }

  /** Reports a loss; logs only when the backend was up (or on the first failed connection). */
  down(reason: string): void {
    const wasUp = this.available;
    const firstFailure = !this.everUp && this.lastReason === 'not connected yet';
    this.available = false;
    this.lastReason = reason;
    if (wasUp)
      this.logger.warn({ backend: this.name, reason }, `backend unavailable: ${this.name}; retrying until it is back`);
    else if (firstFailure)
      this.logger.warn({ backend: this.name, reason }, `backend not reachable yet: ${this.name}; retrying until it is`);
  }

  /** Reports a (re)connection; logs when it changes anything. */
  restored(): void {
    if (this.available) return;
    this.available = true;
    this.lastReason = undefined;
    if (this.everUp) this.logger.info({ backend: this.name }, `backend available again: ${this.name}`);
    else this.logger.info({ backend: this.name }, `backend connected: ${this.name}`);
    this.everUp = true;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Throws the 503 a caller should see while the backend is away. */
  assertUp(): void {
    if (!this.available) throw this.unavailable();
  }

  unavailable(cause?: unknown): PipeError {
    return new PipeError(`${this.name} is unavailable: ${this.lastReason ?? 'connection lost'}`, {
      code: 503,
      kind: 'BACKEND_UNAVAILABLE',
      details: { backend: this.name, retryAfter: RETRY_AFTER_SECONDS },
      ...(cause === undefined ? {} : { cause }),
    });
  }

  /** Resolves once the backend is up (at once when it is), or when the signal aborts. */
  whenUp(signal?: AbortSignal): Promise<void> {
    if (this.available || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        signal?.removeEventListener('abort', wake);
        resolve();
      };
      this.waiters.push(wake);
      signal?.addEventListener('abort', wake, { once: true });
    });
  }
}

/** The remote backends of one service, for `/ready`. */
export class Availability {
  private readonly dependencies: Dependency[] = [];

  add(dependency: Dependency): Dependency {
    this.dependencies.push(dependency);
    return dependency;
  }

  /** Names and reasons of the backends that are unavailable now (empty when all are up). */
  unavailable(): Array<{ readonly backend: string; readonly reason: string }> {
    return this.dependencies.filter((d) => !d.up).map((d) => ({ backend: d.name, reason: d.reason ?? 'unavailable' }));
  }
}
