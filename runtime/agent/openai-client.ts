/**
 * ChatModel over any OpenAI-compatible HTTP API, through the official `openai` SDK. In: the
 * account's base URL and key, a per-request timeout and a retry count; out: a ChatModel whose
 * failures are PipeErrors (502 upstream error, 504 timeout). Retries with exponential backoff on
 * 408/409/429/5xx are the SDK's own (`maxRetries`); a server's `retry-after` hint is honoured but
 * capped, so a hostile or confused server cannot park an execution.
 */
import OpenAI from 'openai';
import { PipeError } from '../errors.js';
import type { ChatModel, ChatReply, ChatRequest } from './model.js';
import { fromApiUsage } from './token-usage.js';

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Longest wait between retries a server may ask for through retry-after headers. */
export const MAX_RETRY_AFTER_MS = 10_000;

export interface OpenAiModelOptions {
  readonly apiKey: string;
  readonly baseURL?: string;
  /** Per-request timeout in ms. */
  readonly timeout: number;
  /** Retries after the first attempt. */
  readonly maxRetries: number;
}

export function createOpenAiModel(options: OpenAiModelOptions): ChatModel {
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL ?? DEFAULT_BASE_URL,
    timeout: options.timeout,
    maxRetries: options.maxRetries,
    fetch: fetchWithCappedRetryAfter,
  });
  return {
    async complete(request: ChatRequest, signal: AbortSignal): Promise<ChatReply> {
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      try {
        completion = await client.chat.completions.create(request, { signal });
      } catch (err) {
        throw modelError(err, signal);
      }
      const choice = completion.choices[0];
      if (!choice) {
        throw new PipeError('The model returned no choices', { code: 502, kind: 'AGENT_MODEL_ERROR' });
      }
      return { message: choice.message, usage: fromApiUsage(completion.usage) };
    },
  };
}

/** Maps SDK errors to PipeErrors; never includes request headers (the key) in the message. */
export function modelError(err: unknown, signal: AbortSignal): PipeError {
  if (err instanceof PipeError) return err;
  if (err instanceof OpenAI.APIUserAbortError || signal.aborted) {
    return new PipeError('The model call was aborted (execution timeout or shutdown)', {
      code: 504,
      kind: 'TIMEOUT',
      cause: err,
    });
  }
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return new PipeError('The model did not answer within the timeout', {
      code: 504,
      kind: 'AGENT_MODEL_TIMEOUT',
      cause: err,
    });
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return new PipeError(`The model API is unreachable: ${err.message}`, {
      code: 502,
      kind: 'AGENT_MODEL_UNREACHABLE',
      cause: err,
    });
  }
  if (err instanceof OpenAI.APIError) {
    const status = typeof err.status === 'number' ? err.status : 0;
    return new PipeError(`The model API answered ${status}: ${err.message}`, {
      code: 502,
      kind: 'AGENT_MODEL_ERROR',
      details: { modelStatus: status },
      cause: err,
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new PipeError(`The model call failed: ${message}`, { code: 502, kind: 'AGENT_MODEL_ERROR', cause: err });
}

/** fetch that rewrites retry-after hints above MAX_RETRY_AFTER_MS down to it. */
async function fetchWithCappedRetryAfter(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.status !== 429 && response.status < 500) return response;
  const headers = new Headers(response.headers);
  const capped = cappedRetryAfterMs(headers.get('retry-after-ms'), headers.get('retry-after'), Date.now());
  if (capped === undefined) return response;
  headers.delete('retry-after');
  headers.set('retry-after-ms', String(capped));
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** The server's requested delay, capped; undefined when the server gave no usable hint. */
export function cappedRetryAfterMs(
  retryAfterMs: string | null,
  retryAfter: string | null,
  now: number,
): number | undefined {
  let wanted: number | undefined;
  if (retryAfterMs !== null && Number.isFinite(Number.parseFloat(retryAfterMs)))
    wanted = Number.parseFloat(retryAfterMs);
  else if (retryAfter !== null) {
    const seconds = Number.parseFloat(retryAfter);
    wanted = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - now;
  }
  if (wanted === undefined || Number.isNaN(wanted)) return undefined;
  return Math.min(Math.max(wanted, 0), MAX_RETRY_AFTER_MS);
}
