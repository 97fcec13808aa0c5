/**
 * Operational endpoints: `/health` (the process is up: always 200), `/ready` (200 only while the
 * service is started, not draining, and every remote backend it needs answers — so a load balancer
 * stops sending work during shutdown and during a backend outage; the 503 body names the missing
 * backends) and `/metrics` (Prometheus text from the service's own registry).
 */
import type { Hono } from 'hono';
import type { Registry } from 'prom-client';
import type { BackendAvailability } from './backends-port.js';

export type ServicePhase = 'created' | 'ready' | 'draining' | 'stopped';

export const OPERATIONAL_PATHS: ReadonlySet<string> = new Set(['/health', '/ready', '/metrics']);

export interface HealthDeps {
  readonly phase: () => ServicePhase;
  readonly registry: () => Promise<Registry>;
  readonly availability?: BackendAvailability;
}

export function registerHealthRoutes(app: Hono, deps: HealthDeps): void {
  app.get('/health', (c) => c.json({ status: 'ok' }, 200));
  app.get('/ready', (c) => {
    const phase = deps.phase();
    if (phase !== 'ready') return c.json({ status: phase === 'created' ? 'starting' : phase }, 503);
    const missing = deps.availability?.unavailable() ?? [];
    if (missing.length > 0) {
      // Names only: the reasons (addresses, server messages) are in the log, not on a public path.
      return c.json({ status: 'unavailable', unavailable: missing.map((m) => m.backend) }, 503);
    }
    return c.json({ status: 'ready' }, 200);
  });
  app.get('/metrics', async (c) => {
    const registry = await deps.registry();
    const text = await registry.metrics();
    return c.body(text, 200, { 'content-type': registry.contentType });
  });
}
