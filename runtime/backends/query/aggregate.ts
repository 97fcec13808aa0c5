/**
 * Aggregation pipelines: `$match`, `$group` (`$sum $avg $min $max $count $push $first $last`), `$sort`,
 * `$limit`, `$skip`, `$project`, `$count`. The whole pipeline is parsed first (BAD_QUERY on anything
 * unknown, nothing executed); the backend runs a leading `$match` in SQL and the remaining stages here.
 */
import type { Json, JsonObject } from '../../types.js';
import { badQuery, getOwn, getPath, isPlainObject, parseFieldPath, setOwn } from '../json-safe.js';
import { parseFilter, type Filter } from './filter.js';
import { compareJson, matchesFilter, pathMeetsArray, sortThroughArray } from './match.js';
import type { RegexTester } from './regex.js';
import { setPath } from './update.js';
import { parseMerge, type MergeSpec } from './merge.js';

type Expression = (doc: Json) => Json | undefined;
type Accumulator = { readonly op: string; readonly expr: Expression };

export type Stage =
  | { readonly kind: 'match'; readonly filter: Filter }
  | { readonly kind: 'group'; readonly id: Expression; readonly fields: ReadonlyArray<readonly [string, Accumulator]> }
  | { readonly kind: 'sort'; readonly keys: ReadonlyArray<readonly [string[], 1 | -1]> }
  | { readonly kind: 'limit' | 'skip'; readonly n: number }
  | { readonly kind: 'project'; readonly project: (doc: JsonObject) => JsonObject }
  | { readonly kind: 'count'; readonly field: string }
  | { readonly kind: 'merge'; readonly spec: MergeSpec };

const MAX_STAGES = 50;

export function parsePipeline(pipeline: unknown): Stage[] {
  if (!Array.isArray(pipeline)) throw badQuery('an aggregate pipeline must be an array of stages');
  if (pipeline.length > MAX_STAGES) throw badQuery(`an aggregate pipeline has at most ${MAX_STAGES} stages`);
  const stages = pipeline.map((stage): Stage => {
    if (!isPlainObject(stage) || Object.keys(stage).length !== 1)
      throw badQuery('each aggregate stage is an object with one $operator');
    const name = Object.keys(stage)[0] as string;
    const spec = getOwn(stage, name) as Json;
    switch (name) {
      case '$match':
        return { kind: 'match', filter: parseFilter(spec) };
      case '$group':
        return parseGroup(spec);
      case '$sort':
        return { kind: 'sort', keys: parseSort(spec) };
      case '$limit':
      case '$skip':
        if (typeof spec !== 'number' || !Number.isInteger(spec) || spec < 0)
          throw badQuery(`${name} takes a non-negative integer`);
        return { kind: name === '$limit' ? 'limit' : 'skip', n: spec };
      case '$project':
        return { kind: 'project', project: parseProject(spec) };
      case '$count':
        if (typeof spec !== 'string' || !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(spec))
          throw badQuery('$count takes a field name');
        return { kind: 'count', field: spec };
      case '$merge':
        return { kind: 'merge', spec: parseMerge(spec) };
      default:
        throw badQuery(`unknown aggregate stage ${name}`);
    }
  });
  if (stages.slice(0, -1).some((s) => s.kind === 'merge')) throw badQuery('$merge must be the last stage');
  return stages;
}

/** Runs stages over documents already loaded (and already filtered by any leading SQL `$match`). */
export function runStages(docs: readonly JsonObject[], stages: readonly Stage[], regex: RegexTester): JsonObject[] {
  let current: JsonObject[] = [...docs];
  for (const stage of stages) {
    switch (stage.kind) {
      case 'match':
        current = current.filter((d) => matchesFilter(d, stage.filter, regex));
        break;
      case 'group':
        current = runGroup(current, stage);
        break;
      case 'sort':
        current = sortDocuments(current, stage.keys);
        break;
      case 'limit':
        current = current.slice(0, stage.n);
        break;
      case 'skip':
        current = current.slice(stage.n);
        break;
      case 'project':
        current = current.map(stage.project);
        break;
      case 'merge':
        // The backend splits $merge off (store-input.ts prepareAggregate) and writes in its transaction.
        throw new Error('$merge reached runStages');
      case 'count': {
        const out: JsonObject = {};
        setOwn(out, stage.field, current.length);
        current = current.length === 0 ? [] : [out];
        break;
      }
    }
  }
  return current;
}

/** `{ field: 1 | -1 }` → validated sort keys (also used by find). */
export function parseSort(spec: unknown): Array<[string[], 1 | -1]> {
  if (!isPlainObject(spec)) throw badQuery('sort takes an object such as { "price": -1 }');
  return Object.keys(spec).map((field) => {
    const dir = getOwn(spec, field);
    if (dir !== 1 && dir !== -1) throw badQuery(`sort direction of ${field} must be 1 or -1`);
    return [parseFieldPath(field), dir];
  });
}

export function sortDocuments(
  docs: readonly JsonObject[],
  keys: ReadonlyArray<readonly [string[], 1 | -1]>,
): JsonObject[] {
  if (docs.some((doc) => keys.some(([path]) => pathMeetsArray(doc, path)))) throw sortThroughArray();
  return [...docs].sort((a, b) => {
    for (const [path, dir] of keys) {
      const c = compareJson(getPath(a, path), getPath(b, path));
      if (c !== 0) return c * dir;
    }
    return 0;
  });
}

/** `"$a.b"` → field reference; objects/arrays → evaluated member-wise; other values → literals. */
function parseExpression(spec: Json, where: string): Expression {
  if (typeof spec === 'string' && spec.startsWith('$')) {
    const path = parseFieldPath(spec.slice(1));
    return (doc) => fieldPathValue(doc, path);
  }
  if (Array.isArray(spec)) {
    const items = spec.map((s) => parseExpression(s, where));
    return (doc) => items.map((f) => f(doc) ?? null);
  }
  if (isPlainObject(spec)) {
    const keys = Object.keys(spec);
    const op = keys.find((k) => k.startsWith('$'));
    if (op !== undefined) throw badQuery(`unsupported expression operator ${op} in ${where}`);
    const members = keys.map((k) => [k, parseExpression(getOwn(spec, k) as Json, where)] as const);
    return (doc) => {
      const out: JsonObject = {};
      for (const [k, f] of members) {
        const v = f(doc);
        if (v !== undefined) setOwn(out, k, v);
      }
      return out;
    };
  }
  return () => spec;
}

/**
 * `"$a.b"` as Mongo's aggregation reads it: through an array of objects it yields the array of the
 * values found (`"$items.price"` → `[5, 20]`, elements without the field skipped); numeric segments
 * index arrays as in queries.
 */
function fieldPathValue(value: Json | undefined, path: readonly string[], from = 0): Json | undefined {
  if (from === path.length || value === undefined) return value;
  const segment = path[from] as string;
  if (Array.isArray(value)) {
    if (/^\d+$/.test(segment)) return fieldPathValue(value[Number(segment)], path, from + 1);
    return value.map((element) => fieldPathValue(element, path, from)).filter((v): v is Json => v !== undefined);
  }
  return isPlainObject(value) ? fieldPathValue(getOwn(value, segment), path, from + 1) : undefined;
}

const ACCUMULATORS = new Set(['$sum', '$avg', '$min', '$max', '$count', '$push', '$first', '$last']);

function parseGroup(spec: Json): Stage {
  if (!isPlainObject(spec) || getOwn(spec, '_id') === undefined) throw badQuery('$group takes an object with an _id');
  const id = parseExpression(getOwn(spec, '_id') as Json, '$group _id');
  const fields = Object.keys(spec)
    .filter((k) => k !== '_id')
    .map((field) => {
      const acc = getOwn(spec, field);
      if (!isPlainObject(acc) || Object.keys(acc).length !== 1)
        throw badQuery(`$group field ${field} takes one accumulator such as { $sum: "$price" }`);
      const op = Object.keys(acc)[0] as string;
      if (!ACCUMULATORS.has(op)) throw badQuery(`unknown $group accumulator ${op}`);
      const arg = getOwn(acc, op) as Json;
      if (op === '$count' && !(isPlainObject(arg) && Object.keys(arg).length === 0))
        throw badQuery('$count accumulator takes {}');
      return [field, { op, expr: op === '$count' ? () => 1 : parseExpression(arg, `$group ${field}`) }] as const;
    });
  return { kind: 'group', id, fields };
}

function runGroup(docs: readonly JsonObject[], stage: Extract<Stage, { kind: 'group' }>): JsonObject[] {
  const groups = new Map<string, { id: Json; members: JsonObject[] }>();
  for (const doc of docs) {
    const id = stage.id(doc) ?? null;
    const key = JSON.stringify(id);
    const group = groups.get(key);
    if (group) group.members.push(doc);
    else groups.set(key, { id, members: [doc] });
  }
  return [...groups.values()].map(({ id, members }) => {
    const out: JsonObject = { _id: id };
    for (const [field, acc] of stage.fields) setOwn(out, field, accumulate(acc, members));
    return out;
  });
}

function accumulate(acc: Accumulator, members: readonly JsonObject[]): Json {
  const values = members.map((m) => acc.expr(m)).filter((v): v is Json => v !== undefined);
  const numbers = values.filter((v): v is number => typeof v === 'number');
  switch (acc.op) {
    case '$sum':
    case '$count':
      return numbers.reduce((a, b) => a + b, 0);
    case '$avg':
      return numbers.length === 0 ? null : numbers.reduce((a, b) => a + b, 0) / numbers.length;
    case '$min':
    case '$max': {
      const present = values.filter((v) => v !== null);
      if (present.length === 0) return null;
      const sign = acc.op === '$min' ? 1 : -1;
      return present.reduce((best, v) => (compareJson(v, best) * sign < 0 ? v : best));
    }
    case '$push':
      return values;
    case '$first':
      return values[0] ?? null;
    default:
      return values[values.length - 1] ?? null;
  }
}

/** Inclusion (`{a: 1, total: "$price"}`, `_oId` kept unless 0) or exclusion (`{a: 0}`), not both. */
function parseProject(spec: Json): (doc: JsonObject) => JsonObject {
  if (!isPlainObject(spec) || Object.keys(spec).length === 0) throw badQuery('$project takes a non-empty object');
  const entries = Object.keys(spec).map((field) => ({
    field,
    path: parseFieldPath(field),
    value: getOwn(spec, field) as Json,
  }));
  const isExclusion = (v: Json): boolean => v === 0 || v === false;
  const exclusions = entries.filter((e) => isExclusion(e.value) && e.field !== '_oId');
  const inclusions = entries.filter((e) => !isExclusion(e.value));
  if (exclusions.length > 0 && inclusions.length > 0) throw badQuery('$project cannot mix inclusion and exclusion');
  const dropId = entries.some((e) => e.field === '_oId' && isExclusion(e.value));
  if (inclusions.length === 0) {
    const excluded = entries.filter((e) => isExclusion(e.value));
    return (doc) => {
      const out = JSON.parse(JSON.stringify(doc)) as JsonObject;
      for (const e of excluded) removePath(out, e.path);
      return out;
    };
  }
  const computed = inclusions.map((e) => ({
    path: e.path,
    expr:
      e.value === 1 || e.value === true
        ? (doc: Json) => includedValue(doc, e.field, e.path)
        : parseExpression(e.value, `$project ${e.field}`),
  }));
  return (doc) => {
    const out: JsonObject = {};
    const id = getOwn(doc, '_oId');
    if (!dropId && id !== undefined) setOwn(out, '_oId', id);
    for (const c of computed) {
      const v = c.expr(doc);
      if (v !== undefined) setPath(out, c.path, v);
    }
    return out;
  };
}

/** Mongo would project through an array element by element; refused rather than dropped silently. */
function projectThroughArray(field: string): never {
  throw badQuery(
    `$project of ${field} reaches through an array; use a computed field such as { "${field.replace(/\./g, '_')}": "$${field}" }`,
  );
}

function includedValue(doc: Json, field: string, path: readonly string[]): Json | undefined {
  if (pathMeetsArray(doc, path, false)) projectThroughArray(field);
  return getPath(doc, path);
}

function removePath(doc: JsonObject, path: readonly string[]): void {
  if (pathMeetsArray(doc, path, false)) projectThroughArray(path.join('.'));
  const parent = getPath(doc, path.slice(0, -1));
  const last = path[path.length - 1] as string;
  if (isPlainObject(parent) && Object.prototype.hasOwnProperty.call(parent, last)) delete parent[last];
}
