/**
 * Starts the slowest test files first, so that no long file begins near the end of a run and
 * leaves one worker busy while the other idles (a fresh clone has no vitest cache of durations,
 * and vitest then orders files by size). Files not listed keep vitest's own order, after these.
 */
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The slowest files of a full run, slowest first (seconds of one run on 2 cores, 2026-11-26). A
 * stale entry costs only some balance, never a result.
 */
const SLOW_FILES: readonly (readonly [string, number])[] = [
  ['test/chaos/chaos.test.ts', 60],
  ['test/e2e/replicas.test.ts', 43],
  ['compiler/cli/test-command.test.ts', 35],
  ['runtime/backends/nats/nats.test.ts', 33],
  ['runtime/backends/backends.test.ts', 32],
  ['bench/bench.smoke.test.ts', 29],
  ['examples/error-handling/error-handling.test.ts', 24],
  ['examples/reprocessing/reprocessing.test.ts', 21],
  ['test/fuzz/pipe-fuzz.test.ts', 20],
  ['test/format.test.ts', 19],
  ['test/e2e/ship.test.ts', 16],
  ['examples/token-generator/token-generator.test.ts', 14],
  ['runtime/connectors/csv/csv-large.test.ts', 12],
  ['runtime/connectors/sql/sql.test.ts', 11],
  ['examples/oauth2-token-service/oauth2-token-service.test.ts', 9],
  ['runtime/connectors/xml/xml-large.test.ts', 8],
  ['test/fuzz/attacks.test.ts', 8],
  ['examples/protected-api/protected-api.test.ts', 8],
];
const SECONDS = new Map(SLOW_FILES);

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification): number =>
      SECONDS.get(path.relative(root, spec.moduleId).split(path.sep).join('/')) ?? 0;
    // A stable sort: equal (unlisted) files keep vitest's order.
    return [...ordered].sort((a, b) => seconds(b) - seconds(a));
  }
}
