/**
 * Contracts between pipelines. A pipeline whose trigger declares what it receives (an envelope
 * trigger such as `http`, or a `body` schema) has a contract; an `execute` payload is checked
 * against the called pipeline's, a `publish` payload against every subscriber's (the parameter
 * marked `x-pipe-contract` in the connector's schema says which payload goes where). And events:
 * published but never consumed, or consumed but never published, within the build (warnings
 * unless the step or trigger says `external: true`, the parameter marked `x-pipe-boundary`).
 * Every check is quiet when it cannot be sure: open shapes, expressions of unknown type.
 */
import type { ConnectorStep, ObjectValue, Step, TriggerDecl, Value } from '../ast/ast.js';
import { walkDeclSteps } from '../ast/walk.js';
import { entryOf } from '../ast/literal.js';
import { paramProperties, type ConnectorRegistry, type ConnectorSchema } from '../connectors/connector-registry.js';
import { computedReference, refParams, stepReferences, triggerReferences } from '../connectors/schema-facts.js';
import type { Declarations } from '../resolve/declarations.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { Span } from '../../base/source/span.js';
import { editDistance, suggest, threshold } from '../../base/diagnostics/suggest.js';
import { describeType, fits } from '../types/type-ops.js';
import { UNKNOWN, type FieldType, type PipeType } from '../types/pipe-type.js';
import {
  eventNameTypo,
  eventNeverConsumed,
  eventNeverPublished,
  executePayloadMismatch,
  publishPayloadMismatch,
} from './errors.js';

/** What the first message of a pipeline must look like, when its trigger declares it. */
export interface Contract {
  readonly pipeline: string;
  readonly type: PipeType;
  /** The trigger that declares it (where a diagnostic points to say why). */
  readonly at: Span;
  /** True for an envelope trigger: the payload carries the request under `body`. */
  readonly wrapsBody: boolean;
  /** The JSON Schema the trigger declares for its body, when it names or writes one. */
  readonly schema?: unknown;
}

/** Contracts of the build: per pipeline, and per event name (one per subscriber with a contract). */
export interface ContractFacts {
  readonly pipelines: ReadonlyMap<string, Contract>;
  readonly events: ReadonlyMap<string, readonly Contract[]>;
}

/** One way a payload breaks a contract, at the place in the payload where it shows. */
export interface ContractProblem {
  readonly kind: 'missing' | 'unknown' | 'type' | 'range';
  /** Path of the field inside the payload (`body.items`); empty for the payload itself. */
  readonly path: readonly string[];
  readonly span: Span;
  readonly expected?: string;
  readonly actual?: string;
  readonly suggestion?: string;
}

/**
 * The contract a trigger gives its pipeline: for an envelope trigger (`x-pipe-envelope`), the
 * envelope's `body` (required when the trigger declares a `body` schema: the pipeline expects
 * one); for another trigger given a `body` schema, its first message. Otherwise none: a caller
 * may send anything.
 */
export function triggerContract(
  trigger: TriggerDecl,
  schema: ConnectorSchema,
  message: PipeType,
): PipeType | undefined {
  const declaresBody = declaresBodySchema(trigger, schema);
  if (schema['x-pipe-envelope'] === true) {
    const body = message.kind === 'object' ? message.fields['body'] : undefined;
    if (!body) return undefined;
    return { kind: 'object', open: true, fields: { body: { type: body.type, required: declaresBody } } };
  }
  return declaresBody ? message : undefined;
}

function pushTo<T>(map: Map<string, T[]>, key: string, item: T): void {
  const list = map.get(key);
  if (list) list.push(item);
  else map.set(key, [item]);
}

/** True when the trigger is given a `body` schema (its `body` parameter is an `x-pipe-ref: schema`). */
export function declaresBodySchema(trigger: TriggerDecl, schema: ConnectorSchema): boolean {
  return paramProperties(schema)['body']?.['x-pipe-ref'] === 'schema' && entryOf(trigger.config, 'body') !== undefined;
}

/**
 * The contracts of the subscribers of each event name (triggers with an `x-pipe-ref: event`
 * parameter), one per distinct shape: many subscribers of one schema cost one check per payload.
 */
export function eventContracts(
  decls: Declarations,
  registry: ConnectorRegistry,
  pipelines: ReadonlyMap<string, Contract>,
): Map<string, Contract[]> {
  const out = new Map<string, Contract[]>();
  const seen = new Set<string>();
  for (const p of decls.pipelines.values()) {
    const contract = pipelines.get(p.name);
    const schema = p.trigger ? registry.triggers.get(p.trigger.kind) : undefined;
    if (!contract || !p.trigger || !schema) continue;
    const shape = JSON.stringify(contract.type);
    for (const ref of triggerReferences(p.trigger, schema, 'event')) {
      const key = `${ref.name}\u0000${shape}`;
      if (seen.has(key)) continue;
      seen.add(key);
      pushTo(out, ref.name, contract);
    }
  }
  return out;
}

/**
 * The problems of a payload against a contract: `value` is the payload as written (undefined when
 * the step passes the current message on), `actual` its type. Each problem is reported where it
 * shows: the entry of an object literal, else the whole payload.
 */
export function contractProblems(
  value: Value | undefined,
  actual: PipeType,
  expected: PipeType,
  span: Span,
  schemaAt: SchemaAt = () => undefined,
): ContractProblem[] {
  const out: ContractProblem[] = [];
  walk(value, actual, expected, [], span, out, schemaAt);
  // One mistake, one report: problems of a typed value (not a literal) share its span.
  const at = new Set<string>();
  return out.filter((p) => {
    const key = `${p.span.start}:${p.span.end}`;
    if (at.has(key)) return false;
    at.add(key);
    return true;
  });
}

/** The plain JSON Schema that applies at a path of the payload, when one can be read without resolving anything. */
export type SchemaAt = (path: readonly string[]) => Record<string, unknown> | undefined;

function walk(
  value: Value | undefined,
  actual: PipeType,
  expected: PipeType,
  path: string[],
  span: Span,
  out: ContractProblem[],
  schemaAt: SchemaAt,
): void {
  if (expected.kind === 'unknown' || actual.kind === 'unknown') return;
  if (expected.kind === 'object' && actual.kind === 'object') {
    walkObject(value?.kind === 'object' ? value : undefined, actual, expected, path, span, out, schemaAt);
    return;
  }
  if (fits(actual, expected) === 'no') {
    out.push({ kind: 'type', path, span, expected: describeType(expected), actual: describeActual(actual) });
    return;
  }
  // A constant written in the payload, against the bounds its schema sets (`maximum`, `minLength`, …).
  const schema = value && (value.kind === 'number' || value.kind === 'string') ? schemaAt(path) : undefined;
  const bound = value && schema ? constantOutOfBounds(value, schema) : undefined;
  if (value && bound)
    out.push({ kind: 'range', path, span: value.span, expected: bound, actual: JSON.stringify(literalOf(value)) });
}

function literalOf(value: Value): unknown {
  return value.kind === 'number' || value.kind === 'string' ? value.value : undefined;
}

/**
 * The bound of `schema` a written number or string breaks, in words (`at most 20`), or undefined.
 * Only the plain keywords: a schema that combines others (`$ref`, `allOf`, …) was not reached.
 */
export function constantOutOfBounds(value: Value, schema: Readonly<Record<string, unknown>>): string | undefined {
  const num = (key: string) => (typeof schema[key] === 'number' ? (schema[key] as number) : undefined);
  if (value.kind === 'number') {
    const n = value.value;
    const min = num('minimum');
    const max = num('maximum');
    // Draft 4 writes exclusive bounds as booleans beside minimum / maximum; later drafts as numbers.
    const exMin = num('exclusiveMinimum') ?? (schema['exclusiveMinimum'] === true ? min : undefined);
    const exMax = num('exclusiveMaximum') ?? (schema['exclusiveMaximum'] === true ? max : undefined);
    if (exMin !== undefined && n <= exMin) return `a number greater than ${exMin}`;
    if (exMax !== undefined && n >= exMax) return `a number less than ${exMax}`;
    if (min !== undefined && n < min) return `a number of at least ${min}`;
    if (max !== undefined && n > max) return `a number of at most ${max}`;
    return undefined;
  }
  if (value.kind === 'string') {
    const length = [...value.value].length;
    const minLength = num('minLength');
    const maxLength = num('maxLength');
    const chars = (n: number) => `${n} character${n === 1 ? '' : 's'}`;
    if (minLength !== undefined && length < minLength) return `a string of at least ${chars(minLength)}`;
    if (maxLength !== undefined && length > maxLength) return `a string of at most ${chars(maxLength)}`;
  }
  return undefined;
}

const COMBINATORS = ['$ref', 'allOf', 'anyOf', 'oneOf', 'not', 'if', '$dynamicRef'];

function isPlainSchema(node: unknown): node is Record<string, unknown> {
  return (
    typeof node === 'object' &&
    node !== null &&
    !Array.isArray(node) &&
    COMBINATORS.every((k) => !Object.hasOwn(node, k))
  );
}

/** A SchemaAt over a JSON Schema: `properties` only, quiet at anything it would have to resolve. */
export function schemaWalker(root: unknown): SchemaAt {
  return (path) => {
    let node: unknown = root;
    for (const key of path) {
      if (!isPlainSchema(node)) return undefined;
      const properties = node['properties'];
      node =
        typeof properties === 'object' && properties !== null && Object.hasOwn(properties, key)
          ? (properties as Record<string, unknown>)[key]
          : undefined;
    }
    return isPlainSchema(node) ? node : undefined;
  };
}

function walkObject(
  literal: ObjectValue | undefined,
  actual: PipeType & { kind: 'object' },
  expected: PipeType & { kind: 'object' },
  path: string[],
  span: Span,
  out: ContractProblem[],
  schemaAt: SchemaAt,
): void {
  const known = Object.keys(expected.fields);
  const entries = new Map<string, { key: Span; value: Value }>();
  for (const e of literal?.entries ?? [])
    if (e.kind === 'entry') entries.set(e.key, { key: e.keySpan, value: e.value });
  for (const [key, field] of Object.entries(actual.fields)) {
    const want = Object.hasOwn(expected.fields, key) ? expected.fields[key] : undefined;
    const at = entries.get(key);
    if (!want) {
      // A field the contract does not allow; an optional one of a typed value may be absent: quiet.
      if (!expected.open && field.required) {
        const close = suggest(key, known);
        out.push({
          kind: 'unknown',
          path: [...path, key],
          span: at?.key ?? span,
          ...(close ? { suggestion: close } : {}),
        });
      }
      continue;
    }
    walk(at?.value, field.type, want.type, [...path, key], at?.value.span ?? span, out, schemaAt);
  }
  // Missing fields are certain only when the payload's shape is closed (a literal, a closed schema).
  if (actual.open) return;
  for (const [key, field] of Object.entries(expected.fields) as [string, FieldType][]) {
    if (field.required && !Object.hasOwn(actual.fields, key))
      out.push({ kind: 'missing', path: [...path, key], span, expected: describeType(field.type) });
  }
}

/** A literal's type reads as its value: `the string "2"`, not `"2"`. */
function describeActual(t: PipeType): string {
  return t.kind === 'string' && t.enum?.length === 1 ? `the string ${JSON.stringify(t.enum[0])}` : describeType(t);
}

/** The parameter of `schema` marked `x-pipe-contract` (the payload) and the reference kind it follows. */
export function contractParam(schema: ConnectorSchema): { key: string; kind: 'pipeline' | 'event' } | undefined {
  for (const [key, property] of Object.entries(paramProperties(schema))) {
    const kind = property['x-pipe-contract'];
    if (kind === 'pipeline' || kind === 'event') return { key, kind };
  }
  return undefined;
}

/** True when the step or trigger declares its event external (a parameter marked `x-pipe-boundary` set to true). */
function declaredExternal(params: ObjectValue, schema: ConnectorSchema): boolean {
  return Object.entries(paramProperties(schema)).some(([key, property]) => {
    if (property['x-pipe-boundary'] !== true) return false;
    const value = entryOf(params, key);
    return value?.kind === 'boolean' && value.value;
  });
}

/**
 * Events of the build published and never consumed, or consumed and never published (PIPE6103,
 * PIPE6104). One pass over the steps and triggers; a publish with a computed event name may
 * send any event, so it silences the second warning, as does a step that runs the pipeline
 * (`executed`: the pipelines named by an `x-pipe-ref: pipeline` parameter).
 */
export function checkEventFlow(
  decls: Declarations,
  registry: ConnectorRegistry,
  executed: ReadonlySet<string>,
): Diagnostic[] {
  const published = new Map<string, { span: Span; external: boolean }[]>();
  let anyEvent = false;
  const visit = (s: Step): void => {
    if (s.kind !== 'connector') return;
    const schema = registry.connectors.get(s.connector);
    if (!schema || refParams(schema, 'event').length === 0) return;
    if (computedReference(s, schema, 'event')) anyEvent = true;
    const external = declaredExternal(s.params, schema);
    for (const ref of stepReferences(s, schema, 'event')) pushTo(published, ref.name, { span: ref.span, external });
  };
  for (const p of decls.pipelines.values()) walkDeclSteps(p, visit);
  for (const c of decls.capsules.values()) walkDeclSteps(c, visit);

  const consumed = new Map<string, { span: Span; external: boolean }[]>();
  const subscribed = new Set<string>();
  for (const p of decls.pipelines.values()) {
    const schema = p.trigger ? registry.triggers.get(p.trigger.kind) : undefined;
    if (!p.trigger || !schema) continue;
    const external = declaredExternal(p.trigger.config, schema);
    for (const ref of triggerReferences(p.trigger, schema, 'event')) {
      subscribed.add(ref.name);
      // A pipeline run by a step (`execute`, a parser's batch pipeline) has callers besides events.
      if (!executed.has(p.name)) pushTo(consumed, ref.name, { span: ref.span, external });
    }
  }
  const out: Diagnostic[] = [];
  const consumedNames = [...consumed.keys()];
  const publishedNames = [...published.keys()];
  const internal = (uses: readonly { external: boolean }[]) => uses.some((u) => !u.external);
  const orphanPublished = [...published].filter(([name, uses]) => !subscribed.has(name) && internal(uses));
  // With a publish of a computed name, any subscription may be served: no name is certainly orphan.
  const orphanConsumed = anyEvent
    ? []
    : [...consumed].filter(([name, uses]) => !published.has(name) && internal(uses)).map(([name]) => name);
  const typos = pairTypos(
    orphanPublished.map(([name]) => name),
    orphanConsumed,
  );
  for (const [name, uses] of orphanPublished) {
    const other = typos.get(name);
    for (const use of uses) {
      if (use.external) continue;
      out.push(
        other
          ? eventNameTypo('publish', name, other, use.span)
          : eventNeverConsumed(name, use.span, suggest(name, consumedNames)),
      );
    }
  }
  const typoOf = new Map([...typos].map(([p, c]) => [c, p]));
  for (const name of orphanConsumed) {
    const other = typoOf.get(name);
    for (const use of consumed.get(name) ?? []) {
      if (use.external) continue;
      out.push(
        other
          ? eventNameTypo('subscribe', name, other, use.span)
          : eventNeverPublished(name, use.span, suggest(name, publishedNames)),
      );
    }
  }
  return out;
}

/** Most edits between two event names that are taken for one misspelt name (a dropped, doubled, swapped or wrong character or two). */
const TYPO_EDITS = 2;

/**
 * Pairs each event published with no subscriber with the one subscribed event with no publisher
 * whose name is a typo away (PIPE6105): both sides of the hand-over are broken, so one name is
 * certainly wrong. A name with two such candidates, or a candidate claimed twice, is not paired.
 */
function pairTypos(orphanPublished: readonly string[], orphanConsumed: readonly string[]): Map<string, string> {
  const near = (a: string, b: string) => {
    const d = editDistance(a, b);
    return d <= TYPO_EDITS && d <= threshold(Math.max(a.length, b.length));
  };
  const candidates = new Map<string, string[]>();
  for (const p of orphanPublished)
    candidates.set(
      p,
      orphanConsumed.filter((c) => near(p, c)),
    );
  const claims = new Map<string, number>();
  for (const list of candidates.values()) for (const c of list) claims.set(c, (claims.get(c) ?? 0) + 1);
  const pairs = new Map<string, string>();
  for (const [p, list] of candidates) {
    const only = list.length === 1 ? list[0] : undefined;
    if (only !== undefined && claims.get(only) === 1) pairs.set(p, only);
  }
  return pairs;
}

/**
 * PIPE6101/PIPE6102 for a step whose schema marks its payload `x-pipe-contract`: the payload as
 * written (else the current message, reported at the step) against the contract of the pipeline
 * it executes or of every subscriber of the event it publishes.
 */
export function payloadDiagnostics(
  step: ConnectorStep,
  schema: ConnectorSchema,
  contracts: ContractFacts,
  payloadType: PipeType | undefined,
  message: PipeType,
): Diagnostic[] {
  const param = contractParam(schema);
  if (!param) return [];
  const written = entryOf(step.params, param.key);
  const actual = written ? (payloadType ?? UNKNOWN) : message;
  const span = written?.span ?? step.connectorSpan;
  const out: Diagnostic[] = [];
  for (const ref of stepReferences(step, schema, param.kind)) {
    if (param.kind === 'pipeline') {
      const contract = contracts.pipelines.get(ref.name);
      if (!contract) continue;
      for (const p of contractProblems(written, actual, contract.type, span, contractSchemaAt(contract)))
        out.push(executePayloadMismatch(ref.name, p, p.span, contract.at, contract.wrapsBody));
    } else {
      for (const contract of contracts.events.get(ref.name) ?? []) {
        for (const p of contractProblems(written, actual, contract.type, span, contractSchemaAt(contract)))
          out.push(publishPayloadMismatch(ref.name, contract.pipeline, p, p.span, contract.at));
      }
    }
  }
  return out;
}

/** The contract's schema by payload path (an envelope's schema types what is under `body`). */
function contractSchemaAt(contract: Contract): SchemaAt {
  if (contract.schema === undefined) return () => undefined;
  const inSchema = schemaWalker(contract.schema);
  if (!contract.wrapsBody) return inSchema;
  return (path) => (path[0] === 'body' ? inSchema(path.slice(1)) : undefined);
}
