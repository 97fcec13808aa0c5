/**
 * Compile-time part of the `event` trigger: the subscription (event name, expiration, redelivery
 * limits and backoff) and the payload schema (compiled to a validator) become the EventTriggerSpec;
 * the first message is the payload, with the schema's shape.
 */
import type { CompileApi, PipelineContext, TriggerCompiler, Value } from '../../../compiler/connectors/hook-api.js';
import { idempotencySpec } from '../http/compile.js';

export const compile: TriggerCompiler = {
  trigger({ trigger, ctx }, api) {
    const read = api.reader(trigger.config);
    const body = api.compileSchemaParam(api.entryOf(trigger.config, 'body'), ctx, `${ctx.pipeline}-body`);
    const maxDeliveries = read.num('max-deliveries', read.bool('redelivery', true) ? 5 : 1);
    const backoff = eventBackoff(api.entryOf(trigger.config, 'backoff'), ctx, api);
    const idempotency = idempotencySpec(api.entryOf(trigger.config, 'idempotency-key'), body.type, ctx, api);
    return {
      spec: {
        event: JSON.stringify(read.str('name', '')),
        // 0: an event waits as long as the broker keeps it (its retention), never dropped sooner.
        expiration: String(read.num('expiration', 0)),
        maxTimeout: String(read.num('max-timeout', 30000)),
        maxDeliveries: String(maxDeliveries),
        ...(backoff ? { backoff } : {}),
        ...(body.validator ? { validateBody: body.validator } : {}),
        ...(idempotency ? { idempotency } : {}),
      },
      message: body.type,
    };
  },
};

/** Defaults of the event trigger's `backoff` (runtime/backends/backoff.ts DEFAULT_REDELIVERY_BACKOFF). */
const BACKOFF_DEFAULTS = { initial: 1000, max: 300_000, multiplier: 2 };

/**
 * A trigger's `backoff` as the runtime's RedeliveryBackoff (JS), absent when not given; `defaults`
 * fill the fields left out (the event trigger's by default; the amqp and mqtt triggers reuse it).
 * The schema checked each field; what it cannot say — `max` below `initial` — is checked here.
 */
export function eventBackoff(
  value: Value | undefined,
  ctx: PipelineContext,
  api: CompileApi,
  defaults: { initial: number; max: number; multiplier: number } = BACKOFF_DEFAULTS,
): string | undefined {
  if (!value || value.kind !== 'object') return undefined;
  const json = api.staticJson(value) as Record<string, unknown> | undefined;
  if (!json) return undefined;
  const pick = (key: 'initial' | 'max' | 'multiplier'): number => {
    const given = json[key];
    return typeof given === 'number' ? given : defaults[key];
  };
  const initialMs = pick('initial');
  const maxMs = pick('max');
  if (maxMs < initialMs) {
    const at = api.entryOf(value, 'max') ?? api.entryOf(value, 'initial') ?? value;
    ctx.diagnostics.push(
      api.diagnostic('PIPE3003', {
        message: `\`backoff.max\` (${maxMs} ms) is below \`backoff.initial\` (${initialMs} ms)`,
        span: at.span,
        label: 'the longest wait cannot be shorter than the first',
        hint: `write a \`max\` of at least ${initialMs} ms, or a smaller \`initial\``,
      }),
    );
  }
  return JSON.stringify({ initialMs, maxMs: Math.max(maxMs, initialMs), multiplier: pick('multiplier') });
}
