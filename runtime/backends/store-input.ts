/**
 * Validation and preparation shared by the SQLite and PostgreSQL Object Stores: everything a call
 * needs is checked and parsed here (store name, query, sort, paging, documents, sizes, regexes)
 * before the backend opens a transaction, so a bad call never writes anything.
 */
import { randomUUID } from 'node:crypto';
import type { FindOptions, JsonObject, StoreIndex } from '../types.js';

export type { StoreIndex };
import { PipeError } from '../errors.js';
import {
  assertJson,
  badQuery,
  getOwn,
  isPlainObject,
  serializeDocument,
  withinSizeLimit,
  setOwn,
  validateStoreName,
} from './json-safe.js';
import { parseFilter, type FieldCondition, type Filter } from './query/filter.js';
import { parsePipeline, parseSort, type Stage } from './query/aggregate.js';
import type { RegexTester } from './query/regex.js';
import type { MergeSpec } from './query/merge.js';

export const ID_FIELD = '_oId';
/** Aggregations load at most this many documents after the leading $match (env PIPEC_STORE_MAX_AGGREGATE). */
export const DEFAULT_MAX_AGGREGATE_DOCS = 100_000;
/**
 * How often (by the store's clock) a process purges the expired documents of a store it writes to.
 * Expired documents are hidden from every read and write at once; the purge only gives the space back.
 */
export const PURGE_EVERY_MS = 10_000;

export interface PreparedFind {
  readonly filter: Filter;
  readonly sort: ReadonlyArray<readonly [string[], 1 | -1]>;
  /** null = no limit (Mongo's 0). */
  readonly limit: number | null;
  readonly skip: number;
}

export interface PreparedDocument {
  readonly id: string;
  readonly text: string;
}

export function prepareFilter(store: string, query: unknown, regex: RegexTester): Filter {
  validateStoreName(store);
  if (query !== undefined && query !== null && !isPlainObject(query)) throw badQuery('a query must be a JSON object');
  assertJson(query ?? {}, 'query', 'BAD_QUERY');
  const filter = parseFilter(query ?? {});
  checkRegexes(filter, regex);
  return filter;
}

export function prepareFind(
  store: string,
  query: unknown,
  opts: FindOptions | undefined,
  regex: RegexTester,
): PreparedFind {
  const filter = prepareFilter(store, query, regex);
  const limit = opts?.limit ?? 0;
  const skip = opts?.skip ?? 0;
  if (!Number.isInteger(limit) || limit < 0) throw badQuery('limit must be a non-negative integer');
  if (!Number.isInteger(skip) || skip < 0) throw badQuery('skip must be a non-negative integer');
  return { filter, sort: opts?.sort ? parseSort(opts.sort) : [], limit: limit === 0 ? null : limit, skip };
}

/** Gives each document its `_oId` (given string/number, else a UUID) and serializes it within the size limit. */
export function prepareDocuments(docs: readonly JsonObject[], maxBytes: number): PreparedDocument[] {
  if (!Array.isArray(docs))
    throw new PipeError('insert takes an array of documents', { code: 400, kind: 'BAD_DOCUMENT' });
  // Two documents may share an id only in a batch: one alone is not checked against itself.
  const seen = docs.length > 1 ? new Set<string>() : null;
  return docs.map((doc) => {
    if (!isPlainObject(doc))
      throw new PipeError('a document must be a JSON object', { code: 400, kind: 'BAD_DOCUMENT' });
    const given = getOwn(doc, ID_FIELD);
    if (given !== undefined && typeof given !== 'string' && typeof given !== 'number') {
      throw new PipeError(`${ID_FIELD} must be a string or a number`, { code: 400, kind: 'BAD_DOCUMENT' });
    }
    const id = given === undefined ? randomUUID() : String(given);
    if (seen?.has(id))
      throw new PipeError(`duplicate key: ${ID_FIELD} ${JSON.stringify(id)} appears twice`, {
        code: 409,
        kind: 'DUPLICATE_KEY',
      });
    seen?.add(id);
    if (given !== undefined) return { id, text: serializeDocument(doc, maxBytes) };
    if (!Object.prototype.hasOwnProperty.call(doc, ID_FIELD)) return { id, text: serializeWithId(doc, id, maxBytes) };
    // `_oId: undefined` given: the id takes that key's place.
    const stored: JsonObject = { ...doc };
    setOwn(stored, ID_FIELD, id);
    return { id, text: serializeDocument(stored, maxBytes) };
  });
}

/**
 * serializeDocument of `doc` with `_oId: id` added last (`doc` has no own `_oId`), without copying
 * `doc` to add it: JSON.stringify gives an object's own keys in order, so the id's member goes
 * before the closing brace. The id (a UUID) holds nothing assertJson would refuse.
 */
function serializeWithId(doc: JsonObject, id: string, maxBytes: number): string {
  assertJson(doc, 'document');
  const members = JSON.stringify(doc).slice(0, -1);
  return withinSizeLimit(`${members}${members === '{' ? '' : ','}"${ID_FIELD}":${JSON.stringify(id)}}`, maxBytes);
}

/**
 * A filter that is exactly `{ _oId: v }` (`$eq` too) with a string or number `v`: the `id` column it
 * selects, and whether `_oId` is then a string. Every document has an `_oId`, a string or a number,
 * and its `id` column is String(_oId) (prepareDocuments; updates cannot change `_oId`), so such a
 * filter matches exactly the row of that id whose `_oId` is of v's JSON type (String is one-to-one
 * on numbers). Null for any other filter.
 */
export function idEquality(filter: Filter): { readonly id: string; readonly isString: boolean } | null {
  const only = filter.kind === 'and' && filter.items.length === 1 ? filter.items[0] : filter;
  if (only === undefined || only.kind !== 'field' || only.path.length !== 1 || only.path[0] !== ID_FIELD) return null;
  if (only.condition.op !== 'eq') return null;
  const value = only.condition.value;
  if (typeof value === 'string') return { id: value, isString: true };
  if (typeof value === 'number') return { id: String(value), isString: false };
  return null;
}

export function idOf(doc: JsonObject): string {
  const id = getOwn(doc, ID_FIELD);
  return String(id);
}

export function validateIndexFields(fields: unknown): Array<[string, 1 | -1]> {
  if (!isPlainObject(fields) || Object.keys(fields).length === 0 || Object.keys(fields).length > 8) {
    throw badQuery('an index takes 1 to 8 fields such as { "email": 1 }');
  }
  const sort = parseSort(fields);
  return sort.map(([path, dir]) => [path.join('.'), dir]);
}

/** One index of a store as list-indexes reports it (MongoDB's `listIndexes` names: `name`, `key`, `unique`). */

/** The built-in index on `_oId` (the UNIQUE (store, id) constraint), listed like MongoDB's `_id_`. */
export const ID_INDEX: StoreIndex = { name: '_oId_', key: { _oId: 1 }, unique: true };

/** A stored index row → StoreIndex; `fields` is the JSON of validateIndexFields' pairs. */
export function storeIndexOf(name: string, fields: string, unique: boolean): StoreIndex {
  const key: Record<string, 1 | -1> = {};
  for (const [field, dir] of JSON.parse(fields) as Array<[string, 1 | -1]>) setOwn(key as JsonObject, field, dir);
  return { name, key, unique };
}

/**
 * Which stored indexes `index` (a name or a key object) designates: their names, validated as
 * pipec-generated before they reach DDL. `_oId_` cannot be dropped (400).
 */
export function indexesToDrop(index: unknown, stored: ReadonlyArray<{ name: string; fields: string }>): string[] {
  let chosen: string[];
  if (typeof index === 'string') {
    if (index === ID_INDEX.name) throw badQuery('the _oId_ index cannot be dropped');
    chosen = stored.filter((row) => row.name === index).map((row) => row.name);
  } else {
    const keys = JSON.stringify(validateIndexFields(index));
    if (keys === JSON.stringify([['_oId', 1]])) throw badQuery('the _oId_ index cannot be dropped');
    chosen = stored.filter((row) => row.fields === keys).map((row) => row.name);
  }
  for (const name of chosen)
    if (!/^pipec_u?ix_[0-9a-f]{16}$/.test(name)) throw badQuery(`not a pipec index name: ${JSON.stringify(name)}`);
  return chosen;
}

export function maxAggregateDocs(env: NodeJS.ProcessEnv): number {
  const n = Number(env['PIPEC_STORE_MAX_AGGREGATE']);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_AGGREGATE_DOCS;
}

export function aggregateTooLarge(max: number): PipeError {
  return new PipeError(`aggregate would load more than ${max} documents; add a leading $match`, {
    code: 413,
    kind: 'AGGREGATE_TOO_LARGE',
  });
}

/** Compiles every $regex once so an invalid pattern is a 400 before SQL runs. */
export function checkRegexes(filter: Filter, regex: RegexTester): void {
  const visitCondition = (c: FieldCondition): void => {
    if (c.op === 'regex') regex.check(c.pattern, c.flags);
    else if (c.op === 'not') visitCondition(c.condition);
    else if (c.op === 'all') c.conditions.forEach(visitCondition);
  };
  const visit = (f: Filter): void => {
    if (f.kind === 'field') visitCondition(f.condition);
    else f.items.forEach(visit);
  };
  visit(filter);
}

export function ttlMillis(expireAfterSeconds: number | undefined): number {
  if (expireAfterSeconds === undefined) return 0;
  if (!Number.isFinite(expireAfterSeconds) || expireAfterSeconds < 0) {
    throw new PipeError('expireAfterSeconds must be a non-negative number', { code: 400, kind: 'BAD_STORE_OPTIONS' });
  }
  return Math.round(expireAfterSeconds * 1000);
}

export interface PreparedAggregate {
  /** The leading `$match`, run in SQL (match-all when there is none). */
  readonly leading: Filter;
  /** The stages run in memory. */
  readonly rest: Stage[];
  /** A final `$merge`, run by the backend in the same transaction as the read. */
  readonly merge: MergeSpec | null;
}

/** Splits a pipeline into the leading `$match` (run in SQL), the stages run in memory and a final `$merge`. */
export function prepareAggregate(store: string, pipeline: unknown, regex: RegexTester): PreparedAggregate {
  validateStoreName(store);
  assertJson(pipeline, 'aggregate pipeline', 'BAD_QUERY');
  const stages = parsePipeline(pipeline);
  for (const stage of stages) if (stage.kind === 'match') checkRegexes(stage.filter, regex);
  const last = stages[stages.length - 1];
  const merge = last?.kind === 'merge' ? last.spec : null;
  const body = merge ? stages.slice(0, -1) : stages;
  const first = body[0];
  const leading: Filter = first?.kind === 'match' ? first.filter : { kind: 'and', items: [] };
  return { leading, rest: first?.kind === 'match' ? body.slice(1) : body, merge };
}
