/**
 * The event trigger: one durable subscription per event-triggered pipeline. The event payload is
 * the message. An invalid payload is logged, counted and acknowledged (bad data does not get
 * better by retrying); a failed execution rejects the delivery so the broker redelivers it (up to
 * `maxDeliveries`). An event older than the trigger's `expiration` is acknowledged without running
 * (it waited in the queue longer than its consumers care for).
 */
import type { Logger } from 'pino';
import type { Clock, CompiledValidator, Delivery, EventBroker, Json, PipelineModule, Subscription, TriggerSpec } from '../../types.js';
import type { ExecutionEngine } from '../../service/execution.js';
import type { ServiceMetrics } from '../../service/metrics.js';
import type { TriggerRuntime } from '../../service/trigger-host.js';
import { collectViolations, type Violation } from '../../service/validation.js';

export interface EventTriggerSpec extends TriggerSpec {
  readonly kind: 'event';
  readonly event: string;
  readonly validateBody?: CompiledValidator;
  /** ms an event may wait in the queue. */
  readonly expiration: number;
  /** ms an execution may take before it is considered failed and redelivered. */
  readonly maxTimeout: number;
  /** Maximum deliveries of one event (1 = no redelivery). */
  readonly maxDeliveries: number;
}

/** The payload is the message: the schema checks it whole. */
function validateEvent(spec: EventTriggerSpec, message: Json): Violation[] | null {
  return spec.validateBody ? collectViolations(spec.validateBody, message) : null;
}

/** One durable subscription per pipeline, from the start of the service until it drains. */
export const trigger: TriggerRuntime<EventTriggerSpec> = {
  attach(pipelines, host) {
    const subscriptions: Subscription[] = [];
    return {
      async start() {
        for (const p of pipelines) subscriptions.push(await subscribeEventTrigger(p, p.trigger, host));
      },
      async stop() {
        await Promise.allSettled(subscriptions.splice(0).map((s) => s.stop()));
      },
    };
  },
  validate: validateEvent,
};

export interface EventTriggerDeps {
  readonly engine: ExecutionEngine;
  readonly broker: EventBroker;
  readonly metrics: ServiceMetrics;
  readonly logger: Logger;
  readonly clock: Clock;
}

/** Thrown to the broker so it redelivers; carries no payload data. */
export class DeliveryFailed extends Error {
  constructor(readonly executionId: string, message: string) {
    super(message);
    this.name = 'DeliveryFailed';
  }
}

export function createEventHandler(pipeline: PipelineModule, spec: EventTriggerSpec, deps: EventTriggerDeps): (delivery: Delivery) => Promise<void> {
  const labels = { pipeline: pipeline.name, event: spec.event };
  return async (delivery) => {
    if (delivery.redelivery) deps.metrics.eventsRedelivered.inc(labels);
    const ageMs = deps.clock.now() - delivery.envelope.publishedAt;
    if (spec.expiration > 0 && ageMs > spec.expiration) {
      deps.metrics.eventsConsumed.inc({ ...labels, outcome: 'expired' });
      deps.logger.warn({ pipeline: pipeline.name, event: spec.event, eventId: delivery.envelope.id, ageMs }, 'expired event acknowledged without running');
      return;
    }
    const outcome = await deps.engine.execute({
      pipeline: pipeline.name,
      message: delivery.envelope.payload,
      validate: (m) => validateEvent(spec, m),
      redelivery: delivery.redelivery,
      trigger: 'event',
      traceHeaders: delivery.envelope.headers,
    });
    if (outcome.ok) {
      deps.metrics.eventsConsumed.inc({ ...labels, outcome: 'success' });
      return;
    }
    if (outcome.outcome === 'invalid') {
      deps.metrics.eventsConsumed.inc({ ...labels, outcome: 'invalid' });
      deps.logger.warn(
        { executionId: outcome.executionId, pipeline: pipeline.name, event: spec.event, eventId: delivery.envelope.id, violations: outcome.errorObject['violations'] ?? null },
        'invalid event payload acknowledged without redelivery',
      );
      return;
    }
    deps.metrics.eventsConsumed.inc({ ...labels, outcome: 'failure' });
    throw new DeliveryFailed(outcome.executionId, `execution ${outcome.executionId} failed: ${outcome.error.message}`);
  };
}

export function subscribeEventTrigger(pipeline: PipelineModule, spec: EventTriggerSpec, deps: EventTriggerDeps): Promise<Subscription> {
  return deps.broker.subscribe(pipeline.name, spec.event, createEventHandler(pipeline, spec, deps), {
    maxDeliveries: Math.max(1, spec.maxDeliveries),
    ackTimeout: spec.maxTimeout,
    concurrency: pipeline.options.concurrency,
  });
}
