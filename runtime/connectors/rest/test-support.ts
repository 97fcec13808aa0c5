/**
 * Test fixtures for the `rest` connector: an ExecutionContext with a silent logger, an abortable
 * signal and a settable clock; and a real node:http server on 127.0.0.1 that records every request
 * and answers with a handler the test supplies. Backends the connector must not touch refuse calls.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import type { EventBroker, ExecutionContext, ObjectStoreBackend } from '../../types.js';
import type { MessageUseScenario } from '../test-support/message-use-scenario.js';
import { ConnectionRegistry } from '../../service/connections.js';
import { fakeContext } from '../../service/test-support/fake-context.js';

export interface RestTestContext {
  readonly ctx: ExecutionContext;
  /** Moves the clock the connector reads through ctx.services.clock. */
  setNow(ms: number): void;
  advance(ms: number): void;
  /** Aborts ctx.signal (execution timeout or shutdown). */
  abort(): void;
}

const refuse = (what: string) => (): Promise<never> =>
  Promise.reject(new Error(`${what} is not available in rest tests`));

export function restTestContext(startMs = Date.UTC(2030, 0, 1)): RestTestContext {
  let now = startMs;
  const controller = new AbortController();
  const store: ObjectStoreBackend = {
    insert: refuse('store'),
    find: refuse('store'),
    findById: refuse('store'),
    update: refuse('store'),
    delete: refuse('store'),
    aggregate: refuse('store'),
    createIndex: refuse('store'),
    listIndexes: refuse('store'),
    dropIndex: refuse('store'),
    close: refuse('store'),
  };
  const broker: EventBroker = { publish: refuse('broker'), subscribe: refuse('broker'), close: refuse('broker') };
  const ctx: ExecutionContext = {
    executionId: 'rest-test',
    pipeline: 'rest-test',
    log: pino({ level: 'silent' }),
    metadata: {
      pipeline: { name: 'rest-test' },
      execution: { key: 'rest-test', startTimestamp: startMs, timeout: 30_000, redelivery: false },
    },
    steps: {},
    globals: {},
    accounts: {},
    services: {
      clock: { now: () => now },
      store,
      broker,
      execute: refuse('execute'),
      connections: new ConnectionRegistry(pino({ level: 'silent' })),
    },
    signal: controller.signal,
    workDir: '/nonexistent',
  };
  return {
    ctx,
    setNow: (ms) => {
      now = ms;
    },
    advance: (ms) => {
      now += ms;
    },
    abort: () => controller.abort(new Error('execution aborted by the test')),
  };
}

/** One request as the test server saw it. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export type TestHandler = (request: RecordedRequest, response: http.ServerResponse) => void;

export interface TestServer {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  readonly requests: RecordedRequest[];
  /** Replaces the handler for the next requests. */
  handle(handler: TestHandler): void;
  close(): Promise<void>;
}

/** Starts a server on an ephemeral loopback port; the handler sees the fully read request. */
export async function startTestServer(handler: TestHandler = (_req, res) => res.end()): Promise<TestServer> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      current(recorded, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    handle: (next) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers JSON with a status. */
export function json(
  response: http.ServerResponse,
  status: number,
  body: unknown,
  headers: http.OutgoingHttpHeaders = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** A run of `rest` that must not look at its message (runtime/connectors/message-use.test.ts). */
export const messageUseScenario: MessageUseScenario = ({ baseUrl }) => ({
  params: { url: baseUrl, method: 'GET' },
  ctx: fakeContext().ctx,
});
