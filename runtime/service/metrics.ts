/**
 * Prometheus metrics of one service, in a registry of its own (never prom-client's global
 * default registry, so two services in one process, or tests, do not collide). Served on
 * `/metrics`.
 *
 * What is recorded on every request or step (executions, durations, in-flight, step durations)
 * uses the series metrics of metric-series.ts, resolved once per pipeline and step; rarer events
 * (events, rejections, scheduler ticks, agent tokens) use prom-client's own counters.
 */
import { Counter, Registry } from 'prom-client';
import { registerSeriesMetric, SeriesCounter, SeriesGauge, SeriesHistogram, type CounterSeries, type HistogramSeries } from './metric-series.js';

/** How an execution ended, as a metric label. */
export type ExecutionOutcomeLabel = 'success' | 'error' | 'invalid' | 'timeout' | 'rejected';

/** Seconds; from sub-millisecond steps up to long-running executions. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export interface ServiceMetrics {
  readonly registry: Registry;
  /** pipec_executions_total{pipeline, outcome} */
  readonly executions: SeriesCounter;
  /** pipec_execution_duration_seconds{pipeline, outcome} */
  readonly duration: SeriesHistogram;
  /** pipec_executions_in_flight{pipeline} */
  readonly inFlight: SeriesGauge;
  /** pipec_step_duration_seconds{pipeline, step, connector, outcome} */
  readonly stepDuration: SeriesHistogram;
  readonly eventsPublished: Counter<'pipeline' | 'event'>;
  readonly eventsConsumed: Counter<'pipeline' | 'event' | 'outcome'>;
  readonly eventsRedelivered: Counter<'pipeline' | 'event'>;
  readonly requestsRejected: Counter<'pipeline' | 'reason'>;
  readonly schedulerTicks: Counter<'pipeline' | 'outcome'>;
  /** pipec_agent_tokens_total{pipeline, model, type = input | output} */
  readonly agentTokens: Counter<'pipeline' | 'model' | 'type'>;
}

export function createServiceMetrics(service: string): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  const registers = [registry];
  const executions = new SeriesCounter('pipec_executions_total', 'Pipeline executions by outcome', ['pipeline', 'outcome']);
  const duration = new SeriesHistogram('pipec_execution_duration_seconds', 'Pipeline execution duration', ['pipeline', 'outcome'], DURATION_BUCKETS);
  const inFlight = new SeriesGauge('pipec_executions_in_flight', 'Executions currently running', ['pipeline']);
  const stepDuration = new SeriesHistogram(
    'pipec_step_duration_seconds', 'Duration of connector steps', ['pipeline', 'step', 'connector', 'outcome'], DURATION_BUCKETS,
  );
  for (const metric of [executions, duration, inFlight, stepDuration]) registerSeriesMetric(registry, metric);
  return {
    registry,
    executions,
    duration,
    inFlight,
    stepDuration,
    eventsPublished: new Counter({
      name: 'pipec_events_published_total', help: 'Events published by publish steps',
      labelNames: ['pipeline', 'event'], registers,
    }),
    eventsConsumed: new Counter({
      name: 'pipec_events_consumed_total', help: 'Events handled by event-triggered pipelines',
      labelNames: ['pipeline', 'event', 'outcome'], registers,
    }),
    eventsRedelivered: new Counter({
      name: 'pipec_events_redelivered_total', help: 'Event deliveries that were redeliveries',
      labelNames: ['pipeline', 'event'], registers,
    }),
    requestsRejected: new Counter({
      name: 'pipec_http_requests_rejected_total', help: 'HTTP requests refused before an execution started',
      labelNames: ['pipeline', 'reason'], registers,
    }),
    schedulerTicks: new Counter({
      name: 'pipec_scheduler_ticks_total', help: 'Scheduler ticks by what happened',
      labelNames: ['pipeline', 'outcome'], registers,
    }),
    agentTokens: new Counter({
      name: 'pipec_agent_tokens_total', help: 'Language model tokens used by agent steps',
      labelNames: ['pipeline', 'model', 'type'], registers,
    }),
  };
}

/** The series one pipeline's executions update, resolved once per pipeline. */
export class PipelineSeries {
  readonly inFlight: CounterSeries;
  private readonly byOutcome = new Map<ExecutionOutcomeLabel, { readonly count: CounterSeries; readonly duration: HistogramSeries }>();

  constructor(private readonly metrics: ServiceMetrics, private readonly pipeline: string) {
    this.inFlight = metrics.inFlight.series([pipeline]);
  }

  /** Counts one finished execution and its duration. */
  finished(outcome: ExecutionOutcomeLabel, durationSeconds: number): void {
    let series = this.byOutcome.get(outcome);
    if (!series) {
      series = {
        count: this.metrics.executions.series([this.pipeline, outcome]),
        duration: this.metrics.duration.series([this.pipeline, outcome]),
      };
      this.byOutcome.set(outcome, series);
    }
    series.count.value += 1;
    series.duration.observe(durationSeconds);
  }
}
