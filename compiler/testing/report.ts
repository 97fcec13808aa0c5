/**
 * Text of the `pipec test` report: one line per test (✓/✗, name, time), then for each failure the
 * expectation as written with its place, the step it points at and the differences (expected vs
 * actual, by JSON path), a summary line, and the optional coverage table. Pure: results in, text out.
 */
import type { PipelineCoverage, SuiteResult, TestFailure, TestResult } from '../../runtime/testing/run-tests.js';
import type { Difference } from '../../runtime/testing/compare.js';

export interface ReportStyle {
  readonly color: boolean;
}

const paint = (style: ReportStyle, code: string, text: string): string =>
  style.color ? `\u001b[${code}m${text}\u001b[0m` : text;
const green = (s: ReportStyle, t: string) => paint(s, '32', t);
const red = (s: ReportStyle, t: string) => paint(s, '31', t);
const dim = (s: ReportStyle, t: string) => paint(s, '2', t);

/** A value on one line, shortened: reports show where runs differ, not whole documents. */
export function showValue(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

function formatMs(ms: number): string {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

export function renderTestLine(result: TestResult, style: ReportStyle): string {
  const mark = result.passed ? green(style, '✓') : red(style, '✗');
  return `${mark} ${result.name} ${dim(style, `(${formatMs(result.durationMs)})`)}`;
}

function renderDifference(d: Difference): string {
  if (d.actual === undefined) return `${d.path}: expected ${showValue(d.expected)}, but it is missing`;
  if (d.expected === undefined) return `${d.path}: not expected, found ${showValue(d.actual)}`;
  return `${d.path}: expected ${showValue(d.expected)}, actual ${showValue(d.actual)}`;
}

export function renderFailure(failure: TestFailure, style: ReportStyle): string[] {
  const lines = [`    ${dim(style, failure.source)}  ${failure.expectation}`];
  if (failure.step) lines.push(`      step: ${failure.step}`);
  lines.push(`      ${red(style, failure.message)}`);
  for (const d of failure.differences ?? []) lines.push(`        ${renderDifference(d)}`);
  return lines;
}

/** The failures of every failed test, each under its test's name. */
export function renderFailures(results: readonly TestResult[], style: ReportStyle): string {
  const blocks = results
    .filter((r) => !r.passed)
    .map((r) =>
      [
        `${red(style, '✗')} ${r.name} ${dim(style, `(${r.source}, pipeline ${r.pipeline})`)}`,
        ...r.failures.flatMap((f) => renderFailure(f, style)),
      ].join('\n'),
    );
  return blocks.length > 0 ? `\nFailures:\n\n${blocks.join('\n\n')}\n` : '';
}

export function renderSummary(results: readonly TestResult[], totalMs: number, style: ReportStyle): string {
  const failed = results.filter((r) => !r.passed).length;
  const passed = results.length - failed;
  const parts = [green(style, `${passed} passed`), failed > 0 ? red(style, `${failed} failed`) : `${failed} failed`];
  return `${parts.join(', ')} ${dim(style, `(${results.length} test${results.length === 1 ? '' : 's'}, ${formatMs(totalMs)})`)}`;
}

function ratio(done: number, total: number): string {
  if (total === 0) return '—';
  return `${done}/${total} (${Math.round((done / total) * 100)}%)`;
}

/** Per pipeline: steps run / total and choice branches taken / total, then what was missed. */
export function renderCoverage(coverage: readonly PipelineCoverage[], style: ReportStyle): string {
  const nameWidth = Math.max('pipeline'.length, ...coverage.map((c) => c.pipeline.length));
  const rows = coverage.map((c) => ({
    c,
    steps: ratio(c.stepsRun, c.stepsTotal),
    branches: ratio(c.branchesTaken, c.branchesTotal),
  }));
  const stepsWidth = Math.max('steps'.length, ...rows.map((r) => r.steps.length));
  const lines = ['Coverage:', `  ${'pipeline'.padEnd(nameWidth)}  ${'steps'.padEnd(stepsWidth)}  branches`];
  for (const { c, steps, branches } of rows) {
    lines.push(`  ${c.pipeline.padEnd(nameWidth)}  ${steps.padEnd(stepsWidth)}  ${branches}`);
    for (const s of c.missedSteps) lines.push(dim(style, `      step not run: ${s}`));
    for (const b of c.missedBranches) lines.push(dim(style, `      branch not taken: ${b}`));
  }
  return lines.join('\n');
}

/** The whole report after a run (the per-test lines are printed as tests finish). */
export function renderReport(
  suite: SuiteResult,
  totalMs: number,
  opts: ReportStyle & { readonly coverage: boolean },
): string {
  const parts = [renderFailures(suite.tests, opts)];
  if (opts.coverage) parts.push(`\n${renderCoverage(suite.coverage, opts)}\n`);
  parts.push(`\n${renderSummary(suite.tests, totalMs, opts)}`);
  return parts.join('');
}
