/** MCP client against a real SDK server: listing, calling, per-execution cache, abort, auth headers. */
import { afterEach, describe, expect, it } from 'vitest';
import { connectMcp, requestHeaders, ToolListCache, toolOutcome } from './mcp-client.js';
import { startTestMcpServer, type TestMcpServer } from './test-support/test-mcp-server.js';

let mcp: TestMcpServer | undefined;
afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
});

const options = (executionId: string, cache?: ToolListCache) => ({
  timeout: 5000,
  signal: new AbortController().signal,
  executionId,
  ...(cache ? { cache } : {}),
});

describe('connectMcp', () => {
  it('lists tools with their schemas and calls them', async () => {
    mcp = await startTestMcpServer();
    const connection = await connectMcp({ name: 'crm', url: mcp.url }, options('e1'));
    try {
      expect(connection.tools.map((t) => t.name).sort()).toEqual(['add_numbers', 'lookup_customer']);
      const add = connection.tools.find((t) => t.name === 'add_numbers');
      expect(add?.inputSchema).toMatchObject({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
      });
      expect(await connection.callTool('add_numbers', { a: 2, b: 3 })).toEqual({ text: '5', isError: false });
      const bad = await connection.callTool('add_numbers', { a: 'x' });
      expect(bad.isError).toBe(true);
    } finally {
      await connection.close();
    }
  });

  it('lists tools once per execution when a cache is given', async () => {
    mcp = await startTestMcpServer();
    const cache = new ToolListCache();
    for (const executionId of ['same', 'same', 'other']) {
      const connection = await connectMcp({ name: 'crm', url: mcp.url }, options(executionId, cache));
      expect(connection.tools).toHaveLength(2);
      await connection.close();
    }
    expect(mcp.methods.filter((m) => m === 'tools/list')).toHaveLength(2);
    expect(mcp.methods.filter((m) => m === 'initialize')).toHaveLength(3);
  });

  it('stops waiting when the execution is aborted', async () => {
    mcp = await startTestMcpServer({ delayMs: 2000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    // Without the abort the server's answer (after 2 s, within the 5 s timeout) would connect.
    await expect(
      connectMcp({ name: 'crm', url: mcp.url }, { timeout: 5000, signal: controller.signal, executionId: 'e' }),
    ).rejects.toMatchObject({ code: 504, kind: 'TIMEOUT' });
  });
});

describe('request details', () => {
  it('turns account fields into auth headers', () => {
    expect(requestHeaders({ name: 'a', url: 'http://x', accountFields: { KEY: 'k' } }).get('authorization')).toBe(
      'Bearer k',
    );
    expect(
      requestHeaders({ name: 'a', url: 'http://x', accountFields: { username: 'u', password: 'p' } }).get(
        'authorization',
      ),
    ).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    expect(
      requestHeaders({
        name: 'a',
        url: 'http://x',
        accountFields: { 'header-name': 'X-Key', 'header-value': 'v' },
      }).get('x-key'),
    ).toBe('v');
  });

  it('renders tool results as text', () => {
    expect(
      toolOutcome({
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', mimeType: 'image/png' },
        ],
      }),
    ).toEqual({ text: 'a\n[image image/png]', isError: false });
    expect(toolOutcome({ structuredContent: { x: 1 } })).toEqual({ text: '{"x":1}', isError: false });
    expect(toolOutcome({ content: [{ type: 'text', text: 'boom' }], isError: true })).toEqual({
      text: 'Tool error: boom',
      isError: true,
    });
  });
});
