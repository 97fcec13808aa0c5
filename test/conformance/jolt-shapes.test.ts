/**
 * The JOLT output shapes inferred at build time (compiler/jolt/infer-shape.ts) against what the
 * compiled chains really give on the reference fixtures: for every fixture that runs, and for
 * several shapes of its input (the input's exact, closed shape; the same with every object open
 * and every field optional; unknown), the inferred shape must accept the real output (every field
 * allowed, every required field present, every value of its type). And every `shift` key reported
 * as never matching must indeed change nothing: the chain without it gives the same output.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { joltToFunction, type JoltExtensions } from '../../compiler/jolt/index.js';
import { inferChain } from '../../compiler/jolt/infer-shape.js';
import { asMessageShape } from '../../compiler/types/output-shape.js';
import { typeOfValue } from '../../compiler/types/type-ops.js';
import { UNKNOWN } from '../../compiler/types/pipe-type.js';
import { extensions, joltDir, readJson, type Manifest } from './jolt-support.js';
import { loosened, mismatch } from './shape-match.js';

interface Case {
  readonly name: string;
  readonly chain: unknown[];
  readonly input: unknown;
  readonly context: unknown;
}

const benchDir = resolve(import.meta.dirname, '../../../shared/bench/jolt');

/** The benchmark workloads (large inputs through whole chains), when present. */
function benchCases(): Case[] {
  if (!existsSync(benchDir)) return [];
  const read = (w: string, f: string): unknown => JSON.parse(readFileSync(join(benchDir, w, f), 'utf8')) as unknown;
  return readdirSync(benchDir)
    .filter((w) => existsSync(join(benchDir, w, 'spec.json')))
    .map((w) => ({
      name: `bench/${w}`,
      chain: read(w, 'spec.json') as unknown[],
      input: read(w, 'input.json'),
      context: {},
    }));
}

/** Every (chain, input) pair the fixtures run. */
function casesOf(dir: string, manifest: Manifest): Case[] {
  const cases: Case[] = [];
  for (const f of manifest.fixtures) {
    const name = `${f.group}/${f.unit}`;
    const file = f.files[0] ?? '';
    if (f.kind === 'transform') {
      const data = readJson(dir, file) as Record<string, unknown>;
      cases.push({ name, chain: [{ operation: f.operation, spec: data.spec }], input: data.input, context: undefined });
    } else if (f.kind === 'transform-io-files') {
      cases.push({ name, chain: [{ operation: f.operation }], input: readJson(dir, file), context: undefined });
    } else if (f.kind === 'modify') {
      const data = readJson(dir, file) as Record<string, unknown>;
      for (const operation of Object.values(f.expectedKeys ?? {}))
        cases.push({
          name: `${name} ${operation}`,
          chain: [{ operation, spec: data.spec }],
          input: data.input,
          context: data.context ?? {},
        });
    } else if (f.kind === 'chain') {
      const data = readJson(dir, file) as Record<string, unknown>;
      cases.push({ name, chain: data.spec as unknown[], input: data.input, context: null });
    } else if (f.kind === 'chain-context-suite') {
      const data = readJson(dir, file) as {
        spec: unknown[];
        tests: { testCaseName: string; input: unknown; context: unknown }[];
      };
      for (const t of data.tests)
        cases.push({ name: `${name} ${t.testCaseName}`, chain: data.spec, input: t.input, context: t.context });
    }
  }
  return cases;
}

/**
 * The chain with alternative `key` of the spec object at `path` (a JSON path into the chain)
 * replaced by a key no input has: the same output proves that the key matched nothing.
 */
function withoutKey(chain: unknown[], path: readonly (string | number)[], key: string): unknown[] {
  const copy = structuredClone(chain);
  let node: unknown = copy;
  for (const step of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[step];
  const raw = String(path[path.length - 1]);
  const object = node as Record<string, unknown>;
  const renamed = raw
    .split('|')
    .map((k) => (k === key ? 'no input has this key' : k))
    .join('|');
  const rebuilt = Object.fromEntries(Object.entries(object).map(([k, v]) => [k === raw ? renamed : k, v]));
  for (const k of Object.keys(object)) delete object[k];
  Object.assign(object, rebuilt);
  return copy;
}

const dir = joltDir();

describe('inferred JOLT shapes accept the real outputs of the reference fixtures', () => {
  if (!dir) {
    it('is skipped without fixtures (and fails in CI)', () => expect(process.env.CI).not.toBe('true'));
    return;
  }
  const manifest = readJson(dir, 'manifest.json') as Manifest;
  const cases = [...casesOf(dir, manifest), ...benchCases()];

  it('has fixtures to check', () => expect(cases.length).toBeGreaterThan(80));

  it('accepts every output, for exact, loose and unknown input shapes', async () => {
    const ext: JoltExtensions = await extensions();
    const failures: string[] = [];
    let checked = 0;
    let typed = 0;
    for (const c of cases) {
      const compiled = joltToFunction(c.chain, ext);
      if (!compiled.fn) continue;
      const output = compiled.fn(structuredClone(c.input), c.context);
      const exact = typeOfValue(c.input);
      for (const [label, shape] of [
        ['exact', exact],
        ['loose', loosened(exact)],
        ['unknown', UNKNOWN],
      ] as const) {
        const inferred = inferChain(c.chain, shape).type;
        if (label === 'exact' && inferred.kind !== 'unknown') typed += 1;
        for (const [form, type] of [
          ['type', inferred],
          ['message shape', asMessageShape(inferred)],
        ] as const) {
          if (form === 'message shape' && (output === null || typeof output !== 'object')) continue;
          const problem = mismatch(type, JSON.parse(JSON.stringify(output ?? null)));
          if (problem) failures.push(`${c.name} (${label} input, ${form}): ${problem}`);
        }
        checked += 1;
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(240);
    // most outputs get a shape: the check above is not vacuous
    expect(typed).toBeGreaterThan(80);
  });

  it('reports only shift keys whose removal changes nothing', async () => {
    const ext: JoltExtensions = await extensions();
    const failures: string[] = [];
    let reported = 0;
    for (const c of cases) {
      const compiled = joltToFunction(c.chain, ext);
      if (!compiled.fn) continue;
      const output = JSON.stringify(compiled.fn(structuredClone(c.input), c.context));
      for (const key of inferChain(c.chain, typeOfValue(c.input)).unmatched) {
        reported += 1;
        const without = joltToFunction(withoutKey(c.chain, key.path, key.key), ext);
        const again = JSON.stringify(without.fn?.(structuredClone(c.input), c.context));
        if (again !== output)
          failures.push(`${c.name}: removing \`${key.key}\` at ${JSON.stringify(key.path)} changes the output`);
      }
    }
    expect(failures).toEqual([]);
    // the fixtures' inputs lack some keys their specs name: the check above is not vacuous
    expect(reported).toBeGreaterThan(0);
  });
});
