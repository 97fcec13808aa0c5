/**
 * Prometheus metrics of one service, in a registry of its own (never prom-client's global
 * default registry, so two services in one process, or tests, do not collide).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** How an execution ended, as a metric label. */
export type ExecutionOutcomeLabel = 'success' | 'error' | 'invalid' | 'timeout' | 'rejected';

export interface ServiceMetrics {
  readonly registry: Registry;
  readonly executions: Counter<'pipeline' | 'outcome'>;
  readonly duration: Histogram<'pipeline' | 'outcome'>;
  readonly inFlight: Gauge<'pipeline'>;
  readonly eventsConsumed: Counter<'pipeline' | 'event' | 'outcome'>;
  readonly eventsRedelivered: Counter<'pipeline' | 'event'>;
  readonly requestsRejected: Counter<'pipeline' | 'reason'>;
  readonly schedulerTicks: Counter<'pipeline' | 'outcome'>;
}

export function createServiceMetrics(service: string): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  const registers = [registry];
  return {
    registry,
    executions: new Counter({
      name: 'pipec_executions_total', help: 'Pipeline executions by outcome',
      labelNames: ['pipeline', 'outcome'], registers,
    }),
    duration: new Histogram({
      name: 'pipec_execution_duration_seconds', help: 'Pipeline execution duration',
      labelNames: ['pipeline', 'outcome'], registers,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    }),
    inFlight: new Gauge({
      name: 'pipec_executions_in_flight', help: 'Executions currently running',
      labelNames: ['pipeline'], registers,
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
  };
}
