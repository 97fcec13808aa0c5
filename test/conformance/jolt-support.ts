/**
 * Harness for the bazaarvoice/jolt conformance fixtures (see the fixtures' README.md): loads the
 * manifest and JSON-with-comments files, reproduces upstream's Diffy comparison modes, registers the
 * custom functions/operations the upstream tests define, and runs one fixture to a pass/fail result.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import stripJsonComments from 'strip-json-comments';
import { joltToFunction, type JoltExtensions } from '../../compiler/jolt/index.js';
import { hasErrors } from '../../base/diagnostics/diagnostic.js';

export type CompareMode = 'diffy' | 'array-order-oblivious' | 'diffy+key-order';

export interface Fixture {
  readonly group: string;
  readonly unit: string;
  readonly files: readonly string[];
  readonly operation: string | readonly string[];
  readonly kind: string;
  readonly compare?: CompareMode;
  readonly expectedKeys?: Readonly<Record<string, string>>;
  readonly runs?: readonly { from?: number; to: number; expected: string }[];
  readonly failingRuns?: readonly { from: number; to: number }[];
}

export interface Manifest {
  readonly fixtures: readonly Fixture[];
  readonly comparatorSelfTests?: readonly { expected: string; actual: string; mode: CompareMode }[];
}

export interface FixtureResult {
  readonly fixture: Fixture;
  readonly pass: boolean;
  readonly reason?: string;
}

/** Folder holding `jolt/` (and `jslt/`): env PIPEC_CONFORMANCE_DIR, else the shared copy. */
export function conformanceRoot(): string {
  return process.env.PIPEC_CONFORMANCE_DIR ?? resolve(import.meta.dirname, '../../../shared/conformance');
}

export function joltDir(): string | undefined {
  const dir = join(conformanceRoot(), 'jolt');
  return existsSync(join(dir, 'manifest.json')) ? dir : undefined;
}

export function readJson(dir: string, file: string): unknown {
  return JSON.parse(stripJsonComments(readFileSync(join(dir, file), 'utf8'))) as unknown;
}

// ───────────────────────────── Diffy ─────────────────────────────

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Upstream Diffy: expected null matches absent; extra actual keys fail; arrays by `mode`. */
export function diffy(expected: unknown, actual: unknown, mode: CompareMode, depth = 0): boolean {
  if (depth > 1000) return false;
  if (isObject(expected)) {
    if (!isObject(actual)) return false;
    for (const k of Object.keys(expected)) {
      const e = expected[k];
      const present = Object.prototype.hasOwnProperty.call(actual, k);
      if (!present) {
        if (e !== null) return false;
        continue;
      }
      if (!diffy(e, actual[k], mode, depth + 1)) return false;
    }
    if (Object.keys(actual).some((k) => !Object.prototype.hasOwnProperty.call(expected, k))) return false;
    if (mode === 'diffy+key-order' && Object.keys(expected).join('\u0000') !== Object.keys(actual).join('\u0000'))
      return false;
    return true;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return false;
    if (mode !== 'array-order-oblivious') return expected.every((e, i) => diffy(e, actual[i], mode, depth + 1));
    const used = new Array<boolean>(actual.length).fill(false);
    return expected.every((e) => {
      const j = actual.findIndex((a, i) => !used[i] && diffy(e, a, mode, depth + 1));
      if (j < 0) return false;
      used[j] = true;
      return true;
    });
  }
  return expected === actual || (expected === null && actual === undefined);
}

// ───────────────────────────── custom extensions ─────────────────────────────

/** Value under the smallest (or largest) integer-like key of a map, as upstream's test functions. */
function labelAt(args: readonly unknown[], pickMax: boolean): unknown {
  const map = args[0];
  if (!isObject(map)) return NONE_MARK;
  const keys = Object.keys(map)
    .filter((k) => /^[+-]?\d+$/.test(k))
    .map(Number);
  if (keys.length === 0) return NONE_MARK;
  const key = pickMax ? Math.max(...keys) : Math.min(...keys);
  return map[String(key)];
}

const NONE_MARK = Symbol.for('unused');

export async function extensions(): Promise<JoltExtensions> {
  const { N } = await import('../../runtime/jolt/index.js');
  const orNone = (v: unknown): unknown => (v === NONE_MARK ? N : v);
  return {
    functions: {
      minLabelComputation: (args) => orNone(labelAt(args, false)),
      maxLabelComputation: (args) => orNone(labelAt(args, true)),
    },
    operations: {
      'com.bazaarvoice.jolt.chainr.transforms.GoodContextDrivenTransform': (input, context) => {
        if (isObject(input) && isObject(context)) input.c = context.test_context_key_1;
        return input;
      },
      'com.bazaarvoice.jolt.chainr.transforms.GoodSpecAndContextDrivenTransform': (input, context, spec) => {
        if (isObject(input) && isObject(context) && isObject(spec) && typeof spec.KEY_TO_ADD === 'string') {
          Object.defineProperty(input, spec.KEY_TO_ADD, {
            value: context.test_context_key_2,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return input;
      },
    },
  };
}

// ───────────────────────────── running fixtures ─────────────────────────────

function builds(chain: unknown, ext: JoltExtensions): boolean {
  return !hasErrors(joltToFunction(chain, ext).diagnostics);
}

function run(chain: unknown, input: unknown, context: unknown, ext: JoltExtensions): unknown {
  const compiled = joltToFunction(chain, ext);
  if (!compiled.fn) throw new Error(`spec rejected: ${compiled.diagnostics.map((d) => d.message).join('; ')}`);
  return compiled.fn(structuredClone(input), context);
}

/** Whether every map in `value` has Object.prototype (none is left without one by J.dict). */
function ordinaryMaps(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every(ordinaryMaps);
}

function check(expected: unknown, actual: unknown, mode: CompareMode): string | undefined {
  return diffy(expected, actual, mode)
    ? undefined
    : `expected ${JSON.stringify(expected)} but got ${JSON.stringify(actual)}`;
}

type Runner = (dir: string, f: Fixture, ext: JoltExtensions) => string | undefined;

const RUNNERS: Record<string, Runner> = {
  transform: (dir, f, ext) => {
    const data = readJson(dir, f.files[0] ?? '') as Record<string, unknown>;
    const chain = [{ operation: f.operation, spec: data.spec }];
    const first = run(chain, data.input, undefined, ext);
    const problem = check(data.expected, first, f.compare ?? 'diffy');
    if (problem) return problem;
    // upstream: a second run of the same transform is unaffected by changes to the first output
    const compiled = joltToFunction(chain, ext);
    const again = compiled.fn?.(structuredClone(data.input));
    if (check(data.expected, again, f.compare ?? 'diffy')) return 'second run differs';
    // maps keyed by the data made as dictionaries (J.dict, for large inputs) give the same output
    const wide = joltToFunction(chain, ext, { wideOver: 0 }).fn?.(structuredClone(data.input));
    if (JSON.stringify(wide) !== JSON.stringify(first) || !ordinaryMaps(wide)) return 'differs when run wide';
    return undefined;
  },
  'transform-io-files': (dir, f, ext) => {
    const input = readJson(dir, f.files[0] ?? '');
    const expected = readJson(dir, f.files[1] ?? '');
    return check(expected, run([{ operation: f.operation }], input, undefined, ext), f.compare ?? 'diffy');
  },
  modify: (dir, f, ext) => {
    const data = readJson(dir, f.files[0] ?? '') as Record<string, unknown>;
    for (const [key, operation] of Object.entries(f.expectedKeys ?? {})) {
      const actual = run([{ operation, spec: data.spec }], data.input, data.context ?? {}, ext);
      const problem = check(data[key], actual, f.compare ?? 'array-order-oblivious');
      if (problem) return `${operation}: ${problem}`;
    }
    return undefined;
  },
  'spec-error': (dir, f, ext) => {
    const data = readJson(dir, f.files[0] ?? '') as Record<string, unknown>;
    return builds([{ operation: f.operation, spec: data.spec }], ext) ? 'spec was accepted' : undefined;
  },
  'spec-error-list': (dir, f, ext) => {
    const specs = readJson(dir, f.files[0] ?? '') as unknown[];
    const operations = Array.isArray(f.operation) ? f.operation : [f.operation];
    for (const [i, spec] of specs.entries()) {
      for (const operation of operations) {
        if (builds([{ operation, spec }], ext)) return `spec ${i} accepted by ${operation}`;
      }
    }
    return undefined;
  },
  chain: (dir, f, ext) => {
    const data = readJson(dir, f.files[0] ?? '') as Record<string, unknown>;
    const compiled = joltToFunction(data.spec, ext);
    if (!compiled.fn) return `spec rejected: ${compiled.diagnostics.map((d) => d.message).join('; ')}`;
    for (let i = 0; i < 2; i++) {
      const problem = check(data.expected, compiled.fn(structuredClone(data.input), null), f.compare ?? 'diffy');
      if (problem) return i === 0 ? problem : `second run: ${problem}`;
    }
    return undefined;
  },
  'chain-context-suite': (dir, f, ext) => {
    const data = readJson(dir, f.files[0] ?? '') as {
      spec: unknown;
      tests: { testCaseName: string; input: unknown; context: unknown; expected: unknown }[];
    };
    for (const t of data.tests) {
      const problem = check(t.expected, run(data.spec, t.input, t.context, ext), f.compare ?? 'diffy');
      if (problem) return `${t.testCaseName}: ${problem}`;
    }
    return undefined;
  },
  'chain-increments': (dir, f, ext) => {
    const chain = readJson(dir, 'chainr/increments/spec.json') as unknown[];
    for (const r of f.runs ?? []) {
      const from = r.from ?? 0;
      const problem = check(
        readJson(dir, `chainr/increments/${r.expected}`),
        run(chain.slice(from, r.to), {}, undefined, ext),
        'diffy',
      );
      if (problem) return `[${from}, ${r.to}): ${problem}`;
    }
    return undefined;
  },
  'chain-spec-error': (dir, f, ext) =>
    builds(readJson(dir, f.files[0] ?? ''), ext) ? 'chain was accepted' : undefined,
};

export function runFixture(dir: string, fixture: Fixture, ext: JoltExtensions): FixtureResult {
  const runner = RUNNERS[fixture.kind];
  if (!runner) return { fixture, pass: false, reason: `unknown fixture kind ${fixture.kind}` };
  try {
    const reason = runner(dir, fixture, ext);
    return reason ? { fixture, pass: false, reason } : { fixture, pass: true };
  } catch (e) {
    return { fixture, pass: false, reason: `threw: ${e instanceof Error ? e.message : String(e)}` };
  }
}
