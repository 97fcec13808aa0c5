import type { CodeTable } from '../codes.js';

export const flowCodes = {
  PIPE6001: {
    title: 'Unreachable step',
    severity: 'error',
    phase: 'check',
    explain:
      'A step follows a `respond` or `fail` in the same block (or a choice whose every branch ends so), so it can never run. Remove it or move it before the step that ends the execution.',
  },
  PIPE6002: {
    title: 'Choice without otherwise',
    severity: 'warning',
    phase: 'check',
    explain:
      'When no `when` matches, a choice without `otherwise` passes the message on unchanged, which is rarely intended. Add `otherwise { … }` (for example `otherwise { fail 400 "no route" }`).',
  },
  PIPE6003: {
    title: 'Self-execution needs concurrency',
    severity: 'error',
    phase: 'check',
    explain:
      'A pipeline that executes itself (directly or through other pipelines) waits for an execution of itself while it runs, so it needs room for at least two simultaneous executions.\n\nExample: `pipeline token-service (concurrency: 1)` with `execute token-service { … }` inside. Set `concurrency` to 2 or more on every pipeline of the cycle.',
  },
  PIPE6004: {
    title: 'Step not allowed here',
    severity: 'error',
    phase: 'check',
    explain:
      '`respond` ends the whole execution and so cannot stand inside `for-each`, whose body runs once per element (possibly in parallel). Collect the results and respond after the loop.',
  },
  PIPE6005: {
    title: 'Unreachable branch',
    severity: 'error',
    phase: 'check',
    explain:
      'An earlier `when` of the same choice always matches (for example `when "$"`), so this branch can never be taken. Reorder the branches or make the earlier condition narrower.',
  },
  PIPE6006: {
    title: 'Unused branch',
    severity: 'warning',
    phase: 'check',
    explain:
      'A `branch NAME { … }` of the pipeline is not the target of any `when … -> NAME` or `otherwise -> NAME`. Remove it or route to it.',
  },
  PIPE6007: {
    title: 'Error kind never produced',
    severity: 'error',
    phase: 'check',
    explain:
      'A failure carries a `kind` (`TIMEOUT`, `REST_UNREACHABLE`, `CIRCUIT_OPEN`, `VALIDATION`, …), and `catch`, `on-fail`, `on-error` and a step\'s `retry: { on: […] }` can route on it. Each connector lists the kinds it can produce in its schema (`x-pipe-errors`, shown by `pipec schema NAME` and in docs/connectors/), so a kind that none of the steps in question can produce is a branch that never runs, usually a typo.\n\nExample: `try { rest { url: "…" } } catch { choice { when {{ message.kind == "TIMOUT" }} { … } } }`. Use one of the kinds the diagnostic lists.',
  },
} as const satisfies CodeTable;
