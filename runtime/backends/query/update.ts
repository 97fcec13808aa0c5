/**
 * Update documents: `$set`, `$unset`, `$inc`, or a whole-document replacement when no operator is
 * given. Parsed (and rejected with BAD_QUERY) before any row is touched, then applied in memory to a
 * copy of each matched document inside the backend's transaction. `_oId` is immutable.
 */
import type { Json, JsonObject } from '../../types.js';
import { assertJson, badQuery, cloneJson, getOwn, isPlainObject, parseFieldPath, setOwn } from '../json-safe.js';
import type { Filter } from './filter.js';

export type UpdateSpec =
  | { readonly kind: 'replace'; readonly document: JsonObject }
  | {
      readonly kind: 'operators';
      readonly set: ReadonlyArray<readonly [string[], Json]>;
      readonly unset: ReadonlyArray<string[]>;
      readonly inc: ReadonlyArray<readonly [string[], number]>;
    };

const ID_FIELD = '_oId';
const MAX_ARRAY_PAD = 10_000;

export function parseUpdate(update: unknown): UpdateSpec {
  if (!isPlainObject(update)) throw badQuery('an update must be a JSON object');
  assertJson(update, 'update', 'BAD_QUERY');
  const keys = Object.keys(update);
  const operators = keys.filter((k) => k.startsWith('$'));
  if (operators.length === 0) return { kind: 'replace', document: update };
  if (operators.length !== keys.length) throw badQuery('an update mixes operators ($set…) and plain fields');
  const set: Array<[string[], Json]> = [];
  const unset: string[][] = [];
  const inc: Array<[string[], number]> = [];
  for (const op of operators) {
    const fields = getOwn(update, op);
    if (!isPlainObject(fields)) throw badQuery(`${op} takes an object of field paths`);
    for (const field of Object.keys(fields)) {
      const path = parseFieldPath(field);
      if (path[0] === ID_FIELD) throw badQuery(`${op} cannot change the immutable field ${ID_FIELD}`);
      const value = getOwn(fields, field) as Json;
      if (op === '$set') set.push([path, value]);
      else if (op === '$unset') unset.push(path);
      else if (op === '$inc') {
        if (typeof value !== 'number') throw badQuery(`$inc takes numbers; ${field} is ${JSON.stringify(value)}`);
        inc.push([path, value]);
      } else throw badQuery(`unknown update operator ${op}`);
    }
  }
  return { kind: 'operators', set, unset, inc };
}

/** Returns the updated copy of `doc` (which keeps its `_oId`). */
export function applyUpdate(doc: JsonObject, update: UpdateSpec): JsonObject {
  const id = getOwn(doc, ID_FIELD);
  if (update.kind === 'replace') {
    const replacement = cloneJson(update.document);
    const givenId = getOwn(replacement, ID_FIELD);
    if (givenId !== undefined && id !== undefined && String(givenId) !== String(id)) {
      throw badQuery(`a replacement cannot change the immutable field ${ID_FIELD}`);
    }
    if (id !== undefined) setOwn(replacement, ID_FIELD, id);
    return replacement;
  }
  const out = cloneJson(doc);
  for (const [path, value] of update.set) setPath(out, path, cloneJson(value));
  for (const path of update.unset) unsetPath(out, path);
  for (const [path, amount] of update.inc) {
    const current = readPath(out, path);
    if (current !== undefined && typeof current !== 'number')
      throw badQuery(`$inc on non-numeric field ${path.join('.')}`);
    setPath(out, path, (current ?? 0) + amount);
  }
  return out;
}

/**
 * The writes of an update that a backend may run as one SQL statement over the stored document:
 * `$set` and `$unset` of top-level fields only (a field name, not an array index). Such a write
 * never fails on the document's shape (the document is an object), so its effect is the engine's
 * own set-member / remove-member, exactly what applyUpdate does: a member set in place or added
 * at the end, `$unset` after `$set`. Null for anything else (`$inc`, a dotted path, a replacement).
 */
export function topLevelWrites(
  update: UpdateSpec,
): { readonly set: ReadonlyArray<readonly [string, Json]>; readonly unset: readonly string[] } | null {
  if (update.kind !== 'operators' || update.inc.length > 0) return null;
  const topLevel = (path: readonly string[]): boolean => path.length === 1 && !/^\d+$/.test(path[0] as string);
  if (!update.set.every(([path]) => topLevel(path)) || !update.unset.every(topLevel)) return null;
  if (update.set.length === 0 && update.unset.length === 0) return null;
  return {
    set: update.set.map(([path, value]) => [path[0] as string, value] as const),
    unset: update.unset.map((path) => path[0] as string),
  };
}

/** The document an upsert starts from: the filter's plain equalities (`{a: 1}`, `$eq`, `$and`). */
export function upsertSeed(filter: Filter): JsonObject {
  const seed: JsonObject = {};
  const visit = (f: Filter): void => {
    if (f.kind === 'and') f.items.forEach(visit);
    else if (f.kind === 'field' && f.condition.op === 'eq') setPath(seed, [...f.path], cloneJson(f.condition.value));
  };
  visit(filter);
  return seed;
}

function readPath(doc: Json, path: readonly string[]): Json | undefined {
  let current: Json | undefined = doc;
  for (const segment of path) {
    if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)];
    else if (isPlainObject(current)) current = getOwn(current, segment);
    else return undefined;
  }
  return current;
}

/** Sets a dotted path, creating objects on the way; BAD_QUERY when a scalar is in the way. */
export function setPath(doc: JsonObject, path: readonly string[], value: Json): void {
  let container: JsonObject | Json[] = doc;
  path.forEach((segment, index) => {
    const last = index === path.length - 1;
    if (Array.isArray(container)) {
      if (!/^\d+$/.test(segment) || Number(segment) > MAX_ARRAY_PAD)
        throw badQuery(`cannot set ${path.join('.')}: ${segment} is not an array index`);
      const i = Number(segment);
      while (container.length < i) container.push(null);
      if (last) container[i] = value;
      else {
        const next: Json | undefined = container[i];
        if (next === undefined || next === null) container[i] = {};
        container = descend(container[i] as Json, path, segment);
      }
      return;
    }
    if (last) setOwn(container, segment, value);
    else {
      const next = getOwn(container, segment);
      if (next === undefined || next === null) setOwn(container, segment, {});
      container = descend(getOwn(container, segment) as Json, path, segment);
    }
  });
}

function descend(value: Json, path: readonly string[], segment: string): JsonObject | Json[] {
  if (Array.isArray(value) || isPlainObject(value)) return value;
  throw badQuery(`cannot set ${path.join('.')}: ${segment} holds a ${value === null ? 'null' : typeof value}`);
}

function unsetPath(doc: JsonObject, path: readonly string[]): void {
  let parent: Json | undefined = doc;
  path.forEach((segment, index) => {
    // As MongoDB: a field name cannot be applied to an array (only an index can).
    if (Array.isArray(parent) && !/^\d+$/.test(segment))
      throw badQuery(`cannot $unset ${path.join('.')}: ${segment} is applied to an array`);
    if (index < path.length - 1 && parent !== undefined) parent = readPath(parent, [segment]);
  });
  const last = path[path.length - 1] as string;
  if (isPlainObject(parent) && Object.prototype.hasOwnProperty.call(parent, last)) delete parent[last];
  else if (Array.isArray(parent) && /^\d+$/.test(last) && Number(last) < parent.length) parent[Number(last)] = null;
}
