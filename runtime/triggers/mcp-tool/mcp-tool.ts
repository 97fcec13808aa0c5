/**
 * The service's MCP server: every pipeline with an `mcp-tool` trigger becomes a tool of one MCP
 * endpoint at /mcp (Streamable HTTP, runtime/agent/mcp-server.ts). A call runs the pipeline with the
 * tool arguments as its message (checked against the tool's input schema first). The endpoint is
 * one door for all tools, so it is guarded by the `auth` of the mcp-tool triggers, which must agree.
 * Before anything else, a browser's `Origin` must be allowed (runtime/security/origin.ts: DNS
 * rebinding); a request that names another origin gets 403.
 */
import type { Context } from 'hono';
import type { McpToolDefinition } from '../../agent/mcp-server.js';
import { PipeError } from '../../errors.js';
import { contextFromHeaders } from '../../observability/propagation.js';
import { withContext } from '../../observability/spans.js';
import { originAllowed, type OriginPolicy } from '../../security/origin.js';
import type { Clock, CompiledValidator, Json, JsonObject, TriggerSpec } from '../../types.js';
import { Reply } from '../../types.js';
import type { ExecutionEngine } from '../../service/execution.js';
import { publicErrorObject } from '../../service/http-response.js';
import type { Refuse } from '../../service/refusal.js';
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
  readonly refuse: Refuse;
  /** Which browser origins may call /mcp (PIPEC_MCP_ALLOWED_ORIGINS). */
  readonly origins: OriginPolicy;
}

/** The port the request arrived on (the socket's, not the Host header's, which the client writes). */
function localPortOf(c: Context): number | undefined {
  const env = c.env as { incoming?: { socket?: { localPort?: unknown } } } | undefined;
  const port = env?.incoming?.socket?.localPort;
  return typeof port === 'number' ? port : undefined;
}

export function registerMcpRoute(
  route: RouteRegistrar,
  tools: readonly TriggeredPipeline<McpToolTriggerSpec>[],
  deps: McpRouteDeps,
): void {
  if (tools.length === 0) return;
  const auths = new Set(tools.map((t) => JSON.stringify(t.trigger.auth ?? null)));
  if (auths.size > 1)
    throw new Error('mcp-tool triggers of one service share the /mcp endpoint and must declare the same auth');
  const auth = tools[0]?.trigger.auth;
  const guard = createTriggerGuard({ ...(auth ? { auth } : {}) }, deps.accounts, deps.clock, deps.refuse);

  const definitions: McpToolDefinition[] = tools.map((p) => ({
    name: p.trigger.tool,
    description: p.trigger.description,
    inputSchema: p.trigger.inputSchema,
    run: async (args: Json): Promise<Json> => {
      const outcome = await deps.engine.execute({
        pipeline: p.name,
        message: args,
        validate: (m) => validateArguments(p.trigger, m),
        trigger: 'mcp-tool',
      });
      // The tool's error shows what an HTTP reply would: message, code, execution id, violations.
      if (!outcome.ok) {
        const details = publicErrorObject(outcome.error.kind, outcome.errorObject);
        const message =
          toolErrorMessage(outcome.error.kind, details) ?? String(outcome.errorObject['error'] ?? 'tool failed');
        throw new PipeError(message, {
          code: outcome.error.code,
          kind: outcome.error.kind,
          details: { ...details, message },
        });
      }
      return outcome.result instanceof Reply ? outcome.result.body : (outcome.result as Json);
    },
  }));
  // The MCP SDK is a large module graph: it is loaded on the first /mcp request, not at start-up.
  let handler: Promise<(req: Request) => Promise<Response>> | undefined;
  const loadHandler = (): Promise<(req: Request) => Promise<Response>> => {
    handler ??= import('../../agent/mcp-server.js').then((m) =>
      m.createMcpHandler(definitions, { serverName: 'pipec' }),
    );
    return handler;
  };

  route('mcp-tool', ['*'], '/mcp', async (c) => {
    if (!originAllowed(c.req.header('origin') ?? null, deps.origins, localPortOf(c))) {
      return deps.refuse(new PipeError('Origin not allowed', { code: 403, kind: 'ORIGIN_NOT_ALLOWED' }), c.req.raw);
    }
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

/**
 * Arguments outside the input schema: the message says which field breaks which rule (a model
 * reads the text, not the `violations` beside it); undefined for other failures.
 */
function toolErrorMessage(kind: string, details: JsonObject): string | undefined {
  const violations = details['violations'];
  if (kind !== 'VALIDATION' || !Array.isArray(violations) || violations.length === 0) return undefined;
  const listed = violations.map((v) => {
    const { path, message: rule } = (v ?? {}) as { path?: unknown; message?: unknown };
    return `${String(path) === '/' ? 'the arguments' : String(path)}: ${String(rule)}`;
  });
  return `the arguments do not match the tool's input schema — ${listed.join('; ')}`;
}
