import { afterEach, describe, expect, it } from 'vitest';
import { run as publish } from '../connectors/publish/publish.js';
import { step, stepNow, type StepInfo } from '../steps.js';
import type { Json } from '../types.js';
import { createServiceMetrics } from './metrics.js';
import { registerSeriesMetric, SeriesHistogram } from './metric-series.js';
import { deferred, httpTrigger, makeTestService, pipelineOf, type TestService } from './test-support/test-service.js';

let t: TestService | undefined;
afterEach(async () => {
  await t?.service.stop(200);
  t = undefined;
});

const post = async (path: string): Promise<Response> =>
  (t as TestService).service.app.request(path, {
    method: 'POST',
    body: '{}',
    headers: { 'content-type': 'application/json' },
  });

async function metricsText(): Promise<string> {
  const res = await (t as TestService).service.app.request('/metrics');
  expect(res.status).toBe(200);
  return res.text();
}

/** The value of the one sample of `name` whose labels include all of `labels`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] as string).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

// With the facts the compiler copies from their schemas' `x-pipe-metrics`.
const agentStep: StepInfo = {
  label: 'summarise',
  connector: 'agent',
  source: 'm.pipe:3',
  failOnError: true,
  metrics: { 'token-usage': { model: 'model', usage: 'tokenUsage' } },
};
const publishStep: StepInfo = {
  connector: 'publish',
  source: 'm.pipe:4',
  failOnError: true,
  metrics: { 'events-published': { event: 'event' } },
};
const failingStep: StepInfo = { label: 'boom', connector: 'json-generator', source: 'm.pipe:5', failOnError: true };

describe('/metrics', () => {
  it('counts executions, step durations, agent tokens and published and consumed events', async () => {
    const worker = pipelineOf('worker', httpTrigger('/work'), async (message, ctx) => {
      // A stand-in agent connector: what matters is its output's tokenUsage and the model param.
      let m: Json = await step(
        ctx,
        agentStep,
        async () => ({ body: 'ok', tokenUsage: { inputTokenCount: 120, outputTokenCount: 30, totalTokenCount: 150 } }),
        { model: 'mock:docs' },
        message,
      );
      m = await step(ctx, publishStep, publish, { event: 'work-done', payload: { n: 1 } }, m);
      return m;
    });
    const failing = pipelineOf('failing', httpTrigger('/fail'), async (message, ctx) =>
      step(
        ctx,
        failingStep,
        async () => {
          throw new Error('no');
        },
        {},
        message,
      ),
    );
    const consumer = pipelineOf(
      'consumer',
      { kind: 'event', event: 'work-done', expiration: 60_000, maxTimeout: 5_000, maxDeliveries: 2 },
      async () => null,
    );
    t = await makeTestService([worker, failing, consumer]);
    await t.service.start();

    expect((await post('/work')).status).toBe(200);
    expect((await post('/work')).status).toBe(200);
    expect((await post('/fail')).status).toBe(500);
    await t.backends.broker.idle();

    const text = await metricsText();
    expect(sample(text, 'pipec_executions_total', { pipeline: 'worker', outcome: 'success', service: 'test' })).toBe(2);
    expect(sample(text, 'pipec_executions_total', { pipeline: 'failing', outcome: 'error' })).toBe(1);
    expect(sample(text, 'pipec_executions_total', { pipeline: 'consumer', outcome: 'success' })).toBe(2);
    expect(sample(text, 'pipec_execution_duration_seconds_count', { pipeline: 'worker', outcome: 'success' })).toBe(2);
    expect(
      sample(text, 'pipec_execution_duration_seconds_bucket', { pipeline: 'worker', outcome: 'success', le: '+Inf' }),
    ).toBe(2);
    expect(
      sample(text, 'pipec_step_duration_seconds_count', {
        pipeline: 'worker',
        step: 'summarise',
        connector: 'agent',
        outcome: 'ok',
      }),
    ).toBe(2);
    expect(
      sample(text, 'pipec_step_duration_seconds_count', {
        pipeline: 'worker',
        step: 'publish',
        connector: 'publish',
        outcome: 'ok',
      }),
    ).toBe(2);
    expect(
      sample(text, 'pipec_step_duration_seconds_count', { pipeline: 'failing', step: 'boom', outcome: 'error' }),
    ).toBe(1);
    expect(sample(text, 'pipec_agent_tokens_total', { pipeline: 'worker', model: 'mock:docs', type: 'input' })).toBe(
      240,
    );
    expect(sample(text, 'pipec_agent_tokens_total', { pipeline: 'worker', model: 'mock:docs', type: 'output' })).toBe(
      60,
    );
    expect(sample(text, 'pipec_events_published_total', { pipeline: 'worker', event: 'work-done' })).toBe(2);
    expect(
      sample(text, 'pipec_events_consumed_total', { pipeline: 'consumer', event: 'work-done', outcome: 'success' }),
    ).toBe(2);
    expect(sample(text, 'pipec_executions_in_flight', { pipeline: 'worker' })).toBe(0);
  });

  it('shows executions in flight while they run', async () => {
    const gate = deferred();
    const bothRunning = deferred();
    let started = 0;
    const slow = pipelineOf('slow', httpTrigger('/slow'), async () => {
      if (++started === 2) bothRunning.resolve();
      await gate.promise;
      return null;
    });
    t = await makeTestService([slow]);
    const running = [post('/slow'), post('/slow')];
    await bothRunning.promise;
    expect(sample(await metricsText(), 'pipec_executions_in_flight', { pipeline: 'slow' })).toBe(2);
    gate.resolve();
    await Promise.all(running);
    expect(sample(await metricsText(), 'pipec_executions_in_flight', { pipeline: 'slow' })).toBe(0);
  });

  it("takes a pipeline that executes itself out of the in-flight gauge too (it runs in its caller's slot)", async () => {
    const recursive = pipelineOf(
      'recursive',
      httpTrigger('/recursive'),
      async (message, ctx) => {
        if (message !== null && typeof message === 'object' && !Array.isArray(message) && message['depth'] === 1)
          return 'inner';
        return ctx.services.execute('recursive', { depth: 1 }, { timeout: 5_000, parent: ctx });
      },
      { concurrency: 1 },
    );
    t = await makeTestService([recursive]);
    expect((await post('/recursive')).status).toBe(200);
    expect(sample(await metricsText(), 'pipec_executions_in_flight', { pipeline: 'recursive' })).toBe(0);
  });

  it('counts redelivered events', async () => {
    let attempts = 0;
    const flaky = pipelineOf(
      'flaky',
      { kind: 'event', event: 'retry-me', expiration: 60_000, maxTimeout: 5_000, maxDeliveries: 3 },
      async () => {
        attempts++;
        if (attempts === 1) throw new Error('first delivery fails');
        return null;
      },
    );
    t = await makeTestService([flaky]);
    await t.service.start();
    await t.backends.broker.publish('retry-me', { n: 1 });
    await t.backends.broker.idle();
    const text = await metricsText();
    expect(sample(text, 'pipec_events_redelivered_total', { pipeline: 'flaky', event: 'retry-me' })).toBe(1);
    expect(sample(text, 'pipec_events_consumed_total', { pipeline: 'flaky', outcome: 'failure' })).toBe(1);
    expect(sample(text, 'pipec_events_consumed_total', { pipeline: 'flaky', outcome: 'success' })).toBe(1);
  });
});

describe('series metrics', () => {
  it('export cumulative Prometheus buckets with the registry default labels', async () => {
    const metrics = createServiceMetrics('svc');
    const histogram = new SeriesHistogram('t_seconds', 'test', ['pipeline'], [0.1, 1]);
    const registry = await metrics.registry();
    registerSeriesMetric(registry, histogram);
    const series = histogram.series(['p']);
    for (const v of [0.05, 0.1, 0.5, 3]) series.observe(v);
    const text = await registry.metrics();
    expect(text).toContain('# TYPE t_seconds histogram');
    expect(sample(text, 't_seconds_bucket', { le: '0.1', pipeline: 'p', service: 'svc' })).toBe(2);
    expect(sample(text, 't_seconds_bucket', { le: '1', pipeline: 'p' })).toBe(3);
    expect(sample(text, 't_seconds_bucket', { le: '+Inf', pipeline: 'p' })).toBe(4);
    expect(sample(text, 't_seconds_sum', { pipeline: 'p' })).toBeCloseTo(3.65);
    expect(sample(text, 't_seconds_count', { pipeline: 'p', service: 'svc' })).toBe(4);
    expect(() => histogram.series(['p', 'extra'])).toThrow(/label values/);
  });
});

describe('step durations in a pipeline whose steps are all synchronous', () => {
  const first: StepInfo = { label: 'first', connector: 'json-generator', source: 's.pipe:2', failOnError: true };
  const second: StepInfo = { label: 'second', connector: 'json-generator', source: 's.pipe:3', failOnError: true };
  const third: StepInfo = { label: 'third', connector: 'json-generator', source: 's.pipe:4', failOnError: true };

  it('chain: each step starts where the one before it ended, the first where the execution started (one clock read per step)', async () => {
    const sync = pipelineOf('sync', httpTrigger('/sync'), (message, ctx) => {
      let m = stepNow(ctx, first, (p: { json: Json }) => p.json, { json: 1 }, message);
      m = stepNow(ctx, second, (p: { json: Json }) => p.json, { json: 2 }, m);
      return stepNow(ctx, third, (p: { json: Json }) => p.json, { json: 3 }, m);
    });
    // A wall clock without wallTimeAt: the system clock re-reads performance.now() when its base is
    // over a second old (a slow start on a busy machine), which would add a read to the count.
    t = await makeTestService([sync], {}, { clock: { now: () => Date.now() } });
    // A clock that moves 1 ms per read: each duration shows how many reads it spans. It starts on
    // a whole millisecond (never behind the real clock), so its readings and their differences
    // are exact.
    const realNow = performance.now.bind(performance);
    let fake = Math.ceil(realNow());
    performance.now = () => (fake += 1);
    let reads: number;
    try {
      const before = fake;
      expect((await post('/sync')).status).toBe(200);
      reads = fake - before;
    } finally {
      performance.now = realNow;
    }
    // The execution's start and end, then one read at each step's end (the first step starts at
    // the execution's start: its duration spans one read, like the others').
    expect(reads).toBe(2 + 3);
    const text = await metricsText();
    for (const label of ['first', 'second', 'third']) {
      expect(sample(text, 'pipec_step_duration_seconds_count', { pipeline: 'sync', step: label, outcome: 'ok' })).toBe(
        1,
      );
      expect(
        sample(text, 'pipec_step_duration_seconds_sum', { pipeline: 'sync', step: label, outcome: 'ok' }),
      ).toBeCloseTo(0.001, 9);
    }
  });

  it('a step of an asynchronous pipeline reads the clock at its start and at its end', async () => {
    const pipeline = pipelineOf('async', httpTrigger('/async'), async (message, ctx) => {
      const m = await step(ctx, first, async (p: { json: Json }) => p.json, { json: 1 }, message);
      return step(ctx, second, async (p: { json: Json }) => p.json, { json: 2 }, m);
    });
    t = await makeTestService([pipeline]);
    expect((await post('/async')).status).toBe(200);
    const text = await metricsText();
    for (const label of ['first', 'second'])
      expect(sample(text, 'pipec_step_duration_seconds_count', { pipeline: 'async', step: label, outcome: 'ok' })).toBe(
        1,
      );
  });
});
