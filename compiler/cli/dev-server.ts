/**
 * What `pipec run` starts instead of server.js: the built service, plus development routes that a
 * `pipec build` output never has — this file belongs to the CLI, not to the runtime a build copies,
 * and server.js does not know it. In: the built service folder (argv[2]); env as for server.js.
 *
 *   GET  /_pipec/schedules              the pipelines with a scheduler trigger
 *   POST /_pipec/schedules/<pipeline>   fire that schedule now (as a tick would) → its outcome
 *
 * Only callers on this machine (loopback) reach them. Once listening it prints one line to stderr
 * with the address, so a port chosen by the system (--port 0) can be found.
 */
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Hono, type Context } from 'hono';
import type { Service, ServiceDefinition } from '../../runtime/index.js';

type Runtime = typeof import('../../runtime/index.js');

export const DEV_PREFIX = '/_pipec/schedules';

/** The service's app behind the development routes (which take precedence). */
export function withDevRoutes(service: Service, def: ServiceDefinition): Hono {
  const app = new Hono();
  const schedules = def.pipelines.flatMap((p) =>
    p.trigger.kind === 'scheduler' ? [{ pipeline: p.name, cron: p.trigger.cron, timezone: p.trigger.timezone }] : [],
  );
  const names = new Set(schedules.map((s) => s.pipeline));
  const refuse = (c: Context, status: 403 | 404, error: string): Response =>
    c.json({ error, code: status, schedules: status === 404 ? [...names] : undefined }, status);
  app.use(`${DEV_PREFIX}/*`, async (c, next) =>
    isLoopback(c) ? next() : refuse(c, 403, 'development routes answer only on this machine'),
  );
  app.use(DEV_PREFIX, async (c, next) =>
    isLoopback(c) ? next() : refuse(c, 403, 'development routes answer only on this machine'),
  );
  app.get(DEV_PREFIX, (c) => c.json({ schedules }));
  app.post(`${DEV_PREFIX}/:pipeline`, async (c) => {
    const pipeline = c.req.param('pipeline');
    if (!names.has(pipeline)) return refuse(c, 404, `no pipeline "${pipeline}" with a scheduler trigger`);
    const outcome = await service.fireSchedule(pipeline);
    if (outcome.ok) return c.json({ pipeline, executionId: outcome.executionId, result: outcome.result ?? null }, 200);
    const status = (outcome.error?.code ?? 500) as 409 | 500;
    return c.json({ pipeline, executionId: outcome.executionId, error: outcome.error }, status);
  });
  app.all('*', (c) => service.app.fetch(c.req.raw, c.env));
  return app;
}

function isLoopback(c: Context): boolean {
  const address = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket.remoteAddress ?? '';
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

async function main(serviceDir: string): Promise<void> {
  const base = pathToFileURL(`${path.resolve(serviceDir)}${path.sep}`);
  const [runtime, definition] = await Promise.all([
    import(new URL('runtime/index.js', base).href) as Promise<Runtime>,
    import(new URL('service.js', base).href) as Promise<{ service: ServiceDefinition }>,
  ]);
  // As server.js starts a service (runtime/service/node-server.ts startService): JSON-only process
  // output, the port bound before the triggers start.
  const service = await runtime.createService(definition.service, { routeProcessOutput: true });
  // serve() reads only the app's fetch and the service's stop.
  const server = await runtime.serve({ ...service, app: withDevRoutes(service, definition.service) } as Service);
  await service.start();
  process.stderr.write(
    `pipec run: listening on http://localhost:${server.port} (fire a schedule now: curl -X POST localhost:${server.port}${DEV_PREFIX}/<pipeline>)\n`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const serviceDir = process.argv[2];
  if (!serviceDir) {
    process.stderr.write('usage: dev-server <built service folder>\n');
    process.exit(2);
  }
  main(serviceDir).catch((err: unknown) => {
    process.stderr.write(`pipec run: the service did not start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
