/**
 * JOLT throughput against the Java reference (see ../shared/bench/jolt/README.md): for each
 * workload, build the chain once, check one output against expected.json, warm up, then count
 * transforms in a timed loop. Operations that change their input get fresh copies made outside the
 * timed region. Also measures a JSONata expression equivalent to the first workload, for comparison.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import jsonata from 'jsonata';
import { joltToFunction } from '../compiler/jolt/index.js';

export interface BenchResult {
  workload: string;
  opsPerSec: number;
  javaOpsPerSec: number;
  ratio: number;
}

const BENCH_DIR = resolve(import.meta.dirname, '../../shared/bench/jolt');

/** Java reference transforms/s from the README (median of 3, same machine). */
const JAVA_OPS: Readonly<Record<string, number>> = {
  'shift-order': 51_669,
  'wildcards-heavy': 3_545,
  'cardinality-modify': 16_995,
};

/** Workloads whose chain changes its input in place (they need a fresh copy per transform). */
const IN_PLACE = new Set(['cardinality-modify']);

/** JSONata producing the shift-order output (shift → default → remove) from the same input. */
const SHIFT_ORDER_JSONATA = `{
  "orderNumber": orderId,
  "client": {
    "fullName": customer.name,
    "contact": { "email": customer.email },
    "tier": "STANDARD"
  },
  "shipTo": {
    "line1": customer.address.street,
    "city": customer.address.city,
    "postalCode": customer.address.zip,
    "countryCode": customer.address.country
  },
  "lines": [items.{ "code": sku, "description": name, "quantity": qty, "price": unitPrice, "uom": "EA" }],
  "currency": currency,
  "status": "NEW"
}`;

function readJson(workload: string, file: string): unknown {
  return JSON.parse(readFileSync(join(BENCH_DIR, workload, file), 'utf8')) as unknown;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  }
  return v;
}

/**
 * Runs `transform` over prepared inputs for `seconds` of this process's CPU time (preparing inputs is
 * not timed). CPU time rather than wall time, so that other load on the shared machine does not count.
 */
async function measure(seconds: number, input: unknown, copies: boolean, transform: (x: unknown) => unknown): Promise<number> {
  const batch = 200;
  const prepare = (): unknown[] => Array.from({ length: batch }, () => (copies ? structuredClone(input) : input));
  const run = async (budgetMs: number): Promise<{ ops: number; ms: number }> => {
    let ops = 0;
    let ms = 0;
    while (ms < budgetMs) {
      const inputs = prepare();
      const start = process.cpuUsage();
      for (const x of inputs) {
        const out = transform(x);
        if (out instanceof Promise) await out;
      }
      const used = process.cpuUsage(start);
      ms += (used.user + used.system) / 1000;
      ops += batch;
    }
    return { ops, ms };
  };
  await run(Math.min(5000, seconds * 500)); // warm-up
  const { ops, ms } = await run(seconds * 1000);
  return (ops / ms) * 1000;
}

export async function benchJolt(opts: { seconds: number }): Promise<Array<{ workload: string; opsPerSec: number; javaOpsPerSec: number; ratio: number }>> {
  const results: BenchResult[] = [];
  for (const workload of Object.keys(JAVA_OPS)) {
    const compiled = joltToFunction(readJson(workload, 'spec.json'));
    const fn = compiled.fn;
    if (!fn) throw new Error(`${workload}: spec rejected: ${compiled.diagnostics.map((d) => d.message).join('; ')}`);
    const input = readJson(workload, 'input.json');
    if (!sameJson(fn(structuredClone(input), {}), readJson(workload, 'expected.json'))) {
      throw new Error(`${workload}: output differs from expected.json`);
    }
    const opsPerSec = await measure(opts.seconds, input, IN_PLACE.has(workload), (x) => fn(x, {}));
    const javaOpsPerSec = JAVA_OPS[workload] ?? 1;
    results.push({ workload, opsPerSec, javaOpsPerSec, ratio: opsPerSec / javaOpsPerSec });
  }
  const expression = jsonata(SHIFT_ORDER_JSONATA);
  const input = readJson('shift-order', 'input.json');
  if (!sameJson(await expression.evaluate(input), readJson('shift-order', 'expected.json'))) {
    throw new Error('shift-order (jsonata): output differs from expected.json');
  }
  const jsonataOps = await measure(opts.seconds, input, false, (x) => expression.evaluate(x));
  const java = JAVA_OPS['shift-order'] ?? 1;
  results.push({ workload: 'shift-order (jsonata)', opsPerSec: jsonataOps, javaOpsPerSec: java, ratio: jsonataOps / java });
  return results;
}
