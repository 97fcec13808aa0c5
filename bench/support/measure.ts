/**
 * Measuring helpers shared by the bench sections: CPU-time throughput of a function (so other
 * load on a shared machine counts less than with wall time), medians, and rounding.
 */

/**
 * Calls `fn` over `inputs` in batches for `seconds` of this process's CPU time (after a warm-up
 * of a quarter of that) and returns calls per CPU second. Promises are awaited.
 */
export async function cpuThroughput(
  seconds: number,
  inputs: readonly unknown[],
  fn: (input: unknown) => unknown,
): Promise<number> {
  const batch = Math.max(inputs.length, 200);
  const run = async (budgetMs: number): Promise<{ calls: number; ms: number }> => {
    let calls = 0;
    let ms = 0;
    while (ms < budgetMs) {
      const start = process.cpuUsage();
      for (let i = 0; i < batch; i++) {
        const out = fn(inputs[i % inputs.length]);
        if (out instanceof Promise) await out;
      }
      const used = process.cpuUsage(start);
      ms += (used.user + used.system) / 1000;
      calls += batch;
    }
    return { calls, ms };
  };
  await run(seconds * 250);
  const { calls, ms } = await run(seconds * 1000);
  return (calls / ms) * 1000;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Geometric mean (for ratios). */
export function geometricMean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
}

export function round(value: number, digits = 0): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** JSON equality with object key order ignored. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, sortKeys(record[k])]),
    );
  }
  return value;
}
