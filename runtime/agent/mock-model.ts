/**
 * The offline model (`model: "mock:…"` or an account of type `mock`): a ChatModel that never
 * touches the network and answers deterministically — the same request always gets the same reply.
 * In: a chat request; out:
 *   - with tools on offer: first a call of every tool not yet called in the conversation (arguments
 *     generated from each tool's input schema), then a final answer that includes the tool results;
 *   - with `response_format: json_schema`: an object generated from the schema (json-schema-faker,
 *     seeded from a hash of the conversation), so minItems, enum and closed objects are honoured;
 *   - otherwise: a text echoing a summary of the user's message.
 * Token counts are estimated at about four characters per token.
 */
import { generateSync, type JsonSchema } from 'json-schema-faker';
import type {
  ChatCompletionContentPart,
  ChatCompletionMessage,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { PipeError } from '../errors.js';
import type { ChatModel, ChatReply, ChatRequest } from './model.js';
import { estimateTokens } from './token-usage.js';

const SUMMARY_CHARS = 160;

export function createMockModel(): ChatModel {
  return {
    complete(request: ChatRequest): Promise<ChatReply> {
      return Promise.resolve(mockReply(request));
    },
  };
}

export function mockReply(request: ChatRequest): ChatReply {
  const seed = hashSeed(JSON.stringify(request.messages));
  const message = toolCallsStillDue(request, seed) ?? finalAnswer(request, seed);
  const inputTokens = estimateTokens(JSON.stringify(request.messages)) + estimateTokens(JSON.stringify(request.tools ?? []));
  const outputTokens = estimateTokens(message.content ?? JSON.stringify(message.tool_calls ?? []));
  return {
    message,
    usage: { inputTokenCount: inputTokens, outputTokenCount: outputTokens, totalTokenCount: inputTokens + outputTokens },
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
  const due = request.tools.flatMap((tool) => (tool.type === 'function' && !called.has(tool.function.name) ? [tool.function] : []));
  if (due.length === 0) return undefined;
  const toolCalls: ChatCompletionMessageFunctionToolCall[] = due.map((fn, index) => ({
    id: `call_mock_${seed.toString(16)}_${index}`,
    type: 'function',
    function: { name: fn.name, arguments: JSON.stringify(generate((fn.parameters ?? { type: 'object' }) as JsonSchema, seed + index)) },
  }));
  return { role: 'assistant', content: null, refusal: null, tool_calls: toolCalls };
}

function finalAnswer(request: ChatRequest, seed: number): ChatCompletionMessage {
  const format = request.response_format;
  if (format && format.type === 'json_schema') {
    const schema = (format.json_schema.schema ?? { type: 'object' }) as JsonSchema;
    return { role: 'assistant', content: JSON.stringify(generate(schema, seed)), refusal: null };
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

function generate(schema: JsonSchema, seed: number): unknown {
  try {
    return generateSync(schema, { seed, maxDepth: 8, maxDefaultItems: 3 });
  } catch (err) {
    throw new PipeError(`The mock model cannot generate data for this schema: ${(err as Error).message}`, {
      code: 500, kind: 'AGENT_MOCK_ERROR', cause: err,
    });
  }
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
