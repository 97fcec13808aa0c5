/**
 * JOLT throughput against the Java reference (see ../shared/bench/jolt/README.md): for each
 * workload, build the chain once, check one output against expected.json, warm up, then count
 * transforms in a timed loop. Operations that change their input get fresh copies made outside the
 * timed region. A hand-written JavaScript transform producing the same output takes turns with the
 * compiled one, batch by batch, in the same loop and process: on a shared, loaded machine the ratio
 * compiled/hand-written is the comparable figure. Also measures a JSONata expression equivalent to
 * the first workload, for comparison.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import jsonata from 'jsonata';
import { joltToFunction } from '../compiler/jolt/index.js';

export interface BenchResult {
  workload: string;
  opsPerSec: number;
  javaOpsPerSec: number;
  /** opsPerSec / javaOpsPerSec. */
  ratio: number;
  /** The hand-written JavaScript transform of the same workload, measured in turns with it. */
  handOpsPerSec?: number;
  /** opsPerSec / handOpsPerSec. */
  ofHand?: number;
}

export interface BenchOptions {
  /** Timed CPU seconds per measurement (the warm-up is half of it, at most 5 s). */
  seconds: number;
  /** Only these workloads (default: all). */
  workloads?: readonly string[];
  /** Skip the JSONata comparison. */
  skipJsonata?: boolean;
  /**
   * Measure each workload (and the JSONata case) in a fresh Node process of its own, as JMH forks:
   * code run earlier in the same process (other workloads, other bench sections) leaves type
   * feedback in shared functions and a grown heap behind, which changes the two sides unequally.
   * Both sides of a workload still take turns in that one process.
   */
  fork?: boolean;
  /**
   * With `fork`: how many fresh processes measure each workload (default 3). The result is the fork
   * whose compiled/hand-written ratio is the median: which code V8 ends up with for either side
   * differs from process to process (×0.72–×0.99 for cardinality-modify in one session), so one
   * process is one sample.
   */
  forks?: number;
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

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- hand-written baselines read known workload shapes

/**
 * Hand-written JavaScript for each workload: what a person would write for exactly that input shape.
 * It is the ceiling the generated code is compared with (same loop, same process, right after).
 */
const HAND_WRITTEN: Readonly<Record<string, (input: Json) => unknown>> = {
  'shift-order': (input) => {
    const customer = input.customer;
    const address = customer.address;
    const lines = [];
    for (const item of input.items) {
      lines.push({ code: item.sku, description: item.name, quantity: item.qty, price: item.unitPrice, uom: 'EA' });
    }
    return {
      orderNumber: input.orderId,
      client: { fullName: customer.name, contact: { email: customer.email }, tier: 'STANDARD' },
      shipTo: { line1: address.street, city: address.city, postalCode: address.zip, countryCode: address.country },
      lines,
      currency: input.currency,
      status: 'NEW',
    };
  },
  'wildcards-heavy': (input) => {
    const other: Json = {};
    const ratings: Json = {};
    const ratingIds: string[] = [];
    const raw: Json = {};
    const countsByLabel: Json = {};
    for (const key of Object.keys(input)) {
      const value = input[key];
      if (key === 'productId') continue;
      if (key.length > 7 && key.startsWith('rating-')) {
        const id = key.slice(7);
        ratings[id] = { key, score: value.value, range: value.max, label: value.label };
        ratingIds.push(id);
        raw[key] = value;
        countsByLabel[value.label] = value.count;
      } else other[key] = value;
    }
    return { product: { id: input.productId }, other, ratings, ratingIds, raw, countsByLabel };
  },
  'cardinality-modify': (input) => {
    if (!Array.isArray(input.tags)) input.tags = input.tags === null || input.tags === undefined ? [] : [input.tags];
    for (const item of input.items) {
      if (Array.isArray(item.category)) item.category = item.category.length > 0 ? item.category[0] : null;
      if (!Array.isArray(item.notes)) item.notes = [item.notes];
      item.sku = item.sku.toUpperCase();
      item.label = `${item.name} / ${item.color}`;
      item.unitPriceFromCents = item.priceCents / 100;
      item.landedPrice = item.unitPrice + item.shipping;
    }
    input.itemCount = input.items.length;
    return input;
  },
};

function readJson(workload: string, file: string): unknown {
  return JSON.parse(readFileSync(join(BENCH_DIR, workload, file), 'utf8')) as unknown;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/**
 * V8's collector, for settling the heap outside the timed region (what `--expose-gc` gives, made
 * available at run time so that every way of running the bench gets it).
 */
let collectGarbage: ((options: { type: 'minor'; execution: 'sync' }) => void) | undefined;

function exposedGc(): (options: { type: 'minor'; execution: 'sync' }) => void {
  if (collectGarbage === undefined) {
    setFlagsFromString('--expose-gc');
    collectGarbage = runInNewContext('gc') as (options: { type: 'minor'; execution: 'sync' }) => void;
  }
  return collectGarbage;
}

/**
 * Two young-generation collections before each timed batch, for both sides alike: the first moves
 * the batch's fresh copies out of the nursery, the second into the old generation, and the timed
 * batch starts with an empty nursery. Without them a scavenge copying the copies just made (200
 * copies of cardinality-modify's input, 13–19 ms a scavenge against ≈ 5 ms a batch) fell inside
 * whichever side's batch happened to fill the nursery: a cost of the harness, added to both sides
 * at random, which made the ratio swing and pulled it towards 1.
 */
function settleHeap(): void {
  const gc = exposedGc();
  gc({ type: 'minor', execution: 'sync' });
  gc({ type: 'minor', execution: 'sync' });
}

/**
 * Runs each of `transforms` over prepared inputs for `seconds` of this process's CPU time (preparing
 * inputs is not timed) and returns transforms per CPU second for each. CPU time rather than wall
 * time, so that other load on the shared machine does not count; the transforms take turns batch by
 * batch, so that what load does change (caches, CPU frequency) affects them alike and their ratio
 * stays comparable.
 */
async function measure(
  seconds: number,
  input: unknown,
  copies: boolean,
  transforms: readonly ((x: unknown) => unknown)[],
): Promise<number[]> {
  const batch = 200;
  const prepare = (): unknown[] => Array.from({ length: batch }, () => (copies ? structuredClone(input) : input));
  const run = async (budgetMs: number): Promise<{ ops: number; ms: number }[]> => {
    const totals = transforms.map(() => ({ ops: 0, ms: 0 }));
    while (totals.some((t) => t.ms < budgetMs)) {
      for (const [i, transform] of transforms.entries()) {
        const total = totals[i];
        if (total === undefined || total.ms >= budgetMs) continue;
        const inputs = prepare();
        settleHeap();
        const start = process.cpuUsage();
        for (const x of inputs) {
          const out = transform(x);
          if (out instanceof Promise) await out;
        }
        const used = process.cpuUsage(start);
        total.ms += (used.user + used.system) / 1000;
        total.ops += batch;
      }
    }
    return totals;
  };
  await run(Math.min(5000, seconds * 500)); // warm-up
  return (await run(seconds * 1000)).map(({ ops, ms }) => (ops / ms) * 1000);
}

/** Workload names in the order they are measured. */
export const JOLT_WORKLOADS: readonly string[] = Object.keys(JAVA_OPS);

/** The JSONata case alone, for `bench/jolt-run.ts --jsonata`. */
export const JSONATA_CASE = 'jsonata';

/** Runs bench/jolt-run.ts in a fresh process for one workload (or the JSONata case); returns its results. */
async function forked(seconds: number, workload: string): Promise<BenchResult[]> {
  const script = join(import.meta.dirname, 'jolt-run.ts');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', script, '--json', String(seconds), workload],
    { cwd: resolve(import.meta.dirname, '..'), maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout) as BenchResult[];
}

/** The sample whose compiled/hand-written ratio is the median (the lower middle of an even count). */
function medianByRatio(samples: readonly BenchResult[]): BenchResult | undefined {
  const sorted = [...samples].sort((a, b) => (a.ofHand ?? a.ratio) - (b.ofHand ?? b.ratio));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

export async function benchJolt(opts: BenchOptions): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  if (opts.fork === true) {
    const forks = Math.max(1, opts.forks ?? 3);
    for (const workload of JOLT_WORKLOADS.filter((w) => opts.workloads?.includes(w) ?? true)) {
      const samples: BenchResult[] = [];
      for (let i = 0; i < forks; i++) samples.push(...(await forked(opts.seconds, workload)));
      const median = medianByRatio(samples);
      if (median !== undefined) results.push(median);
    }
    if (opts.skipJsonata !== true) results.push(...(await forked(opts.seconds, JSONATA_CASE)));
    return results;
  }
  for (const workload of JOLT_WORKLOADS.filter((w) => opts.workloads?.includes(w) ?? true)) {
    const compiled = joltToFunction(readJson(workload, 'spec.json'));
    const fn = compiled.fn;
    if (!fn) throw new Error(`${workload}: spec rejected: ${compiled.diagnostics.map((d) => d.message).join('; ')}`);
    const input = readJson(workload, 'input.json');
    if (!sameJson(fn(structuredClone(input), {}), readJson(workload, 'expected.json'))) {
      throw new Error(`${workload}: output differs from expected.json`);
    }
    const hand = HAND_WRITTEN[workload];
    if (hand && !sameJson(hand(structuredClone(input) as Json), readJson(workload, 'expected.json'))) {
      throw new Error(`${workload} (hand-written): output differs from expected.json`);
    }
    const compiledTransform = (x: unknown): unknown => fn(x, {});
    const transforms = hand ? [compiledTransform, (x: unknown): unknown => hand(x as Json)] : [compiledTransform];
    const [opsPerSec = 0, handOpsPerSec] = await measure(opts.seconds, input, IN_PLACE.has(workload), transforms);
    const javaOpsPerSec = JAVA_OPS[workload] ?? 1;
    const result: BenchResult = { workload, opsPerSec, javaOpsPerSec, ratio: opsPerSec / javaOpsPerSec };
    if (handOpsPerSec !== undefined) {
      result.handOpsPerSec = handOpsPerSec;
      result.ofHand = opsPerSec / handOpsPerSec;
    }
    results.push(result);
  }
  if (opts.skipJsonata === true) return results;
  const expression = jsonata(SHIFT_ORDER_JSONATA);
  const input = readJson('shift-order', 'input.json');
  if (!sameJson(await expression.evaluate(input), readJson('shift-order', 'expected.json'))) {
    throw new Error('shift-order (jsonata): output differs from expected.json');
  }
  const [jsonataOps = 0] = await measure(opts.seconds, input, false, [(x) => expression.evaluate(x)]);
  const java = JAVA_OPS['shift-order'] ?? 1;
  results.push({
    workload: 'shift-order (jsonata)',
    opsPerSec: jsonataOps,
    javaOpsPerSec: java,
    ratio: jsonataOps / java,
  });
  return results;
}
