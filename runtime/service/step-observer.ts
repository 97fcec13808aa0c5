/**
 * The step hooks the service installs on every execution context: step duration metrics always,
 * the counts a connector's schema asks for (`x-pipe-metrics`: agent tokens, published events),
 * step spans when tracing is on, and optionally hooks of
 * the caller (mocks and coverage in pipeline tests). One shared object per service, so a step
 * pays a few property reads and one clock read, never an allocation, when tracing is off.
 */
import { performance } from 'node:perf_hooks';
import type { Span, Tracer } from '@opentelemetry/api';
import type { PipeError } from '../errors.js';
import { endStepSpan, startStepSpan, withSpan } from '../observability/spans.js';
import type { StepHooks, StepInfo, StepMetrics } from '../steps.js';
import type { ExecutionContext, Json } from '../types.js';
import type { HistogramSeries } from './metric-series.js';
import type { ServiceMetrics } from './metrics.js';

interface StepSeries {
  readonly pipeline: string;
  readonly ok: HistogramSeries;
  readonly error: HistogramSeries;
}

/**
 * Resolves each step's histogram series once. Steps are module constants of their pipeline, so the
 * series is kept on the step object itself, under a symbol of this cache (one per service: tests
 * run several services over the same modules): a property load per step instead of a WeakMap
 * lookup.
 */
class StepSeriesCache {
  private readonly key = Symbol('pipec.stepSeries');

  constructor(private readonly metrics: ServiceMetrics) {}

  get(step: StepInfo, pipeline: string): StepSeries {
    const slot = step as StepInfo & Partial<Record<symbol, StepSeries>>;
    const cached = slot[this.key];
    if (cached !== undefined && cached.pipeline === pipeline) return cached;
    const name = step.label ?? step.connector;
    const series: StepSeries = {
      pipeline,
      ok: this.metrics.stepDuration.series([pipeline, name, step.connector, 'ok']),
      error: this.metrics.stepDuration.series([pipeline, name, step.connector, 'error']),
    };
    // A step shared by pipelines (the rare case) keeps the first; the others resolve each time.
    // Not enumerable: the step object stays what the generated code wrote, to anything that lists it.
    if (cached === undefined && Object.isExtensible(step)) {
      Object.defineProperty(step, this.key, { value: series, enumerable: false, writable: false, configurable: false });
    }
    return series;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function nonNegative(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * Counts what a step's connector schema says to count (`x-pipe-metrics`, in its StepInfo):
 * `token-usage` adds the output's token counts by model, `events-published` counts events by name.
 */
function countConnectorFacts(
  metrics: ServiceMetrics,
  facts: StepMetrics,
  pipeline: string,
  output: Json | undefined,
  params: unknown,
): void {
  const tokens = facts['token-usage'];
  if (tokens && isObject(output) && isObject(output[tokens.usage])) {
    const usage = output[tokens.usage] as Record<string, unknown>;
    const model =
      isObject(params) && typeof params[tokens.model] === 'string' ? (params[tokens.model] as string) : 'unknown';
    const input = nonNegative(usage['inputTokenCount']);
    const produced = nonNegative(usage['outputTokenCount']);
    if (input > 0) metrics.agentTokens.inc({ pipeline, model, type: 'input' }, input);
    if (produced > 0) metrics.agentTokens.inc({ pipeline, model, type: 'output' }, produced);
  }
  const events = facts['events-published'];
  if (events && isObject(params) && typeof params[events.event] === 'string') {
    metrics.eventsPublished.inc({ pipeline, event: params[events.event] as string });
  }
}

function failureOf(error: PipeError | undefined): { code: number; message: string } | undefined {
  return error ? { code: error.code, message: error.message } : undefined;
}

export interface StepObserverOptions {
  readonly metrics: ServiceMetrics;
  readonly tracer?: Tracer;
  /** The caller's own hooks (e.g. mocks), run alongside. */
  readonly extra?: StepHooks;
}

/** Token passed from `before` to `after` when tracing is on. */
interface TracedToken {
  readonly startedAt: number;
  readonly span: Span;
  readonly extra: unknown;
}

/**
 * Where an execution context keeps the end of its last step (engine's EngineContext). In a
 * pipeline whose steps are all synchronous, the next step starts there: one clock read per step
 * instead of two (a clock read costs about as much as a small step on some machines), and the
 * step's time then includes the pipeline's own code since the previous step (conditions, replies),
 * and the first step's the engine's since the execution started (when it took a free slot at once).
 */
export interface StepClock {
  stepMark: number | undefined;
}

export function createStepHooks(opts: StepObserverOptions): StepHooks {
  const { metrics, tracer, extra } = opts;
  const cache = new StepSeriesCache(metrics);
  const record = (
    step: StepInfo,
    seconds: number,
    outcome: 'ok' | 'error',
    output: Json | undefined,
    ctx: ExecutionContext,
    params: unknown,
  ): void => {
    const series = cache.get(step, ctx.pipeline);
    (outcome === 'ok' ? series.ok : series.error).observe(seconds);
    if (outcome === 'ok' && step.metrics !== undefined)
      countConnectorFacts(metrics, step.metrics, ctx.pipeline, output, params);
  };

  const retried = (step: StepInfo, ctx: ExecutionContext): void => {
    metrics.stepRetries.inc({ pipeline: ctx.pipeline, step: step.label ?? step.connector });
  };

  if (!tracer && !extra) {
    return {
      retried,
      before: (_step, ctx, chained) =>
        (chained ? (ctx as ExecutionContext & Partial<StepClock>).stepMark : undefined) ?? performance.now(),
      after: (step, token, outcome, output, _error, ctx, params, chained) => {
        const now = performance.now();
        record(step, (now - (token as number)) / 1000, outcome, output, ctx, params);
        if (chained) (ctx as ExecutionContext & Partial<StepClock>).stepMark = now;
      },
    };
  }

  return {
    ...(extra?.mock ? { mock: extra.mock } : {}),
    ...(extra?.branch ? { branch: extra.branch } : {}),
    retried,
    before: (step, ctx, chained): TracedToken | { readonly startedAt: number; readonly extra: unknown } => {
      const extraToken = extra?.before?.(step, ctx, chained);
      const startedAt = performance.now();
      return tracer
        ? { startedAt, span: startStepSpan(tracer, ctx.pipeline, step), extra: extraToken }
        : { startedAt, extra: extraToken };
    },
    around: <T>(step: StepInfo, token: unknown, run: () => T): T => {
      const traced = token as Partial<TracedToken>;
      const inner = extra?.around
        ? () => (extra.around as NonNullable<StepHooks['around']>)(step, traced.extra, run)
        : run;
      return traced.span ? withSpan(traced.span, inner) : inner();
    },
    after: (step, token, outcome, output, error, ctx, params, chained) => {
      const traced = token as Partial<TracedToken> & { readonly startedAt: number };
      record(step, (performance.now() - traced.startedAt) / 1000, outcome, output, ctx, params);
      if (traced.span) endStepSpan(traced.span, outcome, failureOf(error), step, params);
      extra?.after?.(step, traced.extra, outcome, output, error, ctx, params, chained);
    },
  };
}
