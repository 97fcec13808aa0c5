/**
 * Mongo-style filter documents → a validated filter tree. The SQL translators (filter-sql.ts) and the
 * in-memory matcher (match.ts) consume only this tree, so an unknown operator (`$where`, `$function`,
 * a typo) or a malformed path is rejected here with PipeError 400 BAD_QUERY before anything runs.
 */
import type { Json, JsonObject } from '../../types.js';
import { badQuery, getOwn, isPlainObject, parseFieldPath } from '../json-safe.js';

export type Scalar = number | string | boolean | null;

export type FieldCondition =
  | { readonly op: 'eq'; readonly value: Json }
  | { readonly op: 'gt' | 'gte' | 'lt' | 'lte'; readonly value: Scalar }
  | { readonly op: 'in'; readonly values: readonly Json[] }
  | { readonly op: 'exists'; readonly value: boolean }
  | { readonly op: 'size'; readonly length: number }
  | { readonly op: 'regex'; readonly pattern: string; readonly flags: RegexFlags }
  | { readonly op: 'not'; readonly condition: FieldCondition }
  | { readonly op: 'all'; readonly conditions: readonly FieldCondition[] };

/** Subset of i, m, s in that order. */
export type RegexFlags = string;

export type Filter =
  | { readonly kind: 'and' | 'or' | 'nor'; readonly items: readonly Filter[] }
  | { readonly kind: 'field'; readonly path: readonly string[]; readonly condition: FieldCondition };

/** Operators that join queries (`{ $or: [ … ] }`). */
export const LOGICAL_OPERATORS: readonly string[] = ['$and', '$or', '$nor'];
/** Operators of a field's condition (`{ total: { $gte: 100 } }`); the parser below takes exactly these. */
export const FIELD_OPERATORS: readonly string[] = [
  '$eq',
  '$ne',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$in',
  '$nin',
  '$exists',
  '$size',
  '$regex',
  '$options',
  '$not',
];

const MAX_IN_VALUES = 1000;
const MAX_FILTER_NODES = 2000;
const MAX_FILTER_DEPTH = 32;

/** Parses a whole filter document. `{}` → an empty `and` (matches everything). */
export function parseFilter(query: unknown): Filter {
  if (!isPlainObject(query)) throw badQuery('a query must be a JSON object');
  const budget = { nodes: 0 };
  return parseFilterObject(query, 0, budget);
}

function parseFilterObject(query: JsonObject, depth: number, budget: { nodes: number }): Filter {
  if (depth > MAX_FILTER_DEPTH) throw badQuery(`query nested deeper than ${MAX_FILTER_DEPTH} levels`);
  const items: Filter[] = [];
  for (const key of Object.keys(query)) {
    if ((budget.nodes += 1) > MAX_FILTER_NODES) throw badQuery(`query has more than ${MAX_FILTER_NODES} conditions`);
    const value = getOwn(query, key) as Json;
    if (LOGICAL_OPERATORS.includes(key)) {
      if (!Array.isArray(value) || value.length === 0) throw badQuery(`${key} takes a non-empty array of queries`);
      const kind = key === '$and' ? 'and' : key === '$or' ? 'or' : 'nor';
      items.push({
        kind,
        items: value.map((item) => {
          if (!isPlainObject(item)) throw badQuery(`${key} takes an array of query objects`);
          return parseFilterObject(item, depth + 1, budget);
        }),
      });
    } else if (key.startsWith('$')) {
      throw badQuery(`unknown query operator ${key}`);
    } else {
      items.push({ kind: 'field', path: parseFieldPath(key), condition: parseFieldValue(value, depth + 1) });
    }
  }
  return items.length === 1 && items[0] !== undefined ? items[0] : { kind: 'and', items };
}

/** The value beside a field: an operator object, or an implicit equality. */
function parseFieldValue(value: Json, depth: number): FieldCondition {
  if (!isPlainObject(value)) return { op: 'eq', value };
  const keys = Object.keys(value);
  const operatorKeys = keys.filter((k) => k.startsWith('$'));
  if (operatorKeys.length === 0) return { op: 'eq', value };
  if (operatorKeys.length !== keys.length) {
    throw badQuery(
      `cannot mix operators and fields in one condition: ${keys.map((k) => JSON.stringify(k)).join(', ')}`,
    );
  }
  return parseOperatorObject(value, depth);
}

function parseOperatorObject(ops: JsonObject, depth: number): FieldCondition {
  if (depth > MAX_FILTER_DEPTH) throw badQuery(`query nested deeper than ${MAX_FILTER_DEPTH} levels`);
  const conditions: FieldCondition[] = [];
  const options = getOwn(ops, '$options');
  if (options !== undefined && getOwn(ops, '$regex') === undefined) throw badQuery('$options needs $regex');
  for (const key of Object.keys(ops)) {
    const operand = getOwn(ops, key) as Json;
    switch (key) {
      case '$eq':
        conditions.push({ op: 'eq', value: operand });
        break;
      case '$ne':
        conditions.push({ op: 'not', condition: { op: 'eq', value: operand } });
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        conditions.push({ op: key.slice(1) as 'gt' | 'gte' | 'lt' | 'lte', value: rangeOperand(key, operand) });
        break;
      case '$in':
      case '$nin': {
        const values = inOperand(key, operand);
        conditions.push(key === '$in' ? { op: 'in', values } : { op: 'not', condition: { op: 'in', values } });
        break;
      }
      case '$exists':
        if (typeof operand !== 'boolean' && operand !== 0 && operand !== 1)
          throw badQuery('$exists takes true or false');
        conditions.push({ op: 'exists', value: operand === true || operand === 1 });
        break;
      case '$size':
        if (typeof operand !== 'number' || !Number.isInteger(operand) || operand < 0)
          throw badQuery('$size takes a non-negative integer');
        conditions.push({ op: 'size', length: operand });
        break;
      case '$regex':
        conditions.push(regexCondition(operand, options));
        break;
      case '$options':
        break;
      case '$not':
        if (
          !isPlainObject(operand) ||
          Object.keys(operand).length === 0 ||
          !Object.keys(operand).every((k) => k.startsWith('$'))
        ) {
          throw badQuery('$not takes an operator object such as { $gt: 5 }');
        }
        conditions.push({ op: 'not', condition: parseOperatorObject(operand, depth + 1) });
        break;
      default:
        throw badQuery(`unknown query operator ${key}`);
    }
  }
  return conditions.length === 1 && conditions[0] !== undefined ? conditions[0] : { op: 'all', conditions };
}

function rangeOperand(op: string, operand: Json): Scalar {
  if (operand === null || typeof operand === 'number' || typeof operand === 'string' || typeof operand === 'boolean')
    return operand;
  throw badQuery(`${op} takes a number, string, boolean or null`);
}

function inOperand(op: string, operand: Json): Json[] {
  if (!Array.isArray(operand)) throw badQuery(`${op} takes an array`);
  if (operand.length > MAX_IN_VALUES) throw badQuery(`${op} takes at most ${MAX_IN_VALUES} values`);
  return operand;
}

function regexCondition(pattern: Json, options: Json | undefined): FieldCondition {
  if (typeof pattern !== 'string') throw badQuery('$regex takes a string pattern');
  if (pattern.length > 1000) throw badQuery('$regex pattern longer than 1000 characters');
  if (options !== undefined && typeof options !== 'string') throw badQuery('$options takes a string such as "i"');
  const given = options ?? '';
  for (const flag of given)
    if (!'ims'.includes(flag)) throw badQuery(`unsupported $regex option ${JSON.stringify(flag)} (use i, m, s)`);
  const flags = ['i', 'm', 's'].filter((f) => given.includes(f)).join('');
  return { op: 'regex', pattern, flags };
}
