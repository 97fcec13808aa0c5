/**
 * Token counters of an agent step. In: the `usage` objects of every model reply (tool-loop rounds
 * and repair rounds); out: their sum in the reference shape `{ inputTokenCount, outputTokenCount,
 * totalTokenCount }`. The offline model estimates counts from text length.
 */

export interface TokenUsage {
  readonly inputTokenCount: number;
  readonly outputTokenCount: number;
  readonly totalTokenCount: number;
}

export const ZERO_USAGE: TokenUsage = { inputTokenCount: 0, outputTokenCount: 0, totalTokenCount: 0 };

/** The `usage` field of an OpenAI-compatible chat completion (any field may be missing). */
export interface ApiUsage {
  readonly prompt_tokens?: number | null;
  readonly completion_tokens?: number | null;
  readonly total_tokens?: number | null;
}

/** Converts an API `usage` (absent → zeros); total falls back to input + output when not given. */
export function fromApiUsage(usage: ApiUsage | null | undefined): TokenUsage {
  const input = nonNegativeInteger(usage?.prompt_tokens);
  const output = nonNegativeInteger(usage?.completion_tokens);
  const total = usage?.total_tokens == null ? input + output : nonNegativeInteger(usage.total_tokens);
  return { inputTokenCount: input, outputTokenCount: output, totalTokenCount: total };
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokenCount: a.inputTokenCount + b.inputTokenCount,
    outputTokenCount: a.outputTokenCount + b.outputTokenCount,
    totalTokenCount: a.totalTokenCount + b.totalTokenCount,
  };
}

/** Rough token estimate used by the offline model: about four characters per token. */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}

function nonNegativeInteger(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}
