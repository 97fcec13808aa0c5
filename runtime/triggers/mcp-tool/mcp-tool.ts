/**
 * The service's MCP server: every pipeline with an `mcp-tool` trigger becomes a tool of one MCP
 * endpoint at /mcp (Streamable HTTP, runtime/agent/mcp-server.ts). A call runs the pipeline with the
 * tool arguments as its message (checked against the tool's input schema first). The endpoint is
 * one door for all tools, so it is guarded by the `auth` of the mcp-tool triggers, which must agree.
 */
import type { McpToolDefinition } from '../../agent/mcp-server.js';
import { PipeError } from '../../errors.js';
import { contextFromHeaders } from '../../observability/propagation.js';
import { withContext } from '../../observability/spans.js';
import type { Clock, CompiledValidator, Json, JsonObject, TriggerSpec } from '../../types.js';
import { Reply } from '../../types.js';
import type { ExecutionEngine } from '../../service/execution.js';
import { createTriggerGuard } from '../../service/trigger-guard.js';
import type { RouteRegistrar } from '../http/http.js';
import type { TriggeredPipeline, TriggerRuntime } from '../../service/trigger-host.js';
import { collectViolations, type Violation } from '../../service/validation.js';

export interface McpToolTriggerSpec extends TriggerSpec {
  readonly kind: 'mcp-tool';
  readonly tool: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly validateBody?: CompiledValidator;
  readonly auth?: JsonObject;
}

/** The tool arguments are the message: the input schema checks them whole. */
function validateArguments(spec: McpToolTriggerSpec, message: Json): Violation[] | null {
  return spec.validateBody ? collectViolations(spec.validateBody, message) : null;
}

/** Every mcp-tool pipeline is a tool of the one endpoint /mcp. */
export const trigger: TriggerRuntime<McpToolTriggerSpec> = {
  attach(pipelines, host) {
    registerMcpRoute((...args) => host.route(...args), pipelines, host);
    return {};
  },
  validate: validateArguments,
};

export interface McpRouteDeps {
  readonly engine: ExecutionEngine;
  readonly clock: Clock;
  readonly accounts: Readonly<Record<string, Readonly<Record<string, Json>>>>;
}

export function registerMcpRoute(route: RouteRegistrar, tools: readonly TriggeredPipeline<McpToolTriggerSpec>[], deps: McpRouteDeps): void {
  if (tools.length === 0) return;
  const auths = new Set(tools.map((t) => JSON.stringify(t.trigger.auth ?? null)));
  if (auths.size > 1) throw new Error('mcp-tool triggers of one service share the /mcp endpoint and must declare the same auth');
  const guard = createTriggerGuard({ ...(tools[0]?.trigger.auth ? { auth: tools[0].trigger.auth } : {}) }, deps.accounts, deps.clock);

  const definitions: McpToolDefinition[] = tools.map((p) => ({
    name: p.trigger.tool,
    description: p.trigger.description,
    inputSchema: p.trigger.inputSchema,
    run: async (args: Json): Promise<Json> => {
      const outcome = await deps.engine.execute({ pipeline: p.name, message: args, validate: (m) => validateArguments(p.trigger, m), trigger: 'mcp-tool' });
      if (!outcome.ok) throw new PipeError(String(outcome.errorObject['error'] ?? 'tool failed'), { code: outcome.error.code, kind: outcome.error.kind });
      return outcome.result instanceof Reply ? outcome.result.body : (outcome.result as Json);
    },
  }));
  // The MCP SDK is a large module graph: it is loaded on the first /mcp request, not at start-up.
  let handler: Promise<(req: Request) => Promise<Response>> | undefined;
  const loadHandler = (): Promise<(req: Request) => Promise<Response>> => {
    handler ??= import('../../agent/mcp-server.js').then((m) => m.createMcpHandler(definitions, { serverName: 'pipec' }));
    return handler;
  };

  route('mcp-tool', ['*'], '/mcp', async (c) => {
    if (guard) {
      const checked = await guard(c);
      if (!checked.ok) return checked.response;
    }
    // Tool runs start inside the handler: the caller's trace context reaches them as the active context.
    const handle = await loadHandler();
    return withContext(contextFromHeaders(c.req.raw.headers), () => handle(c.req.raw));
  });
}

export type { JsonObject };
