/**
 * The `.pipe` fuzz run: mutated sources (pipe-mutations.ts) through `pipec check` — the CLI's own
 * entry, in this process, one file per run in a scratch project folder. Every run must end with
 * exit code 0 and no errors, or exit code 1 and at least one error; never a throw, an internal
 * error (PIPE9001), a usage error or a hang.
 *
 *   node --import tsx test/fuzz/run-pipe-fuzz.ts --runs 2000 --seed 42 --dir test/.tmp/pipe-fuzz
 *
 * Before each run the input is written to DIR/current.pipe, so when a run hangs, whoever kills this
 * process finds the input there. A failure is written to DIR/failure.pipe; the last line printed is
 * a JSON summary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { main } from '../../compiler/cli/pipec.js';
import { loadSeeds, mutatedSource } from './pipe-mutations.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

interface Verdict {
  readonly ok: boolean;
  readonly problem?: string;
  /** True when the run ended with errors (exit code 1). */
  readonly errors?: boolean;
}

/** What one `pipec check` run must satisfy. */
async function checkOnce(file: string, text: string, json: boolean): Promise<Verdict> {
  fs.writeFileSync(file, text);
  const out: string[] = [];
  const err: string[] = [];
  let code: number;
  try {
    code = await main(['check', file, '--format', json ? 'json' : 'text', '--color', 'never'], {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
    });
  } catch (e) {
    return { ok: false, problem: `pipec check threw: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}` };
  }
  if (code !== 0 && code !== 1) return { ok: false, problem: `exit code ${code}: ${err.join('\n').slice(0, 500)}` };
  const text2 = `${out.join('\n')}\n${err.join('\n')}`;
  if (text2.includes('PIPE9001')) return { ok: false, problem: `internal error:\n${text2.slice(0, 2000)}` };
  if (!json) {
    const saysErrors = /\berror\[PIPE\d{4}\]/.test(text2);
    return saysErrors === (code === 1)
      ? { ok: true, errors: code === 1 }
      : { ok: false, problem: `exit code ${code} but errors printed: ${saysErrors}` };
  }
  let diagnostics: Array<{ severity: string; code: string }>;
  try {
    diagnostics = JSON.parse(out.join('\n')) as Array<{ severity: string; code: string }>;
  } catch {
    return { ok: false, problem: `--format json printed no JSON: ${out.join('\n').slice(0, 500)}` };
  }
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  if (errors > 0 !== (code === 1))
    return { ok: false, problem: `exit code ${code} with ${errors} error diagnostic(s)` };
  return { ok: true, errors: code === 1 };
}

export interface PipeFuzzSummary {
  readonly runs: number;
  readonly seed: number;
  readonly failed: boolean;
  readonly withErrors: number;
  readonly clean: number;
  readonly ms: number;
  readonly problem?: string;
  readonly from?: string;
}

async function runFuzz(runs: number, seed: number, dir: string): Promise<PipeFuzzSummary> {
  fs.mkdirSync(dir, { recursive: true });
  const seeds = loadSeeds([
    path.join(REPO_ROOT, 'test/cases'),
    path.join(REPO_ROOT, 'examples'),
    path.join(REPO_ROOT, 'test/fuzz/fixtures'),
    path.join(REPO_ROOT, 'test/catalogue/bases'),
  ]);
  const file = path.join(dir, 'fuzz.pipe');
  const current = path.join(dir, 'current.pipe');
  let withErrors = 0;
  let clean = 0;
  let iteration = 0;
  let failure: { problem: string; from: string; text: string } | undefined;
  const started = performance.now();
  const run = await fc.check(
    fc.asyncProperty(mutatedSource(seeds), async (input) => {
      fs.writeFileSync(current, input.text);
      const verdict = await checkOnce(file, input.text, iteration++ % 2 === 0);
      if (!verdict.ok) {
        failure ??= { problem: verdict.problem ?? '', from: input.seed, text: input.text };
        return false;
      }
      if (verdict.errors) withErrors++;
      else clean++;
      return true;
    }),
    { numRuns: runs, seed, endOnFailure: true },
  );
  // A throw of the run itself (not of pipec check, which checkOnce catches) is a failure too.
  if (run.errorInstance && !failure)
    failure = { problem: `the run threw: ${String(run.errorInstance)}`, from: '', text: '' };
  if (failure) fs.writeFileSync(path.join(dir, 'failure.pipe'), failure.text);
  return {
    runs: iteration,
    seed,
    failed: failure !== undefined,
    withErrors,
    clean,
    ms: Math.round(performance.now() - started),
    ...(failure ? { problem: failure.problem, from: path.relative(REPO_ROOT, failure.from) } : {}),
  };
}

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '2000' }, seed: { type: 'string' }, dir: { type: 'string' } },
});
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const dir = values.dir ?? path.join(REPO_ROOT, 'test/.tmp', `pipe-fuzz-${process.pid}`);
const summary = await runFuzz(Number(values.runs), seed, dir);
process.stdout.write(`${JSON.stringify(summary)}\n`);
process.exit(summary.failed ? 1 : 0);
