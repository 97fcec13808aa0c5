/**
 * The checked form of `test` blocks that `pipec test` hands to the runner: plain JSON data, built by
 * the compiler (compiler/testing/) and read by run-tests.ts. Names are already resolved (which
 * pipeline a mocked step belongs to, which branch keys an `expect branch` means), so the runner
 * makes no decisions about the source.
 *
 * Keys: a step is `"<file>:<line>|<connector>|<label>"` (the `source` of its StepInfo), a branch is
 * `"<file>:<line>#<index>"` (the choice's `source`, then the when's index; otherwise is last).
 */
import type { Json } from '../types.js';
import type { MatchMode } from './compare.js';

export interface TestSuite {
  readonly tests: readonly TestCase[];
  /** Every step and branch of every pipeline, for coverage. */
  readonly pipelines: readonly PipelineInventory[];
  /** What connectors' schemas say about tests (`x-pipe-test`), by connector name. */
  readonly connectors?: Readonly<Record<string, ConnectorTestFacts>>;
}

/** A connector's `x-pipe-test`: when its steps reach the network, and what a mocked step still publishes. */
export interface ConnectorTestFacts {
  /** Rules in order; the first whose `when` (a JSON Schema over the evaluated parameters; absent: always) matches says why. */
  readonly network?: readonly { readonly why: string; readonly when?: Json }[];
  /** A mocked step still counts as publishing the event its `event` parameter names, with `payload` (default: its output). */
  readonly publishes?: { readonly event: string; readonly payload?: string };
}

export interface TestCase {
  readonly name: string;
  /** `file.test.pipe:line` of the test. */
  readonly source: string;
  readonly pipeline: string;
  /** The trigger's message; for HTTP triggers, missing envelope fields are filled in. Absent: none given. */
  readonly input?: Json;
  readonly mocks: readonly MockSpec[];
  readonly expects: readonly ExpectSpec[];
}

export interface MockSpec {
  /** The steps replaced: one labelled step, or every step publishing one event (`mock publish order-approved`). */
  readonly keys: readonly string[];
  /** How the test names them, for messages. */
  readonly name: string;
  readonly connector: string;
  /**
   * What the step returns; `passThrough`: its message unchanged (an empty mock of a connector whose
   * output is its input, e.g. `mock publish order-approved { }`); or the error it throws (`fails`).
   */
  readonly result:
    | { readonly output: Json }
    | { readonly passThrough: true }
    | {
        readonly error: {
          readonly code: number;
          readonly message: string;
          readonly details?: { readonly [key: string]: Json };
        };
      };
}

/** Common to every expectation: where it is written and how it reads, for reports. */
interface ExpectBase {
  readonly source: string;
  readonly text: string;
}

export type ExpectSpec = ExpectBase &
  (
    | { readonly kind: 'output' | 'error'; readonly match: MatchMode; readonly value: Json }
    | { readonly kind: 'status'; readonly status: number }
    | {
        readonly kind: 'step';
        readonly pipeline: string;
        readonly label: string;
        readonly match: MatchMode;
        readonly value: Json;
      }
    /** Passes when any of `keys` was taken (a condition may appear in several choices). */
    | { readonly kind: 'branch'; readonly name: string; readonly keys: readonly string[] }
    | { readonly kind: 'published'; readonly event: string; readonly times?: number; readonly with?: Json }
    /** Calls of any of `keys` count; `with` matches the step's evaluated parameters. */
    | {
        readonly kind: 'called';
        readonly name: string;
        readonly keys: readonly string[];
        readonly times?: number;
        readonly with?: Json;
      }
  );

export interface PipelineInventory {
  readonly name: string;
  readonly steps: readonly { readonly key: string; readonly name: string }[];
  readonly branches: readonly { readonly key: string; readonly name: string }[];
}

/** The key of a step as the runtime sees it (StepInfo fields). */
export function stepKey(source: string, connector: string, label: string | undefined): string {
  return `${source}|${connector}|${label ?? ''}`;
}

export function branchKey(choiceSource: string, index: number): string {
  return `${choiceSource}#${index}`;
}
