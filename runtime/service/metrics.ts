/**
 * Prometheus metrics of one service, in a registry of its own (never prom-client's global
 * default registry, so two services in one process, or tests, do not collide). Served on
 * `/metrics`.
 *
 * Every metric is a series metric (metric-series.ts): hot ones (executions, durations, in-flight,
 * step durations) are resolved once per pipeline and step and updated with plain arithmetic. The
 * prom-client Registry that renders them is created on the first scrape, so services that are
 * never scraped do not load prom-client at start-up.
 */
import type { Registry } from 'prom-client';
import {
  CollectedGauge,
  registerSeriesMetric,
  SeriesCounter,
  SeriesGauge,
  SeriesHistogram,
  type CounterSeries,
  type HistogramSeries,
  type SeriesMetric,
} from './metric-series.js';

/** How an execution ended, as a metric label. */
export type ExecutionOutcomeLabel = 'success' | 'error' | 'invalid' | 'timeout' | 'rejected';

/** Seconds; from sub-millisecond steps up to long-running executions. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export interface ServiceMetrics {
  /** The service's registry (prom-client loaded on first use), holding every metric below. */
  registry(): Promise<Registry>;
  /** pipec_executions_total{pipeline, outcome} */
  readonly executions: SeriesCounter;
  /** pipec_execution_duration_seconds{pipeline, outcome} */
  readonly duration: SeriesHistogram;
  /** pipec_executions_in_flight{pipeline} */
  readonly inFlight: SeriesGauge;
  /** pipec_step_duration_seconds{pipeline, step, connector, outcome} */
  readonly stepDuration: SeriesHistogram;
  readonly eventsPublished: SeriesCounter;
  readonly eventsConsumed: SeriesCounter;
  readonly eventsRedelivered: SeriesCounter;
  readonly requestsRejected: SeriesCounter;
  readonly schedulerTicks: SeriesCounter;
  /** pipec_agent_tokens_total{pipeline, model, type = input | output} */
  readonly agentTokens: SeriesCounter;
  /** pipec_dead_letters{event}: events in the dead-letter store, read from it when scraped. */
  readonly deadLetters: CollectedGauge;
  /** pipec_circuit_state{target}: 0 closed, 1 half-open, 2 open (runtime/policies/breakers.ts). */
  readonly circuitState: SeriesGauge;
  /** pipec_step_retries_total{pipeline, step}: attempts made again by a step's `retry`. */
  readonly stepRetries: SeriesCounter;
  /** pipec_queue_depth{pipeline}: executions waiting for a concurrency slot. */
  readonly queueDepth: SeriesGauge;
  /** pipec_shed_total{pipeline, trigger}: executions refused because the pipeline's queue was full. */
  readonly shed: SeriesCounter;
  /** pipec_idempotent_replays_total{pipeline}: repeated idempotency keys answered or skipped without running. */
  readonly idempotentReplays: SeriesCounter;
}

export function createServiceMetrics(service: string): ServiceMetrics {
  const metrics = {
    executions: new SeriesCounter('pipec_executions_total', 'Pipeline executions by outcome', ['pipeline', 'outcome']),
    duration: new SeriesHistogram(
      'pipec_execution_duration_seconds',
      'Pipeline execution duration',
      ['pipeline', 'outcome'],
      DURATION_BUCKETS,
    ),
    inFlight: new SeriesGauge('pipec_executions_in_flight', 'Executions currently running', ['pipeline']),
    stepDuration: new SeriesHistogram(
      'pipec_step_duration_seconds',
      'Duration of connector steps',
      ['pipeline', 'step', 'connector', 'outcome'],
      DURATION_BUCKETS,
    ),
    eventsPublished: new SeriesCounter('pipec_events_published_total', 'Events published by publish steps', [
      'pipeline',
      'event',
    ]),
    eventsConsumed: new SeriesCounter('pipec_events_consumed_total', 'Events handled by event-triggered pipelines', [
      'pipeline',
      'event',
      'outcome',
    ]),
    eventsRedelivered: new SeriesCounter('pipec_events_redelivered_total', 'Event deliveries that were redeliveries', [
      'pipeline',
      'event',
    ]),
    requestsRejected: new SeriesCounter(
      'pipec_http_requests_rejected_total',
      'HTTP requests refused before an execution started',
      ['pipeline', 'reason'],
    ),
    schedulerTicks: new SeriesCounter('pipec_scheduler_ticks_total', 'Scheduler ticks by what happened', [
      'pipeline',
      'outcome',
    ]),
    agentTokens: new SeriesCounter('pipec_agent_tokens_total', 'Language model tokens used by agent steps', [
      'pipeline',
      'model',
      'type',
    ]),
    deadLetters: new CollectedGauge('pipec_dead_letters', 'Events in the dead-letter store, by event name', 'event'),
    circuitState: new SeriesGauge(
      'pipec_circuit_state',
      'Circuit breaker per outbound target: 0 closed, 1 half-open, 2 open',
      ['target'],
    ),
    stepRetries: new SeriesCounter('pipec_step_retries_total', 'Step attempts made again by the step option retry', [
      'pipeline',
      'step',
    ]),
    queueDepth: new SeriesGauge('pipec_queue_depth', 'Executions waiting for a concurrency slot', ['pipeline']),
    shed: new SeriesCounter('pipec_shed_total', 'Executions refused because the pipeline queue was full', [
      'pipeline',
      'trigger',
    ]),
    idempotentReplays: new SeriesCounter(
      'pipec_idempotent_replays_total',
      'Repeated idempotency keys answered from the first answer or skipped',
      ['pipeline', 'trigger'],
    ),
  };
  let registry: Promise<Registry> | undefined;
  return {
    ...metrics,
    registry() {
      registry ??= import('prom-client').then(({ Registry: PromRegistry }) => {
        const created = new PromRegistry();
        created.setDefaultLabels({ service });
        for (const metric of Object.values(metrics) as SeriesMetric[]) registerSeriesMetric(created, metric);
        return created;
      });
      return registry;
    },
  };
}

/** The series one pipeline's executions update, resolved once per pipeline. */
interface OutcomeSeries {
  readonly count: CounterSeries;
  readonly duration: HistogramSeries;
}

export class PipelineSeries {
  readonly inFlight: CounterSeries;
  private readonly byOutcome = new Map<ExecutionOutcomeLabel, OutcomeSeries>();
  private success: OutcomeSeries | undefined;

  constructor(
    private readonly metrics: ServiceMetrics,
    private readonly pipeline: string,
  ) {
    this.inFlight = metrics.inFlight.series([pipeline]);
  }

  /** Counts one finished execution and its duration. */
  finished(outcome: ExecutionOutcomeLabel, durationSeconds: number): void {
    // The usual outcome without a map lookup.
    let series = outcome === 'success' ? this.success : this.byOutcome.get(outcome);
    if (!series) {
      series = {
        count: this.metrics.executions.series([this.pipeline, outcome]),
        duration: this.metrics.duration.series([this.pipeline, outcome]),
      };
      this.byOutcome.set(outcome, series);
      if (outcome === 'success') this.success = series;
    }
    series.count.value += 1;
    series.duration.observe(durationSeconds);
  }
}
