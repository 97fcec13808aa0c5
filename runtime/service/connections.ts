/**
 * Clients that connectors and triggers open to outside systems (a database pool, a broker
 * channel, an SFTP session), kept once per service under a key such as `postgres:orders-db`.
 *
 * - Opened lazily, on first use: a service whose pipelines use a database still starts (and serves
 *   everything else) while that database is down; the first use then fails with the connector's
 *   own clear error, and the next use tries again (a failed open is not kept).
 * - Health is what the clients report (`report`): /ready answers 503 naming every dependency last
 *   seen unavailable; the log says once that it went away and once that it came back.
 * - Closed when the service stops, after in-flight executions drained.
 * - Calls to each target go through its circuit breaker (`guard`, runtime/policies/breakers.ts).
 */
import type { Logger } from 'pino';
import { CircuitBreakers, DEFAULT_BREAKER, type GuardOptions } from '../policies/breakers.js';
import type { Connections, OpenedConnection } from '../types.js';

export class ConnectionRegistry implements Connections {
  private readonly opened = new Map<string, Promise<OpenedConnection<unknown>>>();
  private readonly unavailable = new Map<string, string>();
  private closing = false;

  /** `breakers`: the circuit breakers of the service's outbound targets (default: 5 failures, 30 s). */
  constructor(
    private readonly logger: Logger,
    private readonly breakers: CircuitBreakers = new CircuitBreakers(DEFAULT_BREAKER),
  ) {}

  guard<T>(target: string, run: () => Promise<T>, opts?: GuardOptions<T>): Promise<T> {
    return this.breakers.guard(target, run, opts);
  }

  get<T>(key: string, dependency: string, open: () => Promise<OpenedConnection<T>>): Promise<T> {
    if (this.closing) return Promise.reject(new Error('the service is stopping'));
    let pending = this.opened.get(key) as Promise<OpenedConnection<T>> | undefined;
    if (!pending) {
      pending = open();
      this.opened.set(key, pending);
      pending.then(
        () => this.report(dependency, true),
        (err: unknown) => {
          if (this.opened.get(key) === pending) this.opened.delete(key);
          this.report(dependency, false, err);
        },
      );
    }
    return pending.then((connection) => connection.client);
  }

  async drop(key: string): Promise<void> {
    const pending = this.opened.get(key);
    if (!pending) return;
    this.opened.delete(key);
    await closeQuietly(pending);
  }

  report(dependency: string, available: boolean, cause?: unknown): void {
    const wasUnavailable = this.unavailable.has(dependency);
    if (available) {
      if (!wasUnavailable) return;
      this.unavailable.delete(dependency);
      this.logger.info({ dependency }, 'dependency available again');
      return;
    }
    const reason = describe(cause);
    this.unavailable.set(dependency, reason);
    if (!wasUnavailable) this.logger.warn({ dependency, reason }, 'dependency unavailable');
  }

  /** The dependencies last seen unavailable, for /ready. */
  notReady(): string[] {
    return [...this.unavailable.keys()];
  }

  /** Closes every client (the service is stopping); further `get`s are refused. */
  async closeAll(): Promise<void> {
    this.closing = true;
    const all = [...this.opened.values()];
    this.opened.clear();
    const results = await Promise.all(all.map(closeQuietly));
    for (const err of results)
      if (err !== undefined) this.logger.warn({ reason: describe(err) }, 'closing a connection failed');
  }
}

async function closeQuietly(pending: Promise<OpenedConnection<unknown>>): Promise<unknown> {
  try {
    const connection = await pending;
    await connection.close();
    return undefined;
  } catch (err) {
    return err;
  }
}

/** A cause for the log: the message only (a client error may carry connection strings in other fields). */
function describe(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  return cause === undefined ? 'unavailable' : String(cause);
}
