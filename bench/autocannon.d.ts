/**
 * The part of autocannon's programmatic API the order-flow benchmark uses (the package ships no
 * type declarations). See https://github.com/mcollina/autocannon#api.
 */
declare module 'autocannon' {
  interface AutocannonOptions {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
  }
  interface Percentiles {
    average: number;
    mean: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }
  export interface AutocannonResult {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    latency: Percentiles;
    requests: Percentiles & { sent: number };
  }
  /** The running load: emits 'response' per answer with its latency in ms (full resolution, from process.hrtime). */
  interface Instance {
    on(
      event: 'response',
      listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void,
    ): Instance;
  }
  function autocannon(
    options: AutocannonOptions,
    done: (err: Error | null, result: AutocannonResult) => void,
  ): Instance;
  export default autocannon;
}
