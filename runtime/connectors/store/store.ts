/**
 * The `store` connector (Digibee's Object Store): `store NAME.OPERATION [label] { params }`.
 * Input: params (already evaluated) with `store` + `operation` (or `target` = "NAME.OPERATION");
 * output shapes follow the reference — writes `{ data: [], updateCount }` (insert adds `ids`),
 * reads `{ data: [...], rowCount }` (list-indexes: `{ name, key, unique }` per index). Works on
 * ctx.services.store, whichever backend it is.
 */
import type { ConnectorRun, Json, JsonObject, ObjectStoreBackend } from '../../types.js';
import { PipeError } from '../../errors.js';

export const run: ConnectorRun = async (params, _message, ctx): Promise<JsonObject> => {
  const { store, operation } = target(params);
  const backend = ctx.services.store;
  switch (operation) {
    case 'insert': {
      const document = params['document'];
      const docs = Array.isArray(document) ? document : [document];
      if (document === undefined || !docs.every(isObject))
        throw bad('insert needs `document`: an object or an array of objects');
      const { ids } = await backend.insert(store, docs as JsonObject[], storeOptions(params));
      return { data: [], updateCount: ids.length, ids };
    }
    case 'find': {
      const data = await backend.find(store, query(params), {
        ...optionalInteger(params, 'limit'),
        ...optionalInteger(params, 'skip'),
        ...(params['sort'] === undefined ? {} : { sort: params['sort'] as Record<string, 1 | -1> }),
      });
      return { data, rowCount: data.length };
    }
    case 'find-by-id': {
      const doc = await backend.findById(store, id(params));
      return { data: doc ? [doc] : [], rowCount: doc ? 1 : 0 };
    }
    case 'update':
    case 'update-by-id': {
      const update = params['update'];
      if (!isObject(update)) throw bad('update needs `update`: $set/$unset/$inc operators or a replacement document');
      const filter = operation === 'update' ? query(params) : byId(id(params));
      const updateCount = await backend.update(store, filter, update, {
        upsert: flag(params, 'upsert', false),
        multi: operation === 'update' ? flag(params, 'multi', true) : false,
      });
      return { data: [], updateCount };
    }
    case 'delete':
    case 'delete-by-id': {
      const filter = operation === 'delete' ? query(params) : byId(id(params));
      const updateCount = await backend.delete(store, filter, {
        multi: operation === 'delete' ? flag(params, 'multi', true) : false,
      });
      return { data: [], updateCount };
    }
    case 'aggregate': {
      const pipeline = params['pipeline'];
      if (!Array.isArray(pipeline) || !pipeline.every(isObject))
        throw bad('aggregate needs `pipeline`: an array of stages');
      const data = await backend.aggregate(store, pipeline as JsonObject[]);
      return { data, rowCount: data.length };
    }
    case 'list-indexes': {
      const indexes = await backend.listIndexes(store);
      const data = indexes.map((i): JsonObject => ({ name: i.name, key: i.key, unique: i.unique }));
      return { data, rowCount: data.length };
    }
    case 'drop-index': {
      const name = params['name'];
      const fields = params['fields'];
      if (
        (name === undefined) === (fields === undefined) ||
        (name !== undefined && typeof name !== 'string') ||
        (fields !== undefined && !isObject(fields))
      ) {
        throw bad('drop-index needs either `name` (as list-indexes reports it) or `fields` ({ field: 1 | -1 })');
      }
      const updateCount = await backend.dropIndex(
        store,
        typeof name === 'string' ? name : (fields as Record<string, 1 | -1>),
      );
      return { data: [], updateCount };
    }
    case 'create-index': {
      const fields = params['fields'];
      if (!isObject(fields)) throw bad('create-index needs `fields`: { field: 1 | -1 }');
      await backend.createIndex(store, fields as Record<string, 1 | -1>, { unique: flag(params, 'unique', false) });
      return { data: [], updateCount: 0 };
    }
    // The operations are schema.json's `operation` enum, checked at build time; this is a run without a build.
    default:
      throw bad(`unknown store operation ${JSON.stringify(operation)}`);
  }
};

function target(params: JsonObject): { store: string; operation: string } {
  let store = params['store'];
  let operation = params['operation'];
  const header = params['target'];
  if ((store === undefined || operation === undefined) && typeof header === 'string') {
    const dot = header.indexOf('.');
    if (dot > 0) {
      store ??= header.slice(0, dot);
      operation ??= header.slice(dot + 1);
    }
  }
  if (typeof store !== 'string' || typeof operation !== 'string')
    throw bad('store needs `store` and `operation` (header `store NAME.OPERATION`)');
  return { store, operation };
}

/** A query object, or JSON text of one (a `{{ }}` value may render a string). */
function query(params: JsonObject): JsonObject {
  const raw = params['query'];
  if (raw === undefined || raw === null) return {};
  if (typeof raw === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new PipeError('`query` is not valid JSON', { code: 400, kind: 'BAD_QUERY' });
    }
    if (!isObject(parsed as Json))
      throw new PipeError('`query` must be a JSON object', { code: 400, kind: 'BAD_QUERY' });
    return parsed as JsonObject;
  }
  if (!isObject(raw)) throw new PipeError('`query` must be a JSON object', { code: 400, kind: 'BAD_QUERY' });
  return raw;
}

function id(params: JsonObject): string {
  const value = params['id'];
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.length > 0) return value;
  throw bad('this operation needs `id`: the document `_oId`');
}

/** `_oId` may have been given as a number on insert: match both spellings of a numeric id. */
function byId(value: string): JsonObject {
  const numeric = /^-?\d+(\.\d+)?$/.test(value) ? [Number(value)] : [];
  return { _oId: { $in: [value, ...numeric] } };
}

function storeOptions(params: JsonObject): { expireAfterSeconds?: number } | undefined {
  const opts = params['storeOptions'];
  if (!isObject(opts)) return undefined;
  const seconds = opts['expireAfterSeconds'];
  const millis = opts['expire-after'];
  if (typeof seconds === 'number') return { expireAfterSeconds: seconds };
  if (typeof millis === 'number') return { expireAfterSeconds: millis / 1000 };
  return undefined;
}

function optionalInteger(params: JsonObject, name: 'limit' | 'skip'): Partial<Record<'limit' | 'skip', number>> {
  const value = params[name];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw bad(`\`${name}\` must be a non-negative integer`);
  return { [name]: value };
}

function flag(params: JsonObject, name: string, fallback: boolean): boolean {
  const value = params[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw bad(`\`${name}\` must be true or false`);
  return value;
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bad(message: string): PipeError {
  return new PipeError(message, { code: 400, kind: 'BAD_STORE_PARAMS' });
}
