/**
 * Codes of pipeline tests (`test "…" { … }` blocks run by `pipec test`): PIPE7001–PIPE7099.
 * 7001–7009 are the shape of a test block (parse); 7010–7099 check a test against the pipelines.
 */
import type { CodeTable } from '../codes.js';

export const testingCodes = {
  PIPE7001: {
    title: 'Unknown test setting',
    severity: 'error',
    phase: 'parse',
    explain:
      'A test block takes the settings `pipeline: NAME` and `input: VALUE` (or `input: file("path.json")`), then `mock …` and `expect …` lines. Any other `key: value` is a mistake.\n\nExample: `inputs: { body: {} }`. Fix: write `input: { body: {} }`.',
  },
  PIPE7002: {
    title: 'Malformed expectation',
    severity: 'error',
    phase: 'parse',
    explain:
      'An `expect` line has one of these forms:\n\n  expect output [contains] VALUE\n  expect error [contains] VALUE\n  expect status 200\n  expect step LABEL [contains] VALUE\n  expect branch "CONDITION" | NAME | otherwise\n  expect published EVENT [N times] [with VALUE]\n  expect called LABEL [N times] [with VALUE]\n\nExample: `expect status "200"`. Fix: write the status as a number, `expect status 200`.',
  },
  PIPE7003: {
    title: 'Malformed mock',
    severity: 'error',
    phase: 'parse',
    explain:
      'A mock names the connector and the label of the step it replaces, then the output the step returns: `mock rest fetch-customer { status: 200, body: { name: "Ana" } }`. With `fails`, the block describes the error the step throws: `mock rest fetch-customer fails { code: 503, message: "down" }`.\n\nExample: `mock rest { status: 200 }` has no label. Fix: label the step in the pipeline (`rest fetch-customer { … }`) and name it in the mock.',
  },
  PIPE7004: {
    title: 'Invalid test input',
    severity: 'error',
    phase: 'check',
    explain:
      'A test input is a literal value (`input: { body: { id: "A" } }`) or a JSON file read relative to the test file (`input: file("fixtures/order.json")`). The file must exist and hold JSON.\n\nExample: `input: file("missing.json")`. Fix: create the file, or correct its path.',
  },
  PIPE7005: {
    title: 'Test setting given twice',
    severity: 'error',
    phase: 'parse',
    explain:
      'A test names its pipeline and its input once. Example: two `input:` lines in one test. Fix: keep one; write a second test for the other input.',
  },
  PIPE7006: {
    title: 'Expression in a test',
    severity: 'error',
    phase: 'check',
    explain:
      'Test inputs, mock outputs and expected values are plain data: they are compared, not computed, so `{{ … }}` and `env(…)` are not allowed in them.\n\nExample: `expect output { total: {{ 1 + 2 }} }`. Fix: write the value, `expect output { total: 3 }`.',
  },
  PIPE7010: {
    title: 'Unknown pipeline under test',
    severity: 'error',
    phase: 'check',
    explain:
      'A test runs one pipeline of the service: the one named by `pipeline: NAME`, which may be left out only when the files define exactly one pipeline.\n\nExample: `pipeline: order-flw`. Fix: write the name of a declared pipeline, `pipeline: order-flow`.',
  },
  PIPE7011: {
    title: 'Mock of an unknown step',
    severity: 'error',
    phase: 'check',
    explain:
      "A mock replaces a labelled connector step of the pipeline under test (or of a pipeline it executes). The label must exist and the connector must be the step's connector.\n\nExample: `mock rest fetch-custmer { … }` when the step is `rest fetch-customer { … }`. Fix: use the step's label and connector.",
  },
  PIPE7012: {
    title: 'Mock output does not fit',
    severity: 'error',
    phase: 'check',
    explain:
      'A mock\'s block is the output the step returns, so it must fit the output shape the connector declares (the `output` of its schema, see `pipec schema CONNECTOR`). Fields you leave out get empty values (`""`, `0`, `false`, `[]`, `{}`); fields that the shape does not have, or values of the wrong type, are errors.\n\nExample: `mock rest fetch { status: "ok" }` — `status` is an integer. Fix: `mock rest fetch { status: 200 }`.',
  },
  PIPE7013: {
    title: 'Expectation on an unknown step',
    severity: 'error',
    phase: 'check',
    explain:
      "`expect step LABEL …` and `expect called LABEL …` name a labelled step of the pipeline under test (or of a pipeline it executes).\n\nExample: `expect step shpe { … }` when the step is `jolt shape { … }`. Fix: use the step's label.",
  },
  PIPE7014: {
    title: 'Unknown branch',
    severity: 'error',
    phase: 'check',
    explain:
      '`expect branch …` names a branch of a choice in the pipeline under test: the condition exactly as written in its `when`, the name of a `branch NAME { … }` it routes to with `-> NAME`, or `otherwise`.\n\nExample: `expect branch "$.total < 500"` when the condition is `"$.body[?(@.total < 500)]"`. Fix: copy the condition as written.',
  },
  PIPE7015: {
    title: 'Event never published',
    severity: 'warning',
    phase: 'check',
    explain:
      '`expect published EVENT …` counts the events a run publishes, but no `publish` step of the service publishes an event of that name, so the count can only be 0.\n\nExample: `expect published order-aproved 1 times`. Fix: use the event name of the `publish` step.',
  },
  PIPE7016: {
    title: 'Duplicate test name',
    severity: 'error',
    phase: 'check',
    explain:
      'Test names appear in reports and select tests, so they are unique among the files tested together. Fix: rename one of the tests.',
  },
  PIPE7017: {
    title: 'Step mocked twice',
    severity: 'error',
    phase: 'check',
    explain:
      'A test replaces a step with one mock. Example: two `mock rest fetch-customer { … }` lines in one test. Fix: keep one; write a second test for the other output.',
  },
} as const satisfies CodeTable;
