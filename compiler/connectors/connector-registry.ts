/**
 * The connector registry: a value built from the connectors' `schema.json` files (data), passed into
 * compile(). The compiler never imports connector code; tests pass fixture registries.
 *
 * Example entry (runtime/connectors/publish/schema.json):
 *   { "name": "publish", "kind": "connector", "summary": "Publishes an event",
 *     "positional": ["event"], "params": { "type": "object", "properties": { … } }, "output": "input" }
 */

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
  /** Folder of the runtime implementation, relative to runtime/ (e.g. 'connectors/rest'). */
  readonly module?: string;
  /** The options of a declaration of this connector's resource (`store NAME { … }`), checked like parameters. */
  readonly declaration?: JsonSchema;
  /** What `run` does with its incoming message; absent: it may read all of it. */
  readonly message?: MessageUse;
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
}

export function createConnectorRegistry(schemas: readonly ConnectorSchema[]): ConnectorRegistry {
  const connectors = new Map<string, ConnectorSchema>();
  const triggers = new Map<string, ConnectorSchema>();
  for (const schema of [...schemas].sort(byName)) {
    const target = schema.kind === 'trigger' ? triggers : connectors;
    if (target.has(schema.name)) throw new Error(`connector schema '${schema.name}' is registered twice`);
    target.set(schema.name, schema);
  }
  return { connectors, triggers };
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
