/**
 * W3C trace context across process boundaries: the `traceparent` / `tracestate` headers of the
 * active span for outgoing HTTP calls and published events, and the caller's context from
 * incoming HTTP headers and event envelope headers. Uses the OpenTelemetry API's global
 * propagator, which is a no-op until tracing.ts registers the SDK: with tracing off these
 * functions return empty headers and the root context.
 */
import { context, propagation, ROOT_CONTEXT, type Context, type TextMapGetter } from '@opentelemetry/api';

type HeaderSource = { get(name: string): string | null } | Readonly<Record<string, string>>;

function isHeaders(source: HeaderSource): source is { get(name: string): string | null } {
  return typeof (source as { get?: unknown }).get === 'function';
}

/** Reads from web `Headers` or a plain record (own properties only; names as given). */
const headerGetter: TextMapGetter<HeaderSource> = {
  keys: (source) => (isHeaders(source) ? [] : Object.keys(source)),
  get: (source, key) => {
    if (isHeaders(source)) return source.get(key) ?? undefined;
    return Object.hasOwn(source, key) ? source[key] : undefined;
  },
};

/** The trace headers of the active span (`traceparent`, `tracestate`); empty when tracing is off. */
export function activeTraceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The caller's trace context from request or envelope headers; the root context when absent. */
export function contextFromHeaders(headers: HeaderSource): Context {
  return propagation.extract(ROOT_CONTEXT, headers, headerGetter);
}
