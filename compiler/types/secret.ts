/**
 * Secrets as a property of types: a value read from an account carries a `SecretMark` on its type,
 * everything computed from it carries the mark on, and `DECLASSIFY(…)` takes it off. A value
 * "holds a secret" when its type or any part of it (a field, the elements, a union member) is
 * marked: `{{ message }}` holds the secret a json-generator put into `message.token`.
 *
 * Example: `secretIn(objectOf({ token: markSecret(STRING, { from: 'account.crm.token' }) }))`
 * is `{ from: 'account.crm.token' }`; `secretIn(declassified(that))` is undefined.
 */
import type { FieldType, PipeType, SecretMark } from './pipe-type.js';

/** Deep answers are remembered per type object: shapes are immutable and shared between steps. */
const found = new WeakMap<PipeType, SecretMark | null>();
/** Deeper than this the walk stops: it bounds the recursion whatever the shape. */
const MAX_DEPTH = 64;

/** The first secret the value of this type may hold (itself or any part), or undefined. */
export function secretIn(t: PipeType): SecretMark | undefined {
  return search(t, 0) ?? undefined;
}

function search(t: PipeType, depth: number): SecretMark | null {
  if (t.secret) return t.secret;
  if (depth > MAX_DEPTH) return null;
  const known = found.get(t);
  if (known !== undefined) return known;
  let mark: SecretMark | null = null;
  switch (t.kind) {
    case 'array':
      mark = search(t.items, depth + 1);
      break;
    case 'union':
      for (const member of t.members) if ((mark = search(member, depth + 1))) break;
      break;
    case 'object':
      for (const key of Object.keys(t.fields)) if ((mark = search((t.fields[key] as FieldType).type, depth + 1))) break;
      break;
    default:
      break;
  }
  found.set(t, mark);
  return mark;
}

/** The type with `mark` on it (the type itself when it already carries one). */
export function markSecret(t: PipeType, mark: SecretMark): PipeType {
  return t.secret ? t : { ...t, secret: mark };
}

/** The mark of the first of `types` that holds a secret, put on `result` (a value computed from them). */
export function secretFrom(result: PipeType, types: readonly PipeType[]): PipeType {
  for (const t of types) {
    const mark = secretIn(t);
    if (mark) return markSecret(result, mark);
  }
  return result;
}

/**
 * `result`, a merge of `types` (a union), still holding a secret when one of them did: merging
 * may drop a marked member (`unknown` absorbs all, strings merge), and then the result is marked.
 */
export function keepSecret(result: PipeType, types: readonly PipeType[]): PipeType {
  return secretIn(result) ? result : secretFrom(result, types);
}

/** The type with every mark removed, deep (what `DECLASSIFY(x)` gives). */
export function declassified(t: PipeType): PipeType {
  if (secretIn(t) === undefined) return t;
  const { secret: _dropped, ...rest } = t;
  const plain = rest as PipeType;
  switch (plain.kind) {
    case 'array':
      return { ...plain, items: declassified(plain.items) };
    case 'union':
      return { ...plain, members: plain.members.map(declassified) };
    case 'object': {
      const fields: Record<string, FieldType> = Object.create(null) as Record<string, FieldType>;
      for (const key of Object.keys(plain.fields)) {
        const field = plain.fields[key] as FieldType;
        fields[key] = { ...field, type: declassified(field.type) };
      }
      return { ...plain, fields };
    }
    default:
      return plain;
  }
}
