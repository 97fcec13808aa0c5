/**
 * Compile-time part of `validate`: the schema (a name or inline) becomes a compiled validator
 * module, so no schema travels with a call and nothing is compiled at run time; the output is the
 * schema's shape, narrowing what was known of the message. `on-fail { … }` is the schema's `x-pipe-steps` block (step-hooks.ts).
 */
import type { ConnectorCompiler } from '../../../compiler/connectors/hook-api.js';

export const compile: ConnectorCompiler = {
  step({ step, ctx, label, message }, result, api) {
    const schemaValue = api.entryOf(step.params, 'schema');
    if (!schemaValue) return;
    const draftValue = api.entryOf(step.params, 'draft');
    const draft =
      draftValue?.kind === 'string' ? draftValue.value : draftValue?.kind === 'ident' ? draftValue.name : undefined;
    const compiled = api.compileSchemaParam(schemaValue, ctx, label ?? 'step', draft);
    if (compiled.schema === undefined) return;
    result.replaced.add('schema');
    result.replaced.add('draft');
    // The compiled validator replaces the schema: it need not travel with every call.
    delete result.params['schema'];
    if (compiled.validator) {
      result.params['validator'] = { js: compiled.validator, constant: true };
      // Valid, the value passes unchanged: the message (without `payload`) keeps what was known of it.
      result.output = api.entryOf(step.params, 'payload') ? compiled.type : api.types.narrow(message, compiled.type);
    }
  },
};
