/**
 * The `agent` connector (Digibee's Agent Component): calls a language model with system and user
 * messages, optional files, MCP tools, a JSON Schema for the reply and guardrails. In: the step's
 * evaluated params (see schema.json), the message (unused: everything arrives through params), the
 * execution context; out: `{ body, tokenUsage }`. The work is in runtime/agent/run-agent.ts.
 *
 * Process-wide caches (compiled output validators, MCP tool lists keyed by execution id) are the
 * only state; both are bounded LRUs. `fail-on-error` is applied by generated code, not here.
 */
import { runAgent } from '../../agent/run-agent.js';
import { ToolListCache } from '../../agent/mcp-client.js';
import { OutputValidatorCache } from '../../agent/output-schema.js';
import { parseAgentParams } from '../../agent/params.js';
import type { ConnectorRun } from '../../types.js';

const deps = { validators: new OutputValidatorCache(), toolLists: new ToolListCache() };

export const run: ConnectorRun = async (params, _message, ctx) => {
  const output = await runAgent(parseAgentParams(params), ctx, deps);
  return { body: output.body, tokenUsage: { ...output.tokenUsage } };
};
