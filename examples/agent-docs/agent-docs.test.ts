/**
 * End to end: the agent-docs example built with the real CLI and served on 127.0.0.1. The agent's
 * MCP tools come either from the shipped catalogue server (mcp-server/server.ts, the "external
 * system") or from this service's own /mcp, where the `agent_docs_component` pipeline is a tool.
 * The model is the scripted OpenAI-compatible server (it records what the service sent) or, as
 * `npm start` runs it, the offline `mock:` model. An SDK Client plays an external MCP client.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chatCompletion,
  startScriptedOpenAi,
  type ScriptedServer,
  type ScriptStep,
} from '../../runtime/agent/test-support/scripted-openai-server.js';
import { buildService, type BuiltService } from '../../test/e2e/in-process.js';
import { freePort, REPO_ROOT, startServer, tempDir } from '../../test/e2e/service-process.js';
import { startCatalogueServer, type CatalogueServer } from './mcp-server/server.js';

const EXAMPLE = path.join(REPO_ROOT, 'examples/agent-docs');
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/;

interface Served {
  readonly url: string;
  stop(): Promise<void>;
}

/** Serves the built example on 127.0.0.1:port; `env` replaces the process environment. */
async function serveExample(built: BuiltService, env: Record<string, string>, port = 0): Promise<Served> {
  const service = await built.runtime.createService(built.definition, {
    env: { LOG_LEVEL: 'silent', ...env },
    dataDir: tempDir('agent-docs-data'),
  });
  await service.start();
  const server = await built.runtime.serve(service, { port, hostname: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${server.port}`,
    stop: async () => {
      await service.stop(1000);
      await server.close();
    },
  };
}

/** The default wiring: no AGENT_DOCS_MCP_URL, so the agent uses this service's /mcp on PORT. */
async function serveWithOwnMcp(built: BuiltService, env: Record<string, string>): Promise<Served> {
  const port = await freePort();
  return serveExample(built, { PORT: String(port), ...env }, port);
}

function requestSection(url: string, body: object): Promise<Response> {
  return fetch(`${url}/agent-docs/sections`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const SECTION = {
  title: 'REST connector',
  description: 'Calls HTTP APIs from a pipeline. It retries failed attempts with backoff.',
  use_cases: ['Fetch orders from a partner API', 'Push invoices to an ERP', 'Call a token endpoint'],
  best_practices: ['Set a timeout', 'Keep retries idempotent', 'Keep credentials in accounts'],
};

interface ToolMessage {
  role: string;
  content: unknown;
  tool_call_id?: string;
}

describe('agent-docs example', () => {
  let built: BuiltService;
  let catalogue: CatalogueServer;
  /** Tool calls the external catalogue server received, in order. */
  const catalogueCalls: Array<{ tool: string; args: Readonly<Record<string, unknown>> }> = [];

  beforeAll(async () => {
    [built, catalogue] = await Promise.all([
      buildService([EXAMPLE], 'agent-docs'),
      startCatalogueServer({ onCall: (tool, args) => catalogueCalls.push({ tool, args }) }),
    ]);
  });

  afterAll(async () => {
    await catalogue?.close();
  });

  describe('with a scripted OpenAI-compatible model', () => {
    const replies: ScriptStep[] = [];
    let model: ScriptedServer;
    const modelEnv = (): Record<string, string> => ({
      AGENT_DOCS_MODEL: 'gpt-4o-mini',
      OPENAI_API_KEY: 'sk-test-docs',
      OPENAI_BASE_URL: model.baseUrl,
    });

    beforeAll(async () => {
      // Each request takes the next queued reply; an empty queue answers 500 (no retry).
      model = await startScriptedOpenAi(
        Array.from(
          { length: 50 },
          () => () =>
            replies.shift() ?? {
              status: 500,
              headers: { 'x-should-retry': 'false' },
              body: { error: { message: 'no reply queued' } },
            },
        ),
      );
    });

    afterAll(async () => {
      await model?.close();
    });

    describe('tools from the external catalogue server', () => {
      let served: Served;

      beforeAll(async () => {
        served = await serveExample(built, { ...modelEnv(), AGENT_DOCS_MCP_URL: catalogue.url });
      });

      afterAll(async () => {
        await served?.stop();
      });

      it('runs the tool loop through the MCP server, masks personal data, and returns the schema-forced section', async () => {
        replies.push(
          chatCompletion({
            toolCalls: [{ id: 'call_rest', name: 'catalogue__get_component', arguments: { name: 'rest' } }],
            usage: { prompt: 300, completion: 20 },
          }),
          chatCompletion({ content: JSON.stringify(SECTION), usage: { prompt: 500, completion: 120 } }),
        );
        const first = model.requests.length;
        const callsBefore = catalogueCalls.length;
        const res = await requestSection(served.url, {
          component: 'rest',
          audience: 'partner developers',
          notes: 'Questions go to joao.pereira@example.com or +55 11 91234-5678.',
        });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({
          section: SECTION,
          tokenUsage: { inputTokenCount: 800, outputTokenCount: 140, totalTokenCount: 940 },
        });

        // The model was offered the server's tools and asked for the seed's section schema.
        const [ask, answer] = model.requests.slice(first).map((r) => r.body);
        expect(ask.tools.map((t: { function: { name: string } }) => t.function.name).sort()).toEqual([
          'catalogue__get_component',
          'catalogue__list_components',
        ]);
        expect(ask.response_format.json_schema).toMatchObject({ name: 'documentation_section', strict: true });
        expect(ask.response_format.json_schema.schema).toMatchObject({
          additionalProperties: false,
          required: ['title', 'description', 'use_cases', 'best_practices'],
        });

        // The call went through the MCP server, and its result came back to the model.
        expect(catalogueCalls.slice(callsBefore)).toEqual([{ tool: 'get_component', args: { name: 'rest' } }]);
        const toolResult = (answer.messages as ToolMessage[]).find(
          (m) => m.role === 'tool' && m.tool_call_id === 'call_rest',
        );
        expect(String(toolResult?.content)).toContain('Calls an HTTP API');

        // PII: the requester's e-mail and phone and the catalogue's owner e-mail never left the service.
        const sent = JSON.stringify(model.requests.slice(first).map((r) => r.body));
        expect(sent).not.toMatch(EMAIL);
        expect(sent).not.toContain('91234-5678');
        expect(sent).toContain('[EMAIL]');
        expect(String(toolResult?.content)).toContain('[EMAIL]');
        expect(sent).toContain('[PHONE]');
      });

      it('a section with too few use cases gets a repair round naming the violation', async () => {
        replies.push(
          chatCompletion({ content: JSON.stringify({ ...SECTION, use_cases: ['Only one'] }) }),
          chatCompletion({ content: JSON.stringify(SECTION) }),
        );
        const first = model.requests.length;
        const res = await requestSection(served.url, { component: 'rest' });
        expect(res.status).toBe(200);
        expect(((await res.json()) as { section: unknown }).section).toEqual(SECTION);
        const repair = model.requests[first + 1]?.body as { messages: ToolMessage[] };
        expect(JSON.stringify(repair.messages.at(-1)?.content)).toContain('use_cases');
      });

      it('an unknown component is a tool error the model sees, not a failed step', async () => {
        replies.push(
          chatCompletion({
            toolCalls: [{ id: 'call_x', name: 'catalogue__get_component', arguments: { name: 'teleporter' } }],
          }),
          chatCompletion({ content: JSON.stringify(SECTION) }),
        );
        const first = model.requests.length;
        const res = await requestSection(served.url, { component: 'teleporter' });
        expect(res.status).toBe(200);
        const answer = model.requests[first + 1]?.body as { messages: ToolMessage[] };
        const toolResult = answer.messages.find((m) => m.role === 'tool');
        expect(String(toolResult?.content)).toMatch(
          /No component named "teleporter"\. Known components: rest, object-store/,
        );
      });

      it('rejects a malformed request with 422 before any model call', async () => {
        const before = model.requests.length;
        const res = await requestSection(served.url, { component: 'REST!', extra: true });
        expect(res.status).toBe(422);
        expect(model.requests.length).toBe(before);
      });
    });

    describe("tools from this service's own /mcp (a pipeline used as a tool)", () => {
      let served: Served;

      beforeAll(async () => {
        served = await serveWithOwnMcp(built, modelEnv());
      });

      afterAll(async () => {
        await served?.stop();
      });

      it('the agent calls the agent_docs_component pipeline through /mcp', async () => {
        replies.push(
          chatCompletion({
            toolCalls: [{ id: 'call_agent', name: 'catalogue__agent_docs_component', arguments: { name: 'agent' } }],
          }),
          chatCompletion({ content: JSON.stringify({ ...SECTION, title: 'Agent' }) }),
        );
        const first = model.requests.length;
        const res = await requestSection(served.url, { component: 'agent' });
        expect(res.status).toBe(200);
        expect(((await res.json()) as { section: { title: string } }).section.title).toBe('Agent');
        const [ask, answer] = model.requests.slice(first).map((r) => r.body);
        expect(ask.tools.map((t: { function: { name: string } }) => t.function.name)).toContain(
          'catalogue__agent_docs_component',
        );
        const toolResult = (answer.messages as ToolMessage[]).find(
          (m) => m.role === 'tool' && m.tool_call_id === 'call_agent',
        );
        const content = String(toolResult?.content);
        expect(content).toContain('Calls a language model');
        expect(content).toContain('[EMAIL]');
        expect(content).not.toMatch(EMAIL);
      });
    });
  });

  describe('the agent_docs_component pipeline, seen by an external MCP client', () => {
    let served: Served;
    let client: Client;

    beforeAll(async () => {
      served = await serveWithOwnMcp(built, {});
      client = new Client({ name: 'agent-docs-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
    });

    afterAll(async () => {
      await client?.close();
      await served?.stop();
    });

    it('lists the tool with its description and input schema', async () => {
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === 'agent_docs_component');
      expect(tool?.description).toContain('Looks up an integration component');
      expect(tool?.inputSchema).toMatchObject({
        type: 'object',
        required: ['name'],
        properties: { name: { enum: ['rest', 'object-store', 'agent'] } },
      });
    });

    it('calls it: the pipeline runs with the arguments as its message', async () => {
      const result = await client.callTool({ name: 'agent_docs_component', arguments: { name: 'object-store' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        name: 'object-store',
        category: 'storage',
        owner: 'storage-team@example.com',
      });
    });

    it('arguments outside the input schema are a tool error that says which field breaks which rule', async () => {
      const result = await client.callTool({ name: 'agent_docs_component', arguments: { name: 'teleporter' } });
      expect(result.isError).toBe(true);
      const expected = '/name: must be one of "rest", "object-store", "agent"';
      expect(result.structuredContent).toMatchObject({
        code: 422,
        kind: 'VALIDATION',
        error: `the arguments do not match the tool's input schema — ${expected}`,
        violations: [{ path: '/name', message: 'must be one of "rest", "object-store", "agent"' }],
      });
      expect(JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? '{}')).toMatchObject({
        error: expect.stringContaining(expected),
      });
      const unknownField = await client.callTool({
        name: 'agent_docs_component',
        arguments: { name: 'rest', colour: 'red' },
      });
      expect(unknownField.structuredContent).toMatchObject({
        violations: [{ path: '/colour', message: "must not have property 'colour'" }],
      });
    });
  });

  describe('offline, as npm start runs it (mock model, no key)', () => {
    it('node server.js with defaults only: the mock model calls the pipeline tool at its own /mcp', async () => {
      // A child process, as `npm start` runs it: PORT is set by the launcher, nothing else.
      const served = await startServer(built.outDir);
      try {
        const res = await requestSection(served.url, { component: 'rest' });
        expect(res.status).toBe(200);
        const body = (await res.json()) as {
          section: Record<string, unknown>;
          tokenUsage: { totalTokenCount: number };
        };
        expectSeedSection(body.section);
        // The agent's offline answer for this component: readable text, not made-up data.
        expect(body.section).toMatchObject({
          title: 'REST connector',
          description: expect.stringContaining('calls an HTTP API'),
        });
        expect(body.tokenUsage.totalTokenCount).toBeGreaterThan(0);
        // The tool pipeline ran inside this service, called through /mcp by the agent.
        expect(served.logs()).toMatch(/"pipeline":"agent-docs-component","outcome":"success"/);
      } finally {
        await served.stop();
      }
    });

    it('answers each catalogue component with its own section, and any other with a section that says so', async () => {
      const served = await serveWithOwnMcp(built, {});
      try {
        const titles: Record<string, unknown> = {};
        for (const component of ['rest', 'object-store', 'agent', 'teleporter']) {
          const res = await requestSection(served.url, { component });
          expect(res.status).toBe(200);
          const { section } = (await res.json()) as { section: Record<string, unknown> };
          expectSeedSection(section);
          titles[component] = section['title'];
          if (component === 'teleporter')
            expect(section['description']).toContain('teleporter is not in the offline catalogue');
        }
        expect(titles).toEqual({
          rest: 'REST connector',
          'object-store': 'Object Store',
          agent: 'Agent',
          teleporter: 'teleporter',
        });
      } finally {
        await served.stop();
      }
    });

    it('with the external catalogue server: every tool is called through it', async () => {
      const served = await serveExample(built, { AGENT_DOCS_MCP_URL: catalogue.url });
      try {
        const before = catalogueCalls.length;
        const res = await requestSection(served.url, { component: 'rest' });
        expect(res.status).toBe(200);
        expectSeedSection(((await res.json()) as { section: Record<string, unknown> }).section);
        expect(
          catalogueCalls
            .slice(before)
            .map((c) => c.tool)
            .sort(),
        ).toEqual(['get_component', 'list_components']);
      } finally {
        await served.stop();
      }
    });
  });
});

function expectSeedSection(section: Record<string, unknown>): void {
  expect(Object.keys(section).sort()).toEqual(['best_practices', 'description', 'title', 'use_cases']);
  expect(typeof section['title']).toBe('string');
  expect(typeof section['description']).toBe('string');
  for (const list of [section['use_cases'], section['best_practices']]) {
    expect(Array.isArray(list)).toBe(true);
    expect((list as unknown[]).length).toBeGreaterThanOrEqual(3);
    for (const item of list as unknown[]) expect(typeof item).toBe('string');
  }
}
