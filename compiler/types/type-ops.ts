/**
 * Operations on PipeType used by the Double Braces checker and by every phase that reasons about
 * message shapes: union (flattened, deduplicated), describe (prose for diagnostics),
 * fit (assignability with a "maybe" answer) and field lookup with did-you-mean candidates.
 * Pure functions over the immutable types of pipe-type.ts.
 */
import { arrayOf, NULL, UNKNOWN, type FieldType, type PipeType } from './pipe-type.js';
import { keepSecret, secretFrom } from './secret.js';

/** Structural equality of two types (field order ignored). */
export function sameType(a: PipeType, b: PipeType): boolean {
  if (a.kind !== b.kind || Boolean(a.secret) !== Boolean(b.secret)) return false;
  switch (a.kind) {
    case 'number':
      return Boolean(a.integer) === Boolean((b as typeof a).integer);
    case 'string': {
      const x = a.enum;
      const y = (b as typeof a).enum;
      if (!x || !y) return !x && !y;
      if (Boolean(a.declared) !== Boolean((b as typeof a).declared)) return false;
      return x.length === y.length && x.every((v) => y.includes(v));
    }
    case 'array':
      return sameType(a.items, (b as typeof a).items);
    case 'object': {
      const o = b as typeof a;
      const keys = Object.keys(a.fields);
      if (a.open !== o.open || keys.length !== Object.keys(o.fields).length) return false;
      return keys.every((k) => {
        const f = o.fields[k];
        const mine = a.fields[k] as FieldType;
        return f !== undefined && f.required === mine.required && sameType(f.type, mine.type);
      });
    }
    case 'union': {
      const o = b as typeof a;
      return a.members.length === o.members.length && a.members.every((m) => o.members.some((n) => sameType(m, n)));
    }
    default:
      return true;
  }
}

/**
 * Union of types: nested unions flattened, duplicates removed, `unknown` absorbs everything.
 * A secret among the types stays in the result (on the result itself when merging dropped it).
 */
export function union(...types: readonly PipeType[]): PipeType {
  return keepSecret(plainUnion(types), types);
}

function plainUnion(types: readonly PipeType[]): PipeType {
  const members: PipeType[] = [];
  const add = (t: PipeType): void => {
    if (t.kind === 'union') {
      t.members.forEach(add);
      return;
    }
    if (!members.some((m) => sameType(m, t))) members.push(t);
  };
  types.forEach(add);
  if (members.some((m) => m.kind === 'unknown')) return UNKNOWN;
  // `integer | number` is `number`; string enums merge.
  const merged = mergeScalars(members);
  if (merged.length === 0) return UNKNOWN;
  if (merged.length === 1) return merged[0] as PipeType;
  return { kind: 'union', members: merged };
}

function mergeScalars(members: readonly PipeType[]): PipeType[] {
  const hasPlainNumber = members.some((m) => m.kind === 'number' && !m.integer);
  const hasPlainString = members.some((m) => m.kind === 'string' && !m.enum);
  const enums = members.flatMap((m) => (m.kind === 'string' && m.enum ? m.enum : []));
  const secret = members.find((m) => m.kind === 'string' && m.secret)?.secret;
  const out: PipeType[] = [];
  let stringDone = false;
  for (const m of members) {
    if (m.kind === 'number' && m.integer && hasPlainNumber) continue;
    if (m.kind === 'string') {
      if (stringDone) continue;
      stringDone = true;
      // A list some of whose strings only a literal gave is not a declared list.
      const declared = members.every((n) => n.kind !== 'string' || n.declared === true);
      const merged: PipeType = hasPlainString
        ? { kind: 'string' }
        : { kind: 'string', enum: [...new Set(enums)], ...(declared ? { declared } : {}) };
      out.push(secret ? { ...merged, secret } : merged);
      continue;
    }
    out.push(m);
  }
  return out;
}

/** The type without `null` members (what a value is once it is known to be present). */
export function withoutNull(t: PipeType): PipeType {
  if (t.kind !== 'union') return t;
  const present = union(...t.members.filter((m) => m.kind !== 'null'));
  return t.secret ? secretFrom(present, [t]) : present;
}

export function isNullable(t: PipeType): boolean {
  return t.kind === 'null' || t.kind === 'unknown' || (t.kind === 'union' && t.members.some(isNullable));
}

const MAX_DESCRIBED_FIELDS = 4;

/**
 * Short prose for a type, for diagnostics: `string`, `integer`, `"A" | "B"`, `array of number`,
 * `object { total, title, … }`, `string or null`.
 */
export function describeType(t: PipeType): string {
  switch (t.kind) {
    case 'unknown':
      return 'any JSON value';
    case 'null':
      return 'null';
    case 'boolean':
      return 'boolean';
    case 'number':
      return t.integer ? 'integer' : 'number';
    case 'string':
      return t.enum && t.enum.length > 0 && t.enum.length <= 6
        ? t.enum.map((v) => JSON.stringify(v)).join(' | ')
        : 'string';
    case 'array':
      return `array of ${describeType(t.items).replace(/ or /g, ' | ')}`;
    case 'object': {
      const keys = Object.keys(t.fields).sort();
      if (keys.length === 0) return 'object';
      const shown = keys.slice(0, MAX_DESCRIBED_FIELDS).join(', ');
      return `object { ${shown}${keys.length > MAX_DESCRIBED_FIELDS || t.open ? ', …' : ''} }`;
    }
    case 'union':
      return t.members.map(describeType).join(' or ');
  }
}

export type Fit = 'yes' | 'maybe' | 'no';

/**
 * Whether a value of type `actual` can be used where `expected` is required. `maybe` when only
 * some values fit (a `number` where an `integer` is expected, `string or null`); `no` when none can.
 */
export function fits(actual: PipeType, expected: PipeType): Fit {
  if (actual.kind === 'unknown' || expected.kind === 'unknown') return 'yes';
  if (expected.kind === 'union') {
    const answers = expected.members.map((m) => fits(actual, m));
    return answers.includes('yes') ? 'yes' : answers.includes('maybe') ? 'maybe' : 'no';
  }
  if (actual.kind === 'union') {
    const answers = actual.members.map((m) => fits(m, expected));
    if (answers.every((a) => a === 'yes')) return 'yes';
    return answers.every((a) => a === 'no') ? 'no' : 'maybe';
  }
  if (actual.kind !== expected.kind) return 'no';
  switch (expected.kind) {
    case 'number':
      return expected.integer && !(actual as typeof expected).integer ? 'maybe' : 'yes';
    case 'string': {
      const want = expected.enum;
      const have = (actual as typeof expected).enum;
      if (!want) return 'yes';
      if (!have) return 'maybe';
      if (have.every((v) => want.includes(v))) return 'yes';
      return have.some((v) => want.includes(v)) ? 'maybe' : 'no';
    }
    case 'array': {
      return fits((actual as typeof expected).items, expected.items);
    }
    default:
      return 'yes';
  }
}

export type FieldLookup =
  | { readonly kind: 'found'; readonly type: PipeType }
  | { readonly kind: 'missing'; readonly candidates: readonly string[] }
  | { readonly kind: 'not-object'; readonly type: PipeType };

/**
 * The type of `t.name`. Open objects and `unknown` allow any field; a closed object without the
 * field is `missing` (with its field names as candidates); optional fields may be null.
 */
export function lookupField(t: PipeType, name: string): FieldLookup {
  switch (t.kind) {
    case 'unknown':
      return { kind: 'found', type: UNKNOWN };
    case 'null':
      return { kind: 'found', type: NULL };
    case 'object': {
      const field = Object.prototype.hasOwnProperty.call(t.fields, name) ? t.fields[name] : undefined;
      // A part of a secret is a secret.
      if (field) {
        const type = field.required ? field.type : union(field.type, NULL);
        return { kind: 'found', type: t.secret ? secretFrom(type, [t]) : type };
      }
      if (t.open) return { kind: 'found', type: t.secret ? secretFrom(UNKNOWN, [t]) : UNKNOWN };
      return { kind: 'missing', candidates: Object.keys(t.fields).sort() };
    }
    case 'union': {
      const found: PipeType[] = [];
      const candidates: string[] = [];
      let anyObject = false;
      for (const member of t.members) {
        if (member.kind === 'null') {
          found.push(NULL);
          continue;
        }
        const r = lookupField(member, name);
        if (r.kind === 'found') {
          anyObject = true;
          found.push(r.type);
        } else if (r.kind === 'missing') {
          anyObject = true;
          candidates.push(...r.candidates);
        }
      }
      if (found.some((f) => f.kind !== 'null'))
        return { kind: 'found', type: t.secret ? secretFrom(union(...found), [t]) : union(...found) };
      if (anyObject) return { kind: 'missing', candidates: [...new Set(candidates)].sort() };
      // Only null and values without fields (a string, a number…): the read is null whether the
      // value is there or not, so it is no read of an optional field but a path gone too far.
      const present = t.members.some((m) => m.kind !== 'null');
      return found.length > 0 && !present ? { kind: 'found', type: NULL } : { kind: 'not-object', type: t };
    }
    default:
      return { kind: 'not-object', type: t };
  }
}

/** The element type of an indexed value: array items (or null when out of range); unknown otherwise. */
export function elementType(t: PipeType): PipeType | undefined {
  switch (t.kind) {
    case 'unknown':
      return UNKNOWN;
    case 'null':
      return NULL;
    case 'array':
      return t.secret ? secretFrom(union(t.items, NULL), [t]) : union(t.items, NULL);
    case 'union': {
      const parts = t.members.map(elementType).filter((p): p is PipeType => p !== undefined);
      if (parts.length === 0) return undefined;
      return t.secret ? secretFrom(union(...parts), [t]) : union(...parts);
    }
    default:
      return undefined;
  }
}

/** The exact type of a JSON literal (objects closed, string literals as one-value enums). */
export function typeOfValue(value: unknown): PipeType {
  if (value === null || value === undefined) return NULL;
  if (typeof value === 'boolean') return { kind: 'boolean' };
  if (typeof value === 'number')
    return Number.isInteger(value) ? { kind: 'number', integer: true } : { kind: 'number' };
  if (typeof value === 'string') return { kind: 'string', enum: [value] };
  if (Array.isArray(value))
    return { kind: 'array', items: value.length === 0 ? UNKNOWN : union(...value.map(typeOfValue)) };
  const fields: Record<string, FieldType> = Object.create(null) as Record<string, FieldType>;
  for (const [k, v] of Object.entries(value as Record<string, unknown>))
    fields[k] = { type: typeOfValue(v), required: true };
  return { kind: 'object', fields, open: false };
}

/** Forgets literal enums (`"a"` → string): the type of a value that may change at run time. */
export function widen(t: PipeType): PipeType {
  if (t.kind === 'string' && t.enum) return t.secret ? { kind: 'string', secret: t.secret } : { kind: 'string' };
  if (t.kind === 'union') return union(...t.members.map(widen));
  return t;
}

/**
 * What a value of type `actual` is once it passed a schema of type `schema` (a `validate`): the
 * schema's shape, narrowed by what was already known. An object keeps the fields both may hold
 * (a field of a closed side cannot be there), each narrowed the same way, and is closed when
 * either side is; a field is required when either side requires it. Secrets stay marked.
 */
export function narrowBySchema(actual: PipeType, schema: PipeType): PipeType {
  if (schema.kind === 'unknown') return actual;
  if (actual.kind === 'unknown') return schema;
  // An array's elements are narrowed as the value is (an upload's closed file entries stay closed).
  if (actual.kind === 'array' && schema.kind === 'array')
    return keepSecret(arrayOf(narrowBySchema(actual.items, schema.items)), [actual]);
  if (actual.kind !== 'object' || schema.kind !== 'object') return keepSecret(schema, [actual]);
  const fields: Record<string, FieldType> = {};
  const keys = new Set([...Object.keys(actual.fields), ...Object.keys(schema.fields)]);
  for (const key of keys) {
    const a = Object.hasOwn(actual.fields, key) ? actual.fields[key] : undefined;
    const s = Object.hasOwn(schema.fields, key) ? schema.fields[key] : undefined;
    if (a && s) {
      const field = { type: narrowBySchema(a.type, s.type), required: a.required || s.required };
      Object.defineProperty(fields, key, { value: field, enumerable: true });
    } else if ((a && schema.open) || (s && actual.open)) {
      Object.defineProperty(fields, key, { value: (a ?? s) as FieldType, enumerable: true });
    }
  }
  const open = actual.open && schema.open;
  const freeNames = open && (actual.freeNames === true || schema.freeNames === true);
  return keepSecret({ kind: 'object', fields, open, ...(freeNames ? { freeNames } : {}) }, [actual]);
}
