/**
 * Compile-time part of `redis`: the output shape follows the operation (schema.json says which
 * parameters each operation takes; README.md lists the outputs), so `{{ step.cached.found }}` is
 * checked like every other field and `{{ step.cached.stored }}` after a `get` is an error.
 */
import type { ConnectorCompiler, PipeType, ShapeKit } from '../../../compiler/connectors/hook-api.js';

export const compile: ConnectorCompiler = {
  step({ step, extra }, result, api) {
    const written = api.entryOf(step.params, 'operation');
    const operation =
      typeof extra['operation'] === 'string'
        ? extra['operation']
        : written?.kind === 'string'
          ? written.value
          : written?.kind === 'ident'
            ? written.name
            : undefined;
    if (operation === undefined) return;
    const output = outputOf(operation, api.types);
    if (output) result.output = output;
  },
};

/** The output of each operation (redis.ts `perform`); undefined for an unknown one (the schema reports it). */
export function outputOf(operation: string, t: ShapeKit): PipeType | undefined {
  // A stored value: a string, null when absent, any JSON with `as: "json"`.
  const value = t.UNKNOWN;
  switch (operation) {
    case 'get':
    case 'list-pop':
      return t.closed({ key: t.STRING, value, found: t.BOOLEAN });
    case 'set':
      return t.closed({ key: t.STRING, stored: t.BOOLEAN });
    case 'delete':
      return t.closed({ deleted: t.INTEGER });
    case 'increment':
      return t.closed({ key: t.STRING, value: t.INTEGER });
    case 'expire':
      return t.closed({ key: t.STRING, updated: t.BOOLEAN });
    case 'hash-get':
      return t.closed({ key: t.STRING, field: t.STRING, value, found: t.BOOLEAN });
    case 'hash-set':
      return t.closed({ key: t.STRING, added: t.INTEGER });
    case 'hash-get-all':
      return t.closed({ key: t.STRING, fields: t.objectOf({}, true), found: t.BOOLEAN });
    case 'hash-delete':
      return t.closed({ key: t.STRING, deleted: t.INTEGER });
    case 'list-push':
      return t.closed({ key: t.STRING, length: t.INTEGER });
    case 'list-range':
      return t.closed({ key: t.STRING, values: t.arrayOf(value) });
    case 'publish':
      return t.closed({ channel: t.STRING, receivers: t.INTEGER });
    default:
      return undefined;
  }
}
