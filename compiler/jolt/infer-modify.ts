/**
 * The output shape of the modify operations (modify.ts): the spec mirrors the input; a leaf
 * computes a value and writes it where the mode allows (0 overwrite, 1 default over null or absent,
 * 2 define only when absent). A value's type is known for literals and for the functions of
 * infer-values.ts; a function that may give nothing leaves the old value, so the old type joins.
 * Lists are left as lists of `unknown` when the spec writes into them by index.
 */
import { isPlainObject, splitOr } from './emit.js';
import { isStar, parseKey, starMatches, type PathElement } from './keys.js';
import { ARRAY_OF_UNKNOWN, callResult, emptyObject, type CallResult } from './infer-values.js';
import { fieldOf, membersOf } from './shape-read.js';
import { NULL, STRING, UNKNOWN, type FieldType, type PipeType } from '../types/pipe-type.js';
import { union } from '../types/type-ops.js';
import { constantType } from '../types/output-shape.js';
import { modifyKey, type ModifyMode } from './modify.js';

interface Child {
  readonly pe: PathElement;
  readonly mode: ModifyMode;
  /** `key?`: only when the key is in the input. */
  readonly onlyIfPresent: boolean;
  readonly rhs: unknown;
  readonly composite: boolean;
}

/** The output of a modify spec in `mode` on an input of type `input` (null input stays null). */
export function inferModify(spec: unknown, input: PipeType, mode: ModifyMode): PipeType {
  if (!isPlainObject(spec)) return UNKNOWN;
  return modifyValue(input, childrenOf(spec, mode));
}

function childrenOf(spec: Record<string, unknown>, parentMode: ModifyMode): Child[] {
  const children: Child[] = [];
  for (const raw of Object.keys(spec)) {
    for (const written of splitOr(raw)) {
      const { key, mode, onlyIfPresent } = modifyKey(written, parentMode);
      const rhs = spec[raw];
      children.push({
        pe: parseKey(key),
        mode,
        onlyIfPresent,
        rhs,
        composite: isPlainObject(rhs) && Object.keys(rhs).length > 0,
      });
    }
  }
  return children;
}

/** The children applied to a value of type `t` (maps get their keys; lists written by index become unknown lists). */
function modifyValue(t: PipeType, children: readonly Child[]): PipeType {
  const byIndex = children.some((c) => c.pe.kind === 'array');
  const byName = children.some((c) => c.pe.kind !== 'array' && c.pe.kind !== 'star-all');
  return union(
    ...membersOf(t).map((member) => {
      if (member.kind === 'object') return byIndex ? member : modifyObject(member, children);
      if (member.kind === 'array') return byName ? member : ARRAY_OF_UNKNOWN;
      return member;
    }),
  );
}

function modifyObject(obj: Extract<PipeType, { kind: 'object' }>, children: readonly Child[]): PipeType {
  const fields: Record<string, FieldType> = Object.assign(Object.create(null) as object, obj.fields);
  const literals = children.filter((c) => c.pe.kind === 'literal');
  const stars = children.filter((c) => isStar(c.pe));
  for (const child of literals) {
    const name = (child.pe as { key: string }).key;
    const field = fieldOf({ ...obj, fields }, name);
    const updated = modifyField(field === 'missing' ? undefined : field, child);
    if (updated !== undefined) fields[name] = updated;
  }
  // `*` keys see every key there is after the literal keys ran (the first matching pattern wins)
  for (const name of Object.keys(fields)) {
    const child = stars.find((c) => isStar(c.pe) && starMatches(c.pe, name));
    if (child === undefined) continue;
    const field = fields[name] as FieldType;
    fields[name] = modifyField({ type: field.type, required: field.required }, child, true) ?? field;
  }
  return { kind: 'object', fields, open: obj.open };
}

/**
 * A field after `child` ran on it (`field` undefined: absent from the shape; `present`: the key is
 * known to be there when the child runs). Undefined when the field stays absent.
 */
function modifyField(field: FieldType | undefined, child: Child, present = false): FieldType | undefined {
  const required = field?.required === true || present;
  if (child.composite) {
    const spec = child.rhs as Record<string, unknown>;
    const children = childrenOf(spec, child.mode);
    const members = field === undefined ? [] : membersOf(field.type);
    // a null or absent value becomes a new container (when the mode allows), then gets the children
    const created = children.some((c) => c.pe.kind === 'array')
      ? ARRAY_OF_UNKNOWN
      : modifyValue(emptyObject(), children);
    const values = members.map((m) => (m.kind === 'null' ? union(NULL, created) : modifyValue(m, children)));
    if (!required) values.push(created);
    return { type: union(...values), required };
  }
  if (child.onlyIfPresent && !required && field === undefined) return undefined;
  // a function of the key's own value gets no argument (and gives nothing) when the key is absent
  const own = field === undefined ? undefined : required ? field.type : union(field.type, NULL);
  const result = valueOf(child.rhs, own);
  const old = field?.type;
  const keepsOld = child.mode !== 0 || result.mayGiveNothing;
  const type = old !== undefined && keepsOld ? union(old, result.type) : result.type;
  const surelyWritten = !result.mayGiveNothing && !child.onlyIfPresent;
  return { type, required: required || surelyWritten };
}

/** The value a leaf's right-hand side computes from the value at its key (`own`). */
function valueOf(rhs: unknown, own: PipeType | undefined): CallResult {
  if (Array.isArray(rhs) && rhs.length > 0) {
    const each = rhs.map((r) => valueOf(r, own));
    return { type: union(...each.map((e) => e.type)), mayGiveNothing: each.every((e) => e.mayGiveNothing) };
  }
  if (typeof rhs !== 'string') return { type: constantType(rhs), mayGiveNothing: false };
  if (rhs.startsWith('@') || rhs.startsWith('^')) return { type: UNKNOWN, mayGiveNothing: true };
  if (!rhs.startsWith('=')) return { type: STRING, mayGiveNothing: false };
  const text = rhs.slice(1);
  const open = text.indexOf('(');
  if (open < 0) return callResult(text, own);
  const args = text.slice(open + 1, -1).trim();
  // one literal or read argument: its type is only known for quoted text and numbers
  return callResult(text.slice(0, open), args.includes(',') ? UNKNOWN : argumentType(args));
}

function argumentType(arg: string): PipeType {
  if (arg.length >= 2 && arg.startsWith("'") && arg.endsWith("'")) return STRING;
  if (/^-?\d+(\.\d+)?$/.test(arg)) return constantType(Number(arg));
  return UNKNOWN;
}
