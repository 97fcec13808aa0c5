/**
 * Hot-path metrics: counters, gauges and histograms whose label sets ("series") are looked up once
 * and then updated with plain arithmetic. prom-client's own metrics hash and validate the label
 * object on every call (a few µs each); the execution engine records several values per request
 * and per step, so those go through here. The metrics are exposed through the service's
 * prom-client Registry like any other (same text format, same default labels); prom-client itself
 * is only needed when /metrics is first scraped.
 *
 * @example
 *   const steps = new SeriesHistogram('pipec_step_duration_seconds', 'Step duration', ['pipeline', 'step'], [0.001, 0.01]);
 *   registerSeriesMetric(registry, steps);
 *   const series = steps.series(['order-flow', 'jolt']); // once
 *   series.observe(0.0004);                               // per step
 */
import type { Metric, Registry } from 'prom-client';

type MetricType = 'counter' | 'gauge' | 'histogram';

interface ExportedValue {
  readonly value: number;
  readonly labels: Record<string, string | number>;
  readonly metricName?: string;
}

interface ExportedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly values: ExportedValue[];
  readonly aggregator: 'sum';
}

/** The part of a metric the prom-client Registry reads. */
export interface SeriesMetric {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  get(): Promise<ExportedMetric>;
  reset(): void;
}

/** Series keyed by their label values, kept in first-seen order. */
abstract class SeriesMetricBase<S> implements SeriesMetric {
  abstract readonly type: MetricType;
  private readonly byKey = new Map<string, S>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}

  /** The series for these label values (in `labelNames` order); resolve it once, then update it. */
  series(labelValues: readonly string[]): S {
    if (labelValues.length !== this.labelNames.length) {
      throw new Error(`${this.name}: expected ${this.labelNames.length} label values, got ${labelValues.length}`);
    }
    const key = labelValues.join('\u0000');
    let found = this.byKey.get(key);
    if (!found) {
      found = this.create(this.labelsOf(labelValues));
      this.byKey.set(key, found);
    }
    return found;
  }

  reset(): void {
    this.byKey.clear();
  }

  async get(): Promise<ExportedMetric> {
    const values: ExportedValue[] = [];
    for (const s of this.byKey.values()) this.export(s, values);
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' };
  }

  protected abstract create(labels: Readonly<Record<string, string>>): S;
  protected abstract export(series: S, into: ExportedValue[]): void;

  private labelsOf(values: readonly string[]): Record<string, string> {
    const labels: Record<string, string> = Object.create(null) as Record<string, string>;
    this.labelNames.forEach((name, i) => {
      labels[name] = values[i] as string;
    });
    return labels;
  }
}

export interface CounterSeries {
  readonly labels: Readonly<Record<string, string>>;
  value: number;
}

/** A monotonic counter; `series(...).value += n` on hot paths, `inc(labels)` elsewhere. */
export class SeriesCounter extends SeriesMetricBase<CounterSeries> {
  readonly type = 'counter' as const;

  /** Adds `value` (default 1) to the series of these labels (looked up by name, each call). */
  inc(labels: Readonly<Record<string, string>>, value = 1): void {
    this.series(this.labelNames.map((name) => labels[name] ?? '')).value += value;
  }

  protected create(labels: Readonly<Record<string, string>>): CounterSeries {
    return { labels, value: 0 };
  }
  protected export(s: CounterSeries, into: ExportedValue[]): void {
    into.push({ value: s.value, labels: { ...s.labels } });
  }
}

/** A gauge; `series(...).value` is set, incremented or decremented freely. */
export class SeriesGauge extends SeriesMetricBase<CounterSeries> {
  readonly type = 'gauge' as const;
  protected create(labels: Readonly<Record<string, string>>): CounterSeries {
    return { labels, value: 0 };
  }
  protected export(s: CounterSeries, into: ExportedValue[]): void {
    into.push({ value: s.value, labels: { ...s.labels } });
  }
}

export class HistogramSeries {
  /** Per-bucket (non-cumulative) counts; the last slot counts values above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += value;
    this.count += 1;
  }
}

/** A histogram with fixed upper bounds (Prometheus `le` buckets, cumulative on export). */
export class SeriesHistogram extends SeriesMetricBase<HistogramSeries> {
  readonly type = 'histogram' as const;
  private readonly bounds: readonly number[];

  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) {
    super(name, help, labelNames);
    this.bounds = [...buckets].sort((a, b) => a - b);
  }

  protected create(labels: Readonly<Record<string, string>>): HistogramSeries {
    return new HistogramSeries(labels, this.bounds);
  }

  protected export(s: HistogramSeries, into: ExportedValue[]): void {
    let cumulative = 0;
    this.bounds.forEach((bound, i) => {
      cumulative += s.counts[i] as number;
      into.push({ value: cumulative, labels: { ...s.labels, le: bound }, metricName: `${this.name}_bucket` });
    });
    into.push({ value: s.count, labels: { ...s.labels, le: '+Inf' }, metricName: `${this.name}_bucket` });
    into.push({ value: s.sum, labels: { ...s.labels }, metricName: `${this.name}_sum` });
    into.push({ value: s.count, labels: { ...s.labels }, metricName: `${this.name}_count` });
  }
}

/**
 * A gauge read from somewhere else when scraped (a backend's counts): `source` answers the value
 * per label value of the one label. The last answer is kept for `cacheMs` (and shown again when the
 * source fails), so frequent scrapes do not load the backend.
 */
export class CollectedGauge implements SeriesMetric {
  readonly type = 'gauge' as const;
  private source: (() => Promise<Readonly<Record<string, number>>>) | undefined;
  private last: { at: number; values: Readonly<Record<string, number>> } | undefined;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly label: string,
    private readonly cacheMs = 10_000,
  ) {}

  collectFrom(source: () => Promise<Readonly<Record<string, number>>>): void {
    this.source = source;
  }

  reset(): void {
    this.last = undefined;
  }

  async get(): Promise<ExportedMetric> {
    const now = Date.now();
    if (this.source && (this.last === undefined || now - this.last.at >= this.cacheMs)) {
      try {
        this.last = { at: now, values: await this.source() };
      } catch {
        // The backend is away: keep showing the last counts (its outage is on /ready and in the log).
      }
    }
    const values = Object.entries(this.last?.values ?? {}).map(([value, n]) => ({
      value: n,
      labels: { [this.label]: value },
    }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' };
  }
}

/**
 * Adds a series metric to a prom-client registry. The registry only reads `name`, `help`, `type`,
 * `get()` and `reset()` (the documented `MetricObjectWithValues` shape), which these implement; the
 * cast is needed because its TypeScript signature names prom-client's own classes.
 */
export function registerSeriesMetric(registry: Registry, metric: SeriesMetric): void {
  registry.registerMetric(metric as unknown as Metric);
}
