/**
 * `pipec test` end to end, in process: passing and failing test files (the report names the test,
 * the step and the difference), the exit code, coverage, JSON output, and every example's
 * `.test.pipe` passing. Uses the compiled runtime in dist/ (npm run build), like `pipec build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from './pipec.js';

const root = path.resolve(import.meta.dirname, '../..');
const fixtures = path.join(import.meta.dirname, 'fixtures', 'pipe-tests');

async function pipec(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('pipec test', () => {
  it('passes a passing test file and exits 0', async () => {
    const run = await pipec([
      'test',
      path.join(fixtures, 'shop.pipe'),
      path.join(fixtures, 'shop-pass.test.pipe'),
      '--color',
      'never',
    ]);
    expect(run.err).toBe('');
    expect(run.out).toMatch(/✓ vip customers are announced \(\d/);
    expect(run.out).toContain('1 passed, 0 failed');
    expect(run.code).toBe(0);
  });

  it('reports a failing test with its step and the difference, and exits 1', async () => {
    const run = await pipec([
      'test',
      path.join(fixtures, 'shop.pipe'),
      path.join(fixtures, 'shop-fail.test.pipe'),
      '--color',
      'never',
    ]);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/✗ regular customers are stored \(\d/);
    expect(run.out).toContain('shop-fail.test.pipe:4  expect output contains { tier: "gold" }');
    expect(run.out).toContain('step: saved (store, ');
    expect(run.out).toContain('$.tier: expected "gold", actual "regular"');
    // An unmocked HTTP call fails the test whatever the pipeline made of the error.
    expect(run.out).toContain('step `fetch-customer` (rest, ');
    expect(run.out).toContain('was not mocked and it calls an HTTP endpoint');
    expect(run.out).toContain('0 passed, 2 failed');
  });

  it('prints coverage: steps run and branches taken per pipeline', async () => {
    const run = await pipec([
      'test',
      path.join(fixtures, 'shop.pipe'),
      path.join(fixtures, 'shop-pass.test.pipe'),
      '--coverage',
      '--color',
      'never',
    ]);
    expect(run.out).toContain('Coverage:');
    expect(run.out).toMatch(/shop\s+2\/3 \(67%\)\s+1\/2 \(50%\)/);
    expect(run.out).toMatch(/step not run: saved \(store, .*shop\.pipe:13\)/);
    expect(run.out).toMatch(/branch not taken: .*shop\.pipe:7 otherwise/);
  });

  it('gives the results as JSON with --format json', async () => {
    const run = await pipec(['test', fixtures, '--format', 'json']);
    const report = JSON.parse(run.out) as {
      tests: { name: string; passed: boolean; failures: { differences?: unknown[] }[] }[];
      coverage: unknown[];
    };
    expect(report.tests.map((t) => [t.name, t.passed])).toEqual([
      ['regular customers are stored', false],
      ['the network is never reached', false],
      ['vip customers are announced', true],
    ]);
    expect(report.tests[0]?.failures[0]?.differences).toEqual([
      { path: '$.tier', expected: 'gold', actual: 'regular' },
    ]);
    expect(run.code).toBe(1);
  });

  it('refuses to run tests whose files have errors', async () => {
    const run = await pipec([
      'test',
      path.join(root, 'test/cases/testing/unknown-mock-label.pipe'),
      '--color',
      'never',
    ]);
    expect(run.code).toBe(1);
    expect(run.err).toContain('PIPE7011');
    expect(run.err).toContain('No tests were run');
  });

  it('says so when there are no tests', async () => {
    const run = await pipec(['test', path.join(fixtures, 'shop.pipe')]);
    expect(run.code).toBe(1);
    expect(run.err).toContain('No tests found');
  });
});

describe('every example ships passing tests', () => {
  const examples = fs
    .readdirSync(path.join(root, 'examples'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  for (const example of examples) {
    it(
      example,
      async () => {
        const folder = path.join(root, 'examples', example);
        const testFiles = fs.readdirSync(folder).filter((f) => f.endsWith('.test.pipe'));
        expect(testFiles, `examples/${example} has a .test.pipe`).not.toEqual([]);
        // protected-api imports the token service from a sibling folder: the project is examples/.
        const run = await pipec(['test', folder, '--root', path.join(root, 'examples'), '--color', 'never']);
        expect(run.err, run.out).toBe('');
        expect(run.code, run.out).toBe(0);
        const passed = /(\d+) passed, 0 failed/.exec(run.out);
        expect(Number(passed?.[1] ?? 0)).toBeGreaterThanOrEqual(2);
      },
      60_000,
    );
  }
});
