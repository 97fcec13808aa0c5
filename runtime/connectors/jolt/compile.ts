/**
 * Compile-time part of `jolt`: the spec (literal JSON; the schema allows no `{{ }}` in it) is
 * checked and compiled to one JavaScript function over `J` (runtime/jolt/), hoisted to module level;
 * the step gets it as `transform`. Errors point at the spec's key or value in the .pipe file. The
 * step's output shape is inferred from the spec and the message shape (shift keys that never match
 * it are warnings).
 */
import type { ConnectorCompiler, PipeType, Value, Span } from '../../../compiler/connectors/hook-api.js';

export const compile: ConnectorCompiler = {
  step({ step, ctx, label, message }, result, api) {
    const specValue = api.entryOf(step.params, 'spec');
    if (!specValue) return;
    const literal = api.toLiteral(specValue);
    if (literal.dynamic.size > 0) return; // dynamic specs are rejected by the schema (no x-pipe-braces)
    const locate = (path: readonly (string | number)[], part: 'key' | 'value'): Span => {
      const pointer = path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
      return (
        (part === 'key' ? literal.spans.get(`#key:${pointer}`) : undefined) ??
        api.spanAt(literal, pointer, specValue.span)
      );
    };
    const compiled = api.compileJoltChain(literal.json, locate, ctx);
    ctx.diagnostics.push(...compiled.diagnostics);
    if (compiled.diagnostics.some((d) => d.severity === 'error')) return;
    ctx.namespaces.add('J');
    const name = ctx.hoist(`jolt-${label ?? 'transform'}`, compiled.js, 'compiled JOLT chain');
    result.replaced.add('spec');
    result.params['transform'] = { js: name, constant: true };
    const inferred = api.inferJoltShape(literal.json, message, locate);
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
