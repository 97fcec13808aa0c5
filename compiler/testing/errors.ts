/**
 * One constructor per diagnostic of the test check (check-tests.ts: `test` blocks against the
 * pipelines, PIPE7004–PIPE7017): facts in, `Diagnostic` out, the prose here. The shape of a test
 * block (PIPE7001–PIPE7005 met while building the AST) is in compiler/ast/errors.ts.
 */
import { diagnostic } from '../../base/diagnostics/codes.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { Span } from '../../base/source/span.js';

const names = (list: readonly string[]): string => list.map((n) => `\`${n}\``).join(', ');
const didYouMean = (suggestion: string | undefined, otherwise: string): string =>
  suggestion ? `did you mean \`${suggestion}\`?` : otherwise;

export function testNamedTwice(name: string, at: Span, first: Span): Diagnostic {
  return diagnostic('PIPE7016', {
    message: `two tests are named \`${name}\``,
    span: at,
    label: 'second test of this name',
    secondary: [{ span: first, message: 'first test of this name' }],
  });
}

/** `known` are the pipelines of the files tested together. */
export function unknownTestedPipeline(
  test: string,
  pipeline: string,
  at: Span,
  known: readonly string[],
  suggestion: string | undefined,
): Diagnostic {
  return diagnostic('PIPE7010', {
    message: `test \`${test}\` runs pipeline \`${pipeline}\`, which is not declared`,
    span: at,
    label: didYouMean(suggestion, 'unknown pipeline'),
    body:
      known.length > 0 ? [`Pipelines: ${names(known)}.`] : ['No pipeline is declared in the files tested together.'],
  });
}

export function testedPipelineUnsaid(test: string, at: Span, known: readonly string[]): Diagnostic {
  return diagnostic('PIPE7010', {
    message: `test \`${test}\` does not say which pipeline it runs`,
    span: at,
    label: known.length === 0 ? 'no pipeline to run' : `${known.length} pipelines to choose from`,
    hint:
      known.length > 0
        ? `add \`pipeline: ${known[0]}\` to the test`
        : 'test the files together with the pipeline: `pipec test <folder>`',
  });
}

/** `what` names the value (`a mock`, `an expected value`). */
export function expressionInTestData(what: string, at: Span): Diagnostic {
  return diagnostic('PIPE7006', {
    message: `${what} is plain data: it cannot hold an expression`,
    span: at,
    label: 'not allowed in a test',
    hint: 'write the value itself',
  });
}

/** `why` says what is wrong with the file (also the label). */
export function badInputFile(path: string, why: string, at: Span): Diagnostic {
  return diagnostic('PIPE7004', {
    message: `cannot use \`${path}\` as the test input: ${why}`,
    span: at,
    label: why,
    hint: 'paths are relative to the test file',
  });
}

/**
 * A mock (PIPE7011) or an expectation (PIPE7013) naming a step the pipeline does not have;
 * `what` starts the sentence (`this mock replaces`), `steps` are the names it could use.
 */
export function unknownTestStep(facts: {
  readonly of: 'mock' | 'expectation';
  readonly what: string;
  readonly name: string;
  readonly pipeline: string;
  readonly at: Span;
  readonly steps: readonly string[];
  readonly suggestion: string | undefined;
}): Diagnostic {
  return diagnostic(facts.of === 'mock' ? 'PIPE7011' : 'PIPE7013', {
    message: `${facts.what} \`${facts.name}\`, but pipeline \`${facts.pipeline}\` has no step of that name`,
    span: facts.at,
    label: didYouMean(facts.suggestion, 'unknown step'),
    body:
      facts.steps.length > 0
        ? [`Steps that can be named: ${names(facts.steps)}.`]
        : [`Pipeline \`${facts.pipeline}\` has no labelled steps; label one: \`rest fetch-customer { … }\`.`],
  });
}

export function mockedTwice(step: string, test: string, at: Span, first: Span): Diagnostic {
  return diagnostic('PIPE7017', {
    message: `step \`${step}\` is mocked twice in test \`${test}\``,
    span: at,
    label: 'mocked again',
    secondary: [{ span: first, message: 'first mock' }],
  });
}

export function mockOfOtherConnector(step: string, actual: string, written: string, at: Span): Diagnostic {
  return diagnostic('PIPE7011', {
    message: `step \`${step}\` is a \`${actual}\` step, not \`${written}\``,
    span: at,
    label: `expected \`${actual}\``,
    hint: `write \`mock ${actual} ${step} { … }\``,
  });
}

/** `problem` says how the mocked output breaks the connector's output shape. */
export function mockDoesNotFit(
  step: string,
  connector: string,
  problem: string,
  unknownKey: boolean,
  at: Span,
): Diagnostic {
  return diagnostic('PIPE7012', {
    message: `the mock of \`${step}\` does not fit the output of \`${connector}\`: ${problem}`,
    span: at,
    label: unknownKey ? 'not in the output shape' : 'does not fit',
    body: [`Run \`pipec schema ${connector}\` to see the output shape.`],
  });
}

export function badMockedFailure(step: string, field: 'code' | 'message', at: Span): Diagnostic {
  return diagnostic('PIPE7012', {
    message: `the failure of \`${step}\` needs \`code\` (an HTTP status) and \`message\` (a string)`,
    span: at,
    label: field === 'code' ? 'expected an integer from 100 to 599' : 'expected a string',
  });
}

/** `published` are the events some step publishes. */
export function eventNeverPublished(
  event: string,
  at: Span,
  published: readonly string[],
  suggestion: string | undefined,
): Diagnostic {
  return diagnostic('PIPE7015', {
    message: `no step publishes event \`${event}\``,
    span: at,
    label: didYouMean(suggestion, 'never published'),
    body: published.length > 0 ? [`Events published: ${names([...new Set(published)])}.`] : [],
  });
}

/** `branches` are the conditions and branch names of the pipeline's choices. */
export function unknownTestBranch(
  pipeline: string,
  branch: string,
  at: Span,
  branches: readonly string[],
  suggestion: string | undefined,
): Diagnostic {
  return diagnostic('PIPE7014', {
    message: `pipeline \`${pipeline}\` has no branch \`${branch}\``,
    span: at,
    label: didYouMean(suggestion, 'unknown branch'),
    body: branches.length > 0 ? [`Branches: ${names(branches)}.`] : [`Pipeline \`${pipeline}\` has no choice.`],
  });
}
