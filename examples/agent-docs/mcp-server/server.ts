/**
 * The "external system" of the agent-docs example: a small MCP server (the official SDK's
 * McpServer over stateless Streamable HTTP, JSON responses) serving a catalogue of integration
 * components from catalogue.json. Tools:
 *   - `list_components { category? }` → `{ components: [{ name, category, summary }] }`
 *   - `get_component { name }`        → the component's full record (parameters, limits, owner),
 *                                        or a tool error naming the known components.
 *
 * Run it:   npx tsx examples/agent-docs/mcp-server/server.ts   (PORT, default 3100; HOST, default
 * 127.0.0.1) and point the example at it with AGENT_DOCS_MCP_URL=http://127.0.0.1:3100/mcp.
 * Tests import `startCatalogueServer` and run it on a free port, recording calls with `onCall`.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface CatalogueComponent {
  readonly name: string;
  readonly category: string;
  readonly summary: string;
  readonly parameters: ReadonlyArray<{
    readonly name: string;
    readonly required: boolean;
    readonly description: string;
  }>;
  readonly limits: readonly string[];
  readonly owner: string;
}

export interface CatalogueServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:3100/mcp */
  readonly url: string;
  close(): Promise<void>;
}

/** Told about every tool call (tests record them; the command line prints them). */
export type ToolCallListener = (tool: string, args: Readonly<Record<string, unknown>>) => void;

/** JSON-RPC requests are small; anything larger is refused before parsing. */
const MAX_REQUEST_BYTES = 256 * 1024;
const MCP_PATH = '/mcp';

export function loadCatalogue(file = path.join(import.meta.dirname, 'catalogue.json')): readonly CatalogueComponent[] {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { components: CatalogueComponent[] };
  return Object.freeze(parsed.components.map((c) => Object.freeze(c)));
}

/** One MCP server instance answering from the catalogue; `onCall` sees every tool call. */
export function createCatalogueMcpServer(
  catalogue: readonly CatalogueComponent[],
  onCall: ToolCallListener = () => {},
): McpServer {
  // A Map keyed by name: component names come from callers and must not reach object prototypes.
  const byName = new Map(catalogue.map((c) => [c.name, c]));
  const mcp = new McpServer({ name: 'component-catalogue', version: '1.0.0' });

  mcp.registerTool(
    'list_components',
    {
      description:
        'Lists the integration components in the catalogue (name, category, one-line summary), optionally of one category.',
      inputSchema: { category: z.string().max(64).optional() },
    },
    ({ category }) => {
      onCall('list_components', category === undefined ? {} : { category });
      const components = catalogue
        .filter((c) => category === undefined || c.category === category)
        .map(({ name, category: cat, summary }) => ({ name, category: cat, summary }));
      return jsonResult({ components });
    },
  );

  mcp.registerTool(
    'get_component',
    {
      description:
        'Returns everything the catalogue knows about one integration component: summary, parameters, limits and owning team.',
      inputSchema: { name: z.string().min(1).max(64) },
    },
    ({ name }) => {
      onCall('get_component', { name });
      const component = byName.get(name);
      if (!component) {
        return {
          isError: true,
          content: [
            { type: 'text', text: `No component named "${name}". Known components: ${[...byName.keys()].join(', ')}.` },
          ],
        };
      }
      return jsonResult(component);
    },
  );
  return mcp;
}

function jsonResult(value: object): { content: Array<{ type: 'text'; text: string }> } {
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

/** Serves the catalogue at http://HOST:PORT/mcp (port 0 picks a free one). */
export async function startCatalogueServer(
  options: { port?: number; host?: string; catalogue?: readonly CatalogueComponent[]; onCall?: ToolCallListener } = {},
): Promise<CatalogueServer> {
  const catalogue = options.catalogue ?? loadCatalogue();
  const host = options.host ?? '127.0.0.1';
  const onCall = options.onCall ?? (() => {});
  const server: Server = createServer((req, res) => {
    answer(req, res, catalogue, onCall).catch(() => {
      if (!res.headersSent)
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"internal error"}');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}${MCP_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Stateless: a fresh SDK server and transport per POST, so no session outlives its request. */
async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  catalogue: readonly CatalogueComponent[],
  onCall: ToolCallListener,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname !== MCP_PATH) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found: the MCP endpoint is /mcp"}');
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' }).end('{"error":"method not allowed"}');
    return;
  }
  const body = await readJsonBody(req);
  if (!body.ok) {
    res.writeHead(body.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: body.error }));
    return;
  }
  const mcp = createCatalogueMcpServer(catalogue, onCall);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void mcp.close();
  });
  await mcp.connect(transport);
  await transport.handleRequest(req, res, body.value);
}

type BodyResult = { ok: true; value: unknown } | { ok: false; status: number; error: string };

async function readJsonBody(req: IncomingMessage): Promise<BodyResult> {
  const tooLarge: BodyResult = { ok: false, status: 413, error: 'request body too large' };
  // Refuse a declared oversize before reading; a chunked body is counted as it streams.
  if (Number(req.headers['content-length'] ?? 0) > MAX_REQUEST_BYTES) return tooLarge;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) return tooLarge;
    chunks.push(chunk as Buffer);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { ok: false, status: 400, error: 'request body is not JSON' };
  }
}

function portFromEnv(): number {
  const port = Number(process.env['PORT'] ?? 3100);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, got "${process.env['PORT']}"`);
  return port;
}

// Started directly (`npx tsx …/server.ts`), not imported by a test.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const running = await startCatalogueServer({
    port: portFromEnv(),
    host: process.env['HOST'] ?? '127.0.0.1',
    onCall: (tool, args) => console.log(`tool call: ${tool} ${JSON.stringify(args)}`),
  });
  console.log(`component catalogue MCP server listening at ${running.url}`);
  const stop = (): void => {
    void running.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
