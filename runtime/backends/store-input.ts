/**
 * Validation and preparation shared by the SQLite and PostgreSQL Object Stores: everything a call
 * needs is checked and parsed here (store name, query, sort, paging, documents, sizes, regexes)
 * before the backend opens a transaction, so a bad call never writes anything.
 */
import { randomUUID } from 'node:crypto';
import type { FindOptions, JsonObject } from '../types.js';
import { PipeError } from '../errors.js';
import { assertJson, badQuery, getOwn, isPlainObject, serializeDocument, setOwn, validateStoreName } from './json-safe.js';
import { parseFilter, type FieldCondition, type Filter } from './query/filter.js';
import { parsePipeline, parseSort, type Stage } from './query/aggregate.js';
import type { RegexTester } from './query/regex.js';

export const ID_FIELD = '_oId';
/** Aggregations load at most this many documents after the leading $match (env PIPEC_STORE_MAX_AGGREGATE). */
export const DEFAULT_MAX_AGGREGATE_DOCS = 100_000;

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

export function prepareFind(store: string, query: unknown, opts: FindOptions | undefined, regex: RegexTester): PreparedFind {
  const filter = prepareFilter(store, query, regex);
  const limit = opts?.limit ?? 0;
  const skip = opts?.skip ?? 0;
  if (!Number.isInteger(limit) || limit < 0) throw badQuery('limit must be a non-negative integer');
  if (!Number.isInteger(skip) || skip < 0) throw badQuery('skip must be a non-negative integer');
  return { filter, sort: opts?.sort ? parseSort(opts.sort) : [], limit: limit === 0 ? null : limit, skip };
}

/** Gives each document its `_oId` (given string/number, else a UUID) and serializes it within the size limit. */
export function prepareDocuments(docs: readonly JsonObject[], maxBytes: number): PreparedDocument[] {
  if (!Array.isArray(docs)) throw new PipeError('insert takes an array of documents', { code: 400, kind: 'BAD_DOCUMENT' });
  const seen = new Set<string>();
  return docs.map((doc) => {
    if (!isPlainObject(doc)) throw new PipeError('a document must be a JSON object', { code: 400, kind: 'BAD_DOCUMENT' });
    const given = getOwn(doc, ID_FIELD);
    if (given !== undefined && typeof given !== 'string' && typeof given !== 'number') {
      throw new PipeError(`${ID_FIELD} must be a string or a number`, { code: 400, kind: 'BAD_DOCUMENT' });
    }
    const id = given === undefined ? randomUUID() : String(given);
    if (seen.has(id)) throw new PipeError(`duplicate key: ${ID_FIELD} ${JSON.stringify(id)} appears twice`, { code: 409, kind: 'DUPLICATE_KEY' });
    seen.add(id);
    const stored: JsonObject = { ...doc };
    if (given === undefined) setOwn(stored, ID_FIELD, id);
    return { id, text: serializeDocument(stored, maxBytes) };
  });
}

export function idOf(doc: JsonObject): string {
  const id = getOwn(doc, ID_FIELD);
  return String(id);
}

export function validateIndexFields(fields: unknown): Array<[string, 1 | -1]> {
  if (!isPlainObject(fields) || Object.keys(fields).length === 0 || Object.keys(fields).length > 8) {
    throw badQuery('createIndex takes 1 to 8 fields such as { "email": 1 }');
  }
  const sort = parseSort(fields);
  return sort.map(([path, dir]) => [path.join('.'), dir]);
}

export function maxAggregateDocs(env: NodeJS.ProcessEnv): number {
  const n = Number(env['PIPEC_STORE_MAX_AGGREGATE']);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_AGGREGATE_DOCS;
}

export function aggregateTooLarge(max: number): PipeError {
  return new PipeError(`aggregate would load more than ${max} documents; add a leading $match`, { code: 413, kind: 'AGGREGATE_TOO_LARGE' });
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

/** Splits a pipeline into the leading `$match` (run in SQL) and the stages run in memory. */
export function prepareAggregate(store: string, pipeline: unknown, regex: RegexTester): { leading: Filter; rest: Stage[] } {
  validateStoreName(store);
  assertJson(pipeline, 'aggregate pipeline', 'BAD_QUERY');
  const stages = parsePipeline(pipeline);
  for (const stage of stages) if (stage.kind === 'match') checkRegexes(stage.filter, regex);
  const first = stages[0];
  return first?.kind === 'match' ? { leading: first.filter, rest: stages.slice(1) } : { leading: { kind: 'and', items: [] }, rest: stages };
}
