/**
 * The tool-call loop. In: a model, the conversation so far, the tools on offer (MCP tools bound
 * to function names) and limits; out: the model's final assistant message, the conversation
 * including every tool round, and the summed token usage.
 *
 * Each round: ask the model; if it calls tools, run them one after another, append their results
 * (masked when PII masking is on) and ask again. A failing tool becomes an error text the model
 * reads, never an exception. After `maxIterations` tool rounds the model is asked once more with
 * `tool_choice: "none"` so it must answer with what it has.
 */
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import { PipeError } from '../errors.js';
import type { JsonObject } from '../types.js';
import type { McpConnection, ToolOutcome } from './mcp-client.js';
import type { ChatModel, ChatRequest } from './model.js';
import { addUsage, ZERO_USAGE, type TokenUsage } from './token-usage.js';

/** Tool results longer than this are cut, to bound tokens and memory. */
export const MAX_TOOL_RESULT_CHARS = 100_000;

export interface ToolBinding {
  /** Name offered to the model: `<server>__<tool>`, restricted to [A-Za-z0-9_-]{1,64}. */
  readonly functionName: string;
  readonly description: string;
  readonly parameters: JsonObject;
  call(args: JsonObject): Promise<ToolOutcome>;
}

export interface ToolLoopInput {
  readonly model: ChatModel;
  /** Everything of the request except messages, tools and tool_choice. */
  readonly request: Omit<ChatRequest, 'messages' | 'tools' | 'tool_choice'>;
  readonly messages: readonly ChatCompletionMessageParam[];
  readonly tools: readonly ToolBinding[];
  readonly maxIterations: number;
  /** Applied to each tool result before the model sees it (PII masking, or identity). */
  readonly prepareToolResult: (text: string) => string;
  readonly signal: AbortSignal;
}

export interface ToolLoopResult {
  readonly message: ChatCompletionMessage;
  readonly messages: ChatCompletionMessageParam[];
  readonly usage: TokenUsage;
  readonly toolCallCount: number;
}

export async function runToolLoop(input: ToolLoopInput): Promise<ToolLoopResult> {
  const messages = [...input.messages];
  const byName = new Map(input.tools.map((t) => [t.functionName, t]));
  const offered = input.tools.map(asFunctionTool);
  let usage = ZERO_USAGE;
  let toolCallCount = 0;
  for (let round = 0; ; round++) {
    const toolsAllowed = offered.length > 0 && round < input.maxIterations;
    const request: ChatRequest = {
      ...input.request,
      messages,
      ...(offered.length > 0 ? { tools: offered, tool_choice: toolsAllowed ? 'auto' : 'none' } : {}),
    };
    const reply = await input.model.complete(request, input.signal);
    usage = addUsage(usage, reply.usage);
    const calls = reply.message.tool_calls ?? [];
    if (calls.length === 0) {
      messages.push(assistantParam(reply.message));
      return { message: reply.message, messages, usage, toolCallCount };
    }
    if (!toolsAllowed) {
      throw new PipeError(`The model kept calling tools after ${input.maxIterations} rounds`, {
        code: 502,
        kind: 'AGENT_TOOL_LIMIT',
      });
    }
    messages.push(assistantParam(reply.message));
    for (const call of calls) {
      const outcome = await runCall(call, byName);
      toolCallCount += 1;
      messages.push({ role: 'tool', tool_call_id: call.id, content: input.prepareToolResult(truncate(outcome.text)) });
    }
  }
}

/** Function tools for every tool of every connection, with unique model-safe names. */
export function bindTools(connections: readonly McpConnection[]): ToolBinding[] {
  const taken = new Set<string>();
  const bindings: ToolBinding[] = [];
  for (const connection of connections) {
    for (const tool of connection.tools) {
      const functionName = uniqueName(functionNameFor(connection.server, tool.name), taken);
      taken.add(functionName);
      bindings.push({
        functionName,
        description: tool.description,
        parameters: tool.inputSchema,
        call: (args) => connection.callTool(tool.name, args),
      });
    }
  }
  return bindings;
}

export function functionNameFor(server: string, tool: string): string {
  return `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

function uniqueName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const candidate = name.slice(0, 64 - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}

async function runCall(
  call: ChatCompletionMessageToolCall,
  byName: ReadonlyMap<string, ToolBinding>,
): Promise<ToolOutcome> {
  if (call.type !== 'function') return { text: 'Tool error: only function tools are available', isError: true };
  const binding = byName.get(call.function.name);
  if (!binding) return { text: `Tool error: there is no tool named "${call.function.name}"`, isError: true };
  let args: unknown;
  try {
    args = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
  } catch {
    return { text: 'Tool error: the arguments are not valid JSON', isError: true };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return { text: 'Tool error: the arguments must be a JSON object', isError: true };
  }
  try {
    return await binding.call(args as JsonObject);
  } catch (err) {
    return { text: `Tool error: ${err instanceof Error ? err.message : String(err)}`, isError: true };
  }
}

function asFunctionTool(binding: ToolBinding): ChatCompletionFunctionTool {
  return {
    type: 'function',
    function: { name: binding.functionName, description: binding.description, parameters: binding.parameters },
  };
}

/** The assistant reply as a message to send back (only the fields a request accepts). */
function assistantParam(message: ChatCompletionMessage): ChatCompletionMessageParam {
  return {
    role: 'assistant',
    content: message.content ?? null,
    ...(message.tool_calls && message.tool_calls.length > 0 ? { tool_calls: message.tool_calls } : {}),
  };
}

function truncate(text: string): string {
  return text.length <= MAX_TOOL_RESULT_CHARS ? text : `${text.slice(0, MAX_TOOL_RESULT_CHARS)}\n[truncated]`;
}
