/**
 * Phase `check` for `test` blocks: resolves what each test names (its pipeline, the steps it mocks
 * or expects, branches, events) against the pipelines' ASTs, checks mock outputs against the mocked
 * connector's output shape, reads `input: file(…)` fixtures, and produces the TestSuite the runner
 * executes (runtime/testing/test-plan.ts). Diagnostics PIPE7004–PIPE7017. Pure apart from the
 * `readFile` it is given.
 */
import path from 'node:path';
import type { FileRead } from '../compile.js';
import type { Expectation, MockDecl, ObjectValue, PipeFile, PipelineDecl, TestDecl, Value } from '../ast/ast.js';
import { spanAt, toLiteral } from '../ast/literal.js';
import type { ConnectorRegistry } from '../connectors/connector-registry.js';
import {
  badInputFile,
  badMockedFailure,
  eventNeverPublished,
  expressionInTestData,
  mockDoesNotFit,
  mockOfOtherConnector,
  mockedTwice,
  testNamedTwice,
  testedPipelineUnsaid,
  unknownTestBranch,
  unknownTestStep,
  unknownTestedPipeline,
} from './errors.js';
import type { Diagnostic, Result } from '../../base/diagnostics/diagnostic.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import type { SourceFile } from '../../base/source/source-file.js';
import type { Span } from '../../base/source/span.js';
import { schemaToType } from '../types/schema-to-type.js';
import { UNKNOWN, type PipeType } from '../types/pipe-type.js';
import type {
  ConnectorTestFacts,
  ExpectSpec,
  MockSpec,
  PipelineInventory,
  TestCase,
  TestSuite,
} from '../../runtime/testing/test-plan.js';
import type { Json, JsonObject } from '../../runtime/types.js';
import { indexPipeline, normalizeCondition, type IndexedStep, type PipelineIndex } from './inventory.js';
import { shapeProblems, withDefaults } from './mock-shape.js';

export interface CheckTestsInput {
  /** Every parsed file: the pipelines under test and the files holding `test` blocks. */
  readonly files: readonly PipeFile[];
  readonly registry: ConnectorRegistry;
  readonly sourceOf: (file: string) => SourceFile | undefined;
  /** How a source file is named in the plan (as check-program names it). */
  readonly sourcePath: (file: string) => string;
  /** Reads an `input: file(…)` fixture; undefined when it cannot be read. */
  readonly readFile: (filePath: string) => string | undefined;
  /** When given, reads fixtures instead of `readFile`, with the reason of a refusal (outside the project, …). */
  readonly readProjectFile?: (filePath: string) => FileRead;
}

/** Fixtures are test data, not bulk data. */
const MAX_FIXTURE_CHARS = 5 * 1024 * 1024;
/** One mock rarely has more than a few wrong fields; past this the rest are left out. */
const MAX_SHAPE_PROBLEMS = 5;

export function checkTests(input: CheckTestsInput): Result<TestSuite> {
  const diagnostics: Diagnostic[] = [];
  const pipelines = new Map<string, { decl: PipelineDecl; index: PipelineIndex }>();
  for (const file of input.files) {
    for (const decl of file.decls) {
      if (decl.kind === 'pipeline' && !pipelines.has(decl.name))
        pipelines.set(decl.name, { decl, index: indexPipeline(decl, input) });
    }
  }
  const checker = new TestChecker(input, pipelines, diagnostics);
  const tests: TestCase[] = [];
  const names = new Map<string, Span>();
  for (const file of input.files) {
    for (const test of file.tests ?? []) {
      const earlier = names.get(test.name);
      if (earlier) {
        diagnostics.push(testNamedTwice(test.name, test.nameSpan, earlier));
        continue;
      }
      names.set(test.name, test.nameSpan);
      const checked = checker.test(test);
      if (checked) tests.push(checked);
    }
  }
  const inventory: PipelineInventory[] = [...pipelines.values()].map(({ index }) => ({
    name: index.name,
    steps: index.steps.map((s) => ({
      key: s.key,
      name: `${s.label ?? s.headerWord ?? s.connector} (${s.connector}, ${s.source})`,
    })),
    branches: index.branches.map((b) => ({ key: b.key, name: b.name })),
  }));
  return { value: { tests, pipelines: inventory, connectors: testFacts(input.registry) }, diagnostics };
}

/** The connectors' `x-pipe-test` facts (network rules, what a mock still publishes), for the runner. */
function testFacts(registry: ConnectorRegistry): Record<string, ConnectorTestFacts> {
  const facts: Record<string, ConnectorTestFacts> = {};
  for (const schema of registry.connectors.values()) {
    const test = schema['x-pipe-test'];
    if (test) facts[schema.name] = test as ConnectorTestFacts;
  }
  return facts;
}

class TestChecker {
  constructor(
    private readonly input: CheckTestsInput,
    private readonly pipelines: ReadonlyMap<string, { decl: PipelineDecl; index: PipelineIndex }>,
    private readonly diagnostics: Diagnostic[],
  ) {}

  private where(span: Span): string {
    return `${this.input.sourcePath(span.file)}:${this.input.sourceOf(span.file)?.positionOf(span.start).line ?? 1}`;
  }

  /** The expectation as written, on one line, for reports. */
  private textOf(span: Span): string {
    const text = this.input.sourceOf(span.file)?.text.slice(span.start, span.end) ?? '';
    const oneLine = text.replace(/\s+/g, ' ').trim();
    return oneLine.length > 100 ? `${oneLine.slice(0, 97)}…` : oneLine;
  }

  test(test: TestDecl): TestCase | undefined {
    const pipeline = this.pipelineOf(test);
    if (!pipeline) return undefined;
    const errorsBefore = this.diagnostics.filter((d) => d.severity === 'error').length;
    const inputValue = this.inputOf(test);
    const mocks = this.mocksOf(test, pipeline.index);
    const expects = test.expects
      .map((e) => this.expectation(e, pipeline.index))
      .filter((e): e is ExpectSpec => e !== undefined);
    if (this.diagnostics.filter((d) => d.severity === 'error').length > errorsBefore) return undefined;
    return {
      name: test.name,
      source: this.where(test.nameSpan),
      pipeline: pipeline.index.name,
      ...(inputValue !== undefined ? { input: inputValue } : {}),
      mocks,
      expects,
    };
  }

  private pipelineOf(test: TestDecl): { decl: PipelineDecl; index: PipelineIndex } | undefined {
    const names = [...this.pipelines.keys()];
    if (test.pipeline) {
      const found = this.pipelines.get(test.pipeline.name);
      if (found) return found;
      const close = suggest(test.pipeline.name, names);
      this.diagnostics.push(unknownTestedPipeline(test.name, test.pipeline.name, test.pipeline.span, names, close));
      return undefined;
    }
    const [only] = [...this.pipelines.values()];
    if (this.pipelines.size === 1 && only) return only;
    // Folders tested together (`pipec test examples`): the one pipeline beside the test file.
    const folder = path.dirname(test.nameSpan.file);
    const beside = [...this.pipelines.values()].filter((p) => path.dirname(p.decl.span.file) === folder);
    const [neighbour] = beside;
    if (beside.length === 1 && neighbour) return neighbour;
    this.diagnostics.push(testedPipelineUnsaid(test.name, test.nameSpan, names));
    return undefined;
  }

  /** Plain JSON of a value; reports `{{ }}` / env() inside it. */
  private literal(value: Value, what: string): Json | undefined {
    const lit = toLiteral(value);
    const [first] = [...lit.dynamic];
    if (first !== undefined) {
      this.diagnostics.push(expressionInTestData(what, spanAt(lit, first, value.span)));
      return undefined;
    }
    return lit.json as Json;
  }

  private inputOf(test: TestDecl): Json | undefined {
    const given = test.input;
    if (!given) return undefined;
    if (given.kind === 'value') return this.literal(given.value, 'a test input');
    const target = path.resolve(path.dirname(given.pathSpan.file), given.path);
    const read = this.input.readProjectFile?.(target);
    const text = read ? ('text' in read ? read.text : undefined) : this.input.readFile(target);
    const bad = (why: string): undefined => {
      this.diagnostics.push(badInputFile(given.path, why, given.pathSpan));
      return undefined;
    };
    if (read && !('text' in read)) return bad(read.refused === 'not-found' ? 'file not found' : read.detail);
    if (text === undefined) return bad('file not found');
    if (text.length > MAX_FIXTURE_CHARS) return bad('file larger than 5 MB');
    try {
      return JSON.parse(text) as Json;
    } catch (err) {
      return bad(`not JSON (${err instanceof Error ? err.message : String(err)})`);
    }
  }

  // ───────────────────────────── step names ─────────────────────────────

  /** Steps a test names: by label, else by first header word; in the tested pipeline first, then anywhere. */
  private findSteps(name: string, tested: PipelineIndex): IndexedStep[] {
    const match = (index: PipelineIndex): IndexedStep[] => {
      const byLabel = index.steps.filter((s) => s.label === name);
      return byLabel.length > 0 ? byLabel : index.steps.filter((s) => s.headerWord === name);
    };
    const local = match(tested);
    if (local.length > 0) return local;
    return [...this.pipelines.values()].filter((p) => p.index !== tested).flatMap((p) => match(p.index));
  }

  private stepNames(index: PipelineIndex): string[] {
    return [
      ...new Set(index.steps.flatMap((s) => [s.label, s.headerWord]).filter((n): n is string => n !== undefined)),
    ];
  }

  private unknownStep(
    of: 'mock' | 'expectation',
    name: string,
    at: Span,
    tested: PipelineIndex,
    what: string,
  ): undefined {
    const steps = this.stepNames(tested);
    this.diagnostics.push(
      unknownTestStep({ of, what, name, pipeline: tested.name, at, steps, suggestion: suggest(name, steps) }),
    );
    return undefined;
  }

  // ───────────────────────────── mocks ─────────────────────────────

  private mocksOf(test: TestDecl, tested: PipelineIndex): MockSpec[] {
    const mocks: MockSpec[] = [];
    const mockedBy = new Map<string, Span>();
    for (const mock of test.mocks) {
      const spec = this.mock(mock, tested);
      if (!spec) continue;
      const earlier = spec.keys.map((k) => mockedBy.get(k)).find((s) => s !== undefined);
      if (earlier) {
        this.diagnostics.push(mockedTwice(mock.label, test.name, mock.labelSpan, earlier));
        continue;
      }
      for (const key of spec.keys) mockedBy.set(key, mock.labelSpan);
      mocks.push(spec);
    }
    return mocks;
  }

  private mock(mock: MockDecl, tested: PipelineIndex): MockSpec | undefined {
    const steps = this.findSteps(mock.label, tested);
    if (steps.length === 0) return this.unknownStep('mock', mock.label, mock.labelSpan, tested, 'this mock replaces');
    const mine = steps.filter((s) => s.connector === mock.connector);
    if (mine.length === 0) {
      const actual = steps[0]?.connector ?? '';
      this.diagnostics.push(mockOfOtherConnector(mock.label, actual, mock.connector, mock.connectorSpan));
      return undefined;
    }
    const base = { keys: mine.map((s) => s.key), name: mock.label, connector: mock.connector };
    const json = this.literal(mock.body, 'a mock');
    if (json === undefined) return undefined;
    if (mock.fails) return this.failingMock(mock, json as JsonObject, base);
    const schema = this.input.registry.connectors.get(mock.connector);
    const rule = schema?.output;
    if (rule === 'input' && mock.body.entries.length === 0) return { ...base, result: { passThrough: true } };
    const shape: PipeType = rule !== null && typeof rule === 'object' ? schemaToType(rule) : UNKNOWN;
    const problems = shapeProblems(json, shape);
    if (problems.length > 0) {
      const lit = toLiteral(mock.body);
      for (const problem of problems.slice(0, MAX_SHAPE_PROBLEMS)) {
        const span = problem.unknownKey
          ? (lit.spans.get(`#key:${problem.pointer}`) ?? mock.body.span)
          : spanAt(lit, problem.pointer, mock.body.span);
        this.diagnostics.push(
          mockDoesNotFit(mock.label, mock.connector, problem.message, problem.unknownKey === true, span),
        );
      }
      return undefined;
    }
    return { ...base, result: { output: withDefaults(json, shape) as Json } };
  }

  /** `fails { code, message, …details }`: the error the step throws. */
  private failingMock(mock: MockDecl, json: JsonObject, base: Omit<MockSpec, 'result'>): MockSpec | undefined {
    const { code = 500, message = `mocked failure of \`${mock.label}\``, ...details } = json;
    if (
      typeof code !== 'number' ||
      !Number.isInteger(code) ||
      code < 100 ||
      code > 599 ||
      typeof message !== 'string'
    ) {
      const bad = typeof message !== 'string' ? 'message' : 'code';
      this.diagnostics.push(badMockedFailure(mock.label, bad, entrySpan(mock.body, bad) ?? mock.body.span));
      return undefined;
    }
    const hasDetails = Object.keys(details).length > 0;
    return { ...base, result: { error: { code, message, ...(hasDetails ? { details } : {}) } } };
  }

  // ───────────────────────────── expectations ─────────────────────────────

  private expectation(e: Expectation, tested: PipelineIndex): ExpectSpec | undefined {
    const base = { source: this.where(e.span), text: this.textOf(e.span) };
    switch (e.kind) {
      case 'output':
      case 'error': {
        const value = this.literal(e.value, 'an expected value');
        return value === undefined ? undefined : { ...base, kind: e.kind, match: e.match, value };
      }
      case 'status':
        return { ...base, kind: 'status', status: e.status };
      case 'step': {
        const owner = this.labelOwner(e.label, tested);
        if (!owner) return this.unknownStep('expectation', e.label, e.labelSpan, tested, 'this expectation reads step');
        const value = this.literal(e.value, 'an expected value');
        return value === undefined
          ? undefined
          : { ...base, kind: 'step', pipeline: owner, label: e.label, match: e.match, value };
      }
      case 'called': {
        const steps = this.findSteps(e.label, tested);
        if (steps.length === 0)
          return this.unknownStep('expectation', e.label, e.labelSpan, tested, 'this expectation counts calls of step');
        const withValue = e.with ? this.literal(e.with, 'an expected value') : undefined;
        if (e.with && withValue === undefined) return undefined;
        return {
          ...base,
          kind: 'called',
          name: e.label,
          keys: steps.map((s) => s.key),
          ...(e.times !== undefined ? { times: e.times } : {}),
          ...(withValue !== undefined ? { with: withValue } : {}),
        };
      }
      case 'branch':
        return this.branch(e, tested, base);
      case 'published': {
        const events = [...this.pipelines.values()].flatMap((p) => [...p.index.events]);
        if (!events.includes(undefined) && !events.includes(e.event)) {
          const known = events.filter((n): n is string => n !== undefined);
          const close = suggest(e.event, known);
          this.diagnostics.push(eventNeverPublished(e.event, e.eventSpan, known, close));
        }
        const withValue = e.with ? this.literal(e.with, 'an expected value') : undefined;
        if (e.with && withValue === undefined) return undefined;
        return {
          ...base,
          kind: 'published',
          event: e.event,
          ...(e.times !== undefined ? { times: e.times } : {}),
          ...(withValue !== undefined ? { with: withValue } : {}),
        };
      }
    }
  }

  /** The pipeline whose `step.<label>` a test reads: a labelled connector step or for-each. */
  private labelOwner(label: string, tested: PipelineIndex): string | undefined {
    const has = (index: PipelineIndex): boolean =>
      index.steps.some((s) => s.label === label) || index.forEachLabels.has(label);
    if (has(tested)) return tested.name;
    return [...this.pipelines.values()].find((p) => has(p.index))?.index.name;
  }

  private branch(
    e: Extract<Expectation, { kind: 'branch' }>,
    tested: PipelineIndex,
    base: { source: string; text: string },
  ): ExpectSpec | undefined {
    const wanted = normalizeCondition(e.branch);
    const matching = (index: PipelineIndex) =>
      index.branches.filter((b) => b.target === e.branch || normalizeCondition(b.condition) === wanted);
    let keys = matching(tested).map((b) => b.key);
    if (keys.length === 0) keys = [...this.pipelines.values()].flatMap((p) => matching(p.index)).map((b) => b.key);
    if (keys.length > 0) return { ...base, kind: 'branch', name: e.branch, keys };
    const candidates = [
      ...new Set(tested.branches.flatMap((b) => (b.target ? [b.target, b.condition] : [b.condition]))),
    ];
    const close = suggest(e.branch, candidates);
    this.diagnostics.push(unknownTestBranch(tested.name, e.branch, e.branchSpan, candidates, close));
    return undefined;
  }
}

function entrySpan(obj: ObjectValue, key: string): Span | undefined {
  for (const entry of obj.entries) if (entry.key === key) return entry.kind === 'entry' ? entry.value.span : entry.span;
  return undefined;
}
