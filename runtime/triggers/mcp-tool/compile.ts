/**
 * Compile-time part of the `mcp-tool` trigger: the tool's name, description and input schema
 * (compiled to a validator, and sent to MCP clients as JSON) and the endpoint's auth; the first
 * message is the tool's arguments, with the input schema's shape.
 */
import type { TriggerCompiler } from '../../../compiler/connectors/hook-api.js';

export const compile: TriggerCompiler = {
  trigger({ trigger, ctx }, api) {
    const read = api.reader(trigger.config);
    const input = api.compileSchemaParam(api.entryOf(trigger.config, 'input'), ctx, `${ctx.pipeline}-input`);
    const auth = api.triggerAuth(api.entryOf(trigger.config, 'auth'), ctx);
    return {
      spec: {
        tool: JSON.stringify(read.str('name', ctx.pipeline)),
        description: JSON.stringify(read.str('description', '')),
        inputSchema: JSON.stringify(input.schema ?? { type: 'object' }),
        ...(input.validator ? { validateBody: input.validator } : {}),
        ...(auth ? { auth } : {}),
      },
      message: input.schema !== undefined ? input.type : api.types.UNKNOWN,
    };
  },
};
