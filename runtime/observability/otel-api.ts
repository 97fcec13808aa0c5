/**
 * The OpenTelemetry API, loaded only when tracing is configured: importing `@opentelemetry/api`
 * costs ≈ 20–30 ms of start-up, and a service without tracing never needs it (its propagator and
 * context manager are no-ops then). Whoever turns tracing on calls `loadOtelApi()` first (tracing
 * start-up, or the engine before its first traced execution); the span and propagation helpers
 * read the loaded module synchronously.
 */
import type * as OtelApi from '@opentelemetry/api';

export type OtelApiModule = typeof OtelApi;

let loaded: OtelApiModule | undefined;
let loading: Promise<OtelApiModule> | undefined;

/** Loads the API (once); later calls resolve to the same module. */
export function loadOtelApi(): Promise<OtelApiModule> {
  loading ??= import('@opentelemetry/api').then((api) => {
    loaded = api;
    return api;
  });
  return loading;
}

/** True once `loadOtelApi()` finished. */
export function otelApiLoaded(): boolean {
  return loaded !== undefined;
}

/** The API when it was loaded; undefined while tracing is off. */
export function otelApiIfLoaded(): OtelApiModule | undefined {
  return loaded;
}

/** The API for code that only runs with tracing on (spans); a programming error otherwise. */
export function otelApi(): OtelApiModule {
  if (!loaded)
    throw new Error('the OpenTelemetry API is used before loadOtelApi() (tracing code ran with tracing off)');
  return loaded;
}
