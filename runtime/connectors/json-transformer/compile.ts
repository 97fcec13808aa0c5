/**
 * Compile-time part of `json-transformer`: each action's `value` and `condition` are `{{ }}` over
 * `item` (the element being transformed) and become module-level functions, typed against the
 * message at this step; the other fields of an action stay values.
 */
import type { ConnectorCompiler } from '../../../compiler/connectors/hook-api.js';

export const compile: ConnectorCompiler = {
  step({ step, ctx, message, label }, result, api) {
    const actions = api.entryOf(step.params, 'actions');
    if (!actions || actions.kind !== 'array') return;
    const env = ctx.bracesEnv(message, { item: api.types.UNKNOWN });
    const compiledActions = actions.items.map((action, i) => {
      if (action.kind !== 'object') return 'undefined';
      const parts: string[] = [];
      for (const entry of action.entries) {
        if (entry.kind !== 'entry') continue;
        if (entry.key === 'value' || entry.key === 'condition') {
          const compiled = api.compileValue(entry.value, env, ctx);
          const fn = ctx.hoist(
            `${label ?? 'transformer'}-action${i + 1}-${entry.key}`,
            `(item: Json, message: Json, ctx: ExecutionContext): Json => ${compiled.js}`,
            `json-transformer action ${i + 1}: ${entry.key}`,
          );
          parts.push(`${entry.key}: ${fn}`);
        } else {
          parts.push(`${api.propertyKey(entry.key)}: ${api.compileValue(entry.value, env, ctx).js}`);
        }
      }
      return `{ ${parts.join(', ')} }`;
    });
    result.replaced.add('actions');
    result.params['actions'] = { js: `[${compiledActions.join(', ')}]`, constant: true };
  },
};
