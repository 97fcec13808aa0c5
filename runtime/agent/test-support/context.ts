/**
 * Test support: an ExecutionContext for running the agent outside a service — a silent logger,
 * a fresh execution id, a work folder (created by the caller) and an abort signal the test owns.
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import type { ExecutionContext, ServiceServices } from '../../types.js';

export function testContext(workDir: string, signal: AbortSignal = new AbortController().signal): ExecutionContext {
  const executionId = randomUUID();
  const unavailable = (): never => {
    throw new Error('not available in agent tests');
  };
  const services = {
    clock: { now: () => Date.now() },
    store: {},
    broker: {},
    execute: unavailable,
  } as unknown as ServiceServices;
  return {
    executionId,
    pipeline: 'agent-test',
    log: pino({ level: 'silent' }),
    metadata: {
      pipeline: { name: 'agent-test' },
      execution: { key: executionId, startTimestamp: Date.now(), timeout: 30_000, redelivery: false },
    },
    steps: {},
    globals: {},
    accounts: {},
    services,
    signal,
    workDir,
  };
}
