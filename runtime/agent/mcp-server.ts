/**
 * Pipelines served as MCP tools. In: tool definitions `{ name, description, inputSchema, run }`;
 * out: a Web-standard request handler speaking MCP over Streamable HTTP, ready to mount at `/mcp`
 * (auth is the caller's job, applied before this handler).
 *
 * Stateless: every POST gets a fresh SDK Server and transport with JSON responses, so no session
 * state lives between requests and replicas need no affinity. A tool's result is returned both as
 * text content (JSON) and as `structuredContent` (an object; non-object results are wrapped as
 * `{ result }`). A failing run becomes an MCP tool error (`isError: true`) carrying the message —
 * and the PipeError's code and kind — rather than a protocol error, so clients can show it.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { PipeError } from '../errors.js';
import type { Json, JsonObject } from '../types.js';

export interface McpToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  run(args: Json): Promise<Json>;
}

export interface McpHandlerOptions {
  /** Server name reported at initialization. */
  readonly serverName?: string;
  readonly serverVersion?: string;
  /** Largest accepted request body in bytes (default 4 MiB). */
  readonly maxRequestBodySize?: number;
}

interface CallResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export function createMcpHandler(
  tools: readonly McpToolDefinition[],
  options: McpHandlerOptions = {},
): (req: Request) => Promise<Response> {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const listing = tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: objectSchema(t.inputSchema),
  }));

  return async (req: Request): Promise<Response> => {
    if (req.method !== 'POST') return methodNotAllowed();
    const server = new Server(
      { name: options.serverName ?? 'pipec', version: options.serverVersion ?? '0.1.0' },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const tool = byName.get(request.params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      return runTool(tool, (request.params.arguments ?? {}) as Json);
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      ...(options.maxRequestBodySize ? { maxRequestBodySize: options.maxRequestBodySize } : {}),
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(req);
    } finally {
      // JSON-response mode: the Response is complete here, so the per-request server can go.
      await server.close().catch(() => undefined);
    }
  };
}

async function runTool(tool: McpToolDefinition, args: Json): Promise<CallResult> {
  try {
    const result = await tool.run(args);
    return {
      content: [{ type: 'text', text: JSON.stringify(result) }],
      structuredContent: isObject(result) ? result : { result },
    };
  } catch (err) {
    // A PipeError's details (the violations of invalid arguments, …) go along, as in HTTP error bodies.
    const error: JsonObject =
      err instanceof PipeError
        ? { ...(err.details ?? {}), error: err.message, code: err.code, kind: err.kind }
        : { error: 'internal error', code: 500 };
    return { content: [{ type: 'text', text: JSON.stringify(error) }], structuredContent: error, isError: true };
  }
}

/** MCP requires an object input schema; anything else is presented as an empty object schema. */
function objectSchema(schema: JsonObject): { type: 'object'; [key: string]: unknown } {
  return schema.type === 'object' ? { ...schema, type: 'object' } : { type: 'object' };
}

function isObject(value: Json): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function methodNotAllowed(): Response {
  const body = {
    jsonrpc: '2.0',
    error: {
      code: ErrorCode.ConnectionClosed,
      message: 'Method not allowed: this MCP endpoint is stateless and accepts POST only',
    },
    id: null,
  };
  return new Response(JSON.stringify(body), {
    status: 405,
    headers: { 'content-type': 'application/json', allow: 'POST' },
  });
}
