/**
 * Compile-time part of `jslt`: the query is checked and compiled to one JavaScript function over
 * `L` (runtime/jslt/), hoisted to module level; the step gets it as `transform`. Errors point into
 * the query inside the .pipe file, line by line for multi-line strings. The step's output shape is
 * inferred from the query and the shape of its input (`payload`, else the message); reads of fields
 * that input cannot have are warnings.
 */
import type { ConnectorCompiler, PipeType, Value } from '../../../compiler/connectors/hook-api.js';

export const compile: ConnectorCompiler = {
  step({ step, ctx, label, message }, result, api) {
    const queryValue = api.entryOf(step.params, 'query');
    if (!queryValue || queryValue.kind !== 'string') return;
    const compiled = api.compileJsltValue(queryValue, ctx);
    ctx.diagnostics.push(...compiled.diagnostics);
    if (compiled.diagnostics.some((d) => d.severity === 'error')) return;
    ctx.namespaces.add('L');
    const name = ctx.hoist(`jslt-${label ?? 'transform'}`, compiled.js, 'compiled JSLT query');
    result.replaced.add('query');
    result.params['transform'] = { js: name, constant: true };
    const payload = api.entryOf(step.params, 'payload');
    const input = payload === undefined ? message : api.valueType(payload, message, ctx);
    const inferred = api.inferJsltShape(queryValue, input, ctx);
    ctx.diagnostics.push(...inferred.diagnostics);
    result.output = withFailure(inferred.type, api.entryOf(step.params, 'fail-on-error'), api.types.UNKNOWN);
  },
};

/**
 * The output shape when the step may also give the failure object (`fail-on-error` off, the
 * default): the compiler adds the failure's fields to an object shape; a value that is no object
 * (a string, a list) could not show them, so it is `unknown` then.
 */
function withFailure(output: PipeType, failOnError: Value | undefined, unknown: PipeType): PipeType {
  const stops = failOnError?.kind === 'boolean' && failOnError.value;
  return stops || output.kind === 'object' || output.kind === 'null' ? output : unknown;
}
