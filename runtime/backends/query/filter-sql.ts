/**
 * Parsed filters and sorts (filter.ts) → SQL WHERE / ORDER BY text for SQLite JSON1 or PostgreSQL JSONB.
 * Every value and every JSON path is a bound parameter created through `ParamSink.bind`; the only
 * text spliced into SQL is fixed syntax chosen here. Documents live in column `d.doc`.
 *
 * Semantics follow Mongo: a condition on a field holds when the value itself or (for arrays) any
 * element satisfies it; comparisons are type-bracketed; `{ f: null }` also matches a missing field.
 * Every generated predicate is NULL-free (wrapped in COALESCE) so NOT / $ne / $nin are exact.
 */
import type { Json } from '../../types.js';
import type { FieldCondition, Filter, Scalar } from './filter.js';

export type Dialect = 'sqlite' | 'postgres';

/** Collects bound values; returns the placeholder text for one value. */
export interface ParamSink {
  bind(value: string | number | null | readonly string[]): string;
}

/** SQLite named parameters (`@p0`), bound as one object. */
export function sqliteParams(): ParamSink & { readonly values: Record<string, string | number | null> } {
  const values: Record<string, string | number | null> = Object.create(null) as Record<string, string | number | null>;
  let next = 0;
  return {
    values,
    bind(value) {
      const name = `p${next++}`;
      values[name] = Array.isArray(value) ? JSON.stringify(value) : (value as string | number | null);
      return `@${name}`;
    },
  };
}

/** PostgreSQL positional parameters (`$1`). */
export function postgresParams(): ParamSink & { readonly values: unknown[] } {
  const values: unknown[] = [];
  return {
    values,
    bind(value) {
      values.push(value);
      return `$${values.length}`;
    },
  };
}

/** `a.b.0` → SQLite JSON path `$."a"."b"[0]` (segments are pre-validated: no quotes). */
export function sqliteJsonPath(path: readonly string[]): string {
  return '$' + path.map((s) => (/^\d+$/.test(s) ? `[${s}]` : `."${s}"`)).join('');
}

export function filterToSql(filter: Filter, dialect: Dialect, params: ParamSink): string {
  switch (filter.kind) {
    case 'and':
      return filter.items.length === 0 ? '1=1' : `(${filter.items.map((f) => filterToSql(f, dialect, params)).join(' AND ')})`;
    case 'or':
      return `(${filter.items.map((f) => filterToSql(f, dialect, params)).join(' OR ')})`;
    case 'nor':
      return `(NOT (${filter.items.map((f) => filterToSql(f, dialect, params)).join(' OR ')}))`;
    case 'field':
      return conditionToSql(fieldAccess(filter.path, dialect, params), filter.condition, params);
  }
}

/** How one field is read in a dialect; `anyValue` builds "the value or an element satisfies pred". */
interface FieldAccess {
  readonly dialect: Dialect;
  readonly missing: string;
  readonly present: string;
  anyValue(pred: (value: ValueRef) => string): string;
}

/** SQLite: a json_type text and an SQL value; PostgreSQL: a jsonb expression. */
type ValueRef = { readonly type: string; readonly value: string };

function fieldAccess(path: readonly string[], dialect: Dialect, params: ParamSink): FieldAccess {
  if (dialect === 'sqlite') {
    const p = params.bind(sqliteJsonPath(path));
    const type = `json_type(d.doc, ${p})`;
    const whole: ValueRef = { type, value: `json_extract(d.doc, ${p})` };
    const element: ValueRef = { type: 'e.type', value: 'e.value' };
    return {
      dialect,
      missing: `(${type} IS NULL)`,
      present: `(${type} IS NOT NULL)`,
      anyValue: (pred) =>
        `COALESCE((${pred(whole)}) OR (${type} = 'array' AND EXISTS (SELECT 1 FROM json_each(d.doc, ${p}) AS e WHERE ${pred(element)})), 0)`,
    };
  }
  const x = `(d.doc #> ${params.bind(path)}::text[])`;
  return {
    dialect,
    missing: `(${x} IS NULL)`,
    present: `(${x} IS NOT NULL)`,
    anyValue: (pred) =>
      `COALESCE((${pred({ type: '', value: x })}) OR (CASE WHEN jsonb_typeof(${x}) = 'array' THEN EXISTS (SELECT 1 FROM jsonb_array_elements(${x}) AS e(v) WHERE ${pred({ type: '', value: 'e.v' })}) ELSE false END), false)`,
  };
}

function conditionToSql(field: FieldAccess, condition: FieldCondition, params: ParamSink): string {
  switch (condition.op) {
    case 'eq':
      return equalsSql(field, [condition.value], params);
    case 'in':
      // An empty list matches nothing; the field's path parameter is still referenced, since
      // PostgreSQL rejects a bound parameter it cannot type ("could not determine data type").
      return condition.values.length === 0 ? `(${field.present} AND 1=0)` : equalsSql(field, condition.values, params);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return rangeSql(field, condition.op, condition.value, params);
    case 'exists':
      return condition.value ? field.present : field.missing;
    case 'regex':
      return field.anyValue((v) => regexSql(field.dialect, v, condition.pattern, condition.flags, params));
    case 'not':
      return `(NOT ${conditionToSql(field, condition.condition, params)})`;
    case 'all':
      return `(${condition.conditions.map((c) => conditionToSql(field, c, params)).join(' AND ')})`;
  }
}

/** Equality with any of `values`; null also matches a missing field. */
function equalsSql(field: FieldAccess, values: readonly Json[], params: ParamSink): string {
  const matchesValue = field.anyValue((v) => values.map((q) => typedEquals(field.dialect, v, q, params)).join(' OR '));
  return values.includes(null) ? `(${field.missing} OR ${matchesValue})` : matchesValue;
}

function typedEquals(dialect: Dialect, v: ValueRef, q: Json, params: ParamSink): string {
  if (dialect === 'postgres') {
    return q === null ? `jsonb_typeof(${v.value}) = 'null'` : `${v.value} = ${params.bind(JSON.stringify(q))}::jsonb`;
  }
  if (q === null) return `${v.type} = 'null'`;
  if (typeof q === 'boolean') return `${v.type} = '${q ? 'true' : 'false'}'`;
  if (typeof q === 'number') return `(${v.type} IN ('integer','real') AND ${v.value} = ${params.bind(q)})`;
  if (typeof q === 'string') return `(${v.type} = 'text' AND ${v.value} = ${params.bind(q)})`;
  const kind = Array.isArray(q) ? 'array' : 'object';
  return `(${v.type} = '${kind}' AND ${v.value} = json(${params.bind(JSON.stringify(q))}))`;
}

const RANGE_SQL = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

function rangeSql(field: FieldAccess, op: keyof typeof RANGE_SQL, bound: Scalar, params: ParamSink): string {
  if (bound === null) return op === 'gte' || op === 'lte' ? equalsSql(field, [null], params) : '(1=0)';
  const cmp = RANGE_SQL[op];
  if (field.dialect === 'sqlite') {
    return field.anyValue((v) => {
      if (typeof bound === 'number') return `(${v.type} IN ('integer','real') AND ${v.value} ${cmp} ${params.bind(bound)})`;
      if (typeof bound === 'string') return `(${v.type} = 'text' AND ${v.value} ${cmp} ${params.bind(bound)})`;
      return `(${v.type} IN ('true','false') AND ${v.value} ${cmp} ${params.bind(bound ? 1 : 0)})`;
    });
  }
  // CASE guarantees the cast runs only on the matching jsonb type (AND does not order evaluation).
  return field.anyValue((v) => {
    if (typeof bound === 'number') {
      return `CASE WHEN jsonb_typeof(${v.value}) = 'number' THEN (${v.value})::numeric ${cmp} ${params.bind(String(bound))}::numeric ELSE false END`;
    }
    if (typeof bound === 'string') {
      return `CASE WHEN jsonb_typeof(${v.value}) = 'string' THEN (${v.value} #>> '{}') COLLATE "C" ${cmp} ${params.bind(bound)}::text ELSE false END`;
    }
    return `CASE WHEN jsonb_typeof(${v.value}) = 'boolean' THEN (${v.value})::boolean ${cmp} ${params.bind(String(bound))}::boolean ELSE false END`;
  });
}

/**
 * SQLite calls the RE2-backed `pipec_regexp(pattern, flags, text)`. PostgreSQL uses `~`/`~*`; an ARE
 * embedded option maps Mongo's m/s newline handling: none → (?p), s → none, m → (?n), ms → (?w).
 */
function regexSql(dialect: Dialect, v: ValueRef, pattern: string, flags: string, params: ParamSink): string {
  if (dialect === 'sqlite') {
    return `(${v.type} = 'text' AND pipec_regexp(${params.bind(pattern)}, ${params.bind(flags)}, ${v.value}))`;
  }
  const m = flags.includes('m');
  const s = flags.includes('s');
  const option = m && s ? '(?w)' : m ? '(?n)' : s ? '' : '(?p)';
  const operator = flags.includes('i') ? '~*' : '~';
  return `CASE WHEN jsonb_typeof(${v.value}) = 'string' THEN (${v.value} #>> '{}') ${operator} ${params.bind(option + pattern)} ELSE false END`;
}

/**
 * ORDER BY for `{ field: 1 | -1 }` in Mongo's cross-type order (null/missing, numbers, strings, objects,
 * arrays, booleans), ending with insertion order so pages are stable.
 */
export function sortToSql(sort: ReadonlyArray<readonly [readonly string[], 1 | -1]>, dialect: Dialect, params: ParamSink): string {
  const terms: string[] = [];
  for (const [path, direction] of sort) {
    const dir = direction === 1 ? 'ASC' : 'DESC';
    if (dialect === 'sqlite') {
      const p = params.bind(sqliteJsonPath(path));
      terms.push(
        `CASE json_type(d.doc, ${p}) WHEN 'integer' THEN 1 WHEN 'real' THEN 1 WHEN 'text' THEN 2 WHEN 'object' THEN 3 WHEN 'array' THEN 4 WHEN 'true' THEN 5 WHEN 'false' THEN 5 ELSE 0 END ${dir}`,
        `json_extract(d.doc, ${p}) ${dir}`,
      );
    } else {
      const x = `(d.doc #> ${params.bind(path)}::text[])`;
      terms.push(
        `CASE jsonb_typeof(${x}) WHEN 'number' THEN 1 WHEN 'string' THEN 2 WHEN 'object' THEN 3 WHEN 'array' THEN 4 WHEN 'boolean' THEN 5 ELSE 0 END ${dir}`,
        `CASE WHEN jsonb_typeof(${x}) = 'number' THEN (${x})::numeric END ${dir}`,
        `CASE WHEN jsonb_typeof(${x}) = 'string' THEN (${x} #>> '{}') END COLLATE "C" ${dir}`,
        `${x} ${dir}`,
      );
    }
  }
  terms.push('d.seq ASC');
  return terms.join(', ');
}
