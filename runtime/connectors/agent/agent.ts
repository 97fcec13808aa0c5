/**
 * The `agent` connector (Digibee's Agent Component): calls a language model with system and user
 * messages, optional files, MCP tools, a JSON Schema for the reply and guardrails. In: the step's
 * evaluated params (see schema.json), the message (unused: everything arrives through params), the
 * execution context; out: `{ body, tokenUsage }`. The work is in runtime/agent/run-agent.ts.
 *
 * Process-wide caches (compiled output validators, MCP tool lists keyed by execution id) are the
 * only state; both are bounded LRUs. `fail-on-error` is applied by generated code, not here.
 * The agent's modules (openai, the MCP client, ajv) load on the first call, so services that
 * declare an agent still start fast.
 */
import type { ConnectorRun } from '../../types.js';

type AgentModules = {
  readonly runAgent: typeof import('../../agent/run-agent.js').runAgent;
  readonly parseAgentParams: typeof import('../../agent/params.js').parseAgentParams;
  readonly deps: Parameters<typeof import('../../agent/run-agent.js').runAgent>[2];
};

let modules: Promise<AgentModules> | undefined;

function loadAgent(): Promise<AgentModules> {
  modules ??= (async () => {
    const [runner, params, mcp, output] = await Promise.all([
      import('../../agent/run-agent.js'),
      import('../../agent/params.js'),
      import('../../agent/mcp-client.js'),
      import('../../agent/output-schema.js'),
    ]);
    return {
      runAgent: runner.runAgent,
      parseAgentParams: params.parseAgentParams,
      deps: { validators: new output.OutputValidatorCache(), toolLists: new mcp.ToolListCache() },
    };
  })();
  return modules;
}

export const run: ConnectorRun = async (params, _message, ctx) => {
  const { runAgent, parseAgentParams, deps } = await loadAgent();
  const output = await runAgent(parseAgentParams(params), ctx, deps);
  return { body: output.body, tokenUsage: { ...output.tokenUsage } };
};
