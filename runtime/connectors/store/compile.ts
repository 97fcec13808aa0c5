/**
 * Compile-time part of `store`: the operation named in the header (`store orders.find`) must be
 * one the Object Store knows; the declared store's `expire-after` travels with the step; the output
 * shape follows the operation (reads answer `{ data, rowCount }`, writes `{ data: [], updateCount }`).
 * The store name itself is checked by its `x-pipe-ref` (schema.json).
 */
import type { ConnectorCompiler, PipeType, ShapeKit } from '../../../compiler/connectors/hook-api.js';

const OPERATIONS = [
  'insert',
  'find',
  'find-by-id',
  'update',
  'update-by-id',
  'delete',
  'delete-by-id',
  'aggregate',
  'create-index',
  'list-indexes',
  'drop-index',
];
/** Operations answering `{ data: [...], rowCount }`; the others answer `{ data: [], updateCount }`. */
const READS = ['find', 'find-by-id', 'aggregate', 'list-indexes'];

export const compile: ConnectorCompiler = {
  step({ step, ctx, extra, extraSpans }, result, api) {
    const store = extra['store'];
    const operation = extra['operation'];
    const word = step.args[0];
    if (typeof store !== 'string' || typeof operation !== 'string' || !word) return;
    if (!OPERATIONS.includes(operation)) {
      const close = api.suggest(operation, OPERATIONS);
      const named = extraSpans['operation'];
      ctx.diagnostics.push(
        api.diagnostic('PIPE2012', {
          message: named
            ? `unknown store operation \`${operation}\``
            : `a store step names its operation: \`store ${store}.find { … }\``,
          span: named ?? word.span,
          label: close ? `did you mean \`${close}\`?` : 'unknown operation',
          body: [`Operations: ${OPERATIONS.map((o) => `\`${o}\``).join(', ')}.`],
        }),
      );
    }
    // The same rule as the service's store list (check-declarations.ts storeExpireSeconds): a duration, or a
    // number of milliseconds (as every duration), in whole seconds rounded up.
    const expire = api.entryOf(ctx.facts.decls.stores.get(store)?.options, 'expire-after');
    const ms = expire?.kind === 'duration' ? expire.ms : expire?.kind === 'number' ? expire.value : 0;
    result.params['storeOptions'] = {
      js: JSON.stringify({ expireAfterSeconds: Math.ceil(ms / 1000) }),
      constant: true,
    };
    result.output = outputOf(operation, api.types);
  },
};

function outputOf(operation: string, t: ShapeKit): PipeType {
  // list-indexes rows are closed: `{ name, key, unique }`.
  const docs: PipeType =
    operation === 'list-indexes'
      ? t.closed({ name: t.STRING, key: t.objectOf({}, true), unique: t.BOOLEAN })
      : t.objectOf({}, true);
  const data = { type: t.arrayOf(docs), required: true };
  if (READS.includes(operation))
    return { kind: 'object', open: false, fields: { data, rowCount: { type: t.INTEGER, required: true } } };
  // Writes (store.ts `run`): `{ data: [], updateCount }`, and an insert's `ids`.
  const updateCount = { type: t.INTEGER, required: true };
  return operation === 'insert'
    ? { kind: 'object', open: false, fields: { data, updateCount, ids: { type: t.arrayOf(t.STRING), required: true } } }
    : { kind: 'object', open: false, fields: { data, updateCount } };
}
