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
  interface AutocannonResult {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    latency: Percentiles;
    requests: Percentiles & { sent: number };
  }
  function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
  export default autocannon;
}
