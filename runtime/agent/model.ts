/**
 * The one interface the agent talks to a language model through: an OpenAI-compatible chat
 * completion request in, the assistant message and its token usage out. Implemented by the real
 * client (openai-client.ts) and by the offline model (mock-model.ts), so the tool loop, the
 * structured-output repair and the guardrails run identically for both.
 */
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessage } from 'openai/resources/chat/completions';
import type { TokenUsage } from './token-usage.js';

export type ChatRequest = ChatCompletionCreateParamsNonStreaming;

export interface ChatReply {
  readonly message: ChatCompletionMessage;
  readonly usage: TokenUsage;
}

export interface ChatModel {
  /** Sends one request; throws PipeError on failure (after the client's own retries). */
  complete(request: ChatRequest, signal: AbortSignal): Promise<ChatReply>;
}
