/** The offline model: schema-valid, deterministic replies for the seed schemas; tools called once. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvModule from 'ajv';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../connectors/agent/agent.js';
import type { Json, JsonObject } from '../types.js';
import { hashSeed, mockReply } from './mock-model.js';
import { responseFormatFor } from './output-schema.js';
import { testContext } from './test-support/context.js';
import { DOCUMENTATION_SCHEMA, EXPENSE_SCHEMA } from './test-support/seed-schemas.js';
import { chatCompletion, startScriptedOpenAi } from './test-support/scripted-openai-server.js';
import { startTestMcpServer, type TestMcpServer } from './test-support/test-mcp-server.js';

const Ajv = AjvModule.default;
let workDir: string;
let mcp: TestMcpServer | undefined;
beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'agent-mock-'));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
});

const runMock = (params: JsonObject): Promise<Json> => run({ model: 'mock:any', ...params }, {}, testContext(workDir));

describe('offline mock model', () => {
  it.each([
    ['documentation sections', DOCUMENTATION_SCHEMA],
    ['expense report', EXPENSE_SCHEMA],
  ])('answers schema-valid %s, deterministically', async (_name, schema) => {
    const validate = new Ajv({ allErrors: true }).compile(schema);
    for (const user of ['Document the JOLT connector', 'Extract the report', 'Another prompt']) {
      const first = (await runMock({ user, 'output-schema': schema })) as JsonObject;
      expect(validate(first.body), JSON.stringify(validate.errors)).toBe(true);
      const again = await runMock({ user, 'output-schema': schema });
      expect(again).toEqual(first);
      expect((first.tokenUsage as JsonObject).totalTokenCount).toBeGreaterThan(0);
    }
  });

  it('honours minItems, enum and closed objects', async () => {
    const out = (await runMock({ user: 'Document it', 'output-schema': DOCUMENTATION_SCHEMA })) as {
      body: Record<string, unknown[]>;
    };
    expect(out.body.use_cases?.length).toBeGreaterThanOrEqual(3);
    expect(out.body.best_practices?.length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(out.body).sort()).toEqual(['best_practices', 'description', 'title', 'use_cases']);
    const expense = (await runMock({ user: 'Extract', 'output-schema': EXPENSE_SCHEMA })) as {
      body: { trip_type: string };
    };
    expect(['Domestic', 'International']).toContain(expense.body.trip_type);
  });

  it('echoes a summary of the user message as plain text, with estimated tokens', async () => {
    const out = await runMock({ user: 'Summarise the quarterly numbers' });
    expect(out).toEqual({
      body: { text: 'Mock answer to: "Summarise the quarterly numbers"' },
      tokenUsage: expect.objectContaining({ inputTokenCount: expect.any(Number), outputTokenCount: 13 }),
    });
  });

  it('is selected by a mock account too', async () => {
    const out = await run({ model: 'gpt-4o', accountFields: { type: 'mock' }, user: 'hi' }, {}, testContext(workDir));
    expect(out).toMatchObject({ body: { text: 'Mock answer to: "hi"' } });
  });

  it('calls every MCP tool once, then answers with their results', async () => {
    mcp = await startTestMcpServer();
    const out = (await runMock({ user: 'Use the tools', tools: [{ name: 'crm', url: mcp.url }] })) as {
      body: { text: string };
    };
    expect(mcp.toolCalls.map((c) => c.tool).sort()).toEqual(['add_numbers', 'lookup_customer']);
    expect(out.body.text).toContain('Tool results:');
    expect(out.body.text).toContain('Maria Silva');
  });

  it('generates tool-call arguments from the tool input schema', () => {
    const reply = mockReply({
      model: 'mock:x',
      messages: [{ role: 'user', content: 'go' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 's__t',
            parameters: {
              type: 'object',
              required: ['n'],
              properties: { n: { type: 'integer', minimum: 5, maximum: 6 } },
            },
          },
        },
      ],
    });
    const call = reply.message.tool_calls?.[0];
    expect(call?.type === 'function' && JSON.parse(call.function.arguments).n).toBeGreaterThanOrEqual(5);
  });

  it('uses the strict schema it is sent and still validates after nulls are dropped', () => {
    const schema = { type: 'object', required: ['a'], properties: { a: { type: 'string' }, b: { type: 'number' } } };
    const reply = mockReply({
      model: 'mock:x',
      messages: [{ role: 'user', content: 'x' }],
      response_format: responseFormatFor(schema),
    });
    expect(typeof JSON.parse(reply.message.content ?? '').a).toBe('string');
    expect(hashSeed('a')).not.toBe(hashSeed('b'));
  });

  it('answers the same content the same way, whatever name the file was stored under', () => {
    const ask = (filename: string) =>
      mockReply({
        model: 'mock:x',
        messages: [
          {
            role: 'user',
            content: [{ type: 'file', file: { filename, file_data: 'data:application/pdf;base64,JVBERi0=' } }],
          },
        ],
        response_format: responseFormatFor(EXPENSE_SCHEMA),
      }).message.content;
    expect(ask('0b6c…-stored.pdf')).toBe(ask('a1f3…-other.pdf'));
  });
});

describe("declared mock answers (the agent's `mock` parameter)", () => {
  const answers: JsonObject[] = [
    {
      when: false,
      answer: { title: 'Never', description: 'd', use_cases: ['a', 'b', 'c'], best_practices: ['a', 'b', 'c'] },
    },
    {
      when: null,
      answer: {
        title: 'Null counts as false',
        description: 'd',
        use_cases: ['a', 'b', 'c'],
        best_practices: ['a', 'b', 'c'],
      },
    },
    {
      when: true,
      answer: {
        title: 'REST',
        description: 'Calls HTTP APIs.',
        use_cases: ['x', 'y', 'z'],
        best_practices: ['p', 'q', 'r'],
      },
    },
    { answer: { title: 'Default', description: 'd', use_cases: ['a', 'b', 'c'], best_practices: ['a', 'b', 'c'] } },
  ];

  it('replies with the first answer whose `when` holds, validated like a model reply', async () => {
    const out = (await runMock({
      user: 'Document REST',
      'output-schema': DOCUMENTATION_SCHEMA,
      mock: answers,
    })) as JsonObject;
    expect(out.body).toEqual(answers[2]?.['answer']);
    expect((out.tokenUsage as JsonObject).outputTokenCount).toBeGreaterThan(0);
  });

  it('an entry without `when` is the default; with no entry that holds the model makes data up', async () => {
    const fallback = (await runMock({
      user: 'x',
      'output-schema': DOCUMENTATION_SCHEMA,
      mock: answers.slice(0, 2).concat(answers.slice(3)),
    })) as JsonObject;
    expect((fallback.body as JsonObject).title).toBe('Default');
    const madeUp = (await runMock({
      user: 'x',
      'output-schema': DOCUMENTATION_SCHEMA,
      mock: answers.slice(0, 2),
    })) as JsonObject;
    expect((madeUp.body as JsonObject).title).not.toMatch(/Never|Null/);
  });

  it('is the reply text of an agent without an output schema', async () => {
    expect(await runMock({ user: 'hi', mock: [{ answer: 'Hello from the mock.' }] })).toMatchObject({
      body: { text: 'Hello from the mock.' },
    });
  });

  it('still lets the model call its tools first', async () => {
    mcp = await startTestMcpServer();
    const out = (await runMock({
      user: 'Use the tools',
      tools: [{ name: 'crm', url: mcp.url }],
      mock: [{ answer: 'Done.' }],
    })) as { body: { text: string } };
    expect(mcp.toolCalls.map((c) => c.tool).sort()).toEqual(['add_numbers', 'lookup_customer']);
    expect(out.body.text).toBe('Done.');
  });

  it('an answer outside the output schema fails like a model reply that stays invalid (502)', async () => {
    await expect(
      runMock({ user: 'x', 'output-schema': DOCUMENTATION_SCHEMA, mock: [{ answer: { title: 'Only a title' } }] }),
    ).rejects.toMatchObject({ code: 502, kind: 'AGENT_OUTPUT_INVALID' });
  });

  it('is ignored by a real model', async () => {
    const server = await startScriptedOpenAi([chatCompletion({ content: 'From the real model.' })]);
    try {
      const out = await run(
        {
          model: 'gpt-4o',
          accountFields: { key: 'sk-test', 'base-url': server.baseUrl },
          user: 'hi',
          mock: [{ answer: 'From the mock.' }],
        },
        {},
        testContext(workDir),
      );
      expect(out).toMatchObject({ body: { text: 'From the real model.' } });
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('a `when` that is not a boolean is a configuration error', async () => {
    await expect(runMock({ user: 'x', mock: [{ when: 'yes', answer: 'x' }] })).rejects.toMatchObject({
      code: 500,
      kind: 'AGENT_CONFIG',
    });
  });
});
