/**
 * The event trigger: one durable subscription per event-triggered pipeline. The event payload is
 * the message. What cannot succeed on another attempt goes to the dead letters at once — an
 * invalid payload, a failure the runtime classifies as permanent (PipeError.permanent: a 4xx), an
 * event older than the trigger's `expiration` — and everything else is redelivered after the
 * trigger's backoff until `max-deliveries`, then dead-lettered too. Nothing is acknowledged unseen.
 */
import type { Logger } from 'pino';
import type {
  Clock,
  CompiledValidator,
  Delivery,
  DeliveryRefusal,
  EventBroker,
  Json,
  PipelineModule,
  RedeliveryBackoff,
  Subscription,
  TriggerSpec,
} from '../../types.js';
import type { ExecutionEngine } from '../../service/execution.js';
import type { ServiceMetrics } from '../../service/metrics.js';
import type { TriggerRuntime } from '../../service/trigger-host.js';
import { collectViolations, type Violation } from '../../service/validation.js';

export interface EventTriggerSpec extends TriggerSpec {
  readonly kind: 'event';
  readonly event: string;
  readonly validateBody?: CompiledValidator;
  /** ms an event may wait in the queue (0: as long as the broker keeps it); an older one is dead-lettered. */
  readonly expiration: number;
  /** ms an execution may take before it is considered failed and redelivered. */
  readonly maxTimeout: number;
  /** Maximum deliveries of one event (1 = no redelivery); then it is dead-lettered. */
  readonly maxDeliveries: number;
  /** Wait between a failed delivery and the next (exponential, with jitter); absent: the broker's default. */
  readonly backoff?: RedeliveryBackoff;
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

/**
 * Thrown to the broker; carries no payload data. `permanent`: dead-letter now, do not retry.
 * `kind` is the execution error's (BACKEND_UNAVAILABLE: a backend was away — the broker keeps the
 * delivery and tries again once it is back, without using up an attempt).
 */
export class DeliveryFailed extends Error {
  constructor(
    readonly executionId: string,
    message: string,
    readonly permanent: boolean,
    readonly deadLetterReason?: DeliveryRefusal['deadLetterReason'],
    readonly kind?: string,
  ) {
    super(message);
    this.name = 'DeliveryFailed';
  }
}

export function createEventHandler(
  pipeline: PipelineModule,
  spec: EventTriggerSpec,
  deps: EventTriggerDeps,
): (delivery: Delivery) => Promise<void> {
  const labels = { pipeline: pipeline.name, event: spec.event };
  return async (delivery) => {
    if (delivery.redelivery) deps.metrics.eventsRedelivered.inc(labels);
    const ageMs = deps.clock.now() - delivery.envelope.publishedAt;
    if (spec.expiration > 0 && ageMs > spec.expiration) {
      deps.metrics.eventsConsumed.inc({ ...labels, outcome: 'expired' });
      throw new DeliveryFailed(
        '',
        `expired: waited ${ageMs} ms, the trigger's expiration is ${spec.expiration} ms`,
        true,
        'expired',
      );
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
      const violations = JSON.stringify(outcome.errorObject['violations'] ?? null).slice(0, 400);
      throw new DeliveryFailed(
        outcome.executionId,
        `invalid event payload (execution ${outcome.executionId}): ${violations}`,
        true,
      );
    }
    deps.metrics.eventsConsumed.inc({ ...labels, outcome: 'failure' });
    const what = outcome.error.permanent ? 'failed permanently' : 'failed';
    throw new DeliveryFailed(
      outcome.executionId,
      `execution ${outcome.executionId} ${what}: ${outcome.error.code} ${outcome.error.message}`,
      outcome.error.permanent,
      undefined,
      outcome.error.kind,
    );
  };
}

export function subscribeEventTrigger(
  pipeline: PipelineModule,
  spec: EventTriggerSpec,
  deps: EventTriggerDeps,
): Promise<Subscription> {
  return deps.broker.subscribe(pipeline.name, spec.event, createEventHandler(pipeline, spec, deps), {
    maxDeliveries: Math.max(1, spec.maxDeliveries),
    ackTimeout: spec.maxTimeout,
    concurrency: pipeline.options.concurrency,
    ...(spec.backoff ? { backoff: spec.backoff } : {}),
  });
}
