/**
 * Operational endpoints: `/health` (the process is up: always 200), `/ready` (200 only while the
 * service is started and not draining, so load balancers stop sending work during shutdown) and
 * `/metrics` (Prometheus text from the service's own registry).
 */
import type { Hono } from 'hono';
import type { Registry } from 'prom-client';

export type ServicePhase = 'created' | 'ready' | 'draining' | 'stopped';

export const OPERATIONAL_PATHS: ReadonlySet<string> = new Set(['/health', '/ready', '/metrics']);

export function registerHealthRoutes(app: Hono, deps: { readonly phase: () => ServicePhase; readonly registry: () => Promise<Registry> }): void {
  app.get('/health', (c) => c.json({ status: 'ok' }, 200));
  app.get('/ready', (c) => {
    const phase = deps.phase();
    return phase === 'ready' ? c.json({ status: 'ready' }, 200) : c.json({ status: phase === 'created' ? 'starting' : phase }, 503);
  });
  app.get('/metrics', async (c) => {
    const registry = await deps.registry();
    const text = await registry.metrics();
    return c.body(text, 200, { 'content-type': registry.contentType });
  });
}
