/**
 * One agent step, start to finish. In: parsed AgentParams and the execution context; out:
 * `{ body, tokenUsage }` where body is the schema-valid object when `output-schema` is set, else
 * `{ text }`. Order matters and is the point of this file:
 *   1. files are loaded and checked (415/413/403) before anything reaches a model;
 *   2. system and user messages are PII-masked when `guardrails.pii` is `mask`;
 *   3. MCP servers are connected (all of them, or none: a failure closes the others);
 *   4. the tool loop runs; with an output schema the reply is validated and, if invalid, the model
 *      gets `repair-attempts` rounds with the exact violations before AGENT_OUTPUT_INVALID (502);
 *   5. regex guardrails check the final body (AGENT_GUARDRAIL, 422);
 *   6. MCP connections are closed on every path.
 */
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { PipeError } from '../errors.js';
import type { ExecutionContext, Json } from '../types.js';
import { loadFileParts } from './files.js';
import { connectMcp, type McpConnection, type McpServerSpec, type ToolListCache } from './mcp-client.js';
import { createMockModel } from './mock-model.js';
import type { ChatModel, ChatRequest } from './model.js';
import { createOpenAiModel, DEFAULT_BASE_URL } from './openai-client.js';
import { type OutputValidatorCache, repairMessage, responseFormatFor } from './output-schema.js';
import type { AgentParams } from './params.js';
import { emptyFindings, maskPii, type PiiCategory } from './pii.js';
import { enforceRegexRules } from './regex-guardrails.js';
import { bindTools, runToolLoop, type ToolLoopResult } from './tool-loop.js';
import { addUsage, ZERO_USAGE, type TokenUsage } from './token-usage.js';

export interface AgentDeps {
  readonly validators: OutputValidatorCache;
  readonly toolLists: ToolListCache;
}

export interface AgentOutput {
  readonly body: Json;
  readonly tokenUsage: TokenUsage;
}

export async function runAgent(params: AgentParams, ctx: ExecutionContext, deps: AgentDeps): Promise<AgentOutput> {
  const model = chooseModel(params);
  const fileParts = await loadFileParts(params.files, { workDir: ctx.workDir, maxFileSize: params.maxFileSize });
  const piiFound = emptyFindings();
  const prepare = params.piiMask ? maskingInto(piiFound) : (text: string) => text;
  const messages = initialMessages(params, fileParts, prepare);
  const connections = await connectAll(params.tools, params, ctx, deps.toolLists);
  try {
    const loopInput = {
      model,
      request: requestSettings(params),
      tools: bindTools(connections),
      maxIterations: params.maxToolIterations,
      prepareToolResult: prepare,
      signal: ctx.signal,
    };
    let result = await runToolLoop({ ...loopInput, messages });
    let usage = result.usage;
    let toolCalls = result.toolCallCount;
    let body: Json;
    if (params.outputSchema) {
      const schema = params.outputSchema;
      let check = deps.validators.check(schema, replyText(result));
      for (let attempt = 0; !check.ok && attempt < params.repairAttempts; attempt++) {
        result = await runToolLoop({
          ...loopInput,
          messages: [...result.messages, { role: 'user', content: repairMessage(check.violations) }],
        });
        usage = addUsage(usage, result.usage);
        toolCalls += result.toolCallCount;
        check = deps.validators.check(schema, replyText(result));
      }
      if (!check.ok) {
        throw new PipeError(`The model's reply does not match the output schema: ${check.violations.join('; ')}`, {
          code: 502,
          kind: 'AGENT_OUTPUT_INVALID',
          details: { kind: 'AGENT_OUTPUT_INVALID', violations: [...check.violations], tokenUsage: { ...usage } },
        });
      }
      body = check.value;
    } else {
      body = { text: replyText(result) };
    }
    enforceRegexRules(body, params.regexRules);
    ctx.log.debug({ step: 'agent', toolCalls, tokenUsage: usage, piiMasked: piiFound }, 'agent step finished');
    return { body, tokenUsage: usage };
  } finally {
    await Promise.all(connections.map((c) => c.close()));
  }
}

/** The offline model for `mock:` models or `mock` accounts, else the OpenAI-compatible client. */
export function chooseModel(params: AgentParams): ChatModel {
  const accountType = field(params.accountFields, 'type');
  if (params.model.startsWith('mock:') || accountType === 'mock') {
    return createMockModel(params.mockAnswer !== undefined ? { answer: params.mockAnswer } : {});
  }
  const apiKey = field(params.accountFields, 'key');
  if (!apiKey) {
    throw new PipeError('Agent configuration: the model needs an account with a "key" (secret-key account)', {
      code: 500,
      kind: 'AGENT_CONFIG',
    });
  }
  return createOpenAiModel({
    apiKey,
    baseURL: field(params.accountFields, 'base-url') ?? DEFAULT_BASE_URL,
    timeout: params.timeout,
    maxRetries: params.maxRetries,
  });
}

function initialMessages(
  params: AgentParams,
  fileParts: readonly ChatCompletionContentPart[],
  prepare: (text: string) => string,
): ChatCompletionMessageParam[] {
  if (params.user === undefined && fileParts.length === 0) {
    throw new PipeError('Agent configuration: a "user" message or "files" is required', {
      code: 500,
      kind: 'AGENT_CONFIG',
    });
  }
  const messages: ChatCompletionMessageParam[] = [];
  if (params.system !== undefined && params.system.length > 0)
    messages.push({ role: 'system', content: prepare(params.system) });
  const userText = prepare(params.user ?? '');
  if (fileParts.length === 0) messages.push({ role: 'user', content: userText });
  else {
    const textPart: ChatCompletionContentPart[] = userText.length > 0 ? [{ type: 'text', text: userText }] : [];
    messages.push({ role: 'user', content: [...textPart, ...fileParts] });
  }
  return messages;
}

/** Sampling settings and response_format; OpenAI's current name for the output cap is max_completion_tokens. */
function requestSettings(params: AgentParams): Omit<ChatRequest, 'messages' | 'tools' | 'tool_choice'> {
  return {
    model: params.model,
    ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
    ...(params.topP !== undefined ? { top_p: params.topP } : {}),
    ...(params.maxOutputTokens !== undefined ? { max_completion_tokens: params.maxOutputTokens } : {}),
    ...(params.frequencyPenalty !== undefined ? { frequency_penalty: params.frequencyPenalty } : {}),
    ...(params.presencePenalty !== undefined ? { presence_penalty: params.presencePenalty } : {}),
    ...(params.outputSchema ? { response_format: responseFormatFor(params.outputSchema) } : {}),
  };
}

async function connectAll(
  specs: readonly McpServerSpec[],
  params: AgentParams,
  ctx: ExecutionContext,
  cache: ToolListCache,
): Promise<McpConnection[]> {
  const settled = await Promise.allSettled(
    specs.map((spec) =>
      connectMcp(spec, { timeout: params.timeout, signal: ctx.signal, executionId: ctx.executionId, cache }),
    ),
  );
  const connected = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) {
    await Promise.all(connected.map((c) => c.close()));
    throw failure.reason;
  }
  return connected;
}

function replyText(result: ToolLoopResult): string {
  if (result.message.refusal) {
    throw new PipeError(`The model refused: ${result.message.refusal}`, { code: 502, kind: 'AGENT_REFUSED' });
  }
  return result.message.content ?? '';
}

function maskingInto(found: Record<PiiCategory, number>): (text: string) => string {
  return (text) => {
    const masked = maskPii(text);
    for (const [category, count] of Object.entries(masked.found) as Array<[PiiCategory, number]>)
      found[category] += count;
    return masked.text;
  };
}

function field(fields: Readonly<Record<string, Json>> | undefined, name: string): string | undefined {
  if (!fields) return undefined;
  for (const [key, value] of Object.entries(fields)) {
    if (key.toLowerCase() === name && typeof value === 'string' && value.length > 0) return value;
  }
  return undefined;
}
