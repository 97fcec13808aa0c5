/**
 * The pipeline test runner's public surface (`pipec test` loads it from the built service's own
 * copy of the runtime, so the service and the runner share one set of classes).
 */
export { runTestSuite, inputMessage } from './run-tests.js';
export type { PipelineCoverage, RunSuiteOptions, SuiteResult, TestFailure, TestResult } from './run-tests.js';
export { compareJson, matches } from './compare.js';
export type { Difference, MatchMode } from './compare.js';
export { branchKey, stepKey } from './test-plan.js';
export type { ExpectSpec, MockSpec, PipelineInventory, TestCase, TestSuite } from './test-plan.js';
export { NetworkRules } from './recorder.js';
