/**
 * The vitest reporter behind `npm test`'s closing line `N passed, N failed` (test/run-tests.mjs).
 * Each failure is counted once: a failed test is one; a suite (a module or a `describe`) counts
 * only for an error of its own — a module that fails to load, a `beforeAll`/`afterAll` that
 * throws — and not again for the failed tests inside it; each unhandled error is one. (vitest's
 * JSON report counts a failed test's describe and module as failed suites too, so adding its
 * suite and test counts gave three failures for one flaky test.)
 *
 * The summary (TestSummary) is written as JSON to $PIPEC_TEST_SUMMARY when that is set.
 */
import fs from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/** What the counting reads of a module: vitest's TestModule has this shape. */
export interface ModuleLike {
  /** The module's path relative to the project root. */
  readonly relativeModuleId: string;
  errors(): readonly unknown[];
  readonly children: {
    allSuites(): Iterable<{ readonly fullName: string; errors(): readonly unknown[] }>;
    allTests(): Iterable<{ readonly fullName: string; result(): { readonly state: string } }>;
  };
}

export interface TestSummary {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /** One line per counted failure: what failed. */
  readonly failures: readonly string[];
  /** `N passed, N failed` (`, N skipped` when some were). */
  readonly line: string;
}

export function summarize(modules: readonly ModuleLike[], unhandledErrors: readonly unknown[]): TestSummary {
  let passed = 0;
  let skipped = 0;
  const failures: string[] = [];
  for (const module of modules) {
    if (module.errors().length > 0) failures.push(`module ${module.relativeModuleId}`);
    for (const suite of module.children.allSuites()) {
      if (suite.errors().length > 0) failures.push(`suite ${module.relativeModuleId} > ${suite.fullName}`);
    }
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') passed++;
      else if (state === 'failed') failures.push(`test ${module.relativeModuleId} > ${test.fullName}`);
      else skipped++;
    }
  }
  for (const error of unhandledErrors) failures.push(`unhandled error: ${messageOf(error)}`);
  const failed = failures.length;
  return {
    passed,
    failed,
    skipped,
    failures,
    line: `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`,
  };
}

function messageOf(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error) return String((error as { message: unknown }).message);
  return String(error);
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const target = process.env['PIPEC_TEST_SUMMARY'];
    if (!target) return;
    fs.writeFileSync(target, JSON.stringify(summarize(testModules, unhandledErrors), null, 2));
  }
}
