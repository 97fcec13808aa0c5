/**
 * The engine's two ways to end an execution: a pipeline whose steps all ran synchronously is
 * answered in the same call (`executeNow` gives the outcome itself); one that went asynchronous
 * is settled later and, while it runs, is one of the executions a shutdown aborts.
 */
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { PipelineModule } from '../types.js';
import { ConnectionRegistry } from './connections.js';
import { ExecutionEngine } from './execution.js';
import { createPipelineExecutor } from './executor.js';
import { createLogger } from './logging.js';
import { createServiceMetrics } from './metrics.js';
import { createFakeBackends } from './test-support/fake-backends.js';
import { deferred, httpTrigger, pipelineOf } from './test-support/test-service.js';

function engineOf(pipelines: PipelineModule[]): ExecutionEngine {
  const backends = createFakeBackends();
  return new ExecutionEngine({
    pipelines,
    logger: createLogger({ level: 'silent' }),
    metrics: createServiceMetrics('engine-test'),
    clock: { now: () => 0 },
    dataDir: tmpdir(),
    globals: {},
    accounts: {},
    store: backends.store,
    broker: backends.broker,
    createExecutor: createPipelineExecutor,
    connections: new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' })),
  });
}

describe('executeNow', () => {
  it('gives the outcome of a synchronous pipeline at once, and a promise for any other', async () => {
    const engine = engineOf([
      pipelineOf('sync', httpTrigger('/sync'), (m) => ({ twice: (m as number) * 2 })),
      pipelineOf('async', httpTrigger('/async'), async (m) => ({ later: m })),
    ]);
    const now = engine.executeNow({ pipeline: 'sync', message: 21, trigger: 'test' });
    expect(now).not.toBeInstanceOf(Promise);
    expect(now).toMatchObject({ ok: true, result: { twice: 42 } });
    const later = engine.executeNow({ pipeline: 'async', message: 1, trigger: 'test' });
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toMatchObject({ ok: true, result: { later: 1 } });
    expect(engine.inFlight).toBe(0);
  });

  it('settles a synchronous failure like any failure: an outcome, never a throw', async () => {
    const engine = engineOf([
      pipelineOf('boom', httpTrigger('/boom'), () => {
        throw new Error('sync failure');
      }),
    ]);
    const outcome = engine.executeNow({ pipeline: 'boom', message: null, trigger: 'test' });
    expect(await outcome).toMatchObject({ ok: false, outcome: 'error', error: { code: 500 } });
    expect(engine.inFlight).toBe(0);
  });
});

describe('abortAll', () => {
  it('aborts a run that went asynchronous, even one that never read its signal before', async () => {
    const gate = deferred<void>();
    let signal: AbortSignal | undefined;
    const engine = engineOf([
      pipelineOf('slow', httpTrigger('/slow'), async (_m, ctx) => {
        await gate.promise;
        signal = ctx.signal;
        return signal.aborted ? 'aborted' : 'finished';
      }),
    ]);
    const running = engine.execute({ pipeline: 'slow', message: null, trigger: 'test' });
    engine.abortAll();
    gate.resolve();
    expect(await running).toMatchObject({ ok: false, error: { code: 503, kind: 'SHUTDOWN' } });
    await engine.drain(1000);
    expect(signal?.aborted).toBe(true);
  });
});
