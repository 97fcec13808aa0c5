/**
 * The shipped catalogue MCP server on its own: an SDK Client lists and calls its tools over
 * Streamable HTTP, and the HTTP edge refuses what is not an MCP request.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue, startCatalogueServer, type CatalogueServer } from './server.js';

describe('catalogue MCP server', () => {
  let server: CatalogueServer;
  let client: Client;
  const calls: string[] = [];

  beforeAll(async () => {
    server = await startCatalogueServer({ onCall: (tool, args) => calls.push(`${tool} ${JSON.stringify(args)}`) });
    client = new Client({ name: 'catalogue-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  });

  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('lists its two tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get_component', 'list_components']);
  });

  it('list_components: all components, or those of one category', async () => {
    const all = await client.callTool({ name: 'list_components', arguments: {} });
    const listed = JSON.parse((all.content as Array<{ text: string }>)[0]?.text ?? '') as {
      components: Array<{ name: string }>;
    };
    expect(listed.components.map((c) => c.name)).toEqual(loadCatalogue().map((c) => c.name));
    const storage = await client.callTool({ name: 'list_components', arguments: { category: 'storage' } });
    expect(JSON.parse((storage.content as Array<{ text: string }>)[0]?.text ?? '')).toEqual({
      components: [{ name: 'object-store', category: 'storage', summary: expect.stringContaining('JSON documents') }],
    });
  });

  it('get_component: the full record, or a tool error naming the known components', async () => {
    const found = await client.callTool({ name: 'get_component', arguments: { name: 'agent' } });
    expect(JSON.parse((found.content as Array<{ text: string }>)[0]?.text ?? '')).toMatchObject({
      name: 'agent',
      owner: 'ai-team@example.com',
    });
    const missing = await client.callTool({ name: 'get_component', arguments: { name: '__proto__' } });
    expect(missing.isError).toBe(true);
    expect((missing.content as Array<{ text: string }>)[0]?.text).toMatch(
      /^No component named "__proto__"\. Known components: rest, /,
    );
    expect(calls).toContain('get_component {"name":"agent"}');
  });

  it('refuses other paths (404), other methods (405), non-JSON (400) and oversized bodies (413)', async () => {
    const base = server.url.replace(/\/mcp$/, '');
    expect((await fetch(`${base}/other`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect((await fetch(server.url)).status).toBe(405);
    expect((await fetch(server.url, { method: 'POST', body: '{not json' })).status).toBe(400);
    expect((await fetch(server.url, { method: 'POST', body: 'x'.repeat(300 * 1024) })).status).toBe(413);
  });
});
