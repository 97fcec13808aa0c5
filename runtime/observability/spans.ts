/**
 * The spans of an execution: one per execution (child of the caller's context: HTTP
 * `traceparent`, event envelope headers, or the calling step for Pipeline Executor runs) and one
 * per connector step (child of the execution, or of the step running it). Attributes name the
 * pipeline, execution id, trigger, step label, connector and outcome. A span's kind, and a step's
 * own attributes, come from the trigger's or connector's schema (`x-pipe-span`), carried by the
 * trigger spec and the StepInfo the compiler emitted. Only called when tracing is on; the engine
 * never reaches them otherwise. `@opentelemetry/api` is loaded only then (otel-api.ts).
 */
import type { Context, Span, SpanKind, Tracer } from '@opentelemetry/api';
import type { StepInfo } from '../steps.js';
import type { SpanKindName } from '../types.js';
import { otelApi, otelApiIfLoaded } from './otel-api.js';

// Values of the API's SpanKind and SpanStatusCode enums (stable in the OpenTelemetry
// specification), so this module needs no value import of the API.
const KIND_INTERNAL = 0 as SpanKind;
const KIND_SERVER = 1 as SpanKind;
const KIND_CLIENT = 2 as SpanKind;
const KIND_PRODUCER = 3 as SpanKind;
const KIND_CONSUMER = 4 as SpanKind;
const STATUS_ERROR = 2;

const KINDS: Readonly<Record<SpanKindName, SpanKind>> = {
  server: KIND_SERVER,
  client: KIND_CLIENT,
  producer: KIND_PRODUCER,
  consumer: KIND_CONSUMER,
};

function kindOf(name: SpanKindName | undefined): SpanKind {
  return name !== undefined && Object.hasOwn(KINDS, name) ? KINDS[name] : KIND_INTERNAL;
}

export interface ExecutionSpanInfo {
  readonly pipeline: string;
  readonly executionId: string;
  /** `http`, `event`, `scheduler`, `execute`, … */
  readonly trigger: string;
  /** The span kind its trigger's schema gives (absent: internal, e.g. Pipeline Executor runs). */
  readonly kind?: SpanKindName;
  readonly parent: Context;
}

export interface ExecutionSpan {
  readonly span: Span;
  /** The parent context with this span set: what the execution's steps run in. */
  readonly context: Context;
}

/** The caller's context for work that starts inside another span (Pipeline Executor). */
export function activeContext(): Context {
  return otelApi().context.active();
}

export function startExecutionSpan(tracer: Tracer, info: ExecutionSpanInfo): ExecutionSpan {
  const span = tracer.startSpan(
    `pipeline ${info.pipeline}`,
    {
      kind: kindOf(info.kind),
      attributes: {
        'pipec.pipeline': info.pipeline,
        'pipec.execution.id': info.executionId,
        'pipec.trigger': info.trigger,
      },
    },
    info.parent,
  );
  return { span, context: otelApi().trace.setSpan(info.parent, span) };
}

/** Ends an execution span with its outcome (`success`, `error`, `invalid`, `timeout`, `rejected`). */
export function endExecutionSpan(
  span: Span,
  outcome: string,
  failure?: { readonly code: number; readonly message: string },
): void {
  span.setAttribute('pipec.outcome', outcome);
  if (failure) {
    span.setAttribute('pipec.error.code', failure.code);
    span.setStatus({ code: STATUS_ERROR, message: failure.message });
  }
  span.end();
}

/**
 * Runs `fn` with `ctx` as the active context (so steps and outgoing calls see its span). Without
 * a context (tracing off: nothing was extracted) it just runs `fn`.
 */
export function withContext<T>(ctx: Context | undefined, fn: () => T): T {
  const api = otelApiIfLoaded();
  return ctx !== undefined && api ? api.context.with(ctx, fn) : fn();
}

export type StepSpanInfo = Pick<StepInfo, 'label' | 'connector' | 'source' | 'span'>;

/** Starts a step span as a child of the active context (the execution, or an enclosing step). */
export function startStepSpan(tracer: Tracer, pipeline: string, step: StepSpanInfo): Span {
  return tracer.startSpan(
    `step ${step.label ?? step.connector}`,
    {
      kind: kindOf(step.span?.kind),
      attributes: {
        'pipec.pipeline': pipeline,
        'pipec.step': step.label ?? step.connector,
        'pipec.connector': step.connector,
        'pipec.source': step.source,
      },
    },
    otelApi().context.active(),
  );
}

/** Runs the connector with its step span active (outgoing `traceparent` names this span). */
export function withSpan<T>(span: Span, fn: () => T): T {
  const { context, trace } = otelApi();
  return context.with(trace.setSpan(context.active(), span), fn);
}

/**
 * Ends a step span with its outcome, and the attributes the connector's schema names
 * (`x-pipe-span.attributes`: attribute → parameter), from the step's evaluated parameters.
 */
export function endStepSpan(
  span: Span,
  outcome: 'ok' | 'error',
  failure?: { readonly code: number; readonly message: string },
  step?: StepSpanInfo,
  params?: unknown,
): void {
  span.setAttribute('pipec.outcome', outcome);
  const attributes = step?.span?.attributes;
  if (attributes && params !== null && typeof params === 'object') {
    for (const [attribute, param] of Object.entries(attributes)) {
      const value = Object.hasOwn(params, param) ? (params as Record<string, unknown>)[param] : undefined;
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
        span.setAttribute(attribute, value);
    }
  }
  if (failure) {
    span.setAttribute('pipec.error.code', failure.code);
    span.setStatus({ code: STATUS_ERROR, message: failure.message });
  }
  span.end();
}
