/**
 * The connector registry: a value built from the connector and trigger folders (load-registry.ts),
 * passed into compile(). Per folder: its `schema.json` (data, with the `x-pipe-*` facts other
 * parts of pipec read) and, when the folder has one, the `compile` table of its compile-time part
 * (hook-api.ts). The compiler never imports connector run-time code; tests pass fixture registries.
 *
 * Example entry (runtime/connectors/publish/schema.json):
 *   { "name": "publish", "kind": "connector", "summary": "Publishes an event",
 *     "positional": ["event"], "params": { "type": "object", "properties": { … } }, "output": "input" }
 */
import type { ConnectorCompiler, TriggerCompiler } from './hook-api.js';

/** A JSON Schema as plain data (the subset the compiler reads is typed loosely on purpose). */
export type JsonSchema = { readonly [key: string]: unknown };

/**
 * How a connector's output shape follows from its input:
 * 'input' = passes the message through; 'params.<field>' = the value of that parameter;
 * a JSON Schema = that shape; null/absent = unknown.
 */
export type OutputRule = 'input' | `params.${string}` | JsonSchema | null;

export interface ConnectorSchema {
  readonly name: string;
  readonly kind: 'connector' | 'trigger';
  readonly summary: string;
  /** Header words after the connector name fill these parameters in order (`publish token-usage {…}`). */
  readonly positional?: readonly string[];
  readonly params: JsonSchema;
  readonly output?: OutputRule;
  /**
   * The implementation's `run` returns its output, never a promise (SyncConnectorRun). A pipeline
   * made only of such steps (and choice, respond, fail, try) compiles to a synchronous function.
   */
  readonly synchronous?: boolean;
  /**
   * The run-time module, relative to the service's runtime/ folder, without extension: always
   * `<group>/<name>/<name>` (set by the loader: the folder is the single source of truth).
   */
  readonly module?: string;
  /** The folder it was loaded from (absolute); absent for fixture schemas. */
  readonly folder?: string;
  /** The options of a declaration of this connector's resource (`store NAME { … }`), checked like parameters. */
  readonly declaration?: JsonSchema;
  /** What `run` does with its incoming message; absent: it may read all of it. */
  readonly message?: MessageUse;
  /** The span a step (connector) or an execution (trigger) opens; absent: internal, no attributes. */
  readonly 'x-pipe-span'?: SpanFacts;
  /** What the service counts for a step of this connector (runtime/service/step-observer.ts). */
  readonly 'x-pipe-metrics'?: MetricFacts;
  /** How `pipec test` treats steps of this connector (runtime/testing/recorder.ts). */
  readonly 'x-pipe-test'?: TestFacts;
  /** Trigger: it builds the HTTP envelope, and only the fields the pipeline reads (envelope-demand.ts). */
  readonly 'x-pipe-envelope'?: boolean;
  /** Trigger: it serves an HTTP route; two pipelines may not serve the same method and path. */
  readonly 'x-pipe-route'?: RouteFacts;
  /** How `pipec graph` labels the node (trigger: the parameters shown after its name). */
  readonly 'x-pipe-graph'?: GraphFacts;
  /** How it fails: its reference page (docs/connectors/, `npm run docs:connectors`) and checks of error kinds. */
  readonly 'x-pipe-errors'?: readonly ErrorFacts[];
  /** Connector: how the step option `retry` behaves on it (check/check-policies.ts). */
  readonly 'x-pipe-retry'?: RetryFacts;
}

/** A connector's retry facts: defaults of the `retry` option, where its output holds a status, and unsafe calls. */
export interface RetryFacts {
  /** Parameters through which the connector retries by itself (rest `retries`): with `retry` too, attempts multiply. */
  readonly own?: readonly string[];
  readonly defaults?: {
    readonly attempts?: number;
    readonly initial?: number;
    readonly 'max-delay'?: number;
    readonly multiplier?: number;
    readonly budget?: number;
    /** Error kinds retried by default (each listed in x-pipe-errors). */
    readonly on?: readonly string[];
    /** Statuses retried by default. */
    readonly status?: readonly number[];
  };
  /** The output fields that carry a status and the response headers (answers that are errors as data). */
  readonly output?: { readonly status: string; readonly headers?: string };
  /** A retried call is not idempotent when `when` (a JSON Schema over the literal parameters) matches; `how` makes it safe. */
  readonly unsafe?: { readonly when: JsonSchema; readonly how: string };
}

/** One way a connector or trigger fails: the PipeError kind, the HTTP status (when fixed), and when. */
export interface ErrorFacts {
  readonly kind: string;
  readonly status?: number;
  readonly when: string;
}

/** OpenTelemetry span kinds besides `internal` (the default). */
export type SpanKindName = 'server' | 'client' | 'producer' | 'consumer';

export interface SpanFacts {
  readonly kind: SpanKindName;
  /** Span attribute → the parameter whose (scalar) value it takes at run time; steps only. */
  readonly attributes?: Readonly<Record<string, string>>;
}

export interface MetricFacts {
  /** Counts `pipec_events_published_total{event}`; `event`: the parameter naming the event. */
  readonly 'events-published'?: { readonly event: string };
  /** Adds the output's token counts to `pipec_agent_tokens_total{model}`. */
  readonly 'token-usage'?: { readonly model: string; readonly usage: string };
}

export interface TestFacts {
  /**
   * The step reaches the network, so tests must mock it: each rule applies when its `when` (a JSON
   * Schema over the step's evaluated parameters; absent: always) matches, and says why.
   */
  readonly network?: readonly { readonly why: string; readonly when?: JsonSchema }[];
  /** A mocked step still counts as publishing the event its `event` parameter names, with `payload` (default: its output). */
  readonly publishes?: { readonly event: string; readonly payload?: string };
}

export interface RouteFacts {
  /** The parameter holding the path, and the one holding the method(s) when methods can be chosen. */
  readonly path: string;
  readonly method?: string;
  /** The method when none is written. */
  readonly 'default-method': string;
}

export interface GraphFacts {
  /** Parameters whose values follow the trigger's name on its node (`http POST /orders`). */
  readonly label?: readonly string[];
}

/**
 * How a connector's `run` uses the message it is given (`run(params, message, ctx)`), for the
 * compiler's envelope analysis (check/envelope-demand.ts). `read`: `always`, `never`, or
 * `{ unless: "payload" }` — read only when that parameter is not given. `passedThrough`: `run`
 * returns the message it was given, unchanged (`log`, `assert`, `publish`).
 */
export interface MessageUse {
  readonly read: 'always' | 'never' | { readonly unless: string };
  readonly passedThrough?: boolean;
}

export interface ConnectorRegistry {
  readonly connectors: ReadonlyMap<string, ConnectorSchema>;
  readonly triggers: ReadonlyMap<string, ConnectorSchema>;
  /** The named table of compile-time parts: connector name → its `compile` export. */
  readonly connectorCompilers: ReadonlyMap<string, ConnectorCompiler>;
  /** Trigger name → its `compile` export. */
  readonly triggerCompilers: ReadonlyMap<string, TriggerCompiler>;
}

/** What one folder contributes: its schema and, when it has a compile-time part, that part's table. */
export interface RegistryEntry {
  readonly schema: ConnectorSchema;
  readonly compile?: ConnectorCompiler | TriggerCompiler;
}

export function createConnectorRegistry(entries: readonly (ConnectorSchema | RegistryEntry)[]): ConnectorRegistry {
  const connectors = new Map<string, ConnectorSchema>();
  const triggers = new Map<string, ConnectorSchema>();
  const connectorCompilers = new Map<string, ConnectorCompiler>();
  const triggerCompilers = new Map<string, TriggerCompiler>();
  const normalized = entries.map((e): RegistryEntry => ('params' in e ? { schema: e } : e));
  for (const { schema, compile } of normalized.sort((a, b) => byName(a.schema, b.schema))) {
    const target = schema.kind === 'trigger' ? triggers : connectors;
    if (target.has(schema.name)) throw new Error(`connector schema '${schema.name}' is registered twice`);
    target.set(schema.name, schema);
    if (!compile) continue;
    if (schema.kind === 'trigger') {
      if (typeof (compile as TriggerCompiler).trigger !== 'function')
        throw new Error(`the compile part of trigger '${schema.name}' has no \`trigger\` function`);
      triggerCompilers.set(schema.name, compile as TriggerCompiler);
    } else {
      if (typeof (compile as ConnectorCompiler).step !== 'function')
        throw new Error(`the compile part of connector '${schema.name}' has no \`step\` function`);
      connectorCompilers.set(schema.name, compile as ConnectorCompiler);
    }
  }
  return { connectors, triggers, connectorCompilers, triggerCompilers };
}

/**
 * Code-unit order, not `localeCompare`: the first `localeCompare` of a process sets up ICU
 * collation, ≈ 15 ms (more on a busy machine) of every `pipec` start. Connector names are
 * lower-case kebab-case, for which both orders agree.
 */
function byName(a: ConnectorSchema, b: ConnectorSchema): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Property schemas of a connector's params (empty when the schema declares none). */
export function paramProperties(schema: ConnectorSchema): Readonly<Record<string, JsonSchema>> {
  const props = schema.params['properties'];
  return props && typeof props === 'object' ? (props as Record<string, JsonSchema>) : {};
}
