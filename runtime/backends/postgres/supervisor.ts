/**
 * Keeps the PostgreSQL backend's availability current: creates the schema once the database
 * answers (retrying with backoff and jitter, for as long as the service runs), then checks the
 * connection every few seconds — so `/ready` turns 503 during an outage even when no request
 * touches the store — and, while the database is away, retries until it answers again. Calls that
 * fail with a connection error report it (`lost`), which starts the retrying at once.
 */
import { Backoff, pause, RECONNECT_BACKOFF } from '../backoff.js';
import type { Dependency } from '../availability.js';
import { createPgSchema, isConnectionError, type PgPool } from './pool.js';

/** How often a healthy connection is checked. */
const PROBE_INTERVAL_MS = 5000;
/** Longest a check may take: a link that went silent counts as lost after this. */
const PROBE_TIMEOUT_MS = 3000;

/** pg reads a per-query `query_timeout` that its typings leave out of QueryConfig. */
const probeQuery = { text: 'SELECT 1', query_timeout: PROBE_TIMEOUT_MS } as { text: string };

export class PgSupervisor {
  private schemaReady = false;
  private readonly stopping = new AbortController();
  private wake = new AbortController();
  private readonly running: Promise<void>;

  constructor(
    private readonly pool: PgPool,
    readonly dependency: Dependency,
  ) {
    this.running = this.supervise();
  }

  /** A call failed with a connection error: mark the database away and start retrying now. */
  lost(err: unknown): void {
    this.dependency.down(reasonOf(err));
    this.wake.abort();
  }

  async close(): Promise<void> {
    this.stopping.abort();
    this.wake.abort();
    await this.running;
  }

  private async supervise(): Promise<void> {
    const retry = new Backoff(RECONNECT_BACKOFF);
    while (!this.stopping.signal.aborted) {
      if (this.dependency.up) {
        await pause(PROBE_INTERVAL_MS, AbortSignal.any([this.stopping.signal, this.wake.signal]));
        if (this.wake.signal.aborted) this.wake = new AbortController();
        if (this.stopping.signal.aborted) return;
      }
      try {
        if (this.schemaReady) await this.pool.query(probeQuery);
        else await createPgSchema(this.pool);
        this.schemaReady = true;
        retry.reset();
        this.dependency.restored();
      } catch (err) {
        if (this.stopping.signal.aborted) return;
        // A refused DDL or probe that is not about the connection (permissions, a broken schema)
        // is reported the same way: the store cannot serve until it is fixed.
        this.dependency.down(isConnectionError(err) ? reasonOf(err) : `database error: ${reasonOf(err)}`);
        await pause(retry.next(), this.stopping.signal);
      }
    }
  }
}

function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' && !message.includes(code) ? `${code} ${message}` : message || 'connection lost'
  ).slice(0, 300);
}
