/**
 * Compile-time part of `agent`: the `output-schema` (a name or inline) is checked and compiled,
 * and gives the output shape `{ body, tokenUsage }`; each MCP tool's `account: name` must name an
 * account and also brings that account's fields at run time.
 */
import type { ConnectorCompiler, ObjectValue } from '../../../compiler/connectors/hook-api.js';

export const compile: ConnectorCompiler = {
  step({ step, ctx, message }, result, api) {
    const t = api.types;
    const schemaValue = api.entryOf(step.params, 'output-schema');
    const output = schemaValue ? api.compileSchemaParam(schemaValue, ctx, 'agent-output') : undefined;
    const tokenUsage = t.objectOf({ inputTokenCount: t.INTEGER, outputTokenCount: t.INTEGER, totalTokenCount: t.INTEGER });
    const body = output?.schema !== undefined ? output.type : t.objectOf({ text: t.STRING });
    result.output = t.objectOf({ body, tokenUsage });
    // MCP tools: each `account: name` also gets the account's fields at run time.
    const tools = api.entryOf(step.params, 'tools');
    if (tools?.kind !== 'array') return;
    const env = ctx.bracesEnv(message);
    const toolJs = tools.items.map((tool) => {
      const compiled = api.compileValue(tool, env, ctx);
      const obj: ObjectValue | undefined = tool.kind === 'tagged' ? tool.value : tool.kind === 'object' ? tool : undefined;
      const account = api.entryOf(obj, 'account');
      const name = account?.kind === 'ident' ? account.name : account?.kind === 'string' ? account.value : undefined;
      if (!name || !account || !compiled.js.endsWith('}')) return compiled.js;
      if (!api.checkReference(ctx, 'account', name, account.span)) return compiled.js;
      return `${compiled.js.slice(0, -1).trimEnd()}, accountFields: ctx.accounts[${JSON.stringify(name)}] }`;
    });
    result.replaced.add('tools');
    result.params['tools'] = { js: `[${toolJs.join(', ')}]`, constant: false };
  },
};
