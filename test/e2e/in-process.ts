/**
 * Test support: build .pipe inputs with the real CLI, then load the generated service definition
 * and ITS copy of the runtime in this process, so tests can create the service with a controlled
 * clock, chosen backends and `fireSchedule`, and call it with `app.request()` or real HTTP.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Clock, Json } from '../../runtime/types.js';
import type { Service, ServiceDefinition, ServiceOptions } from '../../runtime/service/create-service.js';
import { runCli, tempDir } from './service-process.js';

export interface BuiltService {
  readonly outDir: string;
  readonly definition: ServiceDefinition;
  /** The generated service's own runtime (use it, not ../../runtime, so classes match). */
  readonly runtime: {
    createService(def: ServiceDefinition, opts?: ServiceOptions): Promise<Service>;
    serve(
      service: Service,
      opts?: { port?: number; hostname?: string },
    ): Promise<{ port: number; close(): Promise<void> }>;
  };
}

export async function buildService(inputs: readonly string[], name: string): Promise<BuiltService> {
  const outDir = path.join(tempDir(name), 'out');
  const built = await runCli(['build', ...inputs, '--out', outDir, '--name', name, '--color', 'never']);
  if (built.code !== 0) throw new Error(`pipec build failed:\n${built.output.err.join('\n')}`);
  const definition = (
    (await import(pathToFileURL(path.join(outDir, 'service.js')).href)) as { service: ServiceDefinition }
  ).service;
  const runtime = (await import(
    pathToFileURL(path.join(outDir, 'runtime', 'index.js')).href
  )) as BuiltService['runtime'];
  return { outDir, definition, runtime };
}

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

export async function postJson(
  service: Service,
  route: string,
  body: Json,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  const res = await service.app.request(route, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : null };
}
