/**
 * The commonest update, `update(store, { _oId: v }, { $set: { … }, $unset: { … } })` with top-level
 * fields, recognised straight from the call's arguments: the one UPDATE statement that the general
 * path (prepareFilter → parseUpdate → topLevelWrites → idEquality → updateInPlace) would run, without
 * building its filter tree, update spec, parameter object and statement key on every call (those
 * were a fifth of the call's CPU time beside the statement itself).
 *
 * Recognising is all or nothing: whatever is not plainly of that kind (another filter, `$inc`, a
 * dotted or numeric path, `_oId` in the update, text that a check would refuse…) gives null and the
 * caller takes the general path, which validates and reports errors as before. The one check run
 * here is the same `assertJson` of the whole update that parseUpdate runs, with the same message.
 */
import { assertJson, isPlainObject } from '../json-safe.js';

/** `{ _oId: v }` with `$set`/`$unset` of top-level fields: what the UPDATE binds, and its shape. */
export interface IdWrite {
  /** The `id` column: String(v) (prepareDocuments stores String(_oId)). */
  readonly id: string;
  /** Whether v is a string: the row's `_oId` must be of v's JSON type (idEquality). */
  readonly idIsString: boolean;
  /** Each `$set` field's JSON path and value as JSON text, in the update's order: [path, json, path, json, …]. */
  readonly set: readonly string[];
  /** Each `$unset` field's JSON path, in the update's order (applied after every `$set`, as applyUpdate does). */
  readonly unset: readonly string[];
  /** What the statement text depends on: the id's type and the fields, in order. */
  readonly shape: string;
}

const ID_FIELD = '_oId';
/** A path segment parseFieldPath accepts (json-safe.ts), one segment: a top-level field. */
const TOP_LEVEL_FIELD = /^[A-Za-z0-9_$-]{1,512}$/;
/** A segment of digits is an array index to parseUpdate's paths (topLevelWrites refuses it). */
const INDEX = /^\d+$/;
/** Text that assertJson looks at more closely (NUL, surrogates): left to the general path. */
const SUSPECT_TEXT = /[\u0000\uD800-\uDFFF]/;

/** The `_oId` value a query selects by, or undefined: `{ _oId: v }` or `{ _oId: { $eq: v } }` alone. */
function queriedId(query: unknown): string | number | undefined {
  if (!isPlainObject(query)) return undefined;
  const keys = Object.keys(query);
  if (keys.length !== 1 || keys[0] !== ID_FIELD) return undefined;
  let value: unknown = query[ID_FIELD];
  if (isPlainObject(value)) {
    const ops = Object.keys(value);
    if (ops.length !== 1 || ops[0] !== '$eq') return undefined;
    value = value['$eq'];
  }
  if (typeof value === 'string') return SUSPECT_TEXT.test(value) ? undefined : value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  return undefined;
}

/** A field `$set`/`$unset` may name here: one path segment, not an index, not `_oId`. */
function isTopLevelField(field: string): boolean {
  return TOP_LEVEL_FIELD.test(field) && !INDEX.test(field) && field !== ID_FIELD;
}

/**
 * The write of `update(store, query, update)` when it is an update by `_oId` of top-level fields
 * (see the file's comment); null for anything else. Throws only what parseUpdate would throw for
 * the same update (its assertJson), and only once the query is known to be valid.
 */
export function idWriteOf(query: unknown, update: unknown): IdWrite | null {
  const value = queriedId(query);
  if (value === undefined || !isPlainObject(update)) return null;
  const operators = Object.keys(update);
  if (operators.length === 0) return null;
  assertJson(update, 'update', 'BAD_QUERY');
  // One pass, little made on the way: this runs on every such update (a path is sqliteJsonPath's).
  const set: string[] = [];
  const unset: string[] = [];
  // Fields cannot hold a space or a `|` (TOP_LEVEL_FIELD): the shape is unambiguous.
  let setFields = '';
  let unsetFields = '';
  for (const op of operators) {
    const isSet = op === '$set';
    if (!isSet && op !== '$unset') return null;
    const given = update[op];
    if (!isPlainObject(given)) return null;
    for (const field of Object.keys(given)) {
      if (!isTopLevelField(field)) return null;
      if (isSet) {
        set.push(`$."${field}"`, JSON.stringify(given[field]));
        setFields += ` ${field}`;
      } else {
        unset.push(`$."${field}"`);
        unsetFields += ` ${field}`;
      }
    }
  }
  if (set.length === 0 && unset.length === 0) return null;
  const idIsString = typeof value === 'string';
  return { id: String(value), idIsString, set, unset, shape: `${idIsString ? 's' : 'n'}${setFields} |${unsetFields}` };
}

/**
 * `next` (a JSONB expression) checked against the size limit `max`: a new document whose JSON (what
 * serializeDocument measures) is over it makes `pipec_document_too_large` (database.ts) throw the
 * 413, which undoes the statement. The JSON text of a JSONB value is at most 6 times its size (a
 * 1-byte `false` → `false,`): only a document that large is rendered to measure it (CASE stops at
 * the first WHEN that holds).
 */
export function checkedDocumentSql(next: string, max: string): string {
  return (
    `(SELECT CASE WHEN length(n.v) * 6 <= ${max} THEN n.v WHEN octet_length(json(n.v)) <= ${max} THEN n.v` +
    ` ELSE pipec_document_too_large(octet_length(json(n.v)), ${max}) END FROM (SELECT ${next} AS v) AS n)`
  );
}

/**
 * The UPDATE of an IdWrite's shape, with positional parameters in this order: each `$set` path and
 * JSON value, each `$unset` path, then the store, the time now and the id (idWriteArgs). `max` is
 * written as a literal: the store's validated integer limit, not input.
 */
export function idWriteSql(write: IdWrite, max: number): string {
  if (!Number.isSafeInteger(max)) throw new Error(`size limit not validated: ${max}`);
  let next = 'doc';
  if (write.set.length > 0)
    next = `jsonb_set(${next}, ${Array(write.set.length / 2)
      .fill('?, json(?)')
      .join(', ')})`;
  if (write.unset.length > 0) next = `jsonb_remove(${next}, ${write.unset.map(() => '?').join(', ')})`;
  const type = write.idIsString ? "= 'text'" : "IN ('integer','real')";
  return (
    `UPDATE pipec_documents AS d SET doc = ${checkedDocumentSql(next, String(max))}` +
    ` WHERE d.store = ? AND (d.expires_at IS NULL OR d.expires_at > ?) AND d.id = ? AND json_type(d.doc, '$."_oId"') ${type}`
  );
}

/** The values idWriteSql's statement binds, in its order. */
export function idWriteArgs(write: IdWrite, store: string, now: number): Array<string | number> {
  const args: Array<string | number> = write.unset.length === 0 ? write.set.slice() : write.set.concat(write.unset);
  args.push(store, now, write.id);
  return args;
}
