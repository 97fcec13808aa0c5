/**
 * The .pipe AST: what cst-to-ast.ts produces from the Chevrotain CST and every later phase reads.
 * Discriminated unions on `kind`; every node has a `span` (host-file offsets) and, where a name can
 * be wrong, a `nameSpan`. No Chevrotain type leaks past this folder.
 *
 * Example: `agent extract { model: "mock:x", temperature: 0.3 }` becomes
 *   { kind: 'connector', connector: 'agent', args: [{ kind: 'word', text: 'extract', ... }],
 *     params: { kind: 'object', entries: [{ kind: 'entry', key: 'model', ... }, ...] } }
 */
import type { Span } from '../../base/source/span.js';

// ───────────────────────────── values (JSON5-like) ─────────────────────────────

export type Value =
  | StringValue
  | TemplateValue
  | NumberValue
  | DurationValue
  | SizeValue
  | BooleanValue
  | NullValue
  | IdentValue
  | EnvValue
  | ArrayValue
  | ObjectValue
  | BracesValue
  | TaggedValue;

/** A string literal with no `{{ }}` inside (escapes already decoded). */
export interface StringValue {
  readonly kind: 'string';
  readonly value: string;
  readonly span: Span;
  /** True for `"""` multi-line strings (already dedented). */
  readonly multiline: boolean;
}

/** A string literal with at least one `{{ }}`: text parts and expressions alternate. */
export interface TemplateValue {
  readonly kind: 'template';
  readonly parts: readonly (TemplateText | BracesValue)[];
  readonly span: Span;
  readonly multiline: boolean;
}

export interface TemplateText {
  readonly kind: 'text';
  readonly value: string;
  readonly span: Span;
}

export interface NumberValue {
  readonly kind: 'number';
  readonly value: number;
  /** The literal as written (keeps `1.0` vs `1`, hex, exponent). */
  readonly raw: string;
  readonly span: Span;
}

/** `30s`, `5m`, `250ms`, `1h`, `7d`: `ms` holds the value in milliseconds. */
export interface DurationValue {
  readonly kind: 'duration';
  readonly ms: number;
  readonly raw: string;
  readonly span: Span;
}

/** `10MB`, `512KB`, `1GB`, `100B` (1 KB = 1024 B): `bytes` holds the value. */
export interface SizeValue {
  readonly kind: 'size';
  readonly bytes: number;
  readonly raw: string;
  readonly span: Span;
}

export interface BooleanValue {
  readonly kind: 'boolean';
  readonly value: boolean;
  readonly span: Span;
}

export interface NullValue {
  readonly kind: 'null';
  readonly span: Span;
}

/**
 * A bare word in value position: an enum-like constant (`POST`, `mask`, `async`) or a reference
 * to a schema, account, store or pipeline. The checker decides which from the parameter schema.
 * May be dotted (`crm.token`).
 */
export interface IdentValue {
  readonly kind: 'ident';
  readonly name: string;
  readonly span: Span;
}

/** `env("NAME")` or `env("NAME", "default")`: read from the environment when the service starts. */
export interface EnvValue {
  readonly kind: 'env';
  readonly name: string;
  readonly nameSpan: Span;
  readonly fallback?: string;
  readonly span: Span;
}

export interface ArrayValue {
  readonly kind: 'array';
  readonly items: readonly Value[];
  readonly span: Span;
}

export interface ObjectValue {
  readonly kind: 'object';
  readonly entries: readonly (ObjectEntry | StepsEntry)[];
  readonly span: Span;
}

/** `key: value` (key bare, dashed or quoted). */
export interface ObjectEntry {
  readonly kind: 'entry';
  readonly key: string;
  readonly keySpan: Span;
  readonly value: Value;
  readonly span: Span;
}

/** `on-fail { steps }` inside a step's parameters: a key followed by a block of steps, no colon. */
export interface StepsEntry {
  readonly kind: 'steps-entry';
  readonly key: string;
  readonly keySpan: Span;
  readonly steps: readonly Step[];
  readonly span: Span;
}

/**
 * A Double Braces expression: a bare `{{ expr }}` value, or a part of a TemplateValue.
 * `text` is the expression source between the braces with string escapes decoded;
 * `textStart` is the host offset of text[0]. When decoding changed lengths (escapes inside a
 * string), `offsets[i]` is the host offset of text[i] (length text.length + 1, last = end).
 */
export interface BracesValue {
  readonly kind: 'braces';
  readonly text: string;
  readonly textStart: number;
  readonly offsets?: readonly number[];
  /** The whole `{{ … }}` including the braces. */
  readonly span: Span;
}

/** `mcp { name: "docs", url: "…" }`: a word tagging an object (tool lists, account blocks). */
export interface TaggedValue {
  readonly kind: 'tagged';
  readonly tag: string;
  readonly tagSpan: Span;
  readonly value: ObjectValue;
  readonly span: Span;
}

// ───────────────────────────── steps ─────────────────────────────

export type Step = ConnectorStep | RespondStep | FailStep | ChoiceStep | TryStep | ForEachStep;

/** A word or string after a connector's name and before its `{`: `store reprocess.find page`. */
export interface HeaderArg {
  readonly kind: 'word' | 'string';
  readonly text: string;
  readonly span: Span;
}

/**
 * `KIND arg* { params }`. The meaning of the header args depends on the connector
 * (its schema's `x-pipe-positional` names the parameters they fill; one extra arg is the label).
 */
export interface ConnectorStep {
  readonly kind: 'connector';
  readonly connector: string;
  readonly connectorSpan: Span;
  readonly args: readonly HeaderArg[];
  readonly params: ObjectValue;
  readonly span: Span;
}

/** `respond 200 { … } [headers { … }]`. */
export interface RespondStep {
  readonly kind: 'respond';
  readonly status: number;
  readonly statusSpan: Span;
  readonly body?: Value;
  readonly headers?: ObjectValue;
  readonly span: Span;
}

/** `fail [status] value`: stops the execution with the standard error object. */
export interface FailStep {
  readonly kind: 'fail';
  readonly status?: number;
  readonly statusSpan?: Span;
  readonly message: Value;
  readonly span: Span;
}

/** `choice [label] { when COND { … } … otherwise { … } }`. */
export interface ChoiceStep {
  readonly kind: 'choice';
  readonly label?: string;
  readonly labelSpan?: Span;
  readonly whens: readonly WhenClause[];
  readonly otherwise?: BranchBody;
  readonly otherwiseSpan?: Span;
  readonly span: Span;
}

/** A branch body: inline steps, or `-> name` naming a `branch name { … }` of the pipeline. */
export type BranchBody =
  | { readonly kind: 'inline'; readonly steps: readonly Step[]; readonly span: Span }
  | { readonly kind: 'ref'; readonly name: string; readonly span: Span };

/** `when "$.body[?(@.total < 500)]" { … }` or `when {{ expr }} { … }`. */
export interface WhenClause {
  /** A StringValue (JSONPath), TemplateValue whose only part is braces, or BracesValue. */
  readonly condition: Value;
  readonly body: BranchBody;
  readonly span: Span;
}

/** `try { … } catch { … }`: in catch, the message is the error object. */
export interface TryStep {
  readonly kind: 'try';
  readonly body: readonly Step[];
  readonly catchBody: readonly Step[];
  readonly catchSpan: Span;
  readonly span: Span;
}

/** `for-each [label] OVER [(options)] { … }`: OVER is a JSONPath string or `{{ expr }}`. */
export interface ForEachStep {
  readonly kind: 'for-each';
  readonly label?: string;
  readonly labelSpan?: Span;
  readonly over: Value;
  readonly options?: ObjectValue;
  readonly body: readonly Step[];
  readonly span: Span;
}

// ───────────────────────────── declarations ─────────────────────────────

export type Decl = ImportDecl | SchemaDecl | AccountDecl | GlobalDecl | StoreDecl | PipelineDecl | CapsuleDecl;

/** `import "./schemas/x.json" as X` (a schema) or `import "./lib.pipe"` (its declarations). */
export interface ImportDecl {
  readonly kind: 'import';
  readonly path: string;
  readonly pathSpan: Span;
  readonly alias?: string;
  readonly aliasSpan?: Span;
  readonly span: Span;
}

/** `schema Name { …JSON Schema… }`. */
export interface SchemaDecl {
  readonly kind: 'schema';
  readonly name: string;
  readonly nameSpan: Span;
  readonly value: Value;
  readonly span: Span;
}

/** `account openai: secret-key { key: env("OPENAI_API_KEY") }`. */
export interface AccountDecl {
  readonly kind: 'account';
  readonly name: string;
  readonly nameSpan: Span;
  readonly accountType: string;
  readonly typeSpan: Span;
  readonly config: ObjectValue;
  readonly span: Span;
}

/** `global read-timeout = 30000`. */
export interface GlobalDecl {
  readonly kind: 'global';
  readonly name: string;
  readonly nameSpan: Span;
  readonly value: Value;
  readonly span: Span;
}

/** `store reprocess` or `store reprocess { expire-after: 7d }`. */
export interface StoreDecl {
  readonly kind: 'store';
  readonly name: string;
  readonly nameSpan: Span;
  readonly options?: ObjectValue;
  readonly span: Span;
}

/** `branch name { … }` inside a pipeline: a named choice target. */
export interface BranchDecl {
  readonly name: string;
  readonly nameSpan: Span;
  readonly steps: readonly Step[];
  readonly span: Span;
}

export interface TriggerDecl {
  readonly kind: string;
  readonly kindSpan: Span;
  readonly config: ObjectValue;
  readonly span: Span;
}

/** `pipeline NAME (options) { trigger …  steps…  on-error { … }  branch x { … } }`. */
export interface PipelineDecl {
  readonly kind: 'pipeline';
  readonly name: string;
  readonly nameSpan: Span;
  readonly options?: ObjectValue;
  /** Missing only in a file with syntax errors (the parser recovers). */
  readonly trigger?: TriggerDecl;
  readonly steps: readonly Step[];
  readonly onError?: readonly Step[];
  readonly branches: readonly BranchDecl[];
  readonly span: Span;
}

export interface CapsuleParam {
  readonly name: string;
  readonly nameSpan: Span;
  /** `region: string`; absent means any JSON value. */
  readonly type?: string;
  readonly typeSpan?: Span;
}

/** `capsule enrich-customer(account: account, region: string) -> CustomerSchema { steps }`. */
export interface CapsuleDecl {
  readonly kind: 'capsule';
  readonly name: string;
  readonly nameSpan: Span;
  readonly params: readonly CapsuleParam[];
  /** The output contract: a schema reference or an inline schema. */
  readonly output?: Value;
  readonly steps: readonly Step[];
  readonly span: Span;
}

// ───────────────────────────── tests (`pipec test`) ─────────────────────────────

/** How a value expectation compares: deep equality, or `contains` (every given field, recursively). */
export type MatchMode = 'equal' | 'contains';

/** `input: { … }` (the trigger's message) or `input: file("fixtures/order.json")` (relative to the file). */
export type TestInput =
  | { readonly kind: 'value'; readonly value: Value; readonly span: Span }
  | { readonly kind: 'file'; readonly path: string; readonly pathSpan: Span; readonly span: Span };

/** `mock CONNECTOR LABEL { output }` or `mock CONNECTOR LABEL fails { code, message }`. */
export interface MockDecl {
  readonly connector: string;
  readonly connectorSpan: Span;
  readonly label: string;
  readonly labelSpan: Span;
  /** `fails`: the step throws the error described by `body` instead of returning it. */
  readonly fails: boolean;
  readonly body: ObjectValue;
  readonly span: Span;
}

/** One `expect …` line. Every kind has the span of the whole line; names have their own spans. */
export type Expectation =
  | { readonly kind: 'output'; readonly match: MatchMode; readonly value: Value; readonly span: Span }
  | { readonly kind: 'error'; readonly match: MatchMode; readonly value: Value; readonly span: Span }
  | { readonly kind: 'status'; readonly status: number; readonly statusSpan: Span; readonly span: Span }
  | {
      readonly kind: 'step';
      readonly label: string;
      readonly labelSpan: Span;
      readonly match: MatchMode;
      readonly value: Value;
      readonly span: Span;
    }
  | { readonly kind: 'branch'; readonly branch: string; readonly branchSpan: Span; readonly span: Span }
  | {
      readonly kind: 'published';
      readonly event: string;
      readonly eventSpan: Span;
      readonly times?: number;
      readonly with?: Value;
      readonly span: Span;
    }
  | {
      readonly kind: 'called';
      readonly label: string;
      readonly labelSpan: Span;
      readonly times?: number;
      readonly with?: Value;
      readonly span: Span;
    };

/** `test "name" { pipeline: p  input: …  mock …  expect … }`: run by `pipec test`, ignored by build. */
export interface TestDecl {
  readonly kind: 'test';
  readonly name: string;
  readonly nameSpan: Span;
  readonly pipeline?: { readonly name: string; readonly span: Span };
  readonly input?: TestInput;
  readonly mocks: readonly MockDecl[];
  readonly expects: readonly Expectation[];
  readonly span: Span;
}

export interface PipeFile {
  readonly path: string;
  readonly decls: readonly Decl[];
  /** `test` blocks, kept apart from declarations: only `pipec test` reads them. */
  readonly tests?: readonly TestDecl[];
}
