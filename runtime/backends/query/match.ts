/**
 * In-memory evaluation of a parsed filter (filter.ts) with Mongo semantics: implicit equality matches
 * array elements, comparisons are type-bracketed (numbers with numbers, strings with strings),
 * `{ f: null }` matches missing fields. Used by aggregate stages after the first `$match` and as the
 * reference the SQL translations are tested against.
 */
import type { Json } from '../../types.js';
import { getOwn, getPath, isPlainObject } from '../json-safe.js';
import type { FieldCondition, Filter, Scalar } from './filter.js';
import type { RegexTester } from './regex.js';

export function matchesFilter(doc: Json, filter: Filter, regex: RegexTester): boolean {
  switch (filter.kind) {
    case 'and':
      return filter.items.every((f) => matchesFilter(doc, f, regex));
    case 'or':
      return filter.items.some((f) => matchesFilter(doc, f, regex));
    case 'nor':
      return !filter.items.some((f) => matchesFilter(doc, f, regex));
    case 'field':
      return matchesCondition(getPath(doc, filter.path), filter.condition, regex);
  }
}

function matchesCondition(value: Json | undefined, condition: FieldCondition, regex: RegexTester): boolean {
  switch (condition.op) {
    case 'eq':
      return anyCandidate(value, (v) => (condition.value === null ? v === null : jsonEquals(v, condition.value))) ||
        (condition.value === null && value === undefined);
    case 'in':
      return condition.values.some((q) => matchesCondition(value, { op: 'eq', value: q }, regex));
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return matchesRange(value, condition.op, condition.value, regex);
    case 'exists':
      return (value !== undefined) === condition.value;
    case 'regex':
      return anyCandidate(value, (v) => typeof v === 'string' && regex.test(condition.pattern, condition.flags, v));
    case 'not':
      return !matchesCondition(value, condition.condition, regex);
    case 'all':
      return condition.conditions.every((c) => matchesCondition(value, c, regex));
  }
}

function matchesRange(value: Json | undefined, op: 'gt' | 'gte' | 'lt' | 'lte', bound: Scalar, regex: RegexTester): boolean {
  if (bound === null) return op === 'gte' || op === 'lte' ? matchesCondition(value, { op: 'eq', value: null }, regex) : false;
  return anyCandidate(value, (v) => {
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

/** The value itself and, for arrays, each element (Mongo's implicit array traversal, one level). */
function anyCandidate(value: Json | undefined, test: (v: Json) => boolean): boolean {
  if (value === undefined) return false;
  if (test(value)) return true;
  return Array.isArray(value) && value.some(test);
}

/** Structural equality; object key order is ignored (as PostgreSQL jsonb equality does). */
export function jsonEquals(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEquals(x, b[i] as Json));
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
