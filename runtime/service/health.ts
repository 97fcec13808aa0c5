/**
 * Operational endpoints: `/health` (the process is up: always 200), `/ready` (200 only while the
 * service is started and not draining, so load balancers stop sending work during shutdown, and
 * every readiness dependency a trigger declared is ready) and
 * `/metrics` (Prometheus text from the service's own registry).
 */
import type { Hono } from 'hono';
import type { Registry } from 'prom-client';

export type ServicePhase = 'created' | 'ready' | 'draining' | 'stopped';

export const OPERATIONAL_PATHS: ReadonlySet<string> = new Set(['/health', '/ready', '/metrics']);

export interface HealthDeps {
  readonly phase: () => ServicePhase;
  readonly registry: () => Promise<Registry>;
  /** The names of readiness dependencies (declared by triggers) that are not ready. */
  readonly notReady?: () => readonly string[];
}

export function registerHealthRoutes(app: Hono, deps: HealthDeps): void {
  app.get('/health', (c) => c.json({ status: 'ok' }, 200));
  app.get('/ready', (c) => {
    const phase = deps.phase();
    if (phase !== 'ready') return c.json({ status: phase === 'created' ? 'starting' : phase }, 503);
    const waiting = deps.notReady?.() ?? [];
    return waiting.length === 0 ? c.json({ status: 'ready' }, 200) : c.json({ status: 'waiting', waitingFor: waiting }, 503);
  });
  app.get('/metrics', async (c) => {
    const registry = await deps.registry();
    const text = await registry.metrics();
    return c.body(text, 200, { 'content-type': registry.contentType });
  });
}
