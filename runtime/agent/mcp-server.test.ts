/** createMcpHandler mounted on Hono via @hono/node-server, driven by an external SDK Client. */
import { serve, type ServerType } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipeError } from '../errors.js';
import type { Json } from '../types.js';
import { createMcpHandler } from './mcp-server.js';

let server: ServerType;
let url: URL;
const received: Json[] = [];

beforeAll(async () => {
  const handler = createMcpHandler([
    {
      name: 'get_order',
      description: 'Reads an order by id',
      inputSchema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      run: async (args) => {
        received.push(args);
        return { id: (args as { id: string }).id, total: 120.5 };
      },
    },
    {
      name: 'list_codes',
      description: 'Lists product codes',
      inputSchema: { type: 'object', properties: {} },
      run: async () => ['A', 'B'],
    },
    {
      name: 'always_fails',
      description: 'Fails like a pipeline would',
      inputSchema: { type: 'object' },
      run: async () => {
        throw new PipeError('order not found', { code: 404, kind: 'NOT_FOUND' });
      },
    },
  ]);
  const app = new Hono();
  app.all('/mcp', (c) => handler(c.req.raw));
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function connected(): Promise<Client> {
  const client = new Client({ name: 'external-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

describe('createMcpHandler served over HTTP', () => {
  it('lists every tool with its JSON input schema', async () => {
    const client = await connected();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['get_order', 'list_codes', 'always_fails']);
    expect(tools[0]).toMatchObject({
      description: 'Reads an order by id',
      inputSchema: { type: 'object', required: ['id'] },
    });
    await client.close();
  });

  it('runs a tool: JSON text content plus structuredContent', async () => {
    const client = await connected();
    const result = await client.callTool({ name: 'get_order', arguments: { id: 'o-1' } });
    expect(result.content).toEqual([{ type: 'text', text: '{"id":"o-1","total":120.5}' }]);
    expect(result.structuredContent).toEqual({ id: 'o-1', total: 120.5 });
    expect(received).toContainEqual({ id: 'o-1' });
    const list = await client.callTool({ name: 'list_codes', arguments: {} });
    expect(list.structuredContent).toEqual({ result: ['A', 'B'] });
    await client.close();
  });

  it('turns a failing run into a tool error and an unknown tool into a protocol error', async () => {
    const client = await connected();
    const failed = await client.callTool({ name: 'always_fails', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toEqual({ error: 'order not found', code: 404, kind: 'NOT_FOUND' });
    await expect(client.callTool({ name: 'missing', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });

  it('answers GET with 405 (stateless, POST only)', async () => {
    const response = await fetch(url, { method: 'GET' });
    expect(response.status).toBe(405);
  });
});
