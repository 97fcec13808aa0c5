/**
 * Compile-time part of `validate`: the schema (a name or inline) becomes a compiled validator
 * module, so no schema travels with a call and nothing is compiled at run time; the output is
 * what was validated (`payload`, of the schema's shape, or the message, narrowed by it) — and,
 * when an invalid value does not fail the execution (`fail-on-error` off), possibly
 * `{ success: false, validation }`: `validation` is then a field of the output too.
 * `on-fail { … }` is the schema's `x-pipe-steps` block (step-hooks.ts).
 */
import type { ConnectorCompiler, PipeType, ShapeKit } from '../../../compiler/connectors/hook-api.js';

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
      const failOnError = api.entryOf(step.params, 'fail-on-error');
      const failsSoftly = !(failOnError?.kind === 'boolean' && failOnError.value);
      // Valid, the value passes unchanged: the message, or the `payload` that replaces it, keeps
      // what was known of it, narrowed by the schema.
      const payload = api.entryOf(step.params, 'payload');
      const validated = payload ? api.valueType(payload, message, ctx) : message;
      const valid = api.types.narrow(validated, compiled.type);
      result.output = failsSoftly ? withValidation(valid, api.types) : valid;
    }
  },
};

/**
 * A closed shape with the invalid case's `validation` list as an optional field (the other failure
 * fields, `success` first, are added for every step that fails softly: check-steps.ts).
 */
function withValidation(type: PipeType, t: ShapeKit): PipeType {
  if (type.kind !== 'object' || type.open || Object.hasOwn(type.fields, 'validation')) return type;
  return { ...type, fields: { ...type.fields, validation: { type: t.arrayOf(t.UNKNOWN), required: false } } };
}
