/**
 * The /mcp endpoint of a service on a real socket: a browser Origin must be on the allow-list
 * (default: the service's own loopback origins), or the request gets 403 before the MCP server
 * or any tool runs (MCP specification, DNS rebinding).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpToolTriggerSpec } from './mcp-tool.js';
import { serve, type RunningServer } from '../../service/node-server.js';
import { makeTestService, pipelineOf, type TestService } from '../../service/test-support/test-service.js';

let t: TestService;
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await t?.service.stop(100);
});

const tool: McpToolTriggerSpec = {
  kind: 'mcp-tool',
  tool: 'get_order',
  description: 'Reads an order',
  inputSchema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
  validateBody: Object.assign((m: unknown) => typeof (m as { id?: unknown }).id === 'string', {
    errors: [],
  }) as unknown as NonNullable<McpToolTriggerSpec['validateBody']>,
};
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'origin-test', version: '1.0.0' } },
});

async function started(env: NodeJS.ProcessEnv = {}): Promise<string> {
  t = await makeTestService([pipelineOf('get-order', tool, async () => ({ id: 'A-1' }))], {}, { env });
  await t.service.start();
  server = await serve(t.service, { port: 0, hostname: '127.0.0.1' });
  return `http://127.0.0.1:${server.port}`;
}

function initialize(base: string, origin?: string): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(origin ? { origin } : {}),
    },
    body: INITIALIZE,
  });
}

describe('/mcp checks Origin', () => {
  it("serves clients that send no Origin and the service's own loopback origins", async () => {
    const base = await started();
    const port = server?.port ?? 0;
    for (const origin of [undefined, `http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      const res = await initialize(base, origin);
      expect(res.status, String(origin)).toBe(200);
      await res.body?.cancel();
    }
  });

  it('answers 403 to any other browser origin', async () => {
    const base = await started();
    const port = server?.port ?? 0;
    for (const origin of ['http://evil.example', `http://evil.example:${port}`, 'http://localhost:1', 'null']) {
      const res = await initialize(base, origin);
      expect(res.status, origin).toBe(403);
      expect(await res.json()).toMatchObject({ code: 403, error: 'Origin not allowed' });
    }
    expect(t.logs.records.filter((r) => r['msg'] === 'request refused' && r['code'] === 403)).toHaveLength(4);
  });

  it('follows PIPEC_MCP_ALLOWED_ORIGINS', async () => {
    const base = await started({ PIPEC_MCP_ALLOWED_ORIGINS: 'https://app.example.com' });
    const allowed = await initialize(base, 'https://app.example.com');
    expect(allowed.status).toBe(200);
    await allowed.body?.cancel();
    expect((await initialize(base, `http://127.0.0.1:${server?.port ?? 0}`)).status).toBe(403);
  });
});

describe('/mcp tool errors', () => {
  it('carry the message, code and execution id, as HTTP error replies do', async () => {
    const base = await started();
    const client = new Client({ name: 'tool-errors', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    try {
      const result = await client.callTool({ name: 'get_order', arguments: { id: 7 } });
      expect(result.isError).toBe(true);
      // The message lists each field and the rule it breaks (a model reads the text); the rest is the HTTP reply's.
      expect(result.structuredContent).toMatchObject({
        code: 422,
        error: expect.stringMatching(/^the arguments do not match the tool's input schema — /),
        executionId: expect.any(String),
        violations: [expect.objectContaining({ path: expect.any(String), message: expect.any(String) })],
      });
      expect(result.structuredContent).not.toHaveProperty('step');
    } finally {
      await client.close();
    }
  });
});
