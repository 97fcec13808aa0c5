/**
 * The benchmarks in --smoke mode, so they cannot rot: every section runs briefly and must produce
 * numbers. Nothing here asserts speed (the machine running the tests is shared and noisy).
 */
import { describe, expect, it } from 'vitest';
import { runBench, SMOKE, tableRows } from './run.js';

const positive = (value: number | null | undefined): boolean =>
  typeof value === 'number' && Number.isFinite(value) && value > 0;

describe('npm run bench -- --smoke', () => {
  it('runs every section and reports numbers for each', async () => {
    const results = await runBench(SMOKE);

    expect(results.orderFlow.rounds.length).toBeGreaterThanOrEqual(1);
    for (const round of results.orderFlow.rounds) {
      for (const run of [round.generated, round.baseline]) {
        expect(positive(run.reqPerSec)).toBe(true);
        expect(run.requests).toBeGreaterThan(0);
        expect(Number.isFinite(run.p99Ms)).toBe(true);
      }
      expect(positive(round.throughputRatio)).toBe(true);
      expect(positive(round.p99Ratio)).toBe(true);
    }
    // CPU time per request comes from /proc: Linux only.
    if (process.platform === 'linux') {
      expect(results.orderFlow.sideBySide.rounds.length).toBe(SMOKE.orderFlow.sideBySideRounds);
      expect(
        positive(results.orderFlow.sideBySide.median?.cpuRatio) &&
          positive(results.orderFlow.sideBySide.median?.tunedCpuRatio),
      ).toBe(true);
    }
    expect(results.coldStart.bundle.runsMs.length).toBe(SMOKE.coldStartRuns);
    for (const series of [results.coldStart.bundle, results.coldStart.modules, results.coldStart.nodeItself])
      expect(positive(series.medianMs)).toBe(true);
    expect(results.compiler.check.lines).toBeGreaterThanOrEqual(SMOKE.checkLines);
    expect(positive(results.compiler.check.ms) && positive(results.compiler.check.linesPerSecond)).toBe(true);
    expect(positive(results.compiler.checkFromModules) && positive(results.compiler.checkSmallFile)).toBe(true);
    expect(positive(results.compiler.build.ms) && results.compiler.build.files).toBeTruthy();
    expect(results.braces.cases.length).toBeGreaterThanOrEqual(5);
    for (const c of results.braces.cases)
      expect(positive(c.bracesPerSecond) && positive(c.jsonataPerSecond)).toBe(true);
    expect(positive(results.braces.ratio)).toBe(true);
    expect(results.jolt.length).toBeGreaterThanOrEqual(3);
    for (const j of results.jolt) expect(positive(j.opsPerSec)).toBe(true);
    // The SQLite cases always run; PostgreSQL and NATS ones only when their servers are reachable.
    expect(results.backends.filter((b) => b.case.startsWith('sqlite')).length).toBeGreaterThanOrEqual(4);
    for (const b of results.backends) expect(positive(b.perSec)).toBe(true);
    // Scale and driver pairs: SQLite always, PostgreSQL/NATS when reachable.
    expect(results.scale.filter((c) => c.backend === 'sqlite').map((c) => c.documents)).toEqual([...SMOKE.scaleSizes]);
    for (const c of results.scale) expect(positive(c.findsPerSec) && positive(c.ofSmallest)).toBe(true);
    expect(results.pairs.filter((p) => p.case.startsWith('sqlite')).length).toBe(3);
    for (const p of results.pairs)
      expect(positive(p.platformPerSec) && positive(p.driverPerSec) && positive(p.ratio)).toBe(true);
    expect(results.machine.nproc).toBeGreaterThan(0);

    const rows = tableRows(results);
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.every((row) => row.every((cell) => !cell.includes('NaN')))).toBe(true);
    expect(JSON.parse(JSON.stringify(results))).toEqual(results);
  }, 300_000);
});
