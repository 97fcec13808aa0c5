/**
 * The closing line of `npm test` counts each failure once. Real vitest runs over the fixtures in
 * ./fixtures (one kind of failure each), through the same runVitest as test/run-tests.mjs.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runVitest } from '../support/run-vitest.mjs';
import { tempDir } from '../e2e/service-process.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');

function runFixtures(pattern: string): ReturnType<typeof runVitest> {
  const summaryFile = path.join(tempDir('summary'), 'summary.json');
  return runVitest(['--config', 'vitest.config.ts'], {
    cwd: FIXTURES,
    summaryFile,
    stdio: 'pipe',
    env: { PIPEC_FIXTURE: pattern },
  });
}

describe('npm test summary', () => {
  it('counts a failed test, a failed suite set-up, a module that fails to load or to tear down, and an unhandled error once each', () => {
    const { status, summary } = runFixtures('*.fixture.ts');
    expect(status).not.toBe(0);
    expect([...summary.failures].sort()).toEqual([
      'module failing-after-all.fixture.ts',
      'module fails-to-load.fixture.ts',
      'suite failing-hook.fixture.ts > broken set-up',
      'test one-failing-test.fixture.ts > outer > inner > fails',
      'unhandled error: stray rejection',
    ]);
    // passing (2) + one-failing-test (1) + failing-hook's neighbour (1) + failing-after-all (2) + unhandled-rejection (1)
    expect(summary.line).toBe('7 passed, 5 failed, 2 skipped');
  }, 60_000);

  it('a green run says 0 failed', () => {
    const { status, summary } = runFixtures('passing.fixture.ts');
    expect(status).toBe(0);
    expect(summary.line).toBe('2 passed, 0 failed');
  }, 60_000);

  it('a run with no test file at all is one failure', () => {
    const { status, summary } = runFixtures('no-such-file.fixture.ts');
    expect(status).not.toBe(0);
    expect(summary.line).toBe('0 passed, 1 failed');
  }, 60_000);
});
