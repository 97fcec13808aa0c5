/**
 * The Node.js edge: serves a service's Hono app on a TCP port (@hono/node-server) and turns
 * SIGTERM/SIGINT into a graceful stop (drain, close backends) followed by exit. The only file
 * here that listens on sockets or touches process signals.
 */
import type { AddressInfo } from 'node:net';
import { serve as honoServe } from '@hono/node-server';
import { createService, DEFAULT_GRACE_MS, type Service, type ServiceDefinition } from './create-service.js';

export interface ServeOptions {
  readonly port?: number;
  readonly hostname?: string;
}

export interface RunningServer {
  readonly port: number;
  close(): Promise<void>;
}

function portFromEnv(): number {
  const raw = process.env['PORT'];
  const port = raw === undefined ? Number.NaN : Number(raw);
  return Number.isInteger(port) && port >= 0 && port <= 65535 ? port : 8080;
}

function graceFromEnv(): number {
  const raw = Number(process.env['PIPEC_SHUTDOWN_GRACE_MS']);
  return Number.isInteger(raw) && raw >= 0 ? raw : DEFAULT_GRACE_MS;
}

/** Listens on opts.port, else env PORT, else 8080; SIGTERM/SIGINT → graceful stop then exit. */
export function serve(service: Service, opts: ServeOptions = {}): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = honoServe(
      { fetch: service.app.fetch, port: opts.port ?? portFromEnv(), ...(opts.hostname ? { hostname: opts.hostname } : {}) },
      (info: AddressInfo) => {
        server.off('error', reject);
        let closing: Promise<void> | undefined;
        const close = (): Promise<void> => {
          closing ??= new Promise<void>((done) => {
            process.off('SIGTERM', onSignal);
            process.off('SIGINT', onSignal);
            server.close(() => done());
            // Idle keep-alive sockets would otherwise hold close() open.
            if ('closeIdleConnections' in server) server.closeIdleConnections();
          });
          return closing;
        };
        const onSignal = (): void => {
          void (async () => {
            try {
              await service.stop(graceFromEnv());
              await close();
              process.exit(0);
            } catch {
              process.exit(1);
            }
          })();
        };
        process.once('SIGTERM', onSignal);
        process.once('SIGINT', onSignal);
        resolve({ port: info.port, close });
      },
    );
    server.once('error', reject);
  });
}

/** What a generated server.ts calls: create, start triggers, listen. */
export async function startService(def: ServiceDefinition): Promise<void> {
  const service = await createService(def, { routeProcessOutput: true });
  await service.start();
  await serve(service);
}
