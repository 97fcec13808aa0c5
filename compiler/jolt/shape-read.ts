/**
 * Reading message shapes the way JOLT reads data: a field of an object type (present, absent, or
 * unknown when the object is open), the members of a union, and a `@(n,a.b)` lookup path. Shared by
 * the shape inference of every operation (infer-shift.ts, infer-shape.ts).
 */
import { UNKNOWN, type FieldType, type PipeType } from '../types/pipe-type.js';
import { union } from '../types/type-ops.js';
import type { PathElement, Ref } from './keys.js';

export function membersOf(t: PipeType): readonly PipeType[] {
  return t.kind === 'union' ? t.members : [t];
}

/** Field `name` of an object type: the field, `unknown` and optional when the object is open, else missing. */
export function fieldOf(t: Extract<PipeType, { kind: 'object' }>, name: string): FieldType | 'missing' {
  if (Object.hasOwn(t.fields, name)) return t.fields[name] as FieldType;
  return t.open ? { type: UNKNOWN, required: false } : 'missing';
}

export interface Found {
  readonly type: PipeType;
  /** Found on every value of the shape. */
  readonly definite: boolean;
}

/**
 * What `path` below a value of type `base` finds (Traversr's read: map keys in maps, indexes in
 * lists); undefined when no value of the shape has it. `ampText` gives the text of an `&` key when
 * it is known at build time.
 */
export function readPath(
  base: PipeType | undefined,
  path: readonly PathElement[],
  ampText: (tokens: readonly (string | Ref)[]) => string | undefined,
): Found | undefined {
  let current: Found = { type: base ?? UNKNOWN, definite: base !== undefined };
  for (const pe of path) {
    const next = readStep(current.type, pe, ampText);
    if (next === undefined) return undefined;
    current = { type: next.type, definite: current.definite && next.definite };
  }
  return current;
}

function readStep(
  t: PipeType,
  pe: PathElement,
  ampText: (tokens: readonly (string | Ref)[]) => string | undefined,
): Found | undefined {
  const key =
    pe.kind === 'literal' ? pe.key : pe.kind === 'amp' ? ampText(pe.tokens) : pe.kind === 'array' ? null : undefined;
  const found: PipeType[] = [];
  let definite = t.kind !== 'union';
  for (const member of membersOf(t)) {
    if (member.kind === 'unknown') {
      found.push(UNKNOWN);
      definite = false;
      continue;
    }
    if (pe.kind === 'array') {
      if (member.kind !== 'array' || pe.index.type === 'auto') continue;
      found.push(member.items);
      definite = false;
      continue;
    }
    if (member.kind !== 'object') continue;
    if (key === undefined || key === null) {
      found.push(UNKNOWN);
      definite = false;
      continue;
    }
    const field = fieldOf(member, key);
    if (field === 'missing') continue;
    found.push(field.type);
    if (!field.required) definite = false;
  }
  if (found.length === 0) return undefined;
  return { type: union(...found), definite };
}
