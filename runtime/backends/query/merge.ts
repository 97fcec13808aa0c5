/**
 * Aggregate `$merge` (MongoDB's subset): `{ $merge: { into: "other-store", on, whenMatched, whenNotMatched } }`
 * or `{ $merge: "other-store" }`, as the last stage. The backends run the whole aggregate and every
 * write in one transaction; this module parses the stage and decides, document by document, what to
 * write. Supported: `on` = `_oId` (default) or field paths; `whenMatched` replace | merge (default) |
 * keepExisting | fail; `whenNotMatched` insert (default) | discard | fail. Pipelines in `whenMatched`,
 * `let`, and `into: { db, coll }` are refused with 400 BAD_QUERY.
 */
import type { Json, JsonObject } from '../../types.js';
import { PipeError } from '../../errors.js';
import {
  badQuery,
  duplicateKey,
  getOwn,
  getPath,
  isPlainObject,
  parseFieldPath,
  setOwn,
  validateStoreName,
} from '../json-safe.js';
import { applyUpdate, type UpdateSpec } from './update.js';

const ID_FIELD = '_oId';
const WHEN_MATCHED = ['replace', 'merge', 'keepExisting', 'fail'] as const;
const WHEN_NOT_MATCHED = ['insert', 'discard', 'fail'] as const;

export interface MergeSpec {
  readonly into: string;
  /** Field paths identifying the target document; `[['_oId']]` by default. */
  readonly on: ReadonlyArray<readonly string[]>;
  readonly whenMatched: (typeof WHEN_MATCHED)[number];
  readonly whenNotMatched: (typeof WHEN_NOT_MATCHED)[number];
}

export function parseMerge(spec: Json): MergeSpec {
  if (typeof spec === 'string') spec = { into: spec };
  if (!isPlainObject(spec))
    throw badQuery('$merge takes a store name or { into: "store", on, whenMatched, whenNotMatched }');
  for (const key of Object.keys(spec)) {
    if (!['into', 'on', 'whenMatched', 'whenNotMatched'].includes(key))
      throw badQuery(`$merge option ${key} is not supported`);
  }
  const into = getOwn(spec, 'into');
  if (typeof into !== 'string') throw badQuery('$merge needs `into`: the name of the target store');
  validateStoreName(into);
  const on = getOwn(spec, 'on') ?? ID_FIELD;
  const onFields = typeof on === 'string' ? [on] : on;
  if (
    !Array.isArray(onFields) ||
    onFields.length === 0 ||
    onFields.length > 8 ||
    !onFields.every((f) => typeof f === 'string')
  ) {
    throw badQuery('$merge `on` takes a field path or an array of 1 to 8 field paths');
  }
  return {
    into,
    on: (onFields as string[]).map(parseFieldPath),
    whenMatched: choice(spec, 'whenMatched', WHEN_MATCHED, 'merge'),
    whenNotMatched: choice(spec, 'whenNotMatched', WHEN_NOT_MATCHED, 'insert'),
  };
}

function choice<T extends string>(spec: JsonObject, name: string, allowed: readonly T[], fallback: T): T {
  const value = getOwn(spec, name);
  if (value === undefined) return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw badQuery(
    `$merge ${name} takes ${allowed.map((a) => JSON.stringify(a)).join(', ')}${Array.isArray(value) ? ' (pipelines are not supported)' : ''}`,
  );
}

/**
 * The equality query selecting the target of `doc`, or null when `doc` has no `_oId` and `on` is
 * `_oId` (it can only be inserted, with a generated id, as MongoDB does for a missing `_id`).
 * Other `on` fields must hold a value that is not null or an array (as MongoDB requires).
 */
export function mergeTargetQuery(spec: MergeSpec, doc: JsonObject): JsonObject | null {
  const query: JsonObject = {};
  for (const path of spec.on) {
    const field = path.join('.');
    const value = getPath(doc, path);
    if (field === ID_FIELD && value === undefined) return null;
    if (value === undefined || value === null || Array.isArray(value)) {
      throw badQuery(`$merge: every document needs a value for the \`on\` field ${field} (not null or an array)`);
    }
    // `_oId` may have been stored as a number or a string (ids are unique by their text): match both.
    const sameId = field === ID_FIELD && typeof value === 'number' ? { $in: [value, String(value)] } : null;
    setOwn(query, field, sameId ?? (isPlainObject(value) ? { $eq: value } : value));
  }
  return query;
}

/** What replaces `target` when `doc` matches it; null = leave it (keepExisting). */
export function mergedDocument(spec: MergeSpec, target: JsonObject, doc: JsonObject): JsonObject | null {
  switch (spec.whenMatched) {
    case 'keepExisting':
      return null;
    case 'fail':
      throw duplicateKey(
        `$merge found a document in ${spec.into} matching ${JSON.stringify(mergeTargetQuery(spec, doc))} (whenMatched: "fail")`,
      );
    case 'replace':
      return applyUpdate(target, { kind: 'replace', document: doc });
    case 'merge': {
      const givenId = getOwn(doc, ID_FIELD);
      if (givenId !== undefined && String(givenId) !== String(getOwn(target, ID_FIELD))) {
        throw badQuery(`$merge cannot change the immutable field ${ID_FIELD}`);
      }
      const set = Object.keys(doc)
        .filter((k) => k !== ID_FIELD)
        .map((k): [string[], Json] => [[k], getOwn(doc, k) as Json]);
      const update: UpdateSpec = { kind: 'operators', set, unset: [], inc: [] };
      return applyUpdate(target, update);
    }
  }
}

/** whenNotMatched: the document to insert, or null (discard); `fail` is a 409 with nothing written. */
export function unmatchedDocument(spec: MergeSpec, doc: JsonObject): JsonObject | null {
  if (spec.whenNotMatched === 'discard') return null;
  if (spec.whenNotMatched === 'fail') {
    throw new PipeError(
      `$merge found no document in ${spec.into} for ${JSON.stringify(mergeTargetQuery(spec, doc))} (whenNotMatched: "fail")`,
      {
        code: 409,
        kind: 'MERGE_NO_MATCH',
      },
    );
  }
  return doc;
}

/** `on` fields other than `_oId` must identify one document (MongoDB requires a unique index on them). */
export function mergeAmbiguous(spec: MergeSpec): PipeError {
  return badQuery(
    `$merge: \`on\` ${spec.on.map((p) => p.join('.')).join(', ')} matches several documents in ${spec.into}; create a unique index on it`,
  );
}
