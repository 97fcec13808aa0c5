/**
 * JOLT conformance against bazaarvoice/jolt's own fixtures (folder from PIPEC_CONFORMANCE_DIR or the
 * shared copy), the Diffy comparator self-tests, and the benchmark workloads' expected outputs.
 * Prints per-folder pass rates; requires ≥ 98% overall. Without fixtures it is skipped (fails in CI).
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { joltToFunction } from '../../compiler/jolt/index.js';
import { diffy, extensions, joltDir, readJson, runFixture, type FixtureResult, type Manifest } from './jolt-support.js';

const dir = joltDir();

describe('JOLT conformance (bazaarvoice/jolt fixtures)', () => {
  if (!dir) {
    it('is skipped without fixtures (and fails in CI)', () => {
      console.log('JOLT conformance fixtures not found: skipped (set PIPEC_CONFORMANCE_DIR)');
      expect(process.env.CI).not.toBe('true');
    });
    return;
  }

  it('passes at least 98% of the fixtures', async () => {
    const manifest = readJson(dir, 'manifest.json') as Manifest;
    const ext = await extensions();
    const results: FixtureResult[] = manifest.fixtures.map((f) => runFixture(dir, f, ext));
    const byGroup = new Map<string, { pass: number; total: number }>();
    for (const r of results) {
      const g = byGroup.get(r.fixture.group) ?? { pass: 0, total: 0 };
      g.total += 1;
      if (r.pass) g.pass += 1;
      byGroup.set(r.fixture.group, g);
    }
    for (const [group, { pass, total }] of byGroup)
      console.log(`jolt ${group}: ${pass}/${total} (${((100 * pass) / total).toFixed(1)}%)`);
    for (const r of results.filter((x) => !x.pass))
      console.log(`FAIL ${r.fixture.group}/${r.fixture.unit}: ${r.reason?.slice(0, 400)}`);
    const passed = results.filter((r) => r.pass).length;
    const rate = passed / results.length;
    console.log(`jolt overall: ${passed}/${results.length} (${(100 * rate).toFixed(1)}%)`);
    expect(rate).toBeGreaterThanOrEqual(0.98);
  });

  it('has an array-order-oblivious comparator that accepts the upstream self-test pairs', () => {
    const manifest = readJson(dir, 'manifest.json') as Manifest;
    const pairs = manifest.comparatorSelfTests ?? [];
    expect(pairs.length).toBeGreaterThan(0);
    for (const p of pairs) expect(diffy(readJson(dir, p.expected), readJson(dir, p.actual), p.mode)).toBe(true);
  });
});

describe('Diffy comparison rules', () => {
  it('lets expected null match an absent key but not an extra key', () => {
    expect(diffy({ a: 1, b: null }, { a: 1 }, 'diffy')).toBe(true);
    expect(diffy({ a: 1 }, { a: 1, b: null }, 'diffy')).toBe(false);
  });
  it('checks array order unless oblivious, and key order only in key-order mode', () => {
    expect(diffy([1, 2], [2, 1], 'diffy')).toBe(false);
    expect(diffy([1, 2, 2], [2, 1, 2], 'array-order-oblivious')).toBe(true);
    expect(diffy([1, 2, 2], [2, 1, 1], 'array-order-oblivious')).toBe(false);
    expect(diffy({ a: 1, b: 2 }, { b: 2, a: 1 }, 'diffy')).toBe(true);
    expect(diffy({ a: 1, b: 2 }, { b: 2, a: 1 }, 'diffy+key-order')).toBe(false);
  });
});

const benchDir = resolve(import.meta.dirname, '../../../shared/bench/jolt');

describe('JOLT benchmark workloads give the reference output', () => {
  const workloads = existsSync(benchDir)
    ? readdirSync(benchDir).filter((d) => existsSync(join(benchDir, d, 'spec.json')))
    : [];
  it('has workloads to check', () => {
    if (workloads.length === 0) expect(process.env.CI).not.toBe('true');
  });
  for (const w of workloads) {
    it(w, () => {
      const read = (f: string): unknown => JSON.parse(readFileSync(join(benchDir, w, f), 'utf8')) as unknown;
      const compiled = joltToFunction(read('spec.json'));
      expect(compiled.diagnostics).toEqual([]);
      const input = read('input.json');
      const before = JSON.stringify(input);
      expect(diffy(read('expected.json'), compiled.fn?.(input, {}), 'diffy')).toBe(true);
      if (w === 'wildcards-heavy') expect(JSON.stringify(input)).toBe(before); // shift leaves its input alone
    });
  }
});
