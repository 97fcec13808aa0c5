/**
 * Reading the `x-pipe-*` facts of connector and trigger schemas against the steps and triggers
 * that use them: which parameters reference a pipeline, an event, a store, an account or a schema,
 * and the names a step gives them. Shared by check, the graph, the language server and the test
 * checker, so that none of them names a connector.
 *
 * Example: `publish order-approved { … }` with publish's `event` marked `"x-pipe-ref": "event"`
 * gives stepReferences(step, schema, 'event') = [{ name: 'order-approved', span: <the word> }].
 */
import type { ConnectorStep, ObjectValue, TriggerDecl } from '../ast/ast.js';
import { entryOf } from '../ast/literal.js';
import type { Span } from '../../base/source/span.js';
import { paramProperties, type ConnectorSchema, type JsonSchema } from './connector-registry.js';

/** What `x-pipe-ref` may name. An `event` parameter of a connector publishes it; of a trigger, subscribes to it. */
export type RefKind = 'account' | 'schema' | 'pipeline' | 'store' | 'event';

/** `x-pipe-split` of a header-word parameter: the word splits at its last `separator` into two parameters. */
export interface SplitFacts {
  readonly separator: string;
  readonly into: readonly [string, string];
}

export function refOf(property: JsonSchema | undefined): RefKind | undefined {
  const ref = property?.['x-pipe-ref'];
  return typeof ref === 'string' ? (ref as RefKind) : undefined;
}

export function splitOf(property: JsonSchema | undefined): SplitFacts | undefined {
  const split = property?.['x-pipe-split'] as { separator?: unknown; into?: unknown } | undefined;
  if (!split || typeof split.separator !== 'string' || !Array.isArray(split.into) || split.into.length !== 2)
    return undefined;
  return { separator: split.separator, into: [String(split.into[0]), String(split.into[1])] };
}

/** The parameters of a schema marked `x-pipe-ref: kind`. */
export function refParams(schema: ConnectorSchema, kind: RefKind): string[] {
  return Object.entries(paramProperties(schema))
    .filter(([, property]) => refOf(property) === kind)
    .map(([key]) => key);
}

/**
 * Header words split into parameters (`store orders.find` → store `orders`, operation `find`),
 * with the span of each part. Without the separator the first parameter takes the whole word and
 * the second is empty, without a span.
 */
export function splitWord(
  text: string,
  span: Span,
  split: SplitFacts,
): { values: Record<string, string>; spans: Record<string, Span> } {
  const [first, second] = split.into;
  const at = text.lastIndexOf(split.separator);
  if (at <= 0) return { values: { [first]: text, [second]: '' }, spans: { [first]: span } };
  return {
    values: { [first]: text.slice(0, at), [second]: text.slice(at + split.separator.length) },
    spans: {
      [first]: { file: span.file, start: span.start, end: span.start + at },
      [second]: { file: span.file, start: span.start + at + split.separator.length, end: span.end },
    },
  };
}

/** The literal text a parameter has in a parameter block (a string or a bare word), with its span. */
export function literalParam(params: ObjectValue, key: string): { name: string; span: Span } | undefined {
  for (const entry of params.entries) {
    if (entry.kind !== 'entry' || entry.key !== key) continue;
    const value = entry.value;
    if (value.kind === 'string') return { name: value.value, span: value.span };
    if (value.kind === 'ident') return { name: value.name, span: value.span };
    return undefined;
  }
  return undefined;
}

/**
 * The literal value a step gives a parameter: written in its block, or by a header word (split
 * when the word's parameter says `x-pipe-split`). Undefined when absent or computed at run time.
 */
export function stepParam(
  step: ConnectorStep,
  schema: ConnectorSchema,
  key: string,
): { name: string; span: Span } | undefined {
  const written = literalParam(step.params, key);
  if (written) return written;
  const properties = paramProperties(schema);
  const positional = schema.positional ?? [];
  for (const [i, param] of positional.entries()) {
    const arg = step.args[i];
    if (!arg || arg.text.includes('{{')) continue;
    if (param === key) return { name: arg.text, span: arg.span };
    const split = splitOf(properties[param]);
    if (split?.into.includes(key)) {
      const parts = splitWord(arg.text, arg.span, split);
      const span = parts.spans[key];
      return span && parts.values[key] ? { name: parts.values[key] as string, span } : undefined;
    }
  }
  return undefined;
}

/**
 * True when a step gives a reference parameter of `kind` a value that is not a written name (an
 * expression computed at run time: the step may name any event or pipeline).
 */
export function computedReference(step: ConnectorStep, schema: ConnectorSchema, kind: RefKind): boolean {
  const literal = stepReferences(step, schema, kind).length;
  const given = refParams(schema, kind).filter((key) => {
    const index = (schema.positional ?? []).indexOf(key);
    return entryOf(step.params, key) !== undefined || (index >= 0 && step.args[index] !== undefined);
  }).length;
  return given > literal;
}

/** The names of `kind` a step references (`execute billing` → [{ name: 'billing', … }] for 'pipeline'). */
export function stepReferences(
  step: ConnectorStep,
  schema: ConnectorSchema,
  kind: RefKind,
): { name: string; span: Span }[] {
  return refParams(schema, kind)
    .map((key) => stepParam(step, schema, key))
    .filter((r): r is { name: string; span: Span } => r !== undefined);
}

/** The names of `kind` a trigger references (`trigger event { name: "orders" }` → 'orders' for 'event'). */
export function triggerReferences(
  trigger: TriggerDecl,
  schema: ConnectorSchema,
  kind: RefKind,
): { name: string; span: Span }[] {
  return refParams(schema, kind)
    .map((key) => literalParam(trigger.config, key))
    .filter((r): r is { name: string; span: Span } => r !== undefined);
}

/** The header-word parameter (or split part) at word `index` of a step, for editors. */
export function headerParam(schema: ConnectorSchema, index: number): string | undefined {
  const param = schema.positional?.[index];
  if (param === undefined) return undefined;
  return splitOf(paramProperties(schema)[param])?.into[0] ?? param;
}
