/**
 * Test helpers: hand-written pipeline modules (plain objects implementing PipelineModule), a log
 * capture stream, and a service factory wired to fake backends and a temporary data folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { ExecutionContext, Json, PipelineModule, Reply, TriggerSpec } from '../../types.js';
import { trigger as eventTrigger } from '../../triggers/event/event.js';
import { trigger as httpFileTrigger } from '../../triggers/http-file/http-file.js';
import { trigger as httpTriggerRuntime, type HttpTriggerSpec } from '../../triggers/http/http.js';
import { trigger as mcpToolTrigger } from '../../triggers/mcp-tool/mcp-tool.js';
import { trigger as schedulerTrigger } from '../../triggers/scheduler/scheduler.js';
import { createService, type Service, type ServiceDefinition, type ServiceOptions } from '../create-service.js';
import type { TriggerRuntime } from '../trigger-host.js';
import { createLogger } from '../logging.js';
import { createFakeBackends, type FakeBackends } from './fake-backends.js';

export function httpTrigger(
  path: string,
  methods: string[] = ['POST'],
  extra: Partial<HttpTriggerSpec> = {},
): HttpTriggerSpec {
  return { kind: 'http', methods, path, maxBodySize: 5 * 1024 * 1024, ...extra };
}

/** Every trigger of pipec's runtime, as a generated service.ts would list the ones it uses. */
export const BUILT_IN_TRIGGERS: Readonly<Record<string, TriggerRuntime>> = {
  http: httpTriggerRuntime as TriggerRuntime,
  'http-file': httpFileTrigger as TriggerRuntime,
  event: eventTrigger as TriggerRuntime,
  scheduler: schedulerTrigger as TriggerRuntime,
  'mcp-tool': mcpToolTrigger as TriggerRuntime,
};

export function pipelineOf(
  name: string,
  trigger: TriggerSpec,
  run: (message: Json, ctx: ExecutionContext) => Json | Reply | Promise<Json | Reply>,
  options: { concurrency?: number; timeout?: number } = {},
): PipelineModule {
  return {
    name,
    source: `${name}.pipe:1`,
    trigger,
    options: { concurrency: options.concurrency ?? 10, timeout: options.timeout ?? 30_000 },
    run,
  };
}

/** Collects pino's JSON lines. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (error?: Error | null) => void): void {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) this.lines.push(line);
    done();
  }
  get records(): Array<Record<string, unknown>> {
    return this.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

export interface TestService {
  readonly service: Service;
  readonly backends: FakeBackends;
  readonly logs: LogCapture;
  readonly logger: Logger;
  readonly dataDir: string;
}

export async function makeTestService(
  pipelines: PipelineModule[],
  def: Partial<ServiceDefinition> = {},
  opts: ServiceOptions = {},
): Promise<TestService> {
  const logs = new LogCapture();
  const logger = createLogger({ level: 'debug', service: 'test', destination: logs });
  const backends = createFakeBackends(opts.clock);
  const dataDir = mkdtempSync(join(tmpdir(), 'pipec-service-'));
  let created: Service;
  try {
    created = await createService(
      { name: 'test', pipelines, accounts: {}, globals: {}, stores: {}, triggers: BUILT_IN_TRIGGERS, ...def },
      { backends, logger, dataDir, env: {}, ...opts },
    );
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  // Stopping the service also removes its temporary data folder.
  const service: Service = {
    ...created,
    stop: async (graceMs?: number) => {
      await created.stop(graceMs);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return { service, backends, logs, logger, dataDir };
}

export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
