/**
 * Test support: a small real MCP server (SDK McpServer, Node Streamable HTTP transport, stateless)
 * on 127.0.0.1 with two tools:
 *   - `lookup_customer { id }` → a JSON text with the customer's name, e-mail and city;
 *   - `add_numbers { a, b }`   → the sum as text.
 * Options: required headers and query parameters (401 when missing or wrong), a delay before every
 * answer (to test timeouts), legacy HTTP+SSE instead of Streamable HTTP. It records each HTTP request's headers and query, and each tool call.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface TestMcpOptions {
  readonly requiredHeaders?: Readonly<Record<string, string>>;
  readonly requiredQuery?: Readonly<Record<string, string>>;
  readonly delayMs?: number;
  /** Serve only the legacy HTTP+SSE transport (GET opens the stream, POST /messages sends). */
  readonly legacySse?: boolean;
}

export interface SeenRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
}

export interface TestMcpServer {
  readonly url: string;
  readonly requests: SeenRequest[];
  readonly toolCalls: Array<{ readonly tool: string; readonly args: unknown }>;
  /** JSON-RPC methods received over Streamable HTTP, in order. */
  readonly methods: string[];
  close(): Promise<void>;
}

export const CUSTOMER = { id: 'c-42', name: 'Maria Silva', email: 'maria.silva@example.com', city: 'São Paulo' };

export async function startTestMcpServer(options: TestMcpOptions = {}): Promise<TestMcpServer> {
  const requests: SeenRequest[] = [];
  const toolCalls: Array<{ tool: string; args: unknown }> = [];
  const methods: string[] = [];

  const buildServer = (): McpServer => {
    const mcp = new McpServer({ name: 'test-mcp', version: '1.0.0' });
    mcp.registerTool(
      'lookup_customer',
      {
        description: 'Finds a customer by id',
        inputSchema: { id: z.string() },
      },
      ({ id }) => {
        toolCalls.push({ tool: 'lookup_customer', args: { id } });
        return { content: [{ type: 'text', text: JSON.stringify({ ...CUSTOMER, id }) }] };
      },
    );
    mcp.registerTool(
      'add_numbers',
      {
        description: 'Adds two numbers',
        inputSchema: { a: z.number(), b: z.number() },
      },
      ({ a, b }) => {
        toolCalls.push({ tool: 'add_numbers', args: { a, b } });
        return { content: [{ type: 'text', text: String(a + b) }] };
      },
    );
    return mcp;
  };

  const sseSessions = new Map<string, SSEServerTransport>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
    );
    const query = Object.fromEntries(url.searchParams.entries());
    requests.push({ method: req.method ?? '', headers, query });
    const authorized =
      Object.entries(options.requiredHeaders ?? {}).every(([k, v]) => headers[k.toLowerCase()] === v) &&
      Object.entries(options.requiredQuery ?? {}).every(([k, v]) => query[k] === v);
    const answer = async (): Promise<void> => {
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      if (res.destroyed) return;
      if (!authorized) {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
        return;
      }
      if (options.legacySse) {
        await answerLegacySse(req, res, url, sseSessions, buildServer);
        return;
      }
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      const mcp = buildServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      const body = await readJson(req);
      for (const message of Array.isArray(body) ? body : [body]) {
        if (typeof message === 'object' && message !== null && typeof message.method === 'string')
          methods.push(message.method);
      }
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
    };
    answer().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    toolCalls,
    methods,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readJson(req: IncomingMessage): Promise<any> {
  // any: a JSON-RPC message or batch, inspected loosely
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Legacy transport: GET /mcp opens an SSE stream; POST /messages?sessionId=… carries requests. */
async function answerLegacySse(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  sessions: Map<string, SSEServerTransport>,
  build: () => McpServer,
): Promise<void> {
  if (req.method === 'GET' && url.pathname === '/mcp') {
    const transport = new SSEServerTransport('/messages', res);
    sessions.set(transport.sessionId, transport);
    res.on('close', () => sessions.delete(transport.sessionId));
    await build().connect(transport);
    return;
  }
  const session = sessions.get(url.searchParams.get('sessionId') ?? '');
  if (req.method === 'POST' && url.pathname === '/messages' && session) {
    await session.handlePostMessage(req, res);
    return;
  }
  res.writeHead(405, { allow: 'GET' }).end();
}

/** A URL on 127.0.0.1 where nothing listens (a server started and stopped). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/mcp`;
}
