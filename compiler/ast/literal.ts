/**
 * Turns AST values into JSON instances for schema checks, remembering where every part came from
 * (a JSON-pointer → span map), so each ajv error finds its source. Dynamic parts ({{ }}, templates,
 * env()) become `Dynamic` placeholders: their errors are filtered out, their types are checked by
 * the Double Braces checker instead.
 */
import type { ObjectValue, Value } from './ast.js';
import type { Span } from '../../base/source/span.js';

/** The placeholder for a value known only at run time. */
export const DYNAMIC = '\u0000pipec-dynamic\u0000';

export interface LiteralInstance {
  readonly json: unknown;
  /** JSON pointer (`/a/0/b`) → span of the value; `#key:/a/b` → span of the key `b`. */
  readonly spans: ReadonlyMap<string, Span>;
  /** Pointers of dynamic values. */
  readonly dynamic: ReadonlySet<string>;
  /** Pointers of bare words (which may name a schema, account, … where the schema says `x-pipe-ref`). */
  readonly idents: ReadonlySet<string>;
}

export function toLiteral(value: Value): LiteralInstance {
  const spans = new Map<string, Span>();
  const dynamic = new Set<string>();
  const json = convert(value, '', spans, dynamic);
  const idents = new Set<string>();
  collectIdents(value, '', idents);
  return { json, spans, dynamic, idents };
}

function convert(value: Value, pointer: string, spans: Map<string, Span>, dynamic: Set<string>): unknown {
  spans.set(pointer, value.span);
  switch (value.kind) {
    case 'string':
      return value.value;
    case 'number':
      return value.value;
    case 'duration':
      return value.ms;
    case 'size':
      return value.bytes;
    case 'boolean':
      return value.value;
    case 'null':
      return null;
    case 'ident':
      return value.name;
    case 'template':
    case 'braces':
    case 'env':
      dynamic.add(pointer);
      return DYNAMIC;
    case 'array':
      return value.items.map((item, i) => convert(item, `${pointer}/${i}`, spans, dynamic));
    case 'object':
      return convertObject(value, pointer, spans, dynamic);
    case 'tagged': {
      const inner = convertObject(value.value, pointer, spans, dynamic);
      defineOwn(inner, 'type', value.tag);
      spans.set(`${pointer}/type`, value.tagSpan);
      spans.set(`#key:${pointer}/type`, value.tagSpan);
      return inner;
    }
  }
}

function collectIdents(value: Value, pointer: string, out: Set<string>): void {
  if (value.kind === 'ident') out.add(pointer);
  else if (value.kind === 'array') value.items.forEach((item, i) => collectIdents(item, `${pointer}/${i}`, out));
  else if (value.kind === 'object' || value.kind === 'tagged') {
    const obj = value.kind === 'tagged' ? value.value : value;
    for (const entry of obj.entries)
      if (entry.kind === 'entry') collectIdents(entry.value, `${pointer}/${escapePointer(entry.key)}`, out);
  }
}

function convertObject(
  value: ObjectValue,
  pointer: string,
  spans: Map<string, Span>,
  dynamic: Set<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const entry of value.entries) {
    const child = `${pointer}/${escapePointer(entry.key)}`;
    spans.set(`#key:${child}`, entry.keySpan);
    if (entry.kind === 'steps-entry') {
      // Blocks of steps are checked as steps, not as data; present as a marker so `required` holds.
      spans.set(child, entry.span);
      dynamic.add(child);
      defineOwn(out, entry.key, DYNAMIC);
      continue;
    }
    defineOwn(out, entry.key, convert(entry.value, child, spans, dynamic));
  }
  return out;
}

/**
 * Sets an own data property even for keys like `__proto__` (never a prototype write). Targets are
 * plain objects whose own properties are all writable data properties, and `__proto__` is the only
 * accessor Object.prototype has, so plain assignment does the same for every other key — and is
 * several times faster than `defineProperty`, which runs for every entry of every literal.
 */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A key as a JSON-pointer segment (`~` → `~0`, `/` → `~1`); most keys have neither. */
export function escapePointer(key: string): string {
  if (!key.includes('~') && !key.includes('/')) return key;
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** True when the pointer is a dynamic value or lies inside one. */
export function isDynamicPointer(instance: LiteralInstance, pointer: string): boolean {
  for (const d of instance.dynamic) {
    if (pointer === d || pointer.startsWith(`${d}/`)) return true;
  }
  return false;
}

/** The span for a pointer: the exact value, or the nearest enclosing value that has one. */
export function spanAt(instance: LiteralInstance, pointer: string, fallback: Span): Span {
  let p = pointer;
  for (;;) {
    const found = instance.spans.get(p);
    if (found) return found;
    if (p === '') return fallback;
    p = p.slice(0, p.lastIndexOf('/'));
  }
}

/** Plain JSON of a value with no dynamic parts (undefined if it has any). */
export function staticJson(value: Value): unknown {
  const lit = toLiteral(value);
  return lit.dynamic.size === 0 ? lit.json : undefined;
}

/** Entry lookup by key (first match). */
export function entryOf(obj: ObjectValue | undefined, key: string): Value | undefined {
  if (!obj) return undefined;
  for (const e of obj.entries) if (e.kind === 'entry' && e.key === key) return e.value;
  return undefined;
}

export function stepsEntryOf(obj: ObjectValue | undefined, key: string) {
  if (!obj) return undefined;
  for (const e of obj.entries) if (e.kind === 'steps-entry' && e.key === key) return e;
  return undefined;
}
