/** The agent connector end to end over real HTTP: scripted OpenAI-compatible server and real MCP servers. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PipeError } from '../../errors.js';
import type { Json, JsonObject } from '../../types.js';
import { testContext } from '../../agent/test-support/context.js';
import {
  chatCompletion,
  startScriptedOpenAi,
  type Script,
  type ScriptedServer,
} from '../../agent/test-support/scripted-openai-server.js';
import {
  closedPortUrl,
  CUSTOMER,
  startTestMcpServer,
  type TestMcpServer,
} from '../../agent/test-support/test-mcp-server.js';
import { DOCUMENTATION_SCHEMA } from '../../agent/test-support/seed-schemas.js';
import { run } from './agent.js';

let workDir: string;
let openai: ScriptedServer | undefined;
let mcp: TestMcpServer | undefined;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'agent-test-'));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
afterEach(async () => {
  await openai?.close();
  openai = undefined;
  await mcp?.close();
  mcp = undefined;
});

async function withScript(script: Script): Promise<ScriptedServer> {
  openai = await startScriptedOpenAi(script);
  return openai;
}

function account(server: ScriptedServer): JsonObject {
  return { type: 'secret-key', key: 'sk-test-123', 'base-url': server.baseUrl };
}

async function runAgent(params: JsonObject): Promise<Json> {
  return run(params, {}, testContext(workDir));
}

async function failure(params: JsonObject): Promise<PipeError> {
  try {
    await runAgent(params);
  } catch (err) {
    expect(err).toBeInstanceOf(PipeError);
    return err as PipeError;
  }
  throw new Error('expected the agent to fail');
}

const GOOD_DOC = { title: 'T', description: 'D', use_cases: ['a', 'b', 'c'], best_practices: ['x', 'y', 'z'] };

describe('agent connector over a scripted OpenAI-compatible server', () => {
  it('returns a plain reply as { text } with token usage', async () => {
    const server = await withScript([
      chatCompletion({ content: 'Hello there', usage: { prompt: 16, completion: 93 } }),
    ]);
    const out = await runAgent({
      model: 'gpt-4o-mini',
      accountFields: account(server),
      system: 'Be brief.',
      user: 'Say hello',
      temperature: 0.3,
      'max-output-tokens': 1024,
      'top-p': 0.9,
    });
    expect(out).toEqual({
      body: { text: 'Hello there' },
      tokenUsage: { inputTokenCount: 16, outputTokenCount: 93, totalTokenCount: 109 },
    });
    const [request] = server.requests;
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer sk-test-123');
    expect(request?.body).toMatchObject({
      model: 'gpt-4o-mini',
      temperature: 0.3,
      top_p: 0.9,
      max_completion_tokens: 1024,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ],
    });
    expect(request?.body.tools).toBeUndefined();
  });

  it('forces the schema through response_format and returns the object', async () => {
    const server = await withScript([chatCompletion({ content: JSON.stringify(GOOD_DOC) })]);
    const out = await runAgent({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'Document it',
      'output-schema': DOCUMENTATION_SCHEMA,
    });
    expect(out).toMatchObject({ body: GOOD_DOC });
    const format = server.requests[0]?.body.response_format;
    expect(format).toMatchObject({ type: 'json_schema', json_schema: { name: 'documentation_section', strict: true } });
    expect(format.json_schema.schema).toMatchObject({
      additionalProperties: false,
      required: ['title', 'description', 'use_cases', 'best_practices'],
    });
  });

  it('repairs an invalid reply by telling the model what was wrong, summing usage', async () => {
    const server = await withScript([
      chatCompletion({
        content: JSON.stringify({ ...GOOD_DOC, use_cases: ['only one'] }),
        usage: { prompt: 10, completion: 5 },
      }),
      chatCompletion({ content: JSON.stringify(GOOD_DOC), usage: { prompt: 30, completion: 6 } }),
    ]);
    const out = await runAgent({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'Document it',
      'output-schema': DOCUMENTATION_SCHEMA,
    });
    expect(out).toEqual({
      body: GOOD_DOC,
      tokenUsage: { inputTokenCount: 40, outputTokenCount: 11, totalTokenCount: 51 },
    });
    const second = server.requests[1]?.body;
    const last = second.messages.at(-1);
    expect(last.role).toBe('user');
    expect(last.content).toContain('/use_cases: must NOT have fewer than 3 items');
    expect(second.messages.at(-2)).toMatchObject({ role: 'assistant' });
  });

  it('fails with AGENT_OUTPUT_INVALID after the repair round is also invalid', async () => {
    const server = await withScript([
      chatCompletion({ content: '{"title": 1}' }),
      chatCompletion({ content: 'not json at all' }),
    ]);
    const err = await failure({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'Document it',
      'output-schema': DOCUMENTATION_SCHEMA,
    });
    expect(err.kind).toBe('AGENT_OUTPUT_INVALID');
    expect(err.code).toBe(502);
    expect(err.details?.violations).toEqual([expect.stringMatching(/^the reply is not valid JSON/)]);
    expect(server.requests).toHaveLength(2);
  });

  it('retries after a 429 and then succeeds', async () => {
    const server = await withScript([
      { status: 429, headers: { 'retry-after-ms': '20' }, body: { error: { message: 'slow down' } } },
      chatCompletion({ content: 'ok now' }),
    ]);
    const out = await runAgent({ model: 'gpt-4o', accountFields: account(server), user: 'hi' });
    expect(out).toMatchObject({ body: { text: 'ok now' } });
    expect(server.requests).toHaveLength(2);
  });

  it('gives up with a 502 when the model API keeps failing', async () => {
    const server = await withScript([
      { status: 503, headers: { 'retry-after-ms': '5' }, body: { error: { message: 'down' } } },
      { status: 503, headers: { 'retry-after-ms': '5' }, body: { error: { message: 'down' } } },
    ]);
    const err = await failure({ model: 'gpt-4o', accountFields: account(server), user: 'hi', 'max-retries': 1 });
    expect(err).toMatchObject({ code: 502, kind: 'AGENT_MODEL_ERROR' });
    expect(err.message).not.toContain('sk-test-123');
    expect(server.requests).toHaveLength(2);
  });

  it('times out a slow model with a 504', async () => {
    const server = await withScript([{ ...chatCompletion({ content: 'late' }), delayMs: 2000 }]);
    const err = await failure({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'hi',
      timeout: 200,
      'max-retries': 0,
    });
    expect(err).toMatchObject({ code: 504, kind: 'AGENT_MODEL_TIMEOUT' });
  });

  it('masks PII before sending: the server never sees the e-mail or CPF', async () => {
    const server = await withScript([chatCompletion({ content: 'done' })]);
    await runAgent({
      model: 'gpt-4o',
      accountFields: account(server),
      guardrails: { pii: 'mask' },
      system: 'Contact support@example.com on failure.',
      user: 'Customer joao@example.org, CPF 529.982.247-25, phone +55 11 91234-5678 wants a refund.',
    });
    const raw = JSON.stringify(server.requests[0]?.body);
    expect(raw).not.toMatch(/@example\.(com|org)|529\.982|91234/);
    expect(server.requests[0]?.body.messages).toEqual([
      { role: 'system', content: 'Contact [EMAIL] on failure.' },
      { role: 'user', content: 'Customer [EMAIL], CPF [CPF], phone [PHONE] wants a refund.' },
    ]);
  });

  it('sends a PDF as a base64 file part', async () => {
    const server = await withScript([chatCompletion({ content: 'read it' })]);
    writeFileSync(join(workDir, 'report.pdf'), '%PDF-1.4 test');
    await runAgent({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'Extract',
      files: [{ path: join(workDir, 'report.pdf'), fileName: 'report.pdf', contentType: 'application/pdf', size: 13 }],
    });
    expect(server.requests[0]?.body.messages[0].content).toEqual([
      { type: 'text', text: 'Extract' },
      {
        type: 'file',
        file: {
          filename: 'report.pdf',
          file_data: `data:application/pdf;base64,${Buffer.from('%PDF-1.4 test').toString('base64')}`,
        },
      },
    ]);
  });

  it('never sends a non-PDF file: 415 and zero requests', async () => {
    const server = await withScript([chatCompletion({ content: 'should not happen' })]);
    writeFileSync(join(workDir, 'notes.txt'), 'hello');
    writeFileSync(join(workDir, 'fake.pdf'), 'not really a pdf');
    const txt = await failure({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'Extract',
      files: { path: join(workDir, 'notes.txt'), originalFileName: 'notes.txt', contentType: 'text/plain', size: 5 },
    });
    expect(txt).toMatchObject({ code: 415, kind: 'AGENT_FILE_UNSUPPORTED' });
    const fake = await failure({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'Extract',
      files: [{ path: join(workDir, 'fake.pdf'), fileName: 'fake.pdf', contentType: 'application/pdf', size: 16 }],
    });
    expect(fake).toMatchObject({ code: 415 });
    expect(server.requests).toHaveLength(0);
  });

  it('rejects an oversized file (413) and a path outside the work folder (403)', async () => {
    const server = await withScript([]);
    writeFileSync(join(workDir, 'big.pdf'), '%PDF-' + 'x'.repeat(2000));
    const big = await failure({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'x',
      'max-file-size': 1000,
      files: [{ path: join(workDir, 'big.pdf'), fileName: 'big.pdf', contentType: 'application/pdf' }],
    });
    expect(big).toMatchObject({ code: 413, kind: 'AGENT_FILE_TOO_LARGE' });
    const outside = await failure({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'x',
      files: [{ path: join(workDir, '..', 'etc.pdf'), fileName: 'etc.pdf', contentType: 'application/pdf' }],
    });
    expect(outside.code).toBeGreaterThanOrEqual(400);
    expect(server.requests).toHaveLength(0);
  });

  it('applies regex guardrails to the reply', async () => {
    const server = await withScript([
      chatCompletion({ content: JSON.stringify({ ...GOOD_DOC, title: 'lowercase title' }) }),
    ]);
    const err = await failure({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'Document it',
      'output-schema': DOCUMENTATION_SCHEMA,
      guardrails: { regex: [{ field: 'title', pattern: '^[A-Z]' }] },
    });
    expect(err).toMatchObject({ code: 422, kind: 'AGENT_GUARDRAIL' });
    expect(err.message).toContain('"title"');
  });
});

describe('agent connector with MCP tools', () => {
  it('runs the tool-call loop over two tools and feeds their results back (masked)', async () => {
    mcp = await startTestMcpServer();
    const server = await withScript([
      chatCompletion({
        toolCalls: [
          { id: 'c1', name: 'crm__lookup_customer', arguments: { id: 'c-42' } },
          { id: 'c2', name: 'crm__add_numbers', arguments: { a: 2, b: 40 } },
        ],
        usage: { prompt: 50, completion: 10 },
      }),
      chatCompletion({ content: 'Maria owes 42', usage: { prompt: 80, completion: 4 } }),
    ]);
    const out = await runAgent({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'How much does customer c-42 owe?',
      guardrails: { pii: 'mask' },
      tools: [{ type: 'mcp', name: 'crm', url: mcp.url }],
    });
    expect(out).toEqual({
      body: { text: 'Maria owes 42' },
      tokenUsage: { inputTokenCount: 130, outputTokenCount: 14, totalTokenCount: 144 },
    });
    const offered = server.requests[0]?.body.tools.map((t: { function: { name: string } }) => t.function.name);
    expect(offered.sort()).toEqual(['crm__add_numbers', 'crm__lookup_customer']);
    expect(mcp.toolCalls).toEqual([
      { tool: 'lookup_customer', args: { id: 'c-42' } },
      { tool: 'add_numbers', args: { a: 2, b: 40 } },
    ]);
    const toolMessages = server.requests[1]?.body.messages.filter((m: { role: string }) => m.role === 'tool');
    expect(toolMessages).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: JSON.stringify({ ...CUSTOMER, email: '[EMAIL]' }) },
      { role: 'tool', tool_call_id: 'c2', content: '42' },
    ]);
  });

  it('reports a failing tool call to the model instead of throwing', async () => {
    mcp = await startTestMcpServer();
    const server = await withScript([
      chatCompletion({
        toolCalls: [
          { id: 'c1', name: 'crm__add_numbers', arguments: { a: 'two' } },
          { id: 'c2', name: 'crm__nope', arguments: {} },
        ],
      }),
      chatCompletion({ content: 'could not add' }),
    ]);
    const out = await runAgent({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'add',
      tools: [{ name: 'crm', url: mcp.url }],
    });
    expect(out).toMatchObject({ body: { text: 'could not add' } });
    const toolMessages = server.requests[1]?.body.messages.filter((m: { role: string }) => m.role === 'tool');
    expect(toolMessages[0].content).toMatch(/^Tool error: /);
    expect(toolMessages[1].content).toBe('Tool error: there is no tool named "crm__nope"');
  });

  it('bounds the loop: after max-tool-iterations the model must answer without tools', async () => {
    mcp = await startTestMcpServer();
    const call = chatCompletion({ toolCalls: [{ name: 'crm__add_numbers', arguments: { a: 1, b: 1 } }] });
    const server = await withScript([call, call, chatCompletion({ content: 'final' })]);
    const out = await runAgent({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'loop',
      tools: [{ name: 'crm', url: mcp.url }],
      'max-tool-iterations': 2,
    });
    expect(out).toMatchObject({ body: { text: 'final' } });
    expect(server.requests.map((r) => r.body.tool_choice)).toEqual(['auto', 'auto', 'none']);
  });

  it('passes headers, query parameters and account credentials to the MCP server', async () => {
    mcp = await startTestMcpServer({
      requiredHeaders: { 'x-tenant': 'acme', authorization: 'Bearer mcp-secret' },
      requiredQuery: { region: 'br' },
    });
    const server = await withScript([chatCompletion({ content: 'fine' })]);
    await runAgent({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'hi',
      tools: [
        {
          name: 'crm',
          url: mcp.url,
          headers: { 'x-tenant': 'acme' },
          query: { region: 'br' },
          accountFields: { type: 'secret-key', key: 'mcp-secret' },
        },
      ],
    });
    expect(mcp.requests.length).toBeGreaterThan(0);
    for (const seen of mcp.requests) {
      expect(seen.headers['x-tenant']).toBe('acme');
      expect(seen.headers.authorization).toBe('Bearer mcp-secret');
      expect(seen.query.region).toBe('br');
    }
  });

  it('fails with 502 when the MCP server rejects the credentials, without calling the model', async () => {
    mcp = await startTestMcpServer({ requiredHeaders: { authorization: 'Bearer right' } });
    const server = await withScript([chatCompletion({ content: 'never' })]);
    const err = await failure({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'hi',
      tools: [{ name: 'crm', url: mcp.url, headers: { authorization: 'Bearer wrong' } }],
    });
    expect(err).toMatchObject({ code: 502, kind: 'AGENT_MCP_UNAVAILABLE' });
    expect(server.requests).toHaveLength(0);
  });

  it('fails with 502 when the MCP server is down', async () => {
    const server = await withScript([chatCompletion({ content: 'never' })]);
    const url = await closedPortUrl();
    const err = await failure({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'hi',
      tools: [{ name: 'crm', url: `${url}?token=secret-value` }],
    });
    expect(err).toMatchObject({ code: 502, kind: 'AGENT_MCP_UNAVAILABLE' });
    expect(err.message).toContain('MCP server "crm"');
    expect(err.message).not.toContain('secret-value');
    expect(server.requests).toHaveLength(0);
  });

  it('fails with 504 when the MCP server is too slow', async () => {
    mcp = await startTestMcpServer({ delayMs: 1500 });
    const server = await withScript([chatCompletion({ content: 'never' })]);
    // Without the 300 ms timeout the server's answer (after 1.5 s) would arrive: no 504.
    const err = await failure({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'hi',
      timeout: 300,
      tools: [{ name: 'crm', url: mcp.url }],
    });
    expect(err).toMatchObject({ code: 504, kind: 'AGENT_MCP_TIMEOUT' });
  });
});

describe('agent connector with a legacy SSE MCP server', () => {
  it('falls back to the SSE transport, carrying headers and query parameters', async () => {
    mcp = await startTestMcpServer({
      legacySse: true,
      requiredHeaders: { 'x-api-key': 'k1' },
      requiredQuery: { v: '2' },
    });
    const server = await withScript([
      chatCompletion({ toolCalls: [{ id: 'c1', name: 'old__add_numbers', arguments: { a: 1, b: 2 } }] }),
      chatCompletion({ content: 'three' }),
    ]);
    const out = await runAgent({
      model: 'gpt-4o',
      accountFields: account(server),
      user: 'add',
      tools: [{ name: 'old', url: mcp.url, headers: { 'x-api-key': 'k1' }, query: { v: '2' } }],
    });
    expect(out).toMatchObject({ body: { text: 'three' } });
    expect(mcp.toolCalls).toEqual([{ tool: 'add_numbers', args: { a: 1, b: 2 } }]);
    expect(mcp.requests.some((r) => r.method === 'GET')).toBe(true);
    expect(server.requests[1]?.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: '3' });
  });
});
