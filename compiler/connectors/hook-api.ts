/**
 * The compiler's public hook API: what a connector's or trigger's compile-time part
 * (`runtime/{connectors,triggers}/<name>/compile.ts`) may know of the compiler. Types only: the
 * part imports them with `import type` and receives every service it calls through `api`, so the
 * module it is compiled to has no import of the compiler (the layering test checks this) and the
 * registry loader can load it from any folder without a second copy of the compiler.
 *
 * Example (runtime/connectors/jslt/compile.ts):
 *   import type { ConnectorCompiler } from '../../../compiler/connectors/hook-api.js';
 *   export const compile: ConnectorCompiler = {
 *     step({ step, ctx, label }, result, api) {
 *       const query = api.entryOf(step.params, 'query');
 *       …
 *       result.params['transform'] = { js: name, constant: true };
 *     },
 *   };
 */
import type { ConnectorStep, ObjectValue, Step, StepsEntry, TriggerDecl, Value } from '../ast/ast.js';
import type { LiteralInstance } from '../ast/literal.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { DiagnosticCode, DiagnosticFacts } from '../../base/diagnostics/codes.js';
import type { Span } from '../../base/source/span.js';
import type { PipelineContext } from '../check/context.js';
import type { EnvelopeDemand } from '../check/envelope-demand.js';
import type { CompiledValue } from '../lower/values.js';
import type { JsExpr } from '../lower/plan.js';
import type { BracesEnv } from '../braces/index.js';
import type { CompiledJolt } from '../jolt/index.js';
import type { CompiledJslt } from '../jslt/index.js';
import type { FieldType, PipeType } from '../types/pipe-type.js';
import type { ConnectorSchema, JsonSchema } from './connector-registry.js';

/** `DiagnosticCode`: the codes of base/diagnostics/codes/ (name it for a code kept in a variable or a table). */
export type {
  BracesEnv,
  StepsEntry,
  CompiledValue,
  ConnectorSchema,
  ConnectorStep,
  JsonSchema,
  Diagnostic,
  DiagnosticCode,
  FieldType,
  JsExpr,
  LiteralInstance,
  ObjectValue,
  PipeType,
  PipelineContext,
  Span,
  Step,
  TriggerDecl,
  Value,
};

/** A connector step being checked, after its parameters were checked against the schema. */
export interface StepHookInput {
  readonly step: ConnectorStep;
  readonly schema: ConnectorSchema;
  /** Parameters filled by the header words (`publish order-approved` → `{ event: 'order-approved' }`). */
  readonly extra: Readonly<Record<string, unknown>>;
  /** Where each header-word parameter was written. */
  readonly extraSpans: Readonly<Record<string, Span>>;
  /** The shape of the message the step receives. */
  readonly message: PipeType;
  readonly ctx: PipelineContext;
  readonly label: string | undefined;
}

/** What the generic step compilation does with the hook's work. */
export interface StepHookResult {
  /** Parameter keys the hook compiles itself (left out of the generic compilation). */
  readonly replaced: Set<string>;
  /** Parameters as JS expressions, added to (or replacing) the generic ones. */
  readonly params: Record<string, JsExpr>;
  /** The output shape, when the hook knows it better than the schema's `output` rule. */
  output?: PipeType;
}

/** What `runtime/connectors/<name>/compile.ts` exports as `compile`. */
export interface ConnectorCompiler {
  /** Checks what the schema cannot say, compiles parameters to JS, tells the output shape. */
  readonly step: (input: StepHookInput, result: StepHookResult, api: CompileApi) => void;
}

/** A trigger being checked, after its parameters were checked against the schema. */
export interface TriggerHookInput {
  readonly trigger: TriggerDecl;
  readonly schema: ConnectorSchema;
  readonly ctx: PipelineContext;
  /**
   * For a trigger whose schema says `x-pipe-envelope`: the envelope fields the pipeline reads
   * ('all' when it may read any), so the trigger builds only those.
   */
  readonly envelope: EnvelopeDemand;
}

export interface TriggerHookOutput {
  /**
   * The fields of the runtime trigger spec besides `kind`, as JS expressions in the order written
   * (`{ path: '"/orders"', maxBodySize: '5242880', validateBody: 'validateOrdersBody' }`).
   */
  readonly spec: Readonly<Record<string, string>>;
  /** The shape of the first message of the pipeline. */
  readonly message: PipeType;
}

/** What `runtime/triggers/<name>/compile.ts` exports as `compile`. */
export interface TriggerCompiler {
  readonly trigger: (input: TriggerHookInput, api: CompileApi) => TriggerHookOutput;
}

/** A parameter value read as a plain scalar (`num`, `str`, `bool` of CompileApi). */
export interface ConfigReader {
  num(key: string, fallback: number): number;
  str(key: string, fallback: string): string;
  bool(key: string, fallback: boolean): boolean;
}

/** One way a value breaks a schema (an ajv error object). */
export interface SchemaViolation {
  readonly keyword: string;
  readonly instancePath: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly message?: string;
}

/** A schema parameter (`body: Order` or an inline schema), resolved and compiled. */
export interface CompiledSchemaParam {
  /** The import name of its validator module; absent when there is no schema or it is invalid. */
  readonly validator?: string;
  /** The schema as JSON, when it resolved. */
  readonly schema?: unknown;
  /** Its shape (unknown when absent or invalid). */
  readonly type: PipeType;
}

/** The compiler's services for compile-time parts, passed to every hook call. */
export interface CompileApi {
  // ── diagnostics ──
  /** A diagnostic with a stable code (base/diagnostics/codes/); push it to `ctx.diagnostics`. */
  diagnostic(code: DiagnosticCode, facts: DiagnosticFacts): Diagnostic;
  /** The closest candidate, for "did you mean". */
  suggest(name: string, candidates: readonly string[]): string | undefined;
  /** Reports an unknown account/pipeline/store name (PIPE2005/7/6); true when it exists. */
  checkReference(ctx: PipelineContext, kind: 'account' | 'pipeline' | 'store', name: string, span: Span): boolean;
  /**
   * An account named inside a parameter (`tools[].account`): reports an unknown name (PIPE2005) and an
   * account of a type `property`'s `x-pipe-account-types` does not list (PIPE3031, `owner` names the
   * parameter); true when the account exists.
   */
  checkAccount(
    ctx: PipelineContext,
    name: string,
    span: Span,
    property: JsonSchema | undefined,
    owner: string,
  ): boolean;

  // ── parameter values ──
  entryOf(obj: ObjectValue | undefined, key: string): Value | undefined;
  stepsEntryOf(obj: ObjectValue | undefined, key: string): StepsEntry | undefined;
  toLiteral(value: Value): LiteralInstance;
  spanAt(instance: LiteralInstance, pointer: string, fallback: Span): Span;
  /** The value as JSON when it holds no `{{ }}` or env(); undefined otherwise. */
  staticJson(value: Value): unknown;
  /** True when the JSON pointer lies at or inside a `{{ }}`/env() of the literal (known only at run time). */
  isDynamicPointer(instance: LiteralInstance, pointer: string): boolean;
  /** An object key as a JSON pointer segment (`~` and `/` escaped). */
  escapePointer(key: string): string;
  /** Scalars of an object value (numbers, durations, sizes, strings, words, booleans). */
  reader(obj: ObjectValue): ConfigReader;

  // ── schemas ──
  /** A schema parameter value (a name or an inline schema) as JSON; undefined (reported) when it does not resolve. */
  resolveSchema(value: Value, ctx: PipelineContext): unknown;
  /** Resolves and compiles a schema parameter to a validator module (`hint` names the module). */
  compileSchemaParam(value: Value | undefined, ctx: PipelineContext, hint: string, draft?: string): CompiledSchemaParam;
  schemaToType(schema: unknown): PipeType;
  /**
   * What a value written in a .pipe file breaks of a schema (its draft from `$schema`, else
   * draft-07): ajv's errors, empty when it fits; undefined when the schema does not compile.
   */
  schemaViolations(schema: unknown, value: unknown, ctx: PipelineContext): readonly SchemaViolation[] | undefined;

  // ── values and code ──
  /** A value compiled to JS with its type ({{ }} checked against `env`). */
  compileValue(value: Value, env: BracesEnv, ctx: PipelineContext): CompiledValue;
  /** An object key as written in JS (`a`, `"content-type"`). */
  propertyKey(key: string): string;
  /**
   * Compiles a JOLT chain; `locate` maps a path inside the spec to its span. With `ctx`, the generated
   * code's comments name the .pipe line of each spec entry.
   */
  compileJoltChain(
    spec: unknown,
    locate: (path: readonly (string | number)[], part: 'key' | 'value') => Span,
    ctx?: PipelineContext,
  ): CompiledJolt;
  /**
   * The output shape of a JOLT chain (one that compiled without errors) on a message of shape
   * `input`, and warnings (PIPE5021) for `shift` keys that never match it; `locate` as above.
   */
  inferJoltShape(
    spec: unknown,
    input: PipeType,
    locate: (path: readonly (string | number)[], part: 'key' | 'value') => Span,
  ): { readonly type: PipeType; readonly diagnostics: readonly Diagnostic[] };
  /**
   * The output shape of the JSLT query of a string value (one that compiled) on an input of shape
   * `input`, and warnings (PIPE5312) for key reads that always give null on it.
   */
  inferJsltShape(
    value: Extract<Value, { kind: 'string' }>,
    input: PipeType,
    ctx: PipelineContext,
  ): { readonly type: PipeType; readonly diagnostics: readonly Diagnostic[] };
  /** The type of a parameter value (its `{{ }}` typed against `message`), reporting nothing. */
  valueType(value: Value, message: PipeType, ctx: PipelineContext): PipeType;
  /** Compiles the JSLT query of a string value, its diagnostics pointing into the host file. */
  compileJsltValue(value: Extract<Value, { kind: 'string' }>, ctx: PipelineContext): CompiledJslt;
  /** The runtime AuthSpec of a trigger's `auth` block as JS (its account checked); undefined without one. */
  triggerAuth(value: Value | undefined, ctx: PipelineContext): string | undefined;
  /** The Object Store's query operators (runtime/backends/query/filter.ts): joining and of a field's condition. */
  readonly queryOperators: { readonly logical: readonly string[]; readonly field: readonly string[] };
  /**
   * Why the Object Store's query engine (runtime/backends/query: ECMAScript syntax on RE2) cannot
   * run a `$regex` with these `$options` (`"i"`, `"ms"`): the engine's message, and whether the
   * pattern needs backtracking; undefined when it runs.
   */
  queryRegexProblem(pattern: string, options: string): { message: string; needsBacktracking: boolean } | undefined;

  // ── shapes ──
  readonly types: ShapeKit;
}

/** Building blocks of message shapes. */
export interface ShapeKit {
  readonly UNKNOWN: PipeType;
  readonly NULL: PipeType;
  readonly BOOLEAN: PipeType;
  readonly NUMBER: PipeType;
  readonly INTEGER: PipeType;
  readonly STRING: PipeType;
  arrayOf(items: PipeType): PipeType;
  /** An object whose fields are all required. */
  objectOf(fields: Record<string, PipeType>, open?: boolean): PipeType;
  /** A closed object; the fields named in `optional` may be absent. */
  closed(fields: Record<string, PipeType>, optional?: readonly string[]): PipeType;
  /** One of several types (type-ops.ts union). */
  union(...members: PipeType[]): PipeType;
  /** A value of type `actual` once valid against a schema of type `schema` (type-ops.ts narrowBySchema). */
  narrow(actual: PipeType, schema: PipeType): PipeType;
}
