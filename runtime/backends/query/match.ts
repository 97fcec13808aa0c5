/**
 * In-memory evaluation of a parsed filter (filter.ts) with Mongo semantics, the reference the SQL
 * translations (filter-sql.ts) are tested against. A path reaches a set of values (`pathValues`):
 * objects descend by key; an array met before the last segment applies the rest of the path to
 * each of its object elements (a numeric segment indexes it instead); a value reached that is an
 * array is also tested element by element. Comparisons are type-bracketed (numbers with numbers,
 * strings with strings). `{ f: null }` matches a null, a path that reaches nothing, and an object
 * element that lacks the rest of the path; `$exists` asks whether the path reaches any value.
 * Used by aggregate stages after the first `$match`.
 */
import type { Json } from '../../types.js';
import type { PipeError } from '../../errors.js';
import { badQuery, getOwn, isPlainObject } from '../json-safe.js';
import type { FieldCondition, Filter, Scalar } from './filter.js';
import type { RegexTester } from './regex.js';

/** One value a path reaches; `undefined` = missing (on the way, or in one array element). */
type Reached = Json | undefined;

export function matchesFilter(doc: Json, filter: Filter, regex: RegexTester): boolean {
  switch (filter.kind) {
    case 'and':
      return filter.items.every((f) => matchesFilter(doc, f, regex));
    case 'or':
      return filter.items.some((f) => matchesFilter(doc, f, regex));
    case 'nor':
      return !filter.items.some((f) => matchesFilter(doc, f, regex));
    case 'field':
      return matchesCondition(pathValues(doc, filter.path), filter.condition, regex);
  }
}

const INDEX = /^\d+$/;

/** The values `path` reaches from `value` (Mongo's path traversal through arrays); never empty. */
export function pathValues(value: Reached, path: readonly string[], from = 0): Reached[] {
  if (from === path.length) return [value];
  const segment = path[from] as string;
  if (Array.isArray(value)) {
    if (INDEX.test(segment)) return pathValues(value[Number(segment)], path, from + 1);
    const objects = value.filter(isPlainObject);
    return objects.length === 0 ? [undefined] : objects.flatMap((element) => pathValues(element, path, from));
  }
  if (isPlainObject(value)) return pathValues(getOwn(value, segment), path, from + 1);
  return [undefined];
}

function matchesCondition(reached: readonly Reached[], condition: FieldCondition, regex: RegexTester): boolean {
  switch (condition.op) {
    case 'eq':
      return equalsAny(reached, [condition.value]);
    case 'in':
      return equalsAny(reached, condition.values);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return matchesRange(reached, condition.op, condition.value);
    case 'exists':
      return reached.some((v) => v !== undefined) === condition.value;
    case 'size':
      return reached.some((v) => Array.isArray(v) && v.length === condition.length);
    case 'regex':
      return anyValue(reached, (v) => typeof v === 'string' && regex.test(condition.pattern, condition.flags, v));
    case 'not':
      return !matchesCondition(reached, condition.condition, regex);
    case 'all':
      return condition.conditions.every((c) => matchesCondition(reached, c, regex));
  }
}

/** Equality with any of `values`; null also matches what is missing. */
function equalsAny(reached: readonly Reached[], values: readonly Json[]): boolean {
  if (values.includes(null) && reached.some((v) => v === undefined)) return true;
  return anyValue(reached, (v) => values.some((q) => (q === null ? v === null : jsonEquals(v, q))));
}

function matchesRange(reached: readonly Reached[], op: 'gt' | 'gte' | 'lt' | 'lte', bound: Scalar): boolean {
  if (bound === null) return op === 'gte' || op === 'lte' ? equalsAny(reached, [null]) : false;
  return anyValue(reached, (v) => {
    if (typeof v !== typeof bound || v === null) return false;
    const a = v as number | string | boolean;
    switch (op) {
      case 'gt':
        return a > bound;
      case 'gte':
        return a >= bound;
      case 'lt':
        return a < bound;
      case 'lte':
        return a <= bound;
    }
  });
}

/** Some value reached, or an element of a reached array, passes `test`. */
function anyValue(reached: readonly Reached[], test: (v: Json) => boolean): boolean {
  return reached.some((value) => value !== undefined && (test(value) || (Array.isArray(value) && value.some(test))));
}

/**
 * Whether `path` meets an array in `doc` before a non-numeric segment, or (with `orValue`) as its
 * value. Sorting and `$project` field paths refuse those rather than guess (see README.md).
 */
export function pathMeetsArray(doc: Json, path: readonly string[], orValue = true): boolean {
  let current: Json | undefined = doc;
  for (const segment of path) {
    if (Array.isArray(current)) {
      if (!INDEX.test(segment)) return true;
      current = current[Number(segment)];
    } else if (isPlainObject(current)) current = getOwn(current, segment);
    else return false;
  }
  return orValue && Array.isArray(current);
}

/** Mongo orders a document by the smallest (largest) element of an array sort key; the stores refuse instead. */
export function sortThroughArray(): PipeError {
  return badQuery(
    'cannot sort by a field that is, or is reached through, an array (MongoDB would sort by its smallest or largest element)',
  );
}

/** Structural equality; object key order is ignored (as PostgreSQL jsonb equality does). */
export function jsonEquals(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEquals(x, b[i] as Json));
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => {
      const bv = getOwn(b, k);
      return bv !== undefined && jsonEquals(a[k] as Json, bv);
    });
  }
  return false;
}

/** Mongo's cross-type sort order: null/missing < numbers < strings < objects < arrays < booleans. */
export function compareJson(a: Json | undefined, b: Json | undefined): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const sa = JSON.stringify(a ?? null);
  const sb = JSON.stringify(b ?? null);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

function typeRank(v: Json | undefined): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return 1;
  if (typeof v === 'string') return 2;
  if (Array.isArray(v)) return 4;
  if (typeof v === 'boolean') return 5;
  return 3;
}
