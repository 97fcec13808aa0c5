import type { TestSummary } from './summary-reporter.js';

export interface VitestRun {
  /** vitest's exit status. */
  readonly status: number;
  readonly summary: TestSummary;
}

/** Runs `vitest run ARGS` with the summary reporter (see run-vitest.mjs). */
export function runVitest(
  args: readonly string[],
  opts: {
    readonly cwd: string;
    readonly summaryFile: string;
    readonly stdio?: 'inherit' | 'pipe';
    readonly env?: Readonly<Record<string, string>>;
  },
): VitestRun;
