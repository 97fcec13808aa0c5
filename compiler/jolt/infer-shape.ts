/**
 * The output shape of a JOLT chain, inferred at build time from the chain and the shape of its
 * input: each operation's output shape is the next one's input. Exact where the spec and the input
 * shape say it, open or `unknown` wherever the data decides:
 *   shift        — infer-shift.ts (fields written; wildcard-made keys leave the object open)
 *   default      — fields added (present and non-null afterwards)
 *   remove       — fields removed
 *   sort         — the same shape
 *   cardinality  — ONE makes a list its first element, MANY makes a value a list
 *   modify-*     — fields computed: typed when the function's result type is known (`=toInteger`
 *                  gives an integer), joined with the old type when the function may give nothing
 * A custom operation gives `unknown`. Also reports, as warnings, the `shift` keys that can never
 * match because the input there is a closed object without that field.
 *
 * Only chains that compiled without errors are given here.
 */
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { ARRAY_OF_UNKNOWN, emptyObject } from './infer-values.js';
import { inferModify } from './infer-modify.js';
import { MODIFY_MODES, OPERATIONS } from './operations.js';
import { inferShift, type UnmatchedKey } from './infer-shift.js';
import { fieldOf, membersOf } from './shape-read.js';
import { isPlainObject, Program, splitOr, type JsonPath, type Locate } from './emit.js';
import { parseMatcher } from './remove.js';
import { SpecError, starMatches } from './keys.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import { arrayOf, NULL, UNKNOWN, type FieldType, type PipeType } from '../types/pipe-type.js';
import { isNullable, union, withoutNull } from '../types/type-ops.js';
import { asMessageShape, constantType } from '../types/output-shape.js';
import * as E from './errors.js';

export interface InferredJolt {
  /** The shape of the chain's output, as the next step's message. */
  readonly type: PipeType;
  /** Warnings: `shift` keys that never match the input shape. */
  readonly diagnostics: readonly Diagnostic[];
}

/** The chain's output shape for an input of shape `input`, with the warnings located through `locate`. */
export function inferJoltShape(chain: unknown, input: PipeType, locate: Locate): InferredJolt {
  let inferred: { type: PipeType; unmatched: UnmatchedKey[] };
  try {
    inferred = inferChain(chain, input);
  } catch (e) {
    // a spec problem the compiler reports (a chain with errors is not given here): no shape, no warning
    if (e instanceof SpecError) return { type: UNKNOWN, diagnostics: [] };
    throw e;
  }
  const { type, unmatched } = inferred;
  const prog = new Program(locate);
  for (const key of unmatched) {
    const near = suggest(key.key, key.fields);
    prog.warning(E.keyNeverMatches(key.key, key.fields, near), key.path, 'key');
  }
  return { type: asMessageShape(type), diagnostics: prog.diagnostics };
}

/** The output type of each operation in turn, and every unmatched `shift` key. */
export function inferChain(chain: unknown, input: PipeType): { type: PipeType; unmatched: UnmatchedKey[] } {
  const unmatched: UnmatchedKey[] = [];
  if (!Array.isArray(chain)) return { type: UNKNOWN, unmatched };
  let type = input;
  chain.forEach((entry, i) => {
    const op = isPlainObject(entry) && typeof entry.operation === 'string' ? OPERATIONS[entry.operation] : undefined;
    const spec = isPlainObject(entry) ? entry.spec : undefined;
    if (op === undefined) {
      type = UNKNOWN;
      return;
    }
    const specPath: JsonPath = [i, 'spec'];
    switch (op) {
      case 'shift': {
        const shifted = inferShift(spec, type, specPath);
        unmatched.push(...shifted.unmatched);
        type = shifted.type;
        return;
      }
      case 'default':
        type = inferDefault(spec, type);
        return;
      case 'remove':
        type = isPlainObject(spec) ? removeFrom(type, spec) : UNKNOWN;
        return;
      case 'sort':
        return;
      case 'cardinality':
        type = isPlainObject(spec) ? cardinalityOf(type, spec, true) : UNKNOWN;
        return;
      default:
        type = inferModify(spec, type, MODIFY_MODES[op] ?? 0);
    }
  });
  return { type, unmatched };
}

// ───────────────────────────── default ─────────────────────────────

interface DefaultKey {
  readonly op: 'literal' | 'or' | 'star';
  readonly names: readonly string[];
  readonly isList: boolean;
  readonly value: unknown;
}

const DEFAULT_RANK = { literal: 0, or: 1, star: 2 } as const;

function defaultKeys(spec: Record<string, unknown>): DefaultKey[] {
  const keys = Object.keys(spec).map((raw): DefaultKey => {
    const isList = raw.endsWith('[]');
    const name = isList ? raw.split('[]').join('') : raw;
    const op = name === '*' ? 'star' : name.includes('|') ? 'or' : 'literal';
    return { op, names: op === 'star' ? [] : name.split('|'), isList, value: spec[raw] };
  });
  return keys.sort((a, b) => DEFAULT_RANK[a.op] - DEFAULT_RANK[b.op]);
}

/** Defaultr: null input becomes `{}`; maps get the defaults; a top-level list is left to its index keys. */
function inferDefault(spec: unknown, input: PipeType): PipeType {
  if (!isPlainObject(spec)) return UNKNOWN;
  return union(
    ...membersOf(input).map((member) => {
      if (member.kind === 'null') return defaultsInto(emptyObject(), spec);
      if (member.kind === 'object') return defaultsInto(member, spec);
      if (member.kind === 'array') return ARRAY_OF_UNKNOWN;
      return member;
    }),
  );
}

function defaultsInto(obj: Extract<PipeType, { kind: 'object' }>, spec: Record<string, unknown>): PipeType {
  const fields: Record<string, FieldType> = Object.assign(Object.create(null) as object, obj.fields);
  for (const key of defaultKeys(spec)) {
    if (key.op === 'literal') {
      const name = key.names[0] ?? '';
      const field = fieldOf({ ...obj, fields }, name);
      fields[name] = { type: defaulted(field === 'missing' ? undefined : field, key), required: true };
      continue;
    }
    const names = key.op === 'star' ? Object.keys(fields) : key.names.filter((n) => Object.hasOwn(fields, n));
    for (const name of names) {
      const field = fields[name] as FieldType;
      fields[name] = { type: defaulted(field, key), required: field.required };
    }
  }
  return { kind: 'object', fields, open: obj.open };
}

/** The value at a default key once the default applied (the field may be absent: undefined). */
function defaulted(field: FieldType | undefined, key: DefaultKey): PipeType {
  if (key.isList) return UNKNOWN;
  const present = field === undefined ? undefined : field.type;
  const mayBeMissing = field === undefined || !field.required || isNullable(field.type);
  if (!isPlainObject(key.value)) {
    if (present === undefined) return constantType(key.value);
    if (!mayBeMissing) return present;
    const kept = withoutNull(present);
    // an empty list default adds no item type to a list that may be there
    if (Array.isArray(key.value) && key.value.length === 0 && kept.kind === 'array') return kept;
    return union(kept, constantType(key.value));
  }
  const spec = key.value;
  const base = present === undefined ? [] : membersOf(withoutNull(present));
  const filled = base.map((m) => (m.kind === 'object' ? defaultsInto(m, spec) : m));
  if (mayBeMissing) filled.push(defaultsInto(emptyObject(), spec));
  return union(...filled);
}

// ───────────────────────────── remove ─────────────────────────────

/** Removr: the fields (and list items) the spec names are gone; objects stay open or closed. */
function removeFrom(t: PipeType, spec: Record<string, unknown>): PipeType {
  return union(
    ...membersOf(t).map((member) => {
      if (member.kind === 'object') return removeFields(member, spec);
      if (member.kind === 'array') return arrayOf(removeInItems(member.items, spec));
      return member;
    }),
  );
}

function removeFields(obj: Extract<PipeType, { kind: 'object' }>, spec: Record<string, unknown>): PipeType {
  const fields: Record<string, FieldType> = Object.assign(Object.create(null) as object, obj.fields);
  for (const raw of Object.keys(spec)) {
    const value = spec[raw];
    for (const key of splitOr(raw)) {
      const matcher = parseMatcher(key);
      const names = Object.keys(fields).filter((n) =>
        matcher.kind === 'literal' ? n === matcher.key : starMatches(matcher, n),
      );
      for (const name of names) {
        const field = fields[name] as FieldType;
        if (isPlainObject(value)) fields[name] = { type: removeFrom(field.type, value), required: field.required };
        else delete fields[name];
      }
    }
  }
  return { kind: 'object', fields, open: obj.open };
}

/** Items of a list under a remove spec: items named by index or `*` with children lose fields. */
function removeInItems(items: PipeType, spec: Record<string, unknown>): PipeType {
  const inner = Object.entries(spec).filter(([, v]) => isPlainObject(v));
  if (inner.length === 0) return items;
  return union(items, ...inner.map(([, v]) => removeFrom(items, v as Record<string, unknown>)));
}

// ───────────────────────────── cardinality ─────────────────────────────

/** CardinalityTransform: `spec` applied to a value of type `t` (`root`: the `@` key does not apply). */
function cardinalityOf(t: PipeType, spec: Record<string, unknown>, root: boolean): PipeType {
  let value = t;
  const at = Object.keys(spec).find((k) => k.includes('@'));
  if (at !== undefined && !root) value = reshape(value, spec[at]);
  const keys = Object.keys(spec).filter((k) => !k.includes('@'));
  const literals = keys.filter((k) => !k.includes('*'));
  const patterns = keys
    .filter((k) => k.includes('*'))
    .sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
  const apply = (type: PipeType, key: string): PipeType => {
    const rhs = spec[key];
    return isPlainObject(rhs) ? cardinalityOf(type, rhs, false) : reshape(type, rhs);
  };
  return union(
    ...membersOf(value).map((member): PipeType => {
      if (member.kind === 'object') {
        const fields: Record<string, FieldType> = Object.create(null) as Record<string, FieldType>;
        for (const [name, field] of Object.entries(member.fields)) {
          const key = literals.includes(name) ? name : patterns.find((p) => starMatches(parseStar(p), name));
          fields[name] = key === undefined ? field : { type: apply(field.type, key), required: field.required };
        }
        return { kind: 'object', fields, open: member.open };
      }
      if (member.kind === 'array') {
        const applied = keys.filter((k) => patterns.includes(k) || /^\d+$/.test(k)).map((k) => apply(member.items, k));
        return arrayOf(union(member.items, ...applied));
      }
      return member;
    }),
  );
}

function parseStar(key: string): Parameters<typeof starMatches>[0] {
  const matcher = parseMatcher(key);
  return matcher.kind === 'literal' ? { kind: 'star-all' } : matcher;
}

/** `"ONE"`: a list becomes its first item (null when empty); `"MANY"`: a value becomes a list. */
function reshape(t: PipeType, rhs: unknown): PipeType {
  if (rhs === 'ONE') return union(...membersOf(t).map((m) => (m.kind === 'array' ? union(m.items, NULL) : m)));
  if (rhs === 'MANY') {
    if (t.kind === 'unknown') return ARRAY_OF_UNKNOWN;
    const items = membersOf(t).flatMap((m) => (m.kind === 'array' ? [m.items] : m.kind === 'null' ? [] : [m]));
    return arrayOf(items.length === 0 ? UNKNOWN : union(...items));
  }
  return t;
}
