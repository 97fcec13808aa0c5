/**
 * Parsed filters and sorts (filter.ts) → SQL WHERE / ORDER BY text for SQLite JSON1 or PostgreSQL JSONB.
 * Every value and every JSON path is a bound parameter created through `ParamSink.bind`; the only
 * text spliced into SQL is fixed syntax chosen here. Documents live in column `d.doc`.
 *
 * Semantics follow Mongo and match.ts (the reference): a path reaches values through arrays of
 * objects; a condition holds when a value reached or (for arrays) one of its elements satisfies it;
 * comparisons are type-bracketed; `{ f: null }` also matches what is missing. Every generated
 * predicate is NULL-free (wrapped in COALESCE) so NOT / $ne / $nin are exact.
 */
import type { Json } from '../../types.js';
import type { FieldCondition, Filter, Scalar } from './filter.js';

export type Dialect = 'sqlite' | 'postgres';

/** Collects bound values; returns the placeholder text for one value. */
export interface ParamSink {
  bind(value: string | number | null | readonly string[]): string;
  /** How many values were bound so far (the next placeholder depends on it). */
  readonly bound: number;
  /** A sink of its own that numbers on from here (what this one would name next). */
  fork(): ParamSink;
}

/**
 * SQLite named parameters (`@p0`), bound as one object. A plain object (better-sqlite3 reads only
 * its own properties): its `p<n>` keys, always added in the same order, keep it a fast object.
 */
export function sqliteParams(start = 0): SqliteParams {
  return new SqliteParams(start);
}

/** The names of the first parameters, made once: a name made afresh is hashed on every store. */
const PARAM_NAMES = Array.from({ length: 64 }, (_, n) => `p${n}`);
const PLACEHOLDERS = PARAM_NAMES.map((name) => `@${name}`);

/** A class rather than a literal with a getter and closures: made on every query, it costs less. */
export class SqliteParams implements ParamSink {
  readonly values: Record<string, string | number | null> = {};
  constructor(private next: number) {}
  bind(value: string | number | null | readonly string[]): string {
    const n = this.next++;
    const name = PARAM_NAMES[n] ?? `p${n}`;
    this.values[name] = Array.isArray(value) ? JSON.stringify(value) : (value as string | number | null);
    return PLACEHOLDERS[n] ?? `@${name}`;
  }
  get bound(): number {
    return this.next;
  }
  fork(): ParamSink {
    return new SqliteParams(this.next);
  }
}

/** PostgreSQL positional parameters (`$1`); `start`: placeholders taken before these values. */
export function postgresParams(start = 0): PostgresParams {
  return new PostgresParams(start);
}

export class PostgresParams implements ParamSink {
  readonly values: unknown[] = [];
  constructor(private readonly start: number) {}
  bind(value: string | number | null | readonly string[]): string {
    this.values.push(value);
    return `$${this.start + this.values.length}`;
  }
  get bound(): number {
    return this.start + this.values.length;
  }
  fork(): ParamSink {
    return new PostgresParams(this.start + this.values.length);
  }
}

/** `a.b.0` → SQLite JSON path `$."a"."b"[0]` (segments are pre-validated: no quotes). */
export function sqliteJsonPath(path: readonly string[]): string {
  return '$' + path.map((s) => (/^\d+$/.test(s) ? `[${s}]` : `."${s}"`)).join('');
}

/**
 * Where index probes may go (indexProbesSql): SQLite needs the fields that lead an index of the
 * store and the placeholder of the store name; PostgreSQL probes every eligible field.
 */
export interface ProbeContext {
  /** Field → the name of an index it leads (pipec_u?ix_<hex>, checked before it is spliced). */
  readonly indexed: ReadonlyMap<string, string>;
  /** The store name (validated: `[a-z][a-z0-9_-]*`), written as a literal so the partial index applies. */
  readonly store: string;
}

/**
 * FROM and WHERE text of a filter: its exact predicate, with the index probes an index made by
 * `createIndex` can answer (indexProbesSql). The probes only narrow what the planner reads. On
 * SQLite the first probe that lists rows drives the query (`CROSS JOIN` fixes the join order:
 * without statistics SQLite would rather walk the store in `seq` order to skip the sort).
 */
export function querySql(
  filter: Filter,
  dialect: Dialect,
  params: ParamSink,
  probes?: ProbeContext,
): { from: string; where: string } {
  const narrowing = indexProbesSql(filter, dialect, params, probes);
  const exact = filterToSql(filter, dialect, params);
  const rows = narrowing.find((p) => p.kind === 'rows');
  const terms = narrowing.map((p) =>
    p === rows ? 'd.seq = p.seq' : p.kind === 'rows' ? `d.seq IN (${p.sql})` : p.sql,
  );
  return {
    from: rows === undefined ? 'pipec_documents AS d' : `(${rows.sql}) AS p CROSS JOIN pipec_documents AS d`,
    where: [...terms, exact].join(' AND '),
  };
}

/**
 * SQLite, for a read in insertion order: when the filter's top-level AND holds an equality (`$eq`,
 * `$in` on scalars) on a field that leads an index of the store, the index keys that can match —
 * one `(json_type, json_extract)` pair per value and type, and `json_type = 'array'` for Mongo's
 * array rule — each as the FROM and WHERE text (without `WHERE`) that reads it through the index,
 * with the exact predicate of the rest of the filter (`where`). Within one such key the index lists
 * its rows in `seq` order, so one SELECT per key joined by `UNION ALL … ORDER BY seq` is a merge
 * SQLite runs without a sort, and a LIMIT stops after as many rows as it returns. The keys are
 * disjoint (one type each), so no row comes twice. A scalar key implies the equality itself (same
 * type, equal value), so only the rest of the filter is tested there; the array key tests it all.
 * `anyArray` is the FROM and WHERE of the rows with an array under that field (any value): where
 * there is none, the scalar keys alone give the whole answer.
 * Null when there is no such equality, when an `_oId` equality is there (its own index reads fewer
 * rows) or when the values would make more than `maxKeys` keys.
 */
export function sqliteEqualityArms(
  filter: Filter,
  params: ParamSink,
  context: ProbeContext,
  maxKeys = 16,
): EqualityArms | null {
  const items = flattenAnd(filter);
  if (items.some((f) => f.kind === 'field' && f.path.length === 1 && f.path[0] === '_oId')) return null;
  for (const item of items) {
    if (item.kind !== 'field' || item.path.length !== 1) continue;
    if (item.condition.op !== 'eq' && item.condition.op !== 'in') continue;
    const field = item.path[0] as string;
    const index = context.indexed.get(field);
    if (index === undefined || INDEX.test(field) || !LITERAL_SEGMENT.test(field)) continue;
    const probe = probeOf(item.condition, 'sqlite');
    if (probe === null || !('eq' in probe)) continue;
    const { type: t, value: v } = indexExpressions(field, 'sqlite', 'd.doc');
    const values = [...new Set(probe.eq)];
    const count = values.reduce<number>((n, q) => n + (integralBeyondSafe(q) ? 2 : 1), 1);
    if (count > maxKeys) return null;
    const keys: string[] = [];
    for (const q of values) {
      if (typeof q === 'boolean') keys.push(`${t} = '${q ? 'true' : 'false'}'`);
      else if (typeof q === 'string') keys.push(`${t} = 'text' AND ${v} = ${params.bind(q)}`);
      else if (typeof q === 'number') {
        // Documents are JSON.stringify's text: a number equal to a safe integer is written in digits,
        // which SQLite reads as an integer; a fraction or an exponent (|n| ≥ 1e21) reads as real, and so
        // does a run of digits beyond 64 bits. Only an integral value beyond 2^53 may be stored as either.
        const value = params.bind(q);
        if (Number.isInteger(q)) keys.push(`${t} = 'integer' AND ${v} = ${value}`);
        if (!Number.isSafeInteger(q)) keys.push(`${t} = 'real' AND ${v} = ${value}`);
      }
    }
    checkSpliced(index, context.store);
    const rest = filterToSql({ kind: 'and', items: items.filter((other) => other !== item) }, 'sqlite', params);
    const all = filterToSql(filter, 'sqlite', params);
    const read = `pipec_documents AS d INDEXED BY "${index}" WHERE d.store = '${context.store}'`;
    return {
      scalars: keys.map((key) => `${read} AND ${key} AND ${rest}`),
      arrays: `${read} AND ${t} = 'array' AND ${all}`,
      anyArray: `${read} AND ${t} = 'array'`,
    };
  }
  return null;
}

/** What sqliteEqualityArms reads: FROM and WHERE texts, without `WHERE`. */
export interface EqualityArms {
  /** One per scalar index key. */
  readonly scalars: readonly string[];
  /** The key of array values, with the whole filter. */
  readonly arrays: string;
  /** Every row with an array value under the field. */
  readonly anyArray: string;
}

/** An integral number beyond 2^53 (stored as an integer or a real: two index keys). */
function integralBeyondSafe(q: Scalar): boolean {
  return typeof q === 'number' && Number.isInteger(q) && !Number.isSafeInteger(q);
}

function flattenAnd(filter: Filter): Filter[] {
  return filter.kind === 'and' ? filter.items.flatMap(flattenAnd) : [filter];
}

/** A probe: a WHERE term, or (SQLite) a SELECT of the `seq` of every row that may match. */
export type IndexProbe = { readonly kind: 'where' | 'rows'; readonly sql: string };

export function filterToSql(filter: Filter, dialect: Dialect, params: ParamSink): string {
  switch (filter.kind) {
    case 'and':
      return filter.items.length === 0
        ? '1=1'
        : `(${filter.items.map((f) => filterToSql(f, dialect, params)).join(' AND ')})`;
    case 'or':
      return `(${filter.items.map((f) => filterToSql(f, dialect, params)).join(' OR ')})`;
    case 'nor':
      return `(NOT (${filter.items.map((f) => filterToSql(f, dialect, params)).join(' OR ')}))`;
    case 'field':
      return conditionToSql(fieldAccess(filter.path, dialect, params), filter.condition, params);
  }
}

/**
 * How one field path is read in a dialect. Every method returns a NULL-free predicate over the
 * values the path reaches (match.ts `pathValues` defines them).
 */
interface FieldAccess {
  readonly dialect: Dialect;
  /** Some value reached, or an element of a reached array, satisfies `pred`. */
  anyValue(pred: (value: ValueRef) => string): string;
  /** Some value reached (not its elements) satisfies `pred` ($size). */
  anyWhole(pred: (value: ValueRef) => string): string;
  /** The path reaches some value. */
  present(): string;
  /** `{ f: null }`: a null value or element, nothing reached, or an object element lacking the rest of the path. */
  nullish(): string;
}

/** SQLite: a json_type text and an SQL value; PostgreSQL: a jsonb expression. */
type ValueRef = { readonly type: string; readonly value: string };

const INDEX = /^\d+$/;

/**
 * Documents without an array on the way (the common case) are read with one direct JSON path; a
 * cheap guard (`json_type` of each proper prefix) sends the others to the general route walk, which
 * fans out over array elements level by level (`routeSql`), so the SQL stays linear in the path length.
 */
function fieldAccess(path: readonly string[], dialect: Dialect, params: ParamSink): FieldAccess {
  const d = dialect === 'sqlite' ? sqliteDialect(params) : postgresDialect(params);
  const guard = arrayOnRouteGuard(path, d);
  const choose = (leaf: (at: Located) => string, route: () => string): string => {
    const direct = leaf(d.atPath(path));
    return guard === null ? direct : `(CASE WHEN ${guard} THEN ${route()} ELSE ${direct} END)`;
  };
  const valueOrElement =
    (pred: (v: ValueRef) => string) =>
    (at: Located): string =>
      `COALESCE((${pred(at.ref)}) OR (${at.isArray} AND EXISTS (SELECT 1 FROM ${at.elements('e')} WHERE ${pred(d.elementRef('e'))})), ${d.no})`;
  const whole =
    (pred: (v: ValueRef) => string) =>
    (at: Located): string =>
      `COALESCE((${pred(at.ref)}), ${d.no})`;
  const present = (at: Located): string => `(NOT ${at.missing})`;
  const nullish = (at: Located): string =>
    `COALESCE(${at.missing} OR (${at.isNull}) OR (${at.isArray} AND EXISTS (SELECT 1 FROM ${at.elements('e')} WHERE ${d.elementIsNull('e')})), ${d.no})`;
  return {
    dialect,
    anyValue: (pred) => choose(valueOrElement(pred), () => routeSql(path, d, valueOrElement(pred))),
    anyWhole: (pred) => choose(whole(pred), () => routeSql(path, d, whole(pred))),
    present: () => choose(present, () => routeSql(path, d, present)),
    nullish: () => choose(nullish, () => nullishRouteSql(path, d, nullish)),
  };
}

/** One JSON value as the SQL of a dialect reads it (missing = SQL NULL). */
interface Located {
  readonly ref: ValueRef;
  readonly missing: string;
  readonly isArray: string;
  readonly isNull: string;
  /** FROM item: the elements of the value when it is an array (no rows otherwise), as `alias`. */
  elements(alias: string): string;
}

/** The dialect-specific pieces of a route walk; `x` arguments are JSON-valued SQL expressions (NULL = missing). */
interface DialectOps {
  readonly no: string;
  /** Whether a numeric segment after an object needs the route walk (SQLite's `[n]` only indexes arrays). */
  readonly indexNeedsArray: boolean;
  /** The value at `path` read directly (right when no array is on the way). */
  atPath(path: readonly string[]): Located;
  /** A JSON-valued expression. */
  at(x: string): Located;
  /** Type test of the value at a proper prefix of the path (the guard). */
  prefixIs(prefix: readonly string[], type: 'array' | 'object'): string;
  /** FROM item: the elements of `x` when it is an array, else `x` itself, as `alias`. */
  elementsOrSelf(x: string, alias: string): string;
  elementRef(alias: string): ValueRef;
  elementIsNull(alias: string): string;
  elementIsObject(alias: string): string;
  /** Member `segment` of the object element `alias` (NULL when absent). */
  memberOfElement(alias: string, segment: string): string;
  /** `x[n]` of an array, or member "n" of an object. */
  indexed(x: string, segment: string): string;
  /** Member `segment` of the document. */
  rootMember(segment: string): string;
}

function sqliteDialect(params: ParamSink): DialectOps {
  const path = (segments: readonly string[]): string => params.bind(sqliteJsonPath(segments));
  return {
    no: '0',
    indexNeedsArray: true,
    atPath: (segments) => {
      const p = path(segments);
      const type = `json_type(d.doc, ${p})`;
      return {
        ref: { type, value: `json_extract(d.doc, ${p})` },
        missing: `(${type} IS NULL)`,
        isArray: `${type} = 'array'`,
        isNull: `${type} = 'null'`,
        elements: (alias) => `json_each(d.doc, ${p}) AS ${alias}`,
      };
    },
    at: (x) => ({
      ref: { type: `json_type(${x})`, value: `json_extract(${x}, '$')` },
      missing: `(${x} IS NULL)`,
      isArray: `json_type(${x}) = 'array'`,
      isNull: `json_type(${x}) = 'null'`,
      elements: (alias) => `json_each(${x}) AS ${alias}`,
    }),
    prefixIs: (prefix, type) => `json_type(d.doc, ${path(prefix)}) = '${type}'`,
    // json(x) carries the JSON subtype, so json_array embeds the value instead of quoting it as text.
    elementsOrSelf: (x, alias) =>
      `json_each(CASE WHEN ${x} IS NULL THEN '[]' WHEN json_type(${x}) = 'array' THEN ${x} ELSE json_array(json(${x})) END) AS ${alias}`,
    elementRef: (alias) => ({ type: `${alias}.type`, value: `${alias}.value` }),
    elementIsNull: (alias) => `${alias}.type = 'null'`,
    elementIsObject: (alias) => `${alias}.type = 'object'`,
    // CASE keeps `->` away from scalar elements (their value is plain text, not JSON); AND does not order evaluation.
    memberOfElement: (alias, segment) =>
      `(CASE WHEN ${alias}.type = 'object' THEN ${alias}.value -> ${path([segment])} END)`,
    indexed: (x, segment) =>
      `(CASE json_type(${x}) WHEN 'array' THEN ${x} -> ${params.bind(`$[${segment}]`)} WHEN 'object' THEN ${x} -> ${params.bind(`$."${segment}"`)} END)`,
    rootMember: (segment) => `(d.doc -> ${path([segment])})`,
  };
}

function postgresDialect(params: ParamSink): DialectOps {
  const at = (x: string): Located => ({
    ref: { type: '', value: x },
    missing: `(${x} IS NULL)`,
    isArray: `jsonb_typeof(${x}) = 'array'`,
    isNull: `jsonb_typeof(${x}) = 'null'`,
    // CASE: jsonb_array_elements raises on a non-array, and AND does not order evaluation.
    elements: (alias) =>
      `jsonb_array_elements(CASE WHEN jsonb_typeof(${x}) = 'array' THEN ${x} ELSE '[]'::jsonb END) AS ${alias}(v)`,
  });
  return {
    no: 'false',
    indexNeedsArray: false,
    atPath: (segments) => at(`(d.doc #> ${params.bind(segments)}::text[])`),
    at,
    prefixIs: (prefix, type) => `jsonb_typeof(d.doc #> ${params.bind(prefix)}::text[]) = '${type}'`,
    elementsOrSelf: (x, alias) =>
      `jsonb_array_elements(CASE WHEN jsonb_typeof(${x}) = 'array' THEN ${x} ELSE jsonb_build_array(${x}) END) AS ${alias}(v)`,
    elementRef: (alias) => ({ type: '', value: `${alias}.v` }),
    elementIsNull: (alias) => `jsonb_typeof(${alias}.v) = 'null'`,
    elementIsObject: (alias) => `jsonb_typeof(${alias}.v) = 'object'`,
    memberOfElement: (alias, segment) => `(${alias}.v -> ${params.bind(segment)}::text)`,
    indexed: (x, segment) =>
      `(CASE jsonb_typeof(${x}) WHEN 'array' THEN ${x} -> ${params.bind(Number(segment))}::int ELSE ${x} -> ${params.bind(segment)}::text END)`,
    rootMember: (segment) => `(d.doc -> ${params.bind(segment)}::text)`,
  };
}

/**
 * True when the direct path may miss values: an array before a non-numeric segment (SQLite also:
 * an object before a numeric one). Null when the path cannot meet either (a top-level field).
 */
function arrayOnRouteGuard(path: readonly string[], d: DialectOps): string | null {
  const tests: string[] = [];
  for (let k = 1; k < path.length; k++) {
    const prefix = path.slice(0, k);
    if (!INDEX.test(path[k] as string)) tests.push(d.prefixIs(prefix, 'array'));
    else if (d.indexNeedsArray) tests.push(d.prefixIs(prefix, 'object'));
  }
  return tests.length === 0 ? null : `(${tests.join(' OR ')})`;
}

/** Some value reached along `path` satisfies `leaf` (each level: index, or fan out over object elements). */
function routeSql(path: readonly string[], d: DialectOps, leaf: (at: Located) => string): string {
  return walkRoute(path, d, leaf, (objects, inner) => `COALESCE(EXISTS (${objects} AND ${inner}), ${d.no})`);
}

/** Like routeSql for `nullish`: a level with no object element to descend into counts as missing. */
function nullishRouteSql(path: readonly string[], d: DialectOps, leaf: (at: Located) => string): string {
  return walkRoute(
    path,
    d,
    leaf,
    (objects, inner) => `COALESCE((NOT EXISTS (${objects})) OR EXISTS (${objects} AND ${inner}), ${d.no})`,
  );
}

/**
 * The walk both share: an index segment reads that element; a field segment fans out over the
 * object elements (`objects`, a SELECT) and `level` says how the deeper condition (`inner`) combines.
 */
function walkRoute(
  path: readonly string[],
  d: DialectOps,
  leaf: (at: Located) => string,
  level: (objects: string, inner: string) => string,
): string {
  const walk = (x: string, k: number): string => {
    if (k === path.length) return leaf(d.at(x));
    const segment = path[k] as string;
    if (INDEX.test(segment)) return walk(d.indexed(x, segment), k + 1);
    const u = `u${k}`;
    return level(
      `SELECT 1 FROM ${d.elementsOrSelf(x, u)} WHERE ${d.elementIsObject(u)}`,
      walk(d.memberOfElement(u, segment), k + 1),
    );
  };
  return walk(d.rootMember(path[0] as string), 1);
}

function conditionToSql(field: FieldAccess, condition: FieldCondition, params: ParamSink): string {
  switch (condition.op) {
    case 'eq':
      return equalsSql(field, [condition.value], params);
    case 'in':
      return condition.values.length === 0 ? '(1=0)' : equalsSql(field, condition.values, params);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return rangeSql(field, condition.op, condition.value, params);
    case 'exists':
      return condition.value ? field.present() : `(NOT ${field.present()})`;
    case 'size':
      return field.anyWhole((v) => sizeSql(field.dialect, v, condition.length, params));
    case 'regex':
      return field.anyValue((v) => regexSql(field.dialect, v, condition.pattern, condition.flags, params));
    case 'not':
      return `(NOT ${conditionToSql(field, condition.condition, params)})`;
    case 'all':
      return `(${condition.conditions.map((c) => conditionToSql(field, c, params)).join(' AND ')})`;
  }
}

function sizeSql(dialect: Dialect, v: ValueRef, length: number, params: ParamSink): string {
  return dialect === 'sqlite'
    ? `(${v.type} = 'array' AND json_array_length(${v.value}) = ${params.bind(length)})`
    : `CASE WHEN jsonb_typeof(${v.value}) = 'array' THEN jsonb_array_length(${v.value}) = ${params.bind(length)}::int ELSE false END`;
}

/** Equality with any of `values`; null also matches what is missing (FieldAccess.nullish). */
function equalsSql(field: FieldAccess, values: readonly Json[], params: ParamSink): string {
  const present = values.filter((q) => q !== null);
  const parts: string[] = [];
  if (values.includes(null)) parts.push(field.nullish());
  if (present.length > 0)
    parts.push(field.anyValue((v) => present.map((q) => typedEquals(field.dialect, v, q, params)).join(' OR ')));
  return parts.length === 1 ? (parts[0] as string) : `(${parts.join(' OR ')})`;
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
      if (typeof bound === 'number')
        return `(${v.type} IN ('integer','real') AND ${v.value} ${cmp} ${params.bind(bound)})`;
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
 * A predicate true for documents whose value for some sort key is, or is reached through, an array.
 * Mongo sorts such documents by the smallest/largest element; the stores refuse them instead (400)
 * rather than order them by something else.
 */
export function sortArraysSql(
  sort: ReadonlyArray<readonly [readonly string[], 1 | -1]>,
  dialect: Dialect,
  params: ParamSink,
): string | null {
  if (sort.length === 0) return null;
  const d = dialect === 'sqlite' ? sqliteDialect(params) : postgresDialect(params);
  const tests = sort.flatMap(([path]) => {
    const route = arrayOnRouteGuard(path, d);
    return [d.prefixIs(path, 'array'), ...(route === null ? [] : [route])];
  });
  return `(${tests.join(' OR ')})`;
}

/**
 * ORDER BY for `{ field: 1 | -1 }` in Mongo's cross-type order (null/missing, numbers, strings, objects,
 * arrays, booleans), ending with insertion order so pages are stable.
 */
export function sortToSql(
  sort: ReadonlyArray<readonly [readonly string[], 1 | -1]>,
  dialect: Dialect,
  params: ParamSink,
): string {
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

/** A path segment that may be spliced into SQL text (parseFieldPath allows no more than this). */
const LITERAL_SEGMENT = /^[A-Za-z0-9_$-]+$/;

/**
 * Index probes: for each top-level field of the filter (in the filter's top-level AND) with an
 * equality (`$eq`, `$in`) on scalars or a range on a number (a string too on SQLite), a condition
 * every matching document satisfies, written with exactly the expressions of the indexes createIndex
 * makes (indexExpressions), so the planner reads only the index entries that may match:
 *
 * - SQLite, index on `json_type(doc, '$."f"'), json_extract(doc, '$."f"')`: `SELECT x.seq …
 *   WHERE json_type(…) = 'text' AND json_extract(…) = @v UNION SELECT … WHERE json_type(…) =
 *   'array'` — one index search per alternative (SQLite does not split such an OR by itself), each
 *   `INDEXED BY` the index (without statistics SQLite may prefer the (store, seq) index).
 *   Only for fields that lead an index of the store (without one the subquery would scan).
 * - PostgreSQL, index on `doc #> '{f}'` (jsonb's own order: null < string < number < boolean <
 *   array < object, with `[]` below null): `x = $v::jsonb OR (x > 'true' AND x < '{}')`, which
 *   the planner answers with a BitmapOr of index scans; without an index, a cheap extra test.
 *
 * The `array` alternative keeps Mongo's rule that a condition also matches an array holding a
 * matching element; the exact predicate (filterToSql) still decides. Nested paths get no probe: an
 * array on the way (`a` in `a.b`) reaches values that no index on `a.b` holds.
 */
export function indexProbesSql(
  filter: Filter,
  dialect: Dialect,
  params: ParamSink,
  context?: ProbeContext,
): IndexProbe[] {
  const items = filter.kind === 'and' ? filter.items : [filter];
  const probes: IndexProbe[] = [];
  for (const item of items) {
    if (item.kind === 'and') probes.push(...indexProbesSql(item, dialect, params, context));
    if (item.kind !== 'field' || item.path.length !== 1) continue;
    const field = item.path[0] as string;
    if (field === '_oId') {
      const ids = idProbe(item.condition, params);
      if (ids !== null) probes.push({ kind: 'where', sql: ids });
      continue;
    }
    if (INDEX.test(field) || !LITERAL_SEGMENT.test(field)) continue;
    if (dialect === 'sqlite' && !context?.indexed.has(field)) continue;
    const probe = probeOf(item.condition, dialect);
    if (probe === null) continue;
    probes.push(
      dialect === 'sqlite'
        ? {
            kind: 'rows',
            sql: sqliteProbe(
              field,
              probe,
              params,
              (context as ProbeContext).store,
              (context as ProbeContext).indexed.get(field) as string,
            ),
          }
        : { kind: 'where', sql: postgresProbe(field, probe, params) },
    );
  }
  return probes;
}

/**
 * `_oId` is also the `id` column (String of it; `_oId` is immutable), which the UNIQUE (store, id)
 * index answers: an equality or `$in` on strings or numbers reads only those ids.
 */
function idProbe(condition: FieldCondition, params: ParamSink): string | null {
  const values = condition.op === 'eq' ? [condition.value] : condition.op === 'in' ? condition.values : null;
  if (values === null || values.length === 0 || !values.every((v) => typeof v === 'string' || typeof v === 'number'))
    return null;
  return `d.id IN (${values.map((v) => params.bind(String(v))).join(', ')})`;
}

/** The expressions of an index key on `field` (dotted), as createIndex writes them and queries must repeat them. */
export function indexExpressions(
  field: string,
  dialect: Dialect,
  column = 'doc',
): { readonly type: string; readonly value: string } {
  const segments = field.split('.');
  if (!segments.every((s) => LITERAL_SEGMENT.test(s))) throw new Error(`index path not validated: ${field}`);
  if (dialect === 'sqlite') {
    const path = sqliteJsonPath(segments);
    return { type: `json_type(${column}, '${path}')`, value: `json_extract(${column}, '${path}')` };
  }
  return { type: '', value: `(${column} #> '{${segments.join(',')}}'::text[])` };
}

type Probe =
  | { readonly eq: readonly Scalar[] }
  | { readonly low?: readonly ['>' | '>=', number | string]; readonly high?: readonly ['<' | '<=', number | string] };

/** What of a condition an index can answer (null: nothing). */
function probeOf(condition: FieldCondition, dialect: Dialect): Probe | null {
  const scalar = (v: Json): v is Exclude<Scalar, null> =>
    typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  const rangeable = (v: Scalar): v is number | string =>
    typeof v === 'number' || (typeof v === 'string' && dialect === 'sqlite');
  switch (condition.op) {
    case 'eq':
      return scalar(condition.value) ? { eq: [condition.value] } : null;
    case 'in':
      return condition.values.length > 0 && condition.values.every(scalar)
        ? { eq: condition.values as Scalar[] }
        : null;
    case 'gt':
    case 'gte':
      return rangeable(condition.value) ? { low: [condition.op === 'gt' ? '>' : '>=', condition.value] } : null;
    case 'lt':
    case 'lte':
      return rangeable(condition.value) ? { high: [condition.op === 'lt' ? '<' : '<=', condition.value] } : null;
    case 'all': {
      // An equality wins; else one range of a single type, both bounds when there are two.
      const parts = condition.conditions.map((c) => probeOf(c, dialect)).filter((p): p is Probe => p !== null);
      const eq = parts.find((p) => 'eq' in p);
      if (eq) return eq;
      const ranges = parts as Array<Exclude<Probe, { eq: unknown }>>;
      const low = ranges.find((p) => p.low)?.low;
      const high = ranges.find((p) => p.high && (low === undefined || typeof p.high[1] === typeof low[1]))?.high;
      return low || high ? { ...(low ? { low } : {}), ...(high ? { high } : {}) } : null;
    }
    default:
      return null;
  }
}

/** An index name and a store name are spliced into SQLite text (the partial index needs the literal). */
function checkSpliced(index: string, store: string): void {
  if (!/^pipec_u?ix_[0-9a-f]{16}$/.test(index)) throw new Error(`not a pipec index name: ${index}`);
  if (!/^[a-z][a-z0-9_-]*$/.test(store)) throw new Error(`store name not validated: ${store}`);
}

function sqliteProbe(field: string, probe: Probe, params: ParamSink, store: string, index: string): string {
  checkSpliced(index, store);
  const { type: t, value: v } = indexExpressions(field, 'sqlite', 'x.doc');
  const typed = (q: Scalar): string =>
    typeof q === 'number'
      ? `${t} IN ('integer','real')`
      : typeof q === 'string'
        ? `${t} = 'text'`
        : `${t} = '${q ? 'true' : 'false'}'`;
  const alternatives =
    'eq' in probe
      ? probe.eq.map((q) =>
          typeof q === 'boolean' ? typed(q) : `${typed(q)} AND ${v} = ${params.bind(q as string | number)}`,
        )
      : [
          typed((probe.low ?? probe.high)![1]) +
            (probe.low ? ` AND ${v} ${probe.low[0]} ${params.bind(probe.low[1])}` : '') +
            (probe.high ? ` AND ${v} ${probe.high[0]} ${params.bind(probe.high[1])}` : ''),
        ];
  const selects = [...alternatives, `${t} = 'array'`].map(
    (a) => `SELECT x.seq FROM pipec_documents AS x INDEXED BY "${index}" WHERE x.store = '${store}' AND ${a}`,
  );
  return selects.join(' UNION ');
}

function postgresProbe(field: string, probe: Probe, params: ParamSink): string {
  const { value: v } = indexExpressions(field, 'postgres', 'd.doc');
  const json = (q: Scalar): string => `${params.bind(JSON.stringify(q))}::jsonb`;
  const nonEmptyArray = `(${v} > 'true'::jsonb AND ${v} < '{}'::jsonb)`;
  if ('eq' in probe) return `(${[...probe.eq.map((q) => `${v} = ${json(q)}`), nonEmptyArray].join(' OR ')})`;
  // Numbers sit between strings and booleans in jsonb's order.
  const low = probe.low ? `${v} ${probe.low[0]} ${json(probe.low[1])}` : `${v} > '""'::jsonb`;
  const high = probe.high ? `${v} ${probe.high[0]} ${json(probe.high[1])}` : `${v} < 'false'::jsonb`;
  return `((${low} AND ${high}) OR ${nonEmptyArray})`;
}
