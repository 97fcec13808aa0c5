/**
 * A stand-alone ExecutionContext for connector unit tests: fake backends, a capturing logger,
 * and a recording `execute`. Service-level behaviour is tested through createService instead.
 */
import { tmpdir } from 'node:os';
import type { ExecutionContext, Json } from '../../types.js';
import { ConnectionRegistry } from '../connections.js';
import { createLogger } from '../logging.js';
import { createFakeBackends, type FakeBackends } from './fake-backends.js';
import { LogCapture } from './test-service.js';

export interface FakeContext {
  readonly ctx: ExecutionContext;
  readonly logs: LogCapture;
  readonly backends: FakeBackends;
}

export function fakeContext(overrides: Partial<ExecutionContext> = {}): FakeContext {
  const logs = new LogCapture();
  const backends = createFakeBackends();
  const log = createLogger({ level: 'debug', destination: logs }).child({ executionId: 'exec-1', pipeline: 'p' });
  const ctx: ExecutionContext = {
    executionId: 'exec-1',
    pipeline: 'p',
    log,
    metadata: {
      pipeline: { name: 'p' },
      execution: { key: 'exec-1', startTimestamp: 0, timeout: 30_000, redelivery: false },
    },
    steps: Object.create(null) as Record<string, Json>,
    globals: {},
    accounts: {},
    services: {
      clock: { now: () => 0 },
      store: backends.store,
      broker: backends.broker,
      connections: new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' })),
      execute: async () => {
        throw new Error('execute is not available in this fake context');
      },
    },
    signal: new AbortController().signal,
    workDir: tmpdir(),
    ...overrides,
  };
  return { ctx, logs, backends };
}
