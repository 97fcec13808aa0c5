/**
 * Tracing end to end with an in-memory exporter: a request with a W3C `traceparent` enters an
 * HTTP pipeline, which calls a second pipeline over real HTTP (`rest`); that one runs a third
 * (`execute`) and publishes an event consumed by a fourth. Every execution and step must land in
 * the caller's trace with the right parent, on the SQLite broker and (when reachable) on NATS.
 */
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-node';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildService, type BuiltService } from '../../test/e2e/in-process.js';
import { freePort, tempDir } from '../../test/e2e/service-process.js';
import { requestedExporters } from './tracing.js';

import { NATS_URL, natsReachable, removeNatsStreams } from '../../test/support/servers.js';
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN_ID = 'b7ad6b7169203331';

const natsUp = await natsReachable();
if (!natsUp && process.env['CI'] === 'true') throw new Error(`NATS is required in CI but unreachable at ${NATS_URL}`);
if (!natsUp) console.warn(`[tracing.test] NATS unreachable at ${NATS_URL}: the NATS broker case is skipped`);

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let built: BuiltService;

beforeAll(async () => {
  provider.register();
  built = await buildService([path.join(import.meta.dirname, 'test-data', 'traced.pipe')], 'traced');
});

afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

async function waitFor<T>(find: () => T | undefined, what: string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Runs the four pipelines once on the given broker and returns the spans of that trace. */
async function traceOnce(brokerEnv: Record<string, string>): Promise<ReadableSpan[]> {
  exporter.reset();
  const port = await freePort();
  const service = await built.runtime.createService(built.definition, {
    dataDir: path.join(tempDir('traced-data'), 'data'),
    env: { LOG_LEVEL: 'warn', TRACE_BACK_URL: `http://127.0.0.1:${port}/trace/back`, ...brokerEnv },
    tracer: provider.getTracer('tracing-test'),
  });
  await service.start();
  const server = await built.runtime.serve(service, { port, hostname: '127.0.0.1' });
  try {
    const res = await fetch(`http://127.0.0.1:${port}/trace/front`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01` },
      body: JSON.stringify({ order: 42 }),
    });
    expect(res.status).toBe(200);
    await waitFor(
      () =>
        exporter
          .getFinishedSpans()
          .find((s) => s.name === 'step log' && s.attributes['pipec.pipeline'] === 'trace-consumer'),
      'the consumer span',
    );
    return exporter.getFinishedSpans();
  } finally {
    await server.close();
    await service.stop(1000);
  }
}

function expectTrace(spans: readonly ReadableSpan[]): void {
  const byName = (name: string, pipeline: string): ReadableSpan => {
    const span = spans.find((s) => s.name === name && s.attributes['pipec.pipeline'] === pipeline);
    if (!span)
      throw new Error(
        `no span "${name}" of ${pipeline} among: ${spans.map((s) => `${s.name}/${String(s.attributes['pipec.pipeline'])}`).join(', ')}`,
      );
    return span;
  };
  const idOf = (span: ReadableSpan): string => span.spanContext().spanId;
  const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

  const front = byName('pipeline trace-front', 'trace-front');
  const restCall = byName('step call-back', 'trace-front');
  const back = byName('pipeline trace-back', 'trace-back');
  const executeStep = byName('step execute', 'trace-back');
  const helper = byName('pipeline trace-helper', 'trace-helper');
  const publishStep = byName('step publish', 'trace-back');
  const consumer = byName('pipeline trace-consumer', 'trace-consumer');
  const consumerLog = byName('step log', 'trace-consumer');

  for (const span of [front, restCall, back, executeStep, helper, publishStep, consumer, consumerLog]) {
    expect(span.spanContext().traceId).toBe(TRACE_ID);
  }
  expect(parentOf(front)).toBe(CALLER_SPAN_ID); // traceparent accepted on the HTTP trigger
  expect(parentOf(restCall)).toBe(idOf(front));
  expect(parentOf(back)).toBe(idOf(restCall)); // propagated through rest
  expect(parentOf(executeStep)).toBe(idOf(back));
  expect(parentOf(helper)).toBe(idOf(executeStep)); // and through execute
  expect(parentOf(publishStep)).toBe(idOf(back));
  expect(parentOf(consumer)).toBe(idOf(publishStep)); // and through the event envelope
  expect(parentOf(consumerLog)).toBe(idOf(consumer));

  expect(front.kind).toBe(SpanKind.SERVER);
  expect(restCall.kind).toBe(SpanKind.CLIENT);
  expect(publishStep.kind).toBe(SpanKind.PRODUCER);
  expect(consumer.kind).toBe(SpanKind.CONSUMER);
  expect(front.attributes).toMatchObject({ 'pipec.trigger': 'http', 'pipec.outcome': 'success' });
  expect(typeof front.attributes['pipec.execution.id']).toBe('string');
  expect(restCall.attributes).toMatchObject({
    'pipec.step': 'call-back',
    'pipec.connector': 'rest',
    'pipec.outcome': 'ok',
  });
  expect(consumer.attributes).toMatchObject({ 'pipec.trigger': 'event', 'pipec.outcome': 'success' });
}

describe('tracing across pipelines', () => {
  it('links HTTP → rest → execute and event (SQLite broker) into one trace', async () => {
    expectTrace(await traceOnce({}));
  });

  it.runIf(natsUp)('links the event hop through NATS JetStream too', async () => {
    const run = `${Date.now().toString(36)}${process.pid}`;
    const stream = `PIPEC_TRACE_${run}`;
    try {
      expectTrace(
        await traceOnce({
          PIPEC_BROKER: NATS_URL,
          PIPEC_NATS_STREAM: stream,
          PIPEC_NATS_SUBJECT_PREFIX: `pipectrace.${run}`,
        }),
      );
    } finally {
      await removeNatsStreams(stream);
    }
  });
});

describe('tracing configuration', () => {
  it('is off unless an OTEL exporter or endpoint is configured', () => {
    expect(requestedExporters({})).toEqual([]);
    expect(requestedExporters({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual(['otlp']);
    expect(requestedExporters({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toEqual([
      'otlp',
    ]);
    expect(requestedExporters({ OTEL_TRACES_EXPORTER: 'console, otlp' })).toEqual(['console', 'otlp']);
    expect(
      requestedExporters({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }),
    ).toEqual([]);
    expect(requestedExporters({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'console' })).toEqual([]);
  });
});
