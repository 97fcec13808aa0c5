/**
 * What lowering produces and `emit` reads: one plan per pipeline, with every value already
 * compiled to a JavaScript expression (Double Braces, JOLT, JSLT and schemas are lowered while
 * check walks the steps, where the message shapes are known). Codegen only arranges text; it
 * makes no decisions.
 */
import type { MetricFacts, SpanFacts } from '../connectors/connector-registry.js';
import type { RetrySpec } from '../../runtime/policies/retry.js';

/** Where a step came from, for provenance comments: `orders.pipe:12`. */
export interface SourceRef {
  readonly file: string;
  readonly line: number;
}

/** A JavaScript expression, and whether it depends on the execution (message, ctx, item). */
export interface JsExpr {
  readonly js: string;
  readonly constant: boolean;
}

/** A module-level declaration of the pipeline module (constants, compiled transforms). */
export interface Hoisted {
  readonly name: string;
  readonly js: string;
  readonly comment?: string;
}

/** An import the pipeline module needs beyond the runtime (validators compiled by ajv standalone). */
export interface ValidatorModule {
  /** Module file name under validators/, without extension. */
  readonly name: string;
  /** ESM source from ajv standalone. */
  readonly code: string;
}

export type PlanStep =
  | ConnectorPlan
  | {
      readonly kind: 'respond';
      readonly source: SourceRef;
      readonly status: number;
      readonly body: JsExpr;
      readonly headers?: JsExpr;
    }
  | { readonly kind: 'fail'; readonly source: SourceRef; readonly status: number; readonly message: JsExpr }
  | ChoicePlan
  | {
      readonly kind: 'try';
      readonly source: SourceRef;
      readonly body: readonly PlanStep[];
      readonly catchBody: readonly PlanStep[];
    }
  | ForEachPlan;

export interface ConnectorPlan {
  readonly kind: 'connector';
  readonly source: SourceRef;
  readonly connector: string;
  /** Runtime module path relative to runtime/ without extension, e.g. 'connectors/rest/rest'; `capsule:NAME` for capsules. */
  readonly module: string;
  readonly label?: string;
  /** The step's parameters as one JS object expression. */
  readonly params: JsExpr;
  readonly failOnError: boolean;
  /** The connector runs synchronously (its schema says `synchronous`; capsules never do). */
  readonly synchronous: boolean;
  /** Steps run when the connector's output says `success: false` (validate's on-fail). */
  readonly onFail?: readonly PlanStep[];
  /** The connector schema's `x-pipe-span`: the step's span kind and attributes (into its StepInfo). */
  readonly span?: SpanFacts;
  /** The connector schema's `x-pipe-metrics`: what the service counts for the step. */
  readonly metrics?: MetricFacts;
  /** The step's `retry` option with the connector's defaults filled in (runtime/policies/retry.ts reads it). */
  readonly retry?: RetryPlan;
}

/**
 * A step's `retry` option with the connector's defaults filled in, emitted as data into its
 * StepInfo: exactly what runtime/policies/retry.ts runs, so the type is the runtime's own.
 */
export type RetryPlan = RetrySpec;

export interface ChoicePlan {
  readonly kind: 'choice';
  readonly source: SourceRef;
  readonly label?: string;
  readonly whens: readonly {
    readonly condition: JsExpr;
    readonly source: SourceRef;
    readonly describe: string;
    readonly body: readonly PlanStep[];
  }[];
  readonly otherwise?: readonly PlanStep[];
}

export interface ForEachPlan {
  readonly kind: 'for-each';
  readonly source: SourceRef;
  readonly label?: string;
  /** Evaluates to the array of elements. */
  readonly over: JsExpr;
  /** 1 = sequential. */
  readonly parallel: number;
  readonly failOnError: boolean;
  readonly body: readonly PlanStep[];
}

export interface TriggerPlan {
  readonly kind: string;
  /** The trigger's run-time module relative to runtime/, without extension: 'triggers/http/http'. */
  readonly module: string;
  /** The TriggerSpec object literal as JS (validators referenced by name). */
  readonly spec: string;
}

export interface PipelinePlan {
  readonly name: string;
  readonly source: SourceRef;
  readonly trigger: TriggerPlan;
  readonly concurrency: number;
  /** Executions that may wait for a slot; more are shed (503 with Retry-After). */
  readonly queue: number;
  readonly timeout: number;
  readonly steps: readonly PlanStep[];
  readonly onError?: readonly PlanStep[];
  readonly hoisted: readonly Hoisted[];
  readonly validators: readonly ValidatorModule[];
  /** Runtime namespaces the module uses: 'B' braces, 'J' jolt, 'L' jslt. */
  readonly namespaces: ReadonlySet<'B' | 'J' | 'L'>;
}

/** A capsule: a reusable block of steps with typed parameters and an output contract. */
export interface CapsulePlan {
  readonly name: string;
  readonly source: SourceRef;
  readonly steps: readonly PlanStep[];
  /** Validator checking the capsule's output against its declared contract. */
  readonly contract?: string;
  readonly hoisted: readonly Hoisted[];
  readonly validators: readonly ValidatorModule[];
  readonly namespaces: ReadonlySet<'B' | 'J' | 'L'>;
}

export interface ServicePlan {
  readonly name: string;
  readonly pipelines: readonly PipelinePlan[];
  readonly capsules: readonly CapsulePlan[];
  /** Accounts: name → JS object expression (env() resolved at start). */
  readonly accounts: readonly { readonly name: string; readonly type: string; readonly js: string }[];
  readonly globals: readonly { readonly name: string; readonly js: string }[];
  readonly stores: readonly {
    readonly name: string;
    readonly expireAfterSeconds?: number;
    /** Indexes created at start (`store NAME { indexes: [...] }`). */
    readonly indexes?: readonly { readonly fields: Readonly<Record<string, 1 | -1>>; readonly unique?: boolean }[];
  }[];
}
