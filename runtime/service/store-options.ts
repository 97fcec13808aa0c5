/**
 * Declared store options (`store reprocess { expire-after: 1d, indexes: [...] }`) applied at the
 * backend port: inserts into a declared store get its `expireAfterSeconds` unless the caller set
 * one, so connectors need not know the declarations; declared indexes are created at start.
 */
import type { ObjectStoreBackend, StoreOptions } from '../types.js';

/** What a `store NAME { … }` declaration says, as the generated service passes it. */
export interface DeclaredStore {
  readonly expireAfterSeconds?: number;
  readonly indexes?: readonly { readonly fields: Readonly<Record<string, 1 | -1>>; readonly unique?: boolean }[];
}

/** Creates every declared index (createIndex is idempotent: an existing index is kept). */
export async function createDeclaredIndexes(
  store: ObjectStoreBackend,
  declared: Readonly<Record<string, DeclaredStore>>,
): Promise<void> {
  for (const [name, options] of Object.entries(declared)) {
    for (const index of options.indexes ?? [])
      await store.createIndex(name, index.fields, { unique: index.unique === true });
  }
}

export function withDeclaredStoreOptions(
  store: ObjectStoreBackend,
  declared: Readonly<Record<string, DeclaredStore>>,
): ObjectStoreBackend {
  const optionsFor = (name: string, given: StoreOptions | undefined): StoreOptions | undefined => {
    const ttl = Object.hasOwn(declared, name) ? declared[name]?.expireAfterSeconds : undefined;
    if (given?.expireAfterSeconds !== undefined || ttl === undefined) return given;
    return { ...given, expireAfterSeconds: ttl };
  };
  return {
    insert: (name, docs, opts) => store.insert(name, docs, optionsFor(name, opts)),
    find: (name, query, opts) => store.find(name, query, opts),
    findById: (name, id) => store.findById(name, id),
    update: (name, query, update, opts) => store.update(name, query, update, opts),
    delete: (name, query, opts) => store.delete(name, query, opts),
    aggregate: (name, pipeline) => store.aggregate(name, pipeline),
    createIndex: (name, fields, opts) => store.createIndex(name, fields, opts),
    listIndexes: (name) => store.listIndexes(name),
    dropIndex: (name, index) => store.dropIndex(name, index),
    close: () => store.close(),
  };
}
