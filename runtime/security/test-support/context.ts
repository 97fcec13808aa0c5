/**
 * Test fixture: an ExecutionContext for connector unit tests with a controllable clock. Backends
 * (store, broker, execute) refuse every call: the security connectors must not touch them.
 */
import { pino } from 'pino';
import { ConnectionRegistry } from '../../service/connections.js';
import type { EventBroker, ExecutionContext, ObjectStoreBackend } from '../../types.js';

const unused = (what: string) => (): Promise<never> =>
  Promise.reject(new Error(`${what} is not available in this test`));

export function testContext(now: () => number = Date.now): ExecutionContext {
  const store: ObjectStoreBackend = {
    insert: unused('store'),
    find: unused('store'),
    findById: unused('store'),
    update: unused('store'),
    delete: unused('store'),
    aggregate: unused('store'),
    createIndex: unused('store'),
    listIndexes: unused('store'),
    dropIndex: unused('store'),
    close: unused('store'),
  };
  const broker: EventBroker = { publish: unused('broker'), subscribe: unused('broker'), close: unused('broker') };
  return {
    executionId: 'test-execution',
    pipeline: 'test',
    log: pino({ level: 'silent' }),
    metadata: {
      pipeline: { name: 'test' },
      execution: { key: 'test-execution', startTimestamp: now(), timeout: 30_000, redelivery: false },
    },
    steps: {},
    globals: {},
    accounts: {},
    services: {
      clock: { now },
      store,
      broker,
      execute: unused('execute'),
      connections: new ConnectionRegistry(pino({ level: 'silent' })),
    },
    signal: new AbortController().signal,
    workDir: '/nonexistent',
  };
}
