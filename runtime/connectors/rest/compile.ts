/**
 * Compile-time part of `rest`: `response-schema` (a schema name or an inline schema) types the
 * response's `body`, so the steps after the call are checked against it — `{{ message.body.totl }}`
 * is an error when the schema is closed. It describes the body the pipeline expects; it is not
 * checked at run time.
 */
import type { ConnectorCompiler } from '../../../compiler/connectors/hook-api.js';

export const compile: ConnectorCompiler = {
  step({ step, schema, ctx }, result, api) {
    const written = api.entryOf(step.params, 'response-schema');
    if (!written) return;
    const body = api.resolveSchema(written, ctx);
    const envelope = api.schemaToType(schema.output);
    if (body === undefined || envelope.kind !== 'object') return;
    result.output = {
      ...envelope,
      fields: { ...envelope.fields, body: { type: api.schemaToType(body), required: true } },
    };
  },
};
