/**
 * OpenTelemetry tracing for a service, configured by the standard `OTEL_*` environment variables.
 * Tracing is on when `OTEL_TRACES_EXPORTER` names an exporter other than `none`, or when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (then the exporter
 * is `otlp`); `OTEL_SDK_DISABLED=true` turns it off. When it is off the SDK is never imported:
 * the engine skips every span, and trace-header propagation is the API's no-op.
 *
 * Exporters: `otlp` (OTLP over HTTP/JSON; endpoint, headers, timeout and compression from the
 * `OTEL_EXPORTER_OTLP_*` variables), `console`. Spans are batched (`OTEL_BSP_*`), sampled by
 * `OTEL_TRACES_SAMPLER`, and carry the resource of `OTEL_SERVICE_NAME` /
 * `OTEL_RESOURCE_ATTRIBUTES` (service name defaults to the service's name).
 */
import type { Tracer } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { loadOtelApi } from './otel-api.js';

export interface Tracing {
  readonly tracer: Tracer;
  /** Flushes pending spans and stops the exporters. */
  shutdown(): Promise<void>;
}

export type TracingEnv = Readonly<Record<string, string | undefined>>;

/** The instrumentation scope name on every span the runtime starts. */
export const TRACER_NAME = 'pipec';

/** `OTEL_TRACES_EXPORTER` as a list; undefined when unset or blank. */
export function exporterNames(env: TracingEnv): string[] | undefined {
  const raw = env['OTEL_TRACES_EXPORTER']?.trim();
  if (!raw) return undefined;
  return raw
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
}

/** The exporters tracing should use; empty when tracing is off. */
export function requestedExporters(env: TracingEnv): string[] {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return [];
  const named = exporterNames(env);
  if (named) return named.includes('none') ? [] : [...new Set(named)];
  const endpoint = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] ?? env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  return endpoint?.trim() ? ['otlp'] : [];
}

export interface StartTracingOptions {
  readonly serviceName: string;
  /** Told about exporter names it does not know (they are skipped). */
  readonly warn?: (message: string) => void;
}

/**
 * Starts the SDK when the environment asks for it and registers it globally (tracer provider,
 * async-local context, W3C trace-context propagator); undefined when tracing is off.
 */
export async function startTracingFromEnv(env: TracingEnv, opts: StartTracingOptions): Promise<Tracing | undefined> {
  const names = requestedExporters(env);
  if (names.length === 0) return undefined;
  const exporters: SpanExporter[] = [];
  for (const name of names) {
    const exporter = await createExporter(name);
    if (exporter) exporters.push(exporter);
    else opts.warn?.(`OTEL_TRACES_EXPORTER: unknown exporter "${name}" (known: otlp, console, none); skipped`);
  }
  if (exporters.length === 0) return undefined;
  const [{ NodeTracerProvider, BatchSpanProcessor }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
    loadOtelApi(),
  ]);
  // Later merges win: the service's name, then whatever OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES say.
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': opts.serviceName }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: exporters.map((e) => new BatchSpanProcessor(e)),
  });
  provider.register();
  return { tracer: provider.getTracer(TRACER_NAME), shutdown: () => provider.shutdown() };
}

async function createExporter(name: string): Promise<SpanExporter | undefined> {
  if (name === 'otlp') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter();
  }
  if (name === 'console') {
    const { ConsoleSpanExporter } = await import('@opentelemetry/sdk-trace-base');
    return new ConsoleSpanExporter();
  }
  return undefined;
}
