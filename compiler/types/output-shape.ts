/**
 * Helpers for the output shapes transformers infer (compiler/jolt/infer-shape.ts,
 * compiler/jslt/infer-shape.ts): a constant's type with its literal values forgotten, and the
 * shape a step hands on as its message.
 */
import { NULL, UNKNOWN, type FieldType, type PipeType } from './pipe-type.js';
import { typeOfValue, union, widen } from './type-ops.js';

/** The type of a constant, with string literals widened to `string` at every depth (objects stay closed). */
export function constantType(value: unknown): PipeType {
  return widenDeep(typeOfValue(value));
}

function widenDeep(t: PipeType): PipeType {
  switch (t.kind) {
    case 'array':
      return { kind: 'array', items: widenDeep(t.items) };
    case 'object': {
      const fields: Record<string, FieldType> = Object.create(null) as Record<string, FieldType>;
      for (const [k, f] of Object.entries(t.fields)) fields[k] = { type: widenDeep(f.type), required: f.required };
      return { kind: 'object', fields, open: t.open };
    }
    case 'union':
      return union(...t.members.map(widenDeep));
    default:
      return widen(t);
  }
}

/**
 * The shape a step's output gives the next steps. A transform that may give null or one of
 * several objects gives one object whose fields are those of every member, optional unless every
 * member has them: reads of a field of null give null as reads of an absent field do, and the
 * step's failure fields (fail-on-error off) can then join it. Anything else that mixes objects
 * with other values is `unknown`.
 */
export function asMessageShape(t: PipeType): PipeType {
  if (t.kind !== 'union') return t;
  const objects = t.members.filter((m): m is Extract<PipeType, { kind: 'object' }> => m.kind === 'object');
  if (objects.length === 0) return t;
  const others = t.members.filter((m) => m.kind !== 'object' && m.kind !== 'null');
  if (others.length > 0) return UNKNOWN;
  const mayBeNull = t.members.some((m) => m.kind === 'null');
  const names = new Set(objects.flatMap((o) => Object.keys(o.fields)));
  const fields: Record<string, FieldType> = Object.create(null) as Record<string, FieldType>;
  for (const name of names) {
    const found = objects.map((o) => (Object.hasOwn(o.fields, name) ? o.fields[name] : undefined));
    const types = found.map((f, i) => f?.type ?? ((objects[i] as { open: boolean }).open ? UNKNOWN : NULL));
    const required = !mayBeNull && found.every((f) => f?.required === true);
    fields[name] = {
      type: union(...types.filter((ty, i) => found[i] !== undefined || ty.kind === 'unknown')),
      required,
    };
  }
  const open = objects.some((o) => o.open);
  return objects.some((o) => o.freeNames)
    ? { kind: 'object', fields, open, freeNames: true }
    : { kind: 'object', fields, open };
}
