/**
 * The pipeline test runner behind `pipec test`: runs each test of a checked TestSuite in this
 * process against a fresh service (the generated ServiceDefinition, its triggers not started), on
 * its own temporary embedded backends (SQLite in a folder of its own, removed afterwards), with the
 * test's mocks installed as step hooks; then checks the expectations and sums up coverage.
 * In: the service definition, the suite, a scratch folder. Out: results as data (the CLI renders them).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { loadDefaultBackends } from '../service/backends-port.js';
import { createService, type ExecutionOutcome, type ServiceDefinition } from '../service/create-service.js';
import { Reply, type Json, type PipelineModule } from '../types.js';
import { compareJson, matches, type Difference } from './compare.js';
import { NetworkRules, TestRecorder } from './recorder.js';
import type { ExpectSpec, PipelineInventory, TestCase, TestSuite } from './test-plan.js';

export interface TestFailure {
  /** `file.test.pipe:line` of the expectation (of the test, for failures that are not one expectation's). */
  readonly source: string;
  /** The expectation as written, e.g. `expect output contains { … }`. */
  readonly expectation: string;
  /** The step the failure points at: the step that produced the value, or that failed. */
  readonly step?: string;
  readonly message: string;
  readonly differences?: readonly Difference[];
}

export interface TestResult {
  readonly name: string;
  readonly source: string;
  readonly pipeline: string;
  readonly passed: boolean;
  readonly durationMs: number;
  readonly failures: readonly TestFailure[];
}

export interface PipelineCoverage {
  readonly pipeline: string;
  readonly stepsRun: number;
  readonly stepsTotal: number;
  readonly branchesTaken: number;
  readonly branchesTotal: number;
  readonly missedSteps: readonly string[];
  readonly missedBranches: readonly string[];
}

export interface SuiteResult {
  readonly tests: readonly TestResult[];
  readonly coverage: readonly PipelineCoverage[];
}

export interface RunSuiteOptions {
  /** A folder for the tests' temporary backends (each test gets a sub-folder, removed afterwards). */
  readonly workDir: string;
  /** Environment for `env(…)` in accounts and globals; PIPEC_* and OTEL_* are ignored (tests use their own backends, no tracing). */
  readonly env?: NodeJS.ProcessEnv;
  /** Called after each test (progress output). */
  readonly onResult?: (result: TestResult) => void;
}

/** Runs the tests one after another; never throws for a failing test. */
export async function runTestSuite(
  def: ServiceDefinition,
  suite: TestSuite,
  opts: RunSuiteOptions,
): Promise<SuiteResult> {
  const results: TestResult[] = [];
  const stepsRun = new Set<string>();
  const branchesTaken = new Set<string>();
  const env = testEnv(opts.env ?? process.env);
  const network = new NetworkRules(suite.connectors);
  for (const test of suite.tests) {
    const recorder = new TestRecorder(test.mocks, network, suite.connectors);
    const result = await runOne(def, test, recorder, opts.workDir, env);
    for (const key of recorder.stepsRun) stepsRun.add(key);
    for (const key of recorder.branchesTaken) branchesTaken.add(key);
    results.push(result);
    opts.onResult?.(result);
  }
  return { tests: results, coverage: suite.pipelines.map((p) => coverageOf(p, stepsRun, branchesTaken)) };
}

function testEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(([key]) => !key.startsWith('PIPEC_') && !key.startsWith('OTEL_')),
  );
}

async function runOne(
  def: ServiceDefinition,
  test: TestCase,
  recorder: TestRecorder,
  workDir: string,
  env: NodeJS.ProcessEnv,
): Promise<TestResult> {
  const started = performance.now();
  const dataDir = mkdtempSync(join(workDir, 'test-'));
  const logger = pino({ level: 'silent' });
  const clock = { now: () => Date.now() };
  const finish = (failures: TestFailure[]): TestResult => ({
    name: test.name,
    source: test.source,
    pipeline: test.pipeline,
    passed: failures.length === 0,
    durationMs: performance.now() - started,
    failures,
  });
  try {
    const pipeline = def.pipelines.find((p) => p.name === test.pipeline);
    if (!pipeline)
      return finish([
        {
          source: test.source,
          expectation: `pipeline: ${test.pipeline}`,
          message: `the service has no pipeline \`${test.pipeline}\``,
        },
      ]);
    // Only the embedded backends: a test never touches the PostgreSQL or NATS of the environment.
    const backends = await loadDefaultBackends({ dataDir, env: {}, clock, logger });
    const service = await createService(def, {
      backends: { ...backends, broker: recorder.recordingBroker(backends.broker) },
      logger,
      clock,
      dataDir,
      env,
      startTriggers: false,
      stepHooks: recorder.hooks(),
    });
    let outcome: ExecutionOutcome;
    try {
      outcome = await service.run(test.pipeline, inputMessage(def, pipeline, test.input));
    } finally {
      await service.stop(0);
    }
    const failures = recorder.unmocked.map((problem): TestFailure => ({
      source: test.source,
      expectation: 'no network',
      message: problem,
    }));
    for (const expectation of test.expects) {
      const failure = checkExpectation(expectation, test, outcome, recorder);
      if (failure) failures.push(failure);
    }
    return finish(failures);
  } catch (err) {
    return finish([
      {
        source: test.source,
        expectation: 'run',
        message: `the test could not run: ${err instanceof Error ? err.message : String(err)}`,
      },
    ]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The trigger's message: what the trigger's run-time part completes it with (HTTP envelopes get
 * their missing parts, scheduler ticks a time), else the input as given.
 */
export function inputMessage(def: ServiceDefinition, pipeline: PipelineModule, input: Json | undefined): Json {
  const runtime = Object.hasOwn(def.triggers, pipeline.trigger.kind) ? def.triggers[pipeline.trigger.kind] : undefined;
  return runtime?.testMessage ? runtime.testMessage(pipeline.trigger, input) : (input ?? {});
}

// ───────────────────────────── expectations ─────────────────────────────

function stepName(
  call: { readonly label?: string; readonly connector: string; readonly source: string } | undefined,
): string | undefined {
  if (!call) return undefined;
  return call.label !== undefined
    ? `${call.label} (${call.connector}, ${call.source})`
    : `${call.connector} (${call.source})`;
}

/** Where the final message came from: the last step the tested pipeline ran, and the branches taken. */
function lastStep(test: TestCase, recorder: TestRecorder): string | undefined {
  const calls = recorder.calls.filter((c) => c.pipeline === test.pipeline);
  const last = stepName(calls[calls.length - 1]);
  const trail = recorder.branchTrail.length > 0 ? `branches taken: ${recorder.branchTrail.join(', ')}` : undefined;
  if (last === undefined) return trail;
  return `${last}, the last step run${trail ? `; ${trail}` : ''}`;
}

function describeOutcome(outcome: ExecutionOutcome): string {
  if (!outcome.ok)
    return `the execution failed with ${String(outcome.error['code'])}: ${String(outcome.error['message'])}`;
  return outcome.result instanceof Reply ? `it responded ${outcome.result.status}` : 'it finished without responding';
}

function checkExpectation(
  spec: ExpectSpec,
  test: TestCase,
  outcome: ExecutionOutcome,
  recorder: TestRecorder,
): TestFailure | undefined {
  const base = { source: spec.source, expectation: spec.text };
  const errorStep = !outcome.ok && typeof outcome.error['step'] === 'string' ? outcome.error['step'] : undefined;
  const valueFailure = (
    expected: Json,
    actual: Json | undefined,
    mode: 'equal' | 'contains',
    what: string,
    step: string | undefined,
  ): TestFailure | undefined => {
    const differences = compareJson(expected, actual, mode);
    if (differences.length === 0) return undefined;
    return { ...base, ...(step ? { step } : {}), message: `${what} differs`, differences };
  };
  switch (spec.kind) {
    case 'output': {
      if (!outcome.ok) return { ...base, ...(errorStep ? { step: errorStep } : {}), message: describeOutcome(outcome) };
      const actual = outcome.result instanceof Reply ? outcome.result.body : outcome.result;
      return valueFailure(spec.value, actual, spec.match, 'the output', lastStep(test, recorder));
    }
    case 'error': {
      const step = lastStep(test, recorder);
      if (outcome.ok)
        return {
          ...base,
          ...(step ? { step } : {}),
          message: `expected the execution to fail, but ${describeOutcome(outcome)}`,
        };
      return valueFailure(spec.value, outcome.error, spec.match, 'the error', errorStep);
    }
    case 'status': {
      const actual = outcome.ok
        ? outcome.result instanceof Reply
          ? outcome.result.status
          : 200
        : Number(outcome.error['code']);
      if (actual === spec.status) return undefined;
      const step = errorStep ?? lastStep(test, recorder);
      return {
        ...base,
        ...(step ? { step } : {}),
        message: `expected status ${spec.status}, but ${describeOutcome(outcome)}`,
      };
    }
    case 'step': {
      const outputs = recorder.stepOutputs.get(spec.pipeline);
      const has = outputs !== undefined && Object.prototype.hasOwnProperty.call(outputs, spec.label);
      const step =
        stepName(recorder.calls.find((c) => c.pipeline === spec.pipeline && c.label === spec.label)) ?? spec.label;
      if (!has) return { ...base, step, message: `step \`${spec.label}\` did not run (${describeOutcome(outcome)})` };
      return valueFailure(spec.value, outputs[spec.label], spec.match, `the output of step \`${spec.label}\``, step);
    }
    case 'branch': {
      if (spec.keys.some((key) => recorder.branchesTaken.has(key))) return undefined;
      const taken = recorder.branchTrail.length > 0 ? recorder.branchTrail.map((b) => `\`${b}\``).join(', ') : 'none';
      return { ...base, message: `branch \`${spec.name}\` was not taken (branches taken: ${taken})` };
    }
    case 'published': {
      const events = recorder.published.filter((e) => e.event === spec.event);
      return countFailure(
        base,
        `event \`${spec.event}\``,
        'published',
        events.map((e) => e.payload),
        spec.times,
        spec.with,
      );
    }
    case 'called': {
      const calls = recorder.calls.filter((c) => spec.keys.includes(c.key));
      const failure = countFailure(
        base,
        `step \`${spec.name}\``,
        'called',
        calls.map((c) => c.params),
        spec.times,
        spec.with,
      );
      return failure ? { ...failure, step: stepName(calls[0]) ?? spec.name } : undefined;
    }
  }
}

/** `N times` (exactly) / at least once, of the records matching `with` (contains). */
function countFailure(
  base: { source: string; expectation: string },
  what: string,
  verb: string,
  records: readonly Json[],
  times: number | undefined,
  withValue: Json | undefined,
): TestFailure | undefined {
  const matching = withValue === undefined ? records : records.filter((r) => matches(withValue, r, 'contains'));
  const ok = times === undefined ? matching.length > 0 : matching.length === times;
  if (ok) return undefined;
  const counted = `${matching.length} time${matching.length === 1 ? '' : 's'}`;
  const wanted = times === undefined ? 'at least once' : `${times} time${times === 1 ? '' : 's'}`;
  const also =
    withValue !== undefined && records.length !== matching.length
      ? ` (${records.length} in all, ${records.length - matching.length} with other values)`
      : '';
  const closest = withValue !== undefined && matching.length === 0 ? records[0] : undefined;
  return {
    ...base,
    message: `${what} was ${verb} ${counted}${withValue !== undefined ? ' with matching values' : ''}${also}, expected ${wanted}`,
    ...(closest !== undefined && withValue !== undefined
      ? { differences: compareJson(withValue, closest, 'contains') }
      : {}),
  };
}

function coverageOf(
  pipeline: PipelineInventory,
  stepsRun: ReadonlySet<string>,
  branchesTaken: ReadonlySet<string>,
): PipelineCoverage {
  const missedSteps = pipeline.steps.filter((s) => !stepsRun.has(s.key)).map((s) => s.name);
  const missedBranches = pipeline.branches.filter((b) => !branchesTaken.has(b.key)).map((b) => b.name);
  return {
    pipeline: pipeline.name,
    stepsRun: pipeline.steps.length - missedSteps.length,
    stepsTotal: pipeline.steps.length,
    branchesTaken: pipeline.branches.length - missedBranches.length,
    branchesTotal: pipeline.branches.length,
    missedSteps,
    missedBranches,
  };
}
