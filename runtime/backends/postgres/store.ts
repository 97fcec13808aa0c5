/**
 * Object Store on PostgreSQL JSONB: the same table layout and semantics as the SQLite store, one
 * table `pipec_documents` with a `store` column. Queries become WHERE clauses with bound parameters
 * only (`#>` with a text[] path parameter, typed casts under CASE). `$set`/`$unset` of top-level
 * fields run as one statement (the rows locked FOR UPDATE, then written); other updates run in a
 * transaction with SELECT … FOR UPDATE. Either way two identical concurrent updates count 1 and 0.
 * Expired documents are purged now and then (PURGE_EVERY_MS), and at once when a write meets a
 * unique key that one still holds.
 */
import { createHash } from 'node:crypto';
import type { QueryResult, QueryResultRow } from 'pg';
import type { Clock, JsonObject, ObjectStoreBackend, StoreOptions } from '../../types.js';
import { PipeError } from '../../errors.js';
import { duplicateKey, serializeDocument, validateStoreName } from '../json-safe.js';
import { runStages } from '../query/aggregate.js';
import { indexExpressions, postgresParams, querySql, sortArraysSql, sortToSql } from '../query/filter-sql.js';
import { parseFilter, type Filter } from '../query/filter.js';
import { generateByShape, shapeCache } from '../query/shape-cache.js';
import { mergeAmbiguous, mergedDocument, mergeTargetQuery, unmatchedDocument, type MergeSpec } from '../query/merge.js';
import { sortThroughArray } from '../query/match.js';
import type { RegexTester } from '../query/regex.js';
import { applyUpdate, parseUpdate, topLevelWrites, upsertSeed, type UpdateSpec } from '../query/update.js';
import {
  aggregateTooLarge,
  prepareAggregate,
  prepareDocuments,
  prepareFilter,
  prepareFind,
  ttlMillis,
  validateIndexFields,
  ID_INDEX,
  idEquality,
  indexesToDrop,
  PURGE_EVERY_MS,
  storeIndexOf,
  type PreparedDocument,
} from '../store-input.js';
import { pgErrorCode, withDdlLock, withTransaction, type PgClient, type PgPool } from './pool.js';

export interface PgStoreOptions {
  readonly pool: PgPool;
  readonly clock: Clock;
  readonly regex: RegexTester;
  readonly maxDocumentBytes: number;
  readonly maxAggregateDocs: number;
}

type Row = { seq: string; doc: JsonObject };
type Queryable = Pick<PgClient, 'query'>;

/** At most this many statement texts are prepared by name (per connection, by the server) in a process. */
const MAX_NAMED_STATEMENTS = 500;

/**
 * The store name as SQL text. It is validated ([a-z][a-z0-9_-]*) before any query, and written as
 * a literal so that a statement prepared once can use the store's partial indexes (`WHERE store =
 * '…'`) in its generic plan, which a `$n` parameter would not prove.
 */
function storeLiteral(store: string): string {
  if (!/^[a-z][a-z0-9_-]*$/.test(store)) throw new Error(`store name not validated: ${store}`);
  return `'${store}'`;
}

export function createPgStore(opts: PgStoreOptions): ObjectStoreBackend {
  const { pool, clock, regex } = opts;

  /**
   * Runs a statement prepared by name (by the first use on each connection), so that a query of a
   * shape seen before is neither parsed nor, once PostgreSQL settles on a generic plan, planned
   * again. The values are always parameters; the name is a digest of the text. Past
   * MAX_NAMED_STATEMENTS texts, new ones run unnamed, so the prepared statements stay bounded.
   */
  const statementNames = new Map<string, string>();
  /** WHERE text by query shape (shape-cache.ts). */
  const shapes = shapeCache();
  const whereSql = (filter: Filter, params: ReturnType<typeof postgresParams>): string =>
    generateByShape(shapes, filter, params, (f, p) => querySql(f, 'postgres', p).where);
  const run = <R extends QueryResultRow>(db: Queryable, text: string, values: unknown[]): Promise<QueryResult<R>> => {
    let name = statementNames.get(text);
    if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
      name = `pipec_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
      statementNames.set(text, name);
    }
    return name === undefined ? db.query<R>(text, values) : db.query<R>({ name, text, values });
  };

  const select = async (
    db: Queryable,
    store: string,
    filter: Filter,
    page: { readonly limit: number | null; readonly skip: number },
    sort: ReadonlyArray<readonly [string[], 1 | -1]>,
    forUpdate = false,
  ): Promise<Row[]> => {
    await refuseArraySortKeys(db, store, filter, sort);
    const params = postgresParams();
    const storeP = storeLiteral(store);
    const nowP = params.bind(clock.now());
    const where = whereSql(filter, params);
    const order = sortToSql(sort, 'postgres', params);
    const limit = params.bind(page.limit);
    const skip = params.bind(page.skip);
    const sql =
      `SELECT d.seq, d.doc FROM pipec_documents AS d WHERE d.store = ${storeP} AND (d.expires_at IS NULL OR d.expires_at > ${nowP}::bigint)` +
      ` AND ${where} ORDER BY ${order} LIMIT ${limit}::bigint OFFSET ${skip}::bigint${forUpdate ? ' FOR UPDATE' : ''}`;
    const result = await run<Row>(db, sql, params.values);
    return result.rows;
  };

  /** One cheap query before a sorted read: any selected document with an array sort key → 400. */
  const refuseArraySortKeys = async (
    db: Queryable,
    store: string,
    filter: Filter,
    sort: ReadonlyArray<readonly [string[], 1 | -1]>,
  ): Promise<void> => {
    const params = postgresParams();
    const arrays = sortArraysSql(sort, 'postgres', params);
    if (arrays === null) return;
    const storeP = storeLiteral(store);
    const nowP = params.bind(clock.now());
    const where = whereSql(filter, params);
    const sql = `SELECT 1 FROM pipec_documents AS d WHERE d.store = ${storeP} AND (d.expires_at IS NULL OR d.expires_at > ${nowP}::bigint) AND ${where} AND ${arrays} LIMIT 1`;
    if ((await run(db, sql, params.values)).rows.length > 0) throw sortThroughArray();
  };

  const purgeExpired = async (db: Queryable, store: string, now: number): Promise<number> =>
    (
      await db.query('DELETE FROM pipec_documents WHERE store = $1 AND expires_at IS NOT NULL AND expires_at <= $2', [
        store,
        now,
      ])
    ).rowCount ?? 0;

  /** When this store was last purged by this process (store clock). */
  const lastPurge = new Map<string, number>();

  /**
   * Expired documents are invisible to every read and write, so purging them only gives the space
   * back: done when PURGE_EVERY_MS passed since this process last did it for the store.
   */
  const purgeNowAndThen = async (store: string, now: number): Promise<void> => {
    const last = lastPurge.get(store);
    if (last !== undefined && now - last < PURGE_EVERY_MS && now >= last) return;
    if (lastPurge.size > 10_000) lastPurge.clear();
    lastPurge.set(store, now);
    await purgeExpired(pool, store, now);
  };

  /**
   * Runs a write; when it breaks a unique key (`_oId` or a unique index) that an expired document
   * may still hold, purges the store's expired documents and, if there were any, runs it again.
   */
  const writeWithPurge = async <T>(store: string, now: number, write: () => Promise<T>): Promise<T> => {
    try {
      return await write();
    } catch (err) {
      if (pgErrorCode(err) !== '23505' || (await purgeExpired(pool, store, now)) === 0) throw translatePgError(err);
      lastPurge.set(store, now);
      try {
        return await write();
      } catch (again) {
        throw translatePgError(again);
      }
    }
  };

  /**
   * `$set`/`$unset` of top-level fields (topLevelWrites) in one statement: the selected rows are
   * locked FOR UPDATE and written only when every new document's jsonb text (never shorter than
   * the JSON serializeDocument measures) is within the size limit. Null when the update is not of
   * that kind, or when that bound was not met (the caller then runs the exact path).
   */
  const updateInPlace = async (
    store: string,
    filter: Filter,
    spec: UpdateSpec,
    multi: boolean,
  ): Promise<{ matched: number; written: number } | null> => {
    const writes = topLevelWrites(spec);
    if (writes === null) return null;
    const byId = idEquality(filter);
    if (byId !== null) {
      const written = await updateById(store, byId, writes);
      if (written > 0) return { matched: written, written };
      // No row written: none of that id, or its new document too large; the statement below tells which.
    }
    const params = postgresParams();
    let next = 'd.doc';
    for (const [field, value] of writes.set)
      next = `jsonb_set(${next}, ARRAY[${params.bind(field)}::text], ${params.bind(JSON.stringify(value))}::jsonb)`;
    for (const field of writes.unset) next = `(${next} - ${params.bind(field)}::text)`;
    const storeP = storeLiteral(store);
    const nowP = params.bind(clock.now());
    const where = whereSql(filter, params);
    const max = params.bind(opts.maxDocumentBytes);
    const sql =
      `WITH target AS (SELECT d.seq, ${next} AS next FROM pipec_documents AS d WHERE d.store = ${storeP}` +
      ` AND (d.expires_at IS NULL OR d.expires_at > ${nowP}::bigint) AND ${where} ORDER BY d.seq${multi ? '' : ' LIMIT 1'} FOR UPDATE),` +
      ` written AS (UPDATE pipec_documents AS w SET doc = t.next FROM target AS t WHERE w.seq = t.seq` +
      ` AND NOT EXISTS (SELECT 1 FROM target WHERE octet_length(next::text) > ${max}::int) RETURNING 1)` +
      ` SELECT (SELECT count(*) FROM target)::int AS matched, (SELECT count(*) FROM written)::int AS written`;
    const result = await run<{ matched: number; written: number }>(pool, sql, params.values);
    const row = result.rows[0] ?? { matched: 0, written: 0 };
    return row.written < row.matched ? null : row;
  };

  /**
   * `{ _oId: v }` alone (idEquality): one plain UPDATE of the row of that id, by the (store, id) key,
   * written only when the new document's jsonb text is within the size limit. The rows written.
   */
  const updateById = async (
    store: string,
    byId: { readonly id: string; readonly isString: boolean },
    writes: NonNullable<ReturnType<typeof topLevelWrites>>,
  ): Promise<number> => {
    const params = postgresParams();
    let next = 'd.doc';
    for (const [field, value] of writes.set)
      next = `jsonb_set(${next}, ARRAY[${params.bind(field)}::text], ${params.bind(JSON.stringify(value))}::jsonb)`;
    for (const field of writes.unset) next = `(${next} - ${params.bind(field)}::text)`;
    const nowP = params.bind(clock.now());
    const id = params.bind(byId.id);
    const max = params.bind(opts.maxDocumentBytes);
    const sql =
      `UPDATE pipec_documents AS d SET doc = ${next} WHERE d.store = ${storeLiteral(store)} AND d.id = ${id}::text` +
      ` AND jsonb_typeof(d.doc -> '_oId') = '${byId.isString ? 'string' : 'number'}'` +
      ` AND (d.expires_at IS NULL OR d.expires_at > ${nowP}::bigint) AND octet_length((${next})::text) <= ${max}::int`;
    return (await run(pool, sql, params.values)).rowCount ?? 0;
  };

  /** One atomic statement: the store's TTL is read in the same INSERT. */
  const insertRows = async (
    db: Queryable,
    store: string,
    docs: readonly PreparedDocument[],
    now: number,
  ): Promise<void> => {
    if (docs.length === 0) return;
    await run(
      db,
      `INSERT INTO pipec_documents (store, id, doc, created_at, expires_at)
       SELECT $1, x.id, x.doc::jsonb, $2, CASE WHEN t.ms > 0 THEN $2 + t.ms END
       FROM unnest($3::text[], $4::text[]) AS x(id, doc),
            (SELECT COALESCE((SELECT expire_after_ms FROM pipec_stores WHERE store = $1), 0) AS ms) AS t`,
      [store, now, docs.map((d) => d.id), docs.map((d) => d.text)],
    );
  };

  /** Writes aggregate results into `spec.into` (inside the caller's transaction; targets locked FOR UPDATE). */
  const mergeInto = async (client: PgClient, spec: MergeSpec, results: readonly JsonObject[]): Promise<void> => {
    const now = clock.now();
    await purgeExpired(client, spec.into, now);
    lastPurge.set(spec.into, now);
    for (const doc of results) {
      const query = mergeTargetQuery(spec, doc);
      const targets =
        query === null ? [] : await select(client, spec.into, parseFilter(query), { limit: 2, skip: 0 }, [], true);
      if (targets.length > 1) throw mergeAmbiguous(spec);
      const [target] = targets;
      if (target !== undefined) {
        const next = mergedDocument(spec, target.doc, doc);
        if (next !== null)
          await client.query('UPDATE pipec_documents SET doc = $1::jsonb WHERE seq = $2', [
            serializeDocument(next, opts.maxDocumentBytes),
            target.seq,
          ]);
      } else {
        const inserted = unmatchedDocument(spec, doc);
        if (inserted !== null)
          await insertRows(client, spec.into, prepareDocuments([inserted], opts.maxDocumentBytes), now);
      }
    }
  };

  /** Any update: the rows read FOR UPDATE, the update applied in JavaScript, each row written back. */
  const updateInTransaction = (
    store: string,
    filter: Filter,
    spec: UpdateSpec,
    multi: boolean,
    upsert: boolean,
    now: number,
  ): Promise<number> =>
    withTransaction(pool, async (client) => {
      const rows = await select(client, store, filter, { limit: multi ? null : 1, skip: 0 }, [], true);
      for (const row of rows) {
        const text = serializeDocument(applyUpdate(row.doc, spec), opts.maxDocumentBytes);
        await client.query('UPDATE pipec_documents SET doc = $1::jsonb WHERE seq = $2', [text, row.seq]);
      }
      if (rows.length === 0 && upsert) {
        const seed = spec.kind === 'replace' ? {} : upsertSeed(filter);
        await insertRows(client, store, prepareDocuments([applyUpdate(seed, spec)], opts.maxDocumentBytes), now);
        return 1;
      }
      return rows.length;
    });

  return {
    async insert(store: string, docs: readonly JsonObject[], storeOpts?: StoreOptions) {
      validateStoreName(store);
      const ttl = storeOpts?.expireAfterSeconds === undefined ? undefined : ttlMillis(storeOpts.expireAfterSeconds);
      const prepared = prepareDocuments(docs, opts.maxDocumentBytes);
      const now = clock.now();
      // Without a transaction: each statement is atomic and the insert alone decides success.
      try {
        if (ttl !== undefined) {
          await pool.query(
            `INSERT INTO pipec_stores (store, expire_after_ms) VALUES ($1, $2) ON CONFLICT (store) DO UPDATE
             SET expire_after_ms = EXCLUDED.expire_after_ms WHERE pipec_stores.expire_after_ms <> EXCLUDED.expire_after_ms`,
            [store, ttl],
          );
        }
        await purgeNowAndThen(store, now);
      } catch (err) {
        throw translatePgError(err);
      }
      await writeWithPurge(store, now, () => insertRows(pool, store, prepared, now));
      return { ids: prepared.map((d) => d.id) };
    },

    async find(store, query, findOpts) {
      const prepared = prepareFind(store, query, findOpts, regex);
      try {
        return (await select(pool, store, prepared.filter, prepared, prepared.sort)).map((r) => r.doc);
      } catch (err) {
        throw translatePgError(err);
      }
    },

    async findById(store, id) {
      validateStoreName(store);
      if (typeof id !== 'string' && typeof id !== 'number')
        throw new PipeError('id must be a string', { code: 400, kind: 'BAD_QUERY' });
      const result = await run<{ doc: JsonObject }>(
        pool,
        'SELECT doc FROM pipec_documents WHERE store = $1 AND id = $2 AND (expires_at IS NULL OR expires_at > $3)',
        [store, String(id), clock.now()],
      );
      return result.rows[0]?.doc ?? null;
    },

    async update(store, query, update, updateOpts) {
      const filter = prepareFilter(store, query, regex);
      const spec = parseUpdate(update);
      const multi = updateOpts?.multi ?? true;
      const now = clock.now();
      try {
        await purgeNowAndThen(store, now);
      } catch (err) {
        throw translatePgError(err);
      }
      const inPlace = await writeWithPurge(store, now, () => updateInPlace(store, filter, spec, multi));
      if (inPlace !== null && (inPlace.written > 0 || !updateOpts?.upsert)) return inPlace.written;
      return writeWithPurge(store, now, () =>
        updateInTransaction(store, filter, spec, multi, updateOpts?.upsert === true, now),
      );
    },

    async delete(store, query, deleteOpts) {
      const filter = prepareFilter(store, query, regex);
      const multi = deleteOpts?.multi ?? true;
      const params = postgresParams();
      const storeP = storeLiteral(store);
      const nowP = params.bind(clock.now());
      const where = whereSql(filter, params);
      const sql =
        `DELETE FROM pipec_documents WHERE seq IN (SELECT d.seq FROM pipec_documents AS d WHERE d.store = ${storeP}` +
        ` AND (d.expires_at IS NULL OR d.expires_at > ${nowP}::bigint) AND ${where} ORDER BY d.seq${multi ? '' : ' LIMIT 1'})`;
      try {
        await purgeNowAndThen(store, clock.now());
        // One statement: atomic by itself.
        return (await run(pool, sql, params.values)).rowCount ?? 0;
      } catch (err) {
        throw translatePgError(err);
      }
    },

    async aggregate(store, pipeline) {
      const { leading, rest, merge } = prepareAggregate(store, pipeline, regex);
      const run = async (db: Queryable): Promise<JsonObject[]> => {
        const rows = await select(db, store, leading, { limit: opts.maxAggregateDocs + 1, skip: 0 }, []);
        if (rows.length > opts.maxAggregateDocs) throw aggregateTooLarge(opts.maxAggregateDocs);
        return runStages(
          rows.map((r) => r.doc),
          rest,
          regex,
        );
      };
      if (merge === null) {
        return run(pool).catch((err: unknown) => {
          throw translatePgError(err);
        });
      }
      // The read and every write of $merge in one transaction: all or nothing.
      await writeTransaction(pool, async (client) => mergeInto(client, merge, await run(client)));
      return [];
    },

    async createIndex(store, fields, indexOpts) {
      validateStoreName(store);
      const keys = validateIndexFields(fields);
      const unique = indexOpts?.unique === true;
      const name = pgIndexName(store, keys, unique);
      // DDL cannot take parameters: the store name and path segments are validated to [A-Za-z0-9_$-].
      const columns = keys
        .map(([field, dir]) => `${indexExpressions(field, 'postgres').value} ${dir === 1 ? 'ASC' : 'DESC'}`)
        .join(', ');
      const sql = `CREATE ${unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS "${name}" ON pipec_documents (${columns}) WHERE store = '${store}'`;
      try {
        await withDdlLock(pool, async (client) => {
          await client.query(sql);
          await client.query(
            'INSERT INTO pipec_indexes (store, name, fields, is_unique, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
            [store, name, JSON.stringify(keys), unique, clock.now()],
          );
        });
      } catch (err) {
        throw translatePgError(err);
      }
    },

    async listIndexes(store) {
      validateStoreName(store);
      const result = await pool.query<{ name: string; fields: string; is_unique: boolean }>(
        'SELECT name, fields, is_unique FROM pipec_indexes WHERE store = $1 ORDER BY seq',
        [store],
      );
      return [ID_INDEX, ...result.rows.map((r) => storeIndexOf(r.name, r.fields, r.is_unique))];
    },

    async dropIndex(store, index) {
      validateStoreName(store);
      let dropped = 0;
      await withDdlLock(pool, async (client) => {
        const stored = await client.query<{ name: string; fields: string }>(
          'SELECT name, fields FROM pipec_indexes WHERE store = $1',
          [store],
        );
        const names = indexesToDrop(index, stored.rows);
        for (const name of names) {
          // DDL cannot take parameters: `name` is a stored pipec name, checked against pipec_u?ix_<hex>.
          await client.query(`DROP INDEX IF EXISTS "${name}"`);
          await client.query('DELETE FROM pipec_indexes WHERE store = $1 AND name = $2', [store, name]);
        }
        dropped = names.length;
      });
      return dropped;
    },

    async close() {
      // The pool is shared with the lock and closed by createBackends.
    },
  };
}

async function writeTransaction<T>(pool: PgPool, fn: (client: PgClient) => Promise<T>): Promise<T> {
  try {
    return await withTransaction(pool, fn);
  } catch (err) {
    throw translatePgError(err);
  }
}

function translatePgError(err: unknown): unknown {
  const code = pgErrorCode(err);
  if (code === '23505') return duplicateKey((err as Error).message, err);
  if (code === '22P05' || code === '22021') {
    return new PipeError('document contains text PostgreSQL cannot store (\\u0000)', {
      code: 400,
      kind: 'BAD_DOCUMENT',
      cause: err,
    });
  }
  if (code === '57014')
    return new PipeError('store query exceeded the statement timeout', {
      code: 504,
      kind: 'QUERY_TIMEOUT',
      cause: err,
    });
  if (code === '2201B')
    return new PipeError(`invalid $regex: ${(err as Error).message}`, { code: 400, kind: 'BAD_QUERY', cause: err });
  return err;
}

export function pgIndexName(store: string, keys: ReadonlyArray<readonly [string, 1 | -1]>, unique: boolean): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([store, keys, unique]))
    .digest('hex')
    .slice(0, 16);
  return `pipec_${unique ? 'uix' : 'ix'}_${digest}`;
}
