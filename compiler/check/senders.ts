/**
 * What a pipeline receives is what its senders send. Within one build, the message of a pipeline
 * started by an event is the payload of a `publish` of that event, and the message of a pipeline
 * run by `execute` is the caller's payload. When that set of senders is certainly complete, the
 * pipeline's first message is its declared type (the trigger's `body` schema) narrowed by the
 * union of what they send: a field no sender sends and the schema does not declare is never
 * there, so reading it is a mistake (PIPE6106).
 *
 * Complete means: the pipeline's trigger subscribes to an event (a trigger parameter marked
 * `x-pipe-ref: event`) and no other door leads to it — the trigger and every publisher of the
 * event do not declare it external (`external: true`, the parameter marked `x-pipe-boundary`), no
 * `publish` of the build computes its event name, every publisher and caller is a step of a
 * pipeline (not of a capsule, whose parameters vary by use), and every step that names the
 * pipeline hands it a payload (the parameter marked `x-pipe-contract`). An HTTP trigger, a queue,
 * a schedule… are reached from outside the build: such pipelines are not narrowed. Replaying a
 * dead letter publishes the payload a publisher sent, so it adds no sender.
 *
 * Pure functions: `senderGraph` reads the declarations, `narrowBySenders` the types; the checker
 * (check-program.ts) orders pipelines so that senders are checked before their receivers.
 */
import type { ConnectorStep, PipelineDecl, Step } from '../ast/ast.js';
import { walkDeclSteps } from '../ast/walk.js';
import { entryOf } from '../ast/literal.js';
import { paramProperties, type ConnectorRegistry, type ConnectorSchema } from '../connectors/connector-registry.js';
import { computedReference, refParams, stepReferences, triggerReferences } from '../connectors/schema-facts.js';
import type { Declarations } from '../resolve/declarations.js';
import type { Span } from '../../base/source/span.js';
import { union } from '../types/type-ops.js';
import { UNKNOWN, type FieldType, type PipeType, type SentBy } from '../types/pipe-type.js';
import { contractParam } from './contracts.js';

/** The complete set of steps that send a pipeline its first message. */
export interface Entrance {
  /** Who they are, in words: `publisher of \`orders\``, `caller of pipeline \`sync\``. */
  readonly who: string;
  readonly senders: readonly { readonly step: ConnectorStep; readonly pipeline: string }[];
}

/**
 * The entrances of the build's pipelines: for each pipeline whose senders are certainly all
 * steps of the build (see the file comment), those steps. A pipeline left out may be reached
 * from outside, or by a step whose payload is not its message.
 */
export function senderGraph(decls: Declarations, registry: ConnectorRegistry): Map<string, Entrance> {
  const publishers = new Map<string, { step: ConnectorStep; pipeline: string | undefined; external: boolean }[]>();
  const callers = new Map<string, { step: ConnectorStep; pipeline: string | undefined; payload: boolean }[]>();
  let anyEvent = false;
  const visit =
    (pipeline: string | undefined) =>
    (s: Step): void => {
      if (s.kind !== 'connector') return;
      const schema = registry.connectors.get(s.connector);
      if (!schema) return;
      const contract = contractParam(schema);
      if (refParams(schema, 'event').length > 0) {
        if (computedReference(s, schema, 'event')) anyEvent = true;
        const external = declaredExternal(s.params, schema);
        for (const ref of stepReferences(s, schema, 'event'))
          push(publishers, ref.name, { step: s, pipeline, external: external || contract?.kind !== 'event' });
      }
      for (const ref of stepReferences(s, schema, 'pipeline'))
        push(callers, ref.name, { step: s, pipeline, payload: contract?.kind === 'pipeline' });
      // A pipeline named by an expression may be any pipeline: no caller set is then complete.
      if (computedReference(s, schema, 'pipeline')) push(callers, '\u0000any', { step: s, pipeline, payload: false });
    };
  for (const p of decls.pipelines.values()) walkDeclSteps(p, visit(p.name));
  for (const c of decls.capsules.values()) walkDeclSteps(c, visit(undefined));

  const out = new Map<string, Entrance>();
  if (anyEvent || callers.has('\u0000any')) return out;
  for (const p of decls.pipelines.values()) {
    const event = subscribedEvent(p, registry);
    if (event === undefined) continue;
    const sent = publishers.get(event) ?? [];
    const called = callers.get(p.name) ?? [];
    if (sent.length === 0) continue;
    if (sent.some((s) => s.external || s.pipeline === undefined)) continue;
    if (called.some((c) => !c.payload || c.pipeline === undefined)) continue;
    const who =
      called.length === 0
        ? `publisher of \`${event}\``
        : `publisher of \`${event}\` or caller of pipeline \`${p.name}\``;
    out.set(p.name, {
      who,
      senders: [...sent, ...called].map((s) => ({ step: s.step, pipeline: s.pipeline as string })),
    });
  }
  return out;
}

/** The one event a pipeline's trigger subscribes to, when it is internal to the build. */
function subscribedEvent(p: PipelineDecl, registry: ConnectorRegistry): string | undefined {
  const schema = p.trigger ? registry.triggers.get(p.trigger.kind) : undefined;
  if (!p.trigger || !schema || schema['x-pipe-envelope'] === true) return undefined;
  if (declaredExternal(p.trigger.config, schema)) return undefined;
  // Any other reference parameter (a topic, a queue) is a door from outside the build.
  const refs = triggerReferences(p.trigger, schema, 'event');
  if (refs.length !== 1 || refParams(schema, 'event').length !== 1) return undefined;
  return refs[0]?.name;
}

function push<T>(map: Map<string, T[]>, key: string, item: T): void {
  const list = map.get(key);
  if (list) list.push(item);
  else map.set(key, [item]);
}

/** True when the step or trigger declares its event external (a parameter marked `x-pipe-boundary` set to true). */
function declaredExternal(params: ConnectorStep['params'], schema: ConnectorSchema): boolean {
  return Object.entries(paramProperties(schema)).some(([key, property]) => {
    if (property['x-pipe-boundary'] !== true) return false;
    const value = entryOf(params, key);
    // Only a written `false` (or nothing) keeps the event inside the build.
    return value !== undefined && !(value.kind === 'boolean' && !value.value);
  });
}

/** What a sending step hands over: its payload as written, else the current message. */
export function sentPayload(
  step: ConnectorStep,
  schema: ConnectorSchema,
  payloadType: PipeType | undefined,
  message: PipeType,
): { type: PipeType; span: Span } | undefined {
  const param = contractParam(schema);
  if (!param) return undefined;
  const written = entryOf(step.params, param.key);
  return written ? { type: payloadType ?? UNKNOWN, span: written.span } : { type: message, span: step.connectorSpan };
}

type ObjectType = PipeType & { kind: 'object' };

/** Keywords that declare fields, or make them depend on others, in ways the schema's type does not show. */
const HIDDEN_FIELDS = [
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependencies',
  'patternProperties',
  'unevaluatedProperties',
  'not',
  '$dynamicRef',
  '$recursiveRef',
];

/**
 * True when every field a JSON Schema declares shows in its type (schemaToType), so a field
 * missing from the type is declared nowhere: no conditional or pattern keyword anywhere in it, and
 * no `$ref` outside itself. Otherwise the message it types is not narrowed.
 */
export function schemaShowsItsFields(schema: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (Array.isArray(schema)) return schema.every((item) => schemaShowsItsFields(item, depth + 1));
  if (typeof schema !== 'object' || schema === null) return true;
  for (const [key, value] of Object.entries(schema)) {
    if (HIDDEN_FIELDS.includes(key)) return false;
    if (key === '$ref' && (typeof value !== 'string' || !value.startsWith('#'))) return false;
    if (!schemaShowsItsFields(value, depth + 1)) return false;
  }
  return true;
}

/**
 * The declared type of a message narrowed by what its senders send. Where the declared type is
 * open (or unknown) and every sender sends a closed object, the fields are the declared ones
 * plus those the senders send, and no other: the result is closed and marked `sentBy`. A field
 * the schema declares keeps its declared type (narrowed the same way inside). Anything else —
 * a sender of unknown or open shape, a declared type that is not an object — stays as declared.
 */
export function narrowBySenders(
  declared: PipeType,
  sent: readonly { type: PipeType; span: Span }[],
  who: string,
  path: readonly string[] = [],
): PipeType {
  const objects = closedObjects(sent);
  if (!objects || declared.secret) return declared;
  // An unknown declared type may be a schema the checker cannot read: it may declare anything.
  if (declared.kind !== 'object' || !declared.open) return declared;
  const sentBy = sentByOf(objects, who, path);
  const fields: Record<string, FieldType> = {};
  for (const [key, field] of Object.entries(declared.fields) as [string, FieldType][]) {
    const inner = fieldOf(objects, key);
    fields[key] =
      inner.length > 0 ? { ...field, type: narrowBySenders(field.type, inner, who, [...path, key]) } : field;
  }
  for (const [key, field] of Object.entries(sentFields(objects, who, path)))
    if (!Object.hasOwn(fields, key)) fields[key] = field;
  return { kind: 'object', open: false, fields, sentBy };
}

/**
 * The message of a pipeline that declares nothing of it (no `body` schema): the union of what its
 * senders send, closed and marked `sentBy`, when every sender sends a closed object.
 */
export function sentShape(sent: readonly { type: PipeType; span: Span }[], who: string): PipeType | undefined {
  const objects = closedObjects(sent);
  return objects ? merged(objects, who, []) : undefined;
}

function sentByOf(objects: readonly { type: ObjectType; span: Span }[], who: string, path: readonly string[]): SentBy {
  return { who, path, senders: objects.map((o) => ({ span: o.span, fields: Object.keys(o.type.fields) })) };
}

/** The senders' payloads as closed objects, or undefined when one is anything else. */
function closedObjects(
  sent: readonly { type: PipeType; span: Span }[],
): { type: ObjectType; span: Span }[] | undefined {
  const out: { type: ObjectType; span: Span }[] = [];
  for (const s of sent) {
    if (s.type.kind !== 'object' || s.type.open) return undefined;
    out.push({ type: s.type, span: s.span });
  }
  return out.length > 0 ? out : undefined;
}

/** The type each sender gives field `key`, for the senders that send it. */
function fieldOf(objects: readonly { type: ObjectType; span: Span }[], key: string): { type: PipeType; span: Span }[] {
  return objects.flatMap((o) =>
    Object.hasOwn(o.type.fields, key) ? [{ type: (o.type.fields[key] as FieldType).type, span: o.span }] : [],
  );
}

/** The union of the senders' objects: every field any sends, required when all send it. */
function merged(objects: readonly { type: ObjectType; span: Span }[], who: string, path: readonly string[]): PipeType {
  return { kind: 'object', open: false, fields: sentFields(objects, who, path), sentBy: sentByOf(objects, who, path) };
}

function sentFields(
  objects: readonly { type: ObjectType; span: Span }[],
  who: string,
  path: readonly string[],
): Record<string, FieldType> {
  const fields: Record<string, FieldType> = {};
  const keys = [...new Set(objects.flatMap((o) => Object.keys(o.type.fields)))];
  for (const key of keys) {
    const inner = fieldOf(objects, key);
    const required = objects.every((o) => o.type.fields[key]?.required === true);
    const nested = closedObjects(inner);
    const type = nested ? merged(nested, who, [...path, key]) : union(...inner.map((i) => i.type));
    fields[key] = { type, required };
  }
  return fields;
}
