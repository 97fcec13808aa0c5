/**
 * The offline model (`model: "mock:…"` or an account of type `mock`): a ChatModel that never
 * touches the network and answers deterministically — the same request always gets the same reply
 * (seeded by a hash of the conversation, files included). In: a chat request; out:
 *   - with tools on offer: first a call of every tool not yet called in the conversation (arguments
 *     generated from each tool's input schema), then a final answer that includes the tool results;
 *   - the agent's declared mock answer (its `mock` parameter), when one was chosen for this input;
 *   - with `response_format: json_schema`: plausible data for the schema (mock-data.ts): numbers
 *     within its bounds, strings that look like their field (names, e-mails, dates, ids…);
 *   - otherwise: a text echoing a summary of the user's message.
 * Token counts are estimated at about four characters per token.
 */
import type {
  ChatCompletionContentPart,
  ChatCompletionMessage,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { PipeError } from '../errors.js';
import type { Json } from '../types.js';
import { plausibleData } from './mock-data.js';
import type { ChatModel, ChatReply, ChatRequest } from './model.js';
import { estimateTokens } from './token-usage.js';

export interface MockModelOptions {
  /**
   * The final answer, instead of generated data: with an output schema the body object (sent as
   * JSON, then validated like any reply), else the text (a non-string is sent as JSON text).
   */
  readonly answer?: Json;
}

const SUMMARY_CHARS = 160;

export function createMockModel(options: MockModelOptions = {}): ChatModel {
  return {
    complete(request: ChatRequest): Promise<ChatReply> {
      return Promise.resolve(mockReply(request, options));
    },
  };
}

export function mockReply(request: ChatRequest, options: MockModelOptions = {}): ChatReply {
  const seed = hashSeed(seedText(request.messages));
  const message = toolCallsStillDue(request, seed) ?? finalAnswer(request, seed, options);
  const inputTokens =
    estimateTokens(JSON.stringify(request.messages)) + estimateTokens(JSON.stringify(request.tools ?? []));
  const outputTokens = estimateTokens(message.content ?? JSON.stringify(message.tool_calls ?? []));
  return {
    message,
    usage: {
      inputTokenCount: inputTokens,
      outputTokenCount: outputTokens,
      totalTokenCount: inputTokens + outputTokens,
    },
  };
}

/** Calls of every offered function tool the conversation has not called yet, or undefined. */
function toolCallsStillDue(request: ChatRequest, seed: number): ChatCompletionMessage | undefined {
  if (!request.tools || request.tools.length === 0 || request.tool_choice === 'none') return undefined;
  const called = new Set<string>();
  for (const m of request.messages) {
    if (m.role !== 'assistant') continue;
    for (const call of m.tool_calls ?? []) if (call.type === 'function') called.add(call.function.name);
  }
  const due = request.tools.flatMap((tool) =>
    tool.type === 'function' && !called.has(tool.function.name) ? [tool.function] : [],
  );
  if (due.length === 0) return undefined;
  const toolCalls: ChatCompletionMessageFunctionToolCall[] = due.map((fn, index) => ({
    id: `call_mock_${seed.toString(16)}_${index}`,
    type: 'function',
    function: { name: fn.name, arguments: JSON.stringify(generate(fn.parameters ?? { type: 'object' }, seed + index)) },
  }));
  return { role: 'assistant', content: null, refusal: null, tool_calls: toolCalls };
}

function finalAnswer(request: ChatRequest, seed: number, options: MockModelOptions): ChatCompletionMessage {
  const format = request.response_format;
  const structured = format !== undefined && format.type === 'json_schema';
  if (options.answer !== undefined) {
    const content = typeof options.answer === 'string' && !structured ? options.answer : JSON.stringify(options.answer);
    return { role: 'assistant', content, refusal: null };
  }
  if (format && format.type === 'json_schema') {
    return {
      role: 'assistant',
      content: JSON.stringify(generate(format.json_schema.schema ?? { type: 'object' }, seed)),
      refusal: null,
    };
  }
  return { role: 'assistant', content: textAnswer(request.messages), refusal: null };
}

function textAnswer(messages: readonly ChatCompletionMessageParam[]): string {
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const userText = lastUser ? textOf(lastUser.content) : '';
  const summary = userText.length > SUMMARY_CHARS ? `${userText.slice(0, SUMMARY_CHARS)}…` : userText;
  const lines = [`Mock answer to: "${summary}"`];
  const results = messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content));
  if (results.length > 0) lines.push('Tool results:', ...results.map((r) => `- ${r}`));
  return lines.join('\n');
}

function textOf(content: ChatCompletionMessageParam['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as ReadonlyArray<ChatCompletionContentPart | { type: string }>)
    .map((part) => ('text' in part && typeof part.text === 'string' ? part.text : `[${part.type}]`))
    .join(' ');
}

function generate(schema: unknown, seed: number): Json {
  try {
    return plausibleData(schema, seed);
  } catch (err) {
    throw new PipeError(`The mock model cannot generate data for this schema: ${(err as Error).message}`, {
      code: 500,
      kind: 'AGENT_MOCK_ERROR',
      cause: err,
    });
  }
}

/**
 * The conversation as the seed sees it: everything but the names files are stored under (an upload
 * is saved under a random name), so the same content always gets the same reply.
 */
function seedText(messages: readonly ChatCompletionMessageParam[]): string {
  return JSON.stringify(messages, (key, value: unknown) => (key === 'filename' ? undefined : value));
}

/** FNV-1a 32-bit of the text, as a positive seed. */
export function hashSeed(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash === 0 ? 1 : hash;
}
