/**
 * W3C trace context across process boundaries: the `traceparent` / `tracestate` headers of the
 * active span for outgoing HTTP calls and published events, and the caller's context from
 * incoming HTTP headers and event envelope headers. Uses the OpenTelemetry API's global
 * propagator, which is a no-op until tracing.ts registers the SDK. With tracing off the API is
 * not even loaded (otel-api.ts): these functions return empty headers and no context.
 */
import type { Context, TextMapGetter } from '@opentelemetry/api';
import { otelApiIfLoaded } from './otel-api.js';

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
  const api = otelApiIfLoaded();
  if (api) api.propagation.inject(api.context.active(), carrier);
  return carrier;
}

/**
 * The caller's trace context from request or envelope headers (the root context when they carry
 * none); undefined with tracing off.
 */
export function contextFromHeaders(headers: HeaderSource): Context | undefined {
  const api = otelApiIfLoaded();
  return api ? api.propagation.extract(api.ROOT_CONTEXT, headers, headerGetter) : undefined;
}
