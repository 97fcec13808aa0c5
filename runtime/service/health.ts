/**
 * Operational endpoints: `/health` (the process is up: always 200), `/ready` (200 only while the
 * service is started, not draining, and nothing it needs is missing — every readiness dependency a
 * trigger declared, every connection and every remote backend answers — so a load balancer stops
 * sending work during shutdown and during an outage; the 503 body names what is missing) and
 * `/metrics` (Prometheus text from the service's own registry). `/_pipec/` is reserved for the
 * service's own admin endpoints (dead-letter-routes.ts).
 */
import type { Hono } from 'hono';
import type { Registry } from 'prom-client';

export type ServicePhase = 'created' | 'ready' | 'draining' | 'stopped';

export const OPERATIONAL_PATHS: ReadonlySet<string> = new Set(['/health', '/ready', '/metrics']);

/** The prefix of the service's own admin endpoints; no pipeline may serve a path under it. */
export const ADMIN_PREFIX = '/_pipec/';

/** Paths no trigger may serve: the operational ones and the admin endpoints. */
export function isReservedPath(path: string): boolean {
  return OPERATIONAL_PATHS.has(path) || path.startsWith(ADMIN_PREFIX);
}

export interface HealthDeps {
  readonly phase: () => ServicePhase;
  readonly registry: () => Promise<Registry>;
  /**
   * The names of what the service needs and cannot reach now (trigger readiness dependencies,
   * connections, backends); names only: the reasons (addresses, server messages) are in the log.
   */
  readonly notReady?: () => readonly string[];
}

export function registerHealthRoutes(app: Hono, deps: HealthDeps): void {
  app.get('/health', (c) => c.json({ status: 'ok' }, 200));
  app.get('/ready', (c) => {
    const phase = deps.phase();
    if (phase !== 'ready') return c.json({ status: phase === 'created' ? 'starting' : phase }, 503);
    const waiting = deps.notReady?.() ?? [];
    return waiting.length === 0
      ? c.json({ status: 'ready' }, 200)
      : c.json({ status: 'waiting', waitingFor: waiting }, 503);
  });
  app.get('/metrics', async (c) => {
    const registry = await deps.registry();
    const text = await registry.metrics();
    return c.body(text, 200, { 'content-type': registry.contentType });
  });
}
