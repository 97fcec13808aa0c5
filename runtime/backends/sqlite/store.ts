/**
 * Object Store on SQLite JSON1: one table `pipec_documents` with a `store` column (see README.md);
 * documents are stored as SQLite JSONB blobs (about twice as fast to query as JSON text).
 * Queries become WHERE clauses with bound parameters only (query/filter-sql.ts); updates are applied
 * in memory inside an IMMEDIATE transaction; TTL hides documents whose `expires_at` passed (by the
 * injected clock) and purges them on the next write to that store.
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
  sqliteParams,
  querySql,
  type ProbeContext,
} from '../query/filter-sql.js';
import { parseFilter, type Filter } from '../query/filter.js';
import { mergeAmbiguous, mergedDocument, mergeTargetQuery, unmatchedDocument, type MergeSpec } from '../query/merge.js';
import { sortThroughArray } from '../query/match.js';
import type { RegexTester } from '../query/regex.js';
import { applyUpdate, parseUpdate, upsertSeed } from '../query/update.js';
import {
  aggregateTooLarge,
  prepareDocuments,
  prepareFilter,
  prepareAggregate,
  prepareFind,
  ttlMillis,
  validateIndexFields,
  ID_INDEX,
  indexesToDrop,
  storeIndexOf,
} from '../store-input.js';
import { isUniqueViolation, statementCache, type SqliteDatabase } from './database.js';

export interface SqliteStoreOptions {
  readonly db: SqliteDatabase;
  readonly clock: Clock;
  readonly regex: RegexTester;
  readonly maxDocumentBytes: number;
  readonly maxAggregateDocs: number;
}

type Row = { seq: number; id: string; doc: string };

export function createSqliteStore(opts: SqliteStoreOptions): ObjectStoreBackend {
  const { db, clock, regex } = opts;
  const statement = statementCache(db);
  const visible = 'd.store = @store AND (d.expires_at IS NULL OR d.expires_at > @now)';

  /** The fields that lead an index of `store`: queries on them get index probes (filter-sql.ts). */
  const probes = (store: string): ProbeContext => {
    const rows = statement('SELECT name, fields FROM pipec_indexes WHERE store = ? ORDER BY rowid').all(
      store,
    ) as Array<{ name: string; fields: string }>;
    const indexed = new Map<string, string>();
    for (const r of rows) {
      const first = (JSON.parse(r.fields) as Array<[string, number]>)[0]?.[0];
      if (first !== undefined && !indexed.has(first)) indexed.set(first, r.name);
    }
    return { indexed, store };
  };

  const purgeExpired = (store: string, now: number): void => {
    statement('DELETE FROM pipec_documents WHERE store = ? AND expires_at IS NOT NULL AND expires_at <= ?').run(
      store,
      now,
    );
  };

  const selectRows = (
    store: string,
    filter: Filter,
    tail: { readonly limit: number | null; readonly skip: number },
    sortKeys: ReadonlyArray<readonly [string[], 1 | -1]>,
  ): Row[] => {
    refuseArraySortKeys(store, filter, sortKeys);
    const params = sqliteParams();
    const { from, where } = querySql(filter, 'sqlite', params, probes(store));
    const order = sortToSql(sortKeys, 'sqlite', params);
    const limit = params.bind(tail.limit ?? -1);
    const skip = params.bind(tail.skip);
    const sql = `SELECT d.seq, d.id, json(d.doc) AS doc FROM ${from} WHERE ${visible} AND ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${skip}`;
    return statement(sql).all({ ...params.values, store, now: clock.now() }) as Row[];
  };

  /** One cheap query before a sorted read: any selected document with an array sort key → 400. */
  const refuseArraySortKeys = (
    store: string,
    filter: Filter,
    sortKeys: ReadonlyArray<readonly [string[], 1 | -1]>,
  ): void => {
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

  const insertPrepared = statement(
    'INSERT INTO pipec_documents (store, id, doc, created_at, expires_at) VALUES (@store, @id, jsonb(@doc), @now, @expires)',
  );

  const storeTtl = (store: string): number =>
    (
      statement('SELECT expire_after_ms AS ttl FROM pipec_stores WHERE store = ?').get(store) as
        { ttl: number } | undefined
    )?.ttl ?? 0;

  const insertRows = (store: string, docs: ReadonlyArray<{ id: string; text: string }>, now: number): void => {
    const ttl = storeTtl(store);
    for (const d of docs)
      insertPrepared.run({ store, id: d.id, doc: d.text, now, expires: ttl > 0 ? now + ttl : null });
  };

  /** Writes aggregate results into `spec.into` (inside the caller's transaction). */
  const mergeInto = (spec: MergeSpec, results: readonly JsonObject[]): void => {
    const now = clock.now();
    purgeExpired(spec.into, now);
    const write = statement('UPDATE pipec_documents SET doc = jsonb(?) WHERE seq = ?');
    for (const doc of results) {
      const query = mergeTargetQuery(spec, doc);
      const targets = query === null ? [] : selectRows(spec.into, parseFilter(query), { limit: 2, skip: 0 }, []);
      if (targets.length > 1) throw mergeAmbiguous(spec);
      const [target] = targets;
      if (target !== undefined) {
        const next = mergedDocument(spec, JSON.parse(target.doc) as JsonObject, doc);
        if (next !== null) write.run(serializeDocument(next, opts.maxDocumentBytes), target.seq);
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
      try {
        db.transaction(() => {
          if (ttl !== undefined) {
            statement(
              'INSERT INTO pipec_stores (store, expire_after_ms) VALUES (?, ?) ON CONFLICT (store) DO UPDATE SET expire_after_ms = excluded.expire_after_ms',
            ).run(store, ttl);
          }
          purgeExpired(store, now);
          insertRows(store, prepared, now);
        }).immediate();
      } catch (err) {
        translateWriteError(err);
      }
      return { ids: prepared.map((d) => d.id) };
    },

    async find(store, query, findOpts) {
      const prepared = prepareFind(store, query, findOpts, regex);
      return selectRows(store, prepared.filter, prepared, prepared.sort).map((r) => JSON.parse(r.doc) as JsonObject);
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
      const filter = prepareFilter(store, query, regex);
      const spec = parseUpdate(update);
      const multi = updateOpts?.multi ?? true;
      const now = clock.now();
      try {
        return db
          .transaction(() => {
            purgeExpired(store, now);
            const rows = selectRows(store, filter, { limit: multi ? null : 1, skip: 0 }, []);
            const write = statement('UPDATE pipec_documents SET doc = jsonb(?) WHERE seq = ?');
            for (const row of rows) {
              const next = applyUpdate(JSON.parse(row.doc) as JsonObject, spec);
              write.run(serializeDocument(next, opts.maxDocumentBytes), row.seq);
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
      } catch (err) {
        return translateWriteError(err);
      }
    },

    async delete(store, query, deleteOpts) {
      const filter = prepareFilter(store, query, regex);
      const multi = deleteOpts?.multi ?? true;
      const params = sqliteParams();
      const { from, where } = querySql(filter, 'sqlite', params, probes(store));
      const sql = `DELETE FROM pipec_documents WHERE seq IN (SELECT d.seq FROM ${from} WHERE ${visible} AND ${where} ORDER BY d.seq ${multi ? '' : 'LIMIT 1'})`;
      const now = clock.now();
      return db
        .transaction(() => {
          purgeExpired(store, now);
          return statement(sql).run({ ...params.values, store, now }).changes;
        })
        .immediate();
    },

    async aggregate(store, pipeline) {
      const { leading, rest, merge } = prepareAggregate(store, pipeline, regex);
      const run = (): JsonObject[] => {
        const rows = selectRows(store, leading, { limit: opts.maxAggregateDocs + 1, skip: 0 }, []);
        if (rows.length > opts.maxAggregateDocs) throw aggregateTooLarge(opts.maxAggregateDocs);
        return runStages(
          rows.map((r) => JSON.parse(r.doc) as JsonObject),
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
