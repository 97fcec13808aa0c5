/**
 * Object Store on SQLite JSON1: one table `pipec_documents` with a `store` column (see README.md);
 * documents are stored as SQLite JSONB blobs (about twice as fast to query as JSON text).
 * Queries become WHERE clauses with bound parameters only (query/filter-sql.ts), prepared once per
 * shape; `$set`/`$unset` of top-level fields run as one UPDATE, other updates are applied in memory
 * inside an IMMEDIATE transaction. TTL hides documents whose `expires_at` passed (by the injected
 * clock); writes purge them now and then (PURGE_EVERY_MS), and at once when a write meets a unique
 * key that an expired document still holds.
 */
import { createHash } from 'node:crypto';
import type { Clock, JsonObject, ObjectStoreBackend, StoreOptions } from '../../types.js';
import { PipeError } from '../../errors.js';
import { duplicateKey, serializeDocument, validateStoreName } from '../json-safe.js';
import { runStages } from '../query/aggregate.js';
import {
  indexExpressions,
  sortArraysSql,
  sortToSql,
  sqliteEqualityArms,
  type EqualityArms,
  sqliteJsonPath,
  sqliteParams,
  querySql,
  type ProbeContext,
} from '../query/filter-sql.js';
import { parseFilter, type Filter } from '../query/filter.js';
import { generateByShape, shapeCache, type ShapeCache } from '../query/shape-cache.js';
import { mergeAmbiguous, mergedDocument, mergeTargetQuery, unmatchedDocument, type MergeSpec } from '../query/merge.js';
import { sortThroughArray } from '../query/match.js';
import type { RegexTester } from '../query/regex.js';
import { applyUpdate, parseUpdate, topLevelWrites, upsertSeed, type UpdateSpec } from '../query/update.js';
import {
  aggregateTooLarge,
  prepareDocuments,
  prepareFilter,
  prepareAggregate,
  prepareFind,
  ttlMillis,
  validateIndexFields,
  ID_INDEX,
  idEquality,
  indexesToDrop,
  PURGE_EVERY_MS,
  storeIndexOf,
} from '../store-input.js';
import { isUniqueViolation, statementCache, type SqliteDatabase } from './database.js';
import { checkedDocumentSql, idWriteArgs, idWriteOf, idWriteSql, type IdWrite } from './update-by-id.js';

type Statement = ReturnType<SqliteDatabase['prepare']>;

/** The key under which the statements of updates by `_oId` alone are kept (their text has no filter part). */
const ID_FILTER = { from: '', where: '' };

/** How often (ms) a store rereads the schema version that says whether its index lists still hold. */
const VERSION_EVERY_MS = 1000;

export interface SqliteStoreOptions {
  readonly db: SqliteDatabase;
  readonly clock: Clock;
  readonly regex: RegexTester;
  readonly maxDocumentBytes: number;
  readonly maxAggregateDocs: number;
}

/**
 * The most a page of documents (limit × the document size limit) may hold to be read as one JSON
 * text: far below what one string may hold (SQLite 1 GB, V8 about 512 MB).
 */
const PAGE_TEXT_BYTES = 32 * 1024 * 1024;

/**
 * How a read hands its documents over: rows of `[seq, JSON text]`, the JSON texts (`docs`) or one
 * JSON array of them (`page`).
 */
type Form = 'rows' | 'docs' | 'page';

/**
 * A SELECT of `form` over `inner`, a SELECT of the JSONB `doc` (and `seq`) in order. json() renders
 * the documents of the page alone. For `page`, json_group_array takes them in that order: SQLite
 * keeps the ORDER BY of a FROM subquery that has a LIMIT or feeds an aggregate other than count, min
 * and max (select.c, "omit superfluous ORDER BY"), and the subquery runs as a co-routine, its rows
 * in order; a test of the SQLite store checks it.
 */
function formSql(form: Form, inner: string): string {
  if (form === 'page') return `SELECT json_group_array(json(doc)) FROM (${inner})`;
  return `SELECT ${form === 'rows' ? 'seq, ' : ''}json(doc) FROM (${inner})`;
}

/**
 * Whether a read of an equality's scalar keys alone (select) holds its row of NULLs: the store holds
 * an array there. Looked for in every row, not only the last: UNION ALL without ORDER BY promises
 * no order (SQLite does give its arms' rows in turn).
 */
function holdsNulls(form: Form, selected: Row[] | string[] | string): boolean {
  if (form === 'page') return selected === null;
  if (form === 'docs') return (selected as string[]).includes(null as unknown as string);
  return (selected as Row[]).some((row) => row[0] === null);
}

/** A selected row as better-sqlite3 returns it in raw mode: `[seq, JSON text]` (no object per row). */
type Row = readonly [seq: number, doc: string];
type Tail = { readonly limit: number | null; readonly skip: number };
type SortKeys = ReadonlyArray<readonly [string[], 1 | -1]>;

export function createSqliteStore(opts: SqliteStoreOptions): ObjectStoreBackend {
  const { db, clock, regex } = opts;
  const statement = statementCache(db);
  /** The reads of documents, in raw mode (rows as arrays: cheaper to make than an object per row). */
  const rowsStatement = statementCache(db, 256, 'raw');
  /** The reads of JSON texts alone (one column, plucked). */
  const docsStatement = statementCache(db, 256, 'pluck');
  const visible = 'd.store = @store AND (d.expires_at IS NULL OR d.expires_at > @now)';

  /**
   * The indexes of each store as last read, kept while the file's schema_version stays the same:
   * createIndex and dropIndex (of any process sharing the file) change the schema and
   * pipec_indexes in one transaction, so a changed version means "read again". The version is
   * read before the list, so a list is never older than the version it is kept under.
   */
  const schemaVersion = db.prepare('PRAGMA schema_version').pluck();
  const indexLists = new Map<string, ProbeContext>();
  let indexListsVersion: unknown = null;
  /**
   * When (performance.now()) the version was last read. Reading it is a read transaction of its
   * own (as costly as a small query), so it is read again only after VERSION_EVERY_MS: an index
   * another process creates is used from then on (until then queries are answered without it); one
   * it drops is noticed at once (withIndexes); this process's own createIndex/dropIndex reset it.
   */
  let versionReadAt = -Infinity;

  /** The fields that lead an index of `store`: queries on them get index probes (filter-sql.ts). */
  const probes = (store: string): ProbeContext => {
    const at = performance.now();
    if (indexListsVersion === null || at - versionReadAt >= VERSION_EVERY_MS || at < versionReadAt) {
      versionReadAt = at;
      const version = schemaVersion.get();
      if (version !== indexListsVersion) {
        indexLists.clear();
        indexListsVersion = version;
      }
    }
    if (indexLists.size > 1000) indexLists.clear();
    const known = indexLists.get(store);
    if (known !== undefined) return known;
    const rows = statement('SELECT name, fields FROM pipec_indexes WHERE store = ? ORDER BY rowid').all(
      store,
    ) as Array<{ name: string; fields: string }>;
    const indexed = new Map<string, string>();
    for (const r of rows) {
      const first = (JSON.parse(r.fields) as Array<[string, number]>)[0]?.[0];
      if (first !== undefined && !indexed.has(first)) indexed.set(first, r.name);
    }
    const context = { indexed, store };
    indexLists.set(store, context);
    return context;
  };

  /**
   * Runs `read` (which names indexes through `probes`); when another process dropped one of them
   * between the list and the query ("no such index"), once more with the list read again.
   */
  const withIndexes = <T>(read: () => T): T => {
    try {
      return read();
    } catch (err) {
      if (!/no such index/i.test((err as Error).message ?? '')) throw err;
      indexListsVersion = null;
      return read();
    }
  };

  /** SQL text by query shape (shape-cache.ts), per index list: the text names the indexes. */
  const shapeCaches = new WeakMap<ProbeContext, Record<'read' | 'sorted' | 'write', ShapeCache>>();
  const shapesOf = (context: ProbeContext): Record<'read' | 'sorted' | 'write', ShapeCache> => {
    let caches = shapeCaches.get(context);
    if (caches === undefined) {
      caches = { read: shapeCache(), sorted: shapeCache(), write: shapeCache() };
      shapeCaches.set(context, caches);
    }
    return caches;
  };

  /**
   * Statement text made from a cached shape's output (generateByShape returns the same object for
   * every call of a known shape), by `key` for what else shapes the text: built and hashed once,
   * not on every call.
   */
  const texts = new WeakMap<object, Map<string, string>>();
  const textOf = (output: object, key: string, build: () => string): string => {
    let byKey = texts.get(output);
    if (byKey === undefined) {
      byKey = new Map();
      texts.set(output, byKey);
    }
    let text = byKey.get(key);
    if (text === undefined) {
      text = build();
      if (byKey.size >= 64) byKey.clear();
      byKey.set(key, text);
    }
    return text;
  };

  /** FROM and WHERE of a filter over the store's rows, with its index probes. */
  const filterSql = (
    filter: Filter,
    params: ReturnType<typeof sqliteParams>,
    context: ProbeContext,
  ): { from: string; where: string } =>
    generateByShape(shapesOf(context).write, filter, params, (f, p) => querySql(f, 'sqlite', p, context));

  const purgeExpired = (store: string, now: number): number =>
    statement('DELETE FROM pipec_documents WHERE store = ? AND expires_at IS NOT NULL AND expires_at <= ?').run(
      store,
      now,
    ).changes;

  /** When this store was last purged by this process (store clock). */
  const lastPurge = new Map<string, number>();

  /**
   * Expired documents are invisible to every read and write, so purging them only gives the space
   * back: done when PURGE_EVERY_MS passed since this process last did it for the store.
   */
  const purgeNowAndThen = (store: string, now: number): void => {
    const last = lastPurge.get(store);
    if (last !== undefined && now - last < PURGE_EVERY_MS && now >= last) return;
    if (lastPurge.size > 10_000) lastPurge.clear();
    lastPurge.set(store, now);
    purgeExpired(store, now);
  };

  /**
   * Runs a write; when it breaks a unique key (`_oId` or a unique index) that an expired document
   * may still hold, purges the store's expired documents and, if there were any, runs it again.
   */
  const writeWithPurge = <T>(store: string, now: number, write: () => T): T => {
    try {
      return write();
    } catch (err) {
      if (!isUniqueViolation(err) || purgeExpired(store, now) === 0) return translateWriteError(err);
      lastPurge.set(store, now);
      try {
        return write();
      } catch (again) {
        return translateWriteError(again);
      }
    }
  };

  /**
   * The equality reads (sqliteEqualityArms) that met a document with an array under their field:
   * read with the array key merged in from then on (see select).
   */
  const arraysMet = new WeakSet<EqualityArms>();

  /**
   * The rows of `arms` (FROM and WHERE texts) as `seq` and the JSONB `doc`, in seq order: one
   * SELECT, or one per arm merged.
   */
  const mergedSql = (arms: readonly string[], limit: number, skip: string): string =>
    arms.length === 1
      ? `SELECT d.seq AS seq, d.doc AS doc FROM ${arms[0]} AND ${visible} ORDER BY d.seq LIMIT ${limit} OFFSET ${skip}`
      : `${arms.map((arm) => `SELECT d.seq AS seq, d.doc AS doc FROM ${arm} AND ${visible}`).join(' UNION ALL ')} ORDER BY 1 LIMIT ${limit} OFFSET ${skip}`;

  /**
   * A read through the index keys of an equality (sqliteEqualityArms), one SELECT per key merged in
   * seq order: no sort, LIMIT stops early. Arrays under an indexed field are rare and merging their
   * key in costs a sixth of a small read: unless `withArrays`, the scalar keys alone, with a row of NULLs
   * when the store holds such an array there (select then reads again with it).
   */
  const equalitySql = (arms: EqualityArms, form: Form, limit: number, skip: string, withArrays: boolean): string =>
    textOf(arms, `${limit} ${skip} ${form} ${withArrays}`, () => {
      if (withArrays) return formSql(form, mergedSql([...arms.scalars, arms.arrays], limit, skip));
      const scalars = formSql(form, mergedSql(arms.scalars, limit, skip));
      const anyArray = `EXISTS (SELECT 1 FROM ${arms.anyArray})`;
      return form === 'page'
        ? `SELECT CASE WHEN ${anyArray} THEN NULL ELSE (${scalars}) END`
        : `${scalars} UNION ALL SELECT ${form === 'rows' ? 'NULL, NULL' : 'NULL'} WHERE ${anyArray}`;
    });

  /**
   * The documents a read selects, in order: `[seq, JSON text]` rows, the JSON texts alone (`docs`,
   * one column plucked: cheaper than a row per document), or (`page`) one JSON array of them
   * (cheaper still for a few: one value to hand over and one text to parse).
   */
  function select(store: string, filter: Filter, tail: Tail, sortKeys: SortKeys, form: 'rows'): Row[];
  function select(store: string, filter: Filter, tail: Tail, sortKeys: SortKeys, form: 'docs'): string[];
  function select(store: string, filter: Filter, tail: Tail, sortKeys: SortKeys, form: 'page'): string;
  function select(
    store: string,
    filter: Filter,
    tail: Tail,
    sortKeys: SortKeys,
    form: Form,
  ): Row[] | string[] | string {
    return withIndexes(() => {
      refuseArraySortKeys(store, filter, sortKeys);
      const params = sqliteParams();
      const context = probes(store);
      const arms =
        sortKeys.length === 0
          ? generateByShape(shapesOf(context).read, filter, params, (f, p) => sqliteEqualityArms(f, p, context))
          : null;
      // The limit as a literal: SQLite stops a merge early on a constant LIMIT only (×5 on a small page).
      const limit = tail.limit ?? -1;
      if (!Number.isSafeInteger(limit)) throw new Error(`limit not validated: ${limit}`);
      let sql: string;
      let skip: string;
      if (arms !== null) {
        skip = params.bind(tail.skip);
        sql = equalitySql(arms, form, limit, skip, arraysMet.has(arms) || arms.scalars.length === 0);
      } else {
        const { from, where } = generateByShape(shapesOf(context).sorted, filter, params, (f, p) =>
          querySql(f, 'sqlite', p, context),
        );
        const order = sortToSql(sortKeys, 'sqlite', params);
        skip = params.bind(tail.skip);
        const rest = `FROM ${from} WHERE ${visible} AND ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${skip}`;
        sql =
          form === 'page'
            ? formSql(form, `SELECT d.doc AS doc ${rest}`)
            : `SELECT ${form === 'rows' ? 'd.seq, ' : ''}json(d.doc) AS doc ${rest}`;
      }
      const values = params.values;
      values['store'] = store;
      values['now'] = clock.now();
      const selected = readWith(form, sql, values);
      if (arms === null || !holdsNulls(form, selected)) return selected;
      arraysMet.add(arms);
      return readWith(form, equalitySql(arms, form, limit, skip, true), values);
    });
  }

  const readWith = (form: Form, sql: string, values: Record<string, unknown>): Row[] | string[] | string =>
    form === 'page'
      ? (docsStatement(sql).get(values) as string)
      : ((form === 'docs' ? docsStatement : rowsStatement)(sql).all(values) as Row[] | string[]);

  const selectRows = (store: string, filter: Filter, tail: Tail, sortKeys: SortKeys): Row[] =>
    select(store, filter, tail, sortKeys, 'rows');

  /** The documents a read selects, parsed: one JSON text for a page small enough (PAGE_TEXT_BYTES). */
  const selectDocs = (store: string, filter: Filter, tail: Tail, sortKeys: SortKeys): JsonObject[] =>
    tail.limit !== null && tail.limit * opts.maxDocumentBytes <= PAGE_TEXT_BYTES
      ? (JSON.parse(select(store, filter, tail, sortKeys, 'page')) as JsonObject[])
      : select(store, filter, tail, sortKeys, 'docs').map((doc) => JSON.parse(doc) as JsonObject);

  /** One cheap query before a sorted read: any selected document with an array sort key → 400. */
  const refuseArraySortKeys = (
    store: string,
    filter: Filter,
    sortKeys: ReadonlyArray<readonly [string[], 1 | -1]>,
  ): void => {
    if (sortKeys.length === 0) return;
    const params = sqliteParams();
    const arrays = sortArraysSql(sortKeys, 'sqlite', params);
    if (arrays === null) return;
    const { from, where } = querySql(filter, 'sqlite', params, probes(store));
    const sql = `SELECT 1 FROM ${from} WHERE ${visible} AND ${where} AND ${arrays} LIMIT 1`;
    if (statement(sql).get({ ...params.values, store, now: clock.now() }) !== undefined) throw sortThroughArray();
  };

  const translateWriteError = (err: unknown): never => {
    if (isUniqueViolation(err)) throw duplicateKey((err as Error).message, err);
    throw err;
  };

  /**
   * One atomic statement per document: the store's TTL is read in the same INSERT (another process
   * sharing the file may have set it), NULL (no expiry) when the store has none or 0. Positional
   * parameters: store, id, JSON text, now, then now and store again for the TTL.
   */
  const insertPrepared = statement(
    `INSERT INTO pipec_documents (store, id, doc, created_at, expires_at)
     VALUES (?, ?, jsonb(?), ?, (SELECT ? + expire_after_ms FROM pipec_stores WHERE store = ? AND expire_after_ms > 0))`,
  );

  const insertRows = (store: string, docs: ReadonlyArray<{ id: string; text: string }>, now: number): void => {
    for (const d of docs) insertPrepared.run(store, d.id, d.text, now, now, store);
  };

  /**
   * `$set`/`$unset` of top-level fields (topLevelWrites) as one UPDATE of the selected rows, atomic
   * by itself: a new document whose JSON (what serializeDocument measures) is over the size limit
   * makes `pipec_document_too_large` (database.ts) throw the 413, which undoes the statement.
   * Null when the update is not of that kind.
   */
  const updateInPlace = (store: string, filter: Filter, spec: UpdateSpec, multi: boolean): number | null => {
    const writes = topLevelWrites(spec);
    if (writes === null) return null;
    const byId = idEquality(filter);
    return withIndexes(() => {
      const params = sqliteParams();
      // Bound first, in this order: paths and values of $set, paths of $unset (the text only names them).
      const setAt = writes.set.map(
        ([field, value]) => [params.bind(sqliteJsonPath([field])), params.bind(JSON.stringify(value))] as const,
      );
      const unsetAt = writes.unset.map((field) => params.bind(sqliteJsonPath([field])));
      // `{ _oId: v }` alone: the one row of that id (its UNIQUE index), no filter SQL (idEquality).
      const filterText = byId === null ? filterSql(filter, params, probes(store)) : ID_FILTER;
      const max = params.bind(opts.maxDocumentBytes);
      const key = `${multi ? 'm' : '1'} ${byId?.isString ?? ''} ${setAt.map(([path, value]) => `${path},${value}`).join(' ')} | ${unsetAt.join(' ')} | ${max}`;
      const sql = textOf(filterText, key, () => {
        let next = 'doc';
        if (setAt.length > 0)
          next = `jsonb_set(${next}, ${setAt.map(([path, value]) => `${path}, json(${value})`).join(', ')})`;
        if (unsetAt.length > 0) next = `jsonb_remove(${next}, ${unsetAt.join(', ')})`;
        const checked = checkedDocumentSql(next, max);
        if (byId !== null) {
          const type = byId.isString ? "= 'text'" : "IN ('integer','real')";
          return `UPDATE pipec_documents AS d SET doc = ${checked} WHERE ${visible} AND d.id = @id AND json_type(d.doc, '$."_oId"') ${type}`;
        }
        const { from, where } = filterText;
        // Every matching row, and no probe listing rows to join: the UPDATE filters the rows itself.
        return multi && from === 'pipec_documents AS d'
          ? `UPDATE pipec_documents AS d SET doc = ${checked} WHERE ${visible} AND ${where}`
          : `UPDATE pipec_documents SET doc = ${checked} WHERE seq IN (SELECT d.seq FROM ${from} WHERE ${visible} AND ${where}` +
              ` ORDER BY d.seq${multi ? '' : ' LIMIT 1'})`;
      });
      const values = params.values;
      values['store'] = store;
      values['now'] = clock.now();
      if (byId !== null) values['id'] = byId.id;
      return statement(sql).run(values).changes;
    });
  };

  /** The statements of updates by `_oId` (idWriteSql), by shape: one Map lookup per call. */
  const idWrites = new Map<string, Statement>();
  const idWriteStatement = (write: IdWrite): Statement => {
    let prepared = idWrites.get(write.shape);
    if (prepared === undefined) {
      prepared = db.prepare(idWriteSql(write, opts.maxDocumentBytes));
      if (idWrites.size >= 256) idWrites.clear();
      idWrites.set(write.shape, prepared);
    }
    return prepared;
  };

  /** Writes aggregate results into `spec.into` (inside the caller's transaction). */
  const mergeInto = (spec: MergeSpec, results: readonly JsonObject[]): void => {
    const now = clock.now();
    purgeExpired(spec.into, now);
    lastPurge.set(spec.into, now);
    const write = statement('UPDATE pipec_documents SET doc = jsonb(?) WHERE seq = ?');
    for (const doc of results) {
      const query = mergeTargetQuery(spec, doc);
      const targets = query === null ? [] : selectRows(spec.into, parseFilter(query), { limit: 2, skip: 0 }, []);
      if (targets.length > 1) throw mergeAmbiguous(spec);
      const [target] = targets;
      if (target !== undefined) {
        const next = mergedDocument(spec, JSON.parse(target[1]) as JsonObject, doc);
        if (next !== null) write.run(serializeDocument(next, opts.maxDocumentBytes), target[0]);
      } else {
        const inserted = unmatchedDocument(spec, doc);
        if (inserted !== null) insertRows(spec.into, prepareDocuments([inserted], opts.maxDocumentBytes), now);
      }
    }
  };

  return {
    async insert(store: string, docs: readonly JsonObject[], storeOpts?: StoreOptions) {
      validateStoreName(store);
      const ttl = storeOpts?.expireAfterSeconds === undefined ? undefined : ttlMillis(storeOpts.expireAfterSeconds);
      const prepared = prepareDocuments(docs, opts.maxDocumentBytes);
      const now = clock.now();
      purgeNowAndThen(store, now);
      writeWithPurge(store, now, () => {
        const [single] = prepared;
        // One document and no TTL to record: the one INSERT is atomic by itself.
        if (ttl === undefined && prepared.length === 1 && single !== undefined) insertRows(store, [single], now);
        else
          db.transaction(() => {
            if (ttl !== undefined) {
              statement(
                'INSERT INTO pipec_stores (store, expire_after_ms) VALUES (?, ?) ON CONFLICT (store) DO UPDATE SET expire_after_ms = excluded.expire_after_ms',
              ).run(store, ttl);
            }
            insertRows(store, prepared, now);
          }).immediate();
      });
      return { ids: prepared.map((d) => d.id) };
    },

    async find(store, query, findOpts) {
      const prepared = prepareFind(store, query, findOpts, regex);
      return selectDocs(store, prepared.filter, prepared, prepared.sort);
    },

    async findById(store, id) {
      validateStoreName(store);
      if (typeof id !== 'string' && typeof id !== 'number')
        throw new PipeError('id must be a string', { code: 400, kind: 'BAD_QUERY' });
      const row = statement(`SELECT json(d.doc) AS doc FROM pipec_documents AS d WHERE ${visible} AND d.id = @id`).get({
        store,
        now: clock.now(),
        id: String(id),
      }) as { doc: string } | undefined;
      return row ? (JSON.parse(row.doc) as JsonObject) : null;
    },

    async update(store, query, update, updateOpts) {
      validateStoreName(store);
      // An update by `_oId` of top-level fields, recognised from the arguments (update-by-id.ts).
      const byId = updateOpts?.upsert ? null : idWriteOf(query, update);
      if (byId !== null) {
        const now = clock.now();
        purgeNowAndThen(store, now);
        return writeWithPurge(store, now, () => idWriteStatement(byId).run(idWriteArgs(byId, store, now)).changes);
      }
      const filter = prepareFilter(store, query, regex);
      const spec = parseUpdate(update);
      const multi = updateOpts?.multi ?? true;
      const now = clock.now();
      purgeNowAndThen(store, now);
      return writeWithPurge(store, now, () => {
        const updated = updateInPlace(store, filter, spec, multi);
        if (updated !== null && (updated > 0 || !updateOpts?.upsert)) return updated;
        return db
          .transaction(() => {
            const rows = selectRows(store, filter, { limit: multi ? null : 1, skip: 0 }, []);
            const write = statement('UPDATE pipec_documents SET doc = jsonb(?) WHERE seq = ?');
            for (const row of rows) {
              const next = applyUpdate(JSON.parse(row[1]) as JsonObject, spec);
              write.run(serializeDocument(next, opts.maxDocumentBytes), row[0]);
            }
            if (rows.length === 0 && updateOpts?.upsert) {
              const seed = spec.kind === 'replace' ? {} : upsertSeed(filter);
              const doc = applyUpdate(seed, spec);
              insertRows(store, prepareDocuments([doc], opts.maxDocumentBytes), now);
              return 1;
            }
            return rows.length;
          })
          .immediate();
      });
    },

    async delete(store, query, deleteOpts) {
      const filter = prepareFilter(store, query, regex);
      const multi = deleteOpts?.multi ?? true;
      const now = clock.now();
      purgeNowAndThen(store, now);
      return withIndexes(() => {
        const params = sqliteParams();
        const { from, where } = filterSql(filter, params, probes(store));
        const sql = `DELETE FROM pipec_documents WHERE seq IN (SELECT d.seq FROM ${from} WHERE ${visible} AND ${where} ORDER BY d.seq ${multi ? '' : 'LIMIT 1'})`;
        return statement(sql).run({ ...params.values, store, now }).changes;
      });
    },

    async aggregate(store, pipeline) {
      const { leading, rest, merge } = prepareAggregate(store, pipeline, regex);
      const run = (): JsonObject[] => {
        const docs = select(store, leading, { limit: opts.maxAggregateDocs + 1, skip: 0 }, [], 'docs');
        if (docs.length > opts.maxAggregateDocs) throw aggregateTooLarge(opts.maxAggregateDocs);
        return runStages(
          docs.map((doc) => JSON.parse(doc) as JsonObject),
          rest,
          regex,
        );
      };
      if (merge === null) return run();
      try {
        // The read and every write of $merge in one IMMEDIATE transaction: all or nothing.
        db.transaction(() => mergeInto(merge, run())).immediate();
      } catch (err) {
        translateWriteError(err);
      }
      return [];
    },

    async createIndex(store, fields, indexOpts) {
      validateStoreName(store);
      const keys = validateIndexFields(fields);
      const unique = indexOpts?.unique === true;
      const name = indexName(store, keys, unique);
      // DDL cannot take parameters: the store name and paths are validated to [A-Za-z0-9_$-] above.
      const columns = keys
        .map(([field, dir]) => {
          const { type, value } = indexExpressions(field, 'sqlite');
          return `${type}, ${value} ${dir === 1 ? 'ASC' : 'DESC'}`;
        })
        .join(', ');
      const sql = `CREATE ${unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS "${name}" ON pipec_documents (${columns}) WHERE store = '${store}'`;
      try {
        db.transaction(() => {
          db.exec(sql);
          statement(
            'INSERT INTO pipec_indexes (store, name, fields, is_unique, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
          ).run(store, name, JSON.stringify(keys), unique ? 1 : 0, clock.now());
        }).immediate();
      } catch (err) {
        translateWriteError(err);
      } finally {
        indexListsVersion = null;
      }
    },

    async listIndexes(store) {
      validateStoreName(store);
      const rows = statement(
        'SELECT name, fields, is_unique AS isUnique FROM pipec_indexes WHERE store = ? ORDER BY rowid',
      ).all(store) as Array<{ name: string; fields: string; isUnique: number }>;
      return [ID_INDEX, ...rows.map((r) => storeIndexOf(r.name, r.fields, r.isUnique === 1))];
    },

    async dropIndex(store, index) {
      validateStoreName(store);
      indexListsVersion = null;
      return db
        .transaction(() => {
          const stored = statement('SELECT name, fields FROM pipec_indexes WHERE store = ?').all(store) as Array<{
            name: string;
            fields: string;
          }>;
          const names = indexesToDrop(index, stored);
          for (const name of names) {
            // DDL cannot take parameters: `name` is a stored pipec name, checked against pipec_u?ix_<hex>.
            db.exec(`DROP INDEX IF EXISTS "${name}"`);
            statement('DELETE FROM pipec_indexes WHERE store = ? AND name = ?').run(store, name);
          }
          return names.length;
        })
        .immediate();
    },

    async close() {
      // The shared database handle is closed by createBackends.
    },
  };
}

export function indexName(store: string, keys: ReadonlyArray<readonly [string, 1 | -1]>, unique: boolean): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([store, keys, unique]))
    .digest('hex')
    .slice(0, 16);
  return `pipec_${unique ? 'uix' : 'ix'}_${digest}`;
}
