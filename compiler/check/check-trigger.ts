/**
 * Phase `check` for triggers: parameters against the trigger's schema, body schemas compiled to
 * validators, cron expressions parsed, auth accounts resolved; yields the TriggerSpec object (as JS)
 * and the shape of the first message.
 */
import { createRequire } from 'node:module';
import type { TriggerDecl, Value } from '../ast/ast.js';
import { diagnostic } from '../diagnostics/codes.js';
import { suggest } from '../diagnostics/suggest.js';
import type { TriggerPlan } from '../plan/plan.js';
import { UNKNOWN, type PipeType } from '../types/pipe-type.js';
import { checkParams } from './check-params.js';
import { checkExists } from './connector-hooks.js';
import type { PipelineContext } from './context.js';
import type { EnvelopeDemand } from './envelope-demand.js';
import { entryOf, staticJson } from './literal.js';
import { resolveSchemaValue, schemaLocator } from './schema-refs.js';
import { SCHEDULER_MESSAGE, httpEnvelope, httpFileEnvelope, schemaToType } from './shapes.js';

const MB = 1024 * 1024;

/**
 * `envelope`: the envelope fields the pipeline reads (envelope-demand.ts), for the HTTP triggers;
 * they build only those. Absent or 'all': every field.
 */
export function checkTrigger(trigger: TriggerDecl, ctx: PipelineContext, envelope: EnvelopeDemand = 'all'): { plan: TriggerPlan; message: PipeType } | undefined {
  const schema = ctx.facts.registry.triggers.get(trigger.kind);
  if (!schema) {
    const names = [...ctx.facts.registry.triggers.keys()];
    const close = suggest(trigger.kind, names);
    ctx.diagnostics.push(
      diagnostic('PIPE2002', {
        message: `unknown trigger \`${trigger.kind}\``,
        span: trigger.kindSpan,
        label: close ? `did you mean \`${close}\`?` : 'unknown trigger',
        body: [`Triggers: ${names.map((n) => `\`${n}\``).join(', ')}.`],
        ...(close ? { hint: `write \`trigger ${close} { … }\`` } : {}),
      }),
    );
    return undefined;
  }
  const checked = checkParams(schema, trigger.config, {}, { what: 'trigger', name: trigger.kind, nameSpan: trigger.kindSpan }, ctx.facts.validators);
  ctx.diagnostics.push(...checked.diagnostics);
  const config = trigger.config;
  const num = (key: string, fallback: number): number => {
    const v = entryOf(config, key);
    return v?.kind === 'number' ? v.value : v?.kind === 'duration' ? v.ms : v?.kind === 'size' ? v.bytes : fallback;
  };
  const str = (key: string, fallback: string): string => {
    const v = entryOf(config, key);
    return v?.kind === 'string' ? v.value : v?.kind === 'ident' ? v.name : fallback;
  };
  const bool = (key: string, fallback: boolean): boolean => {
    const v = entryOf(config, key);
    return v?.kind === 'boolean' ? v.value : fallback;
  };
  const bodySchema = (key: string): { validator?: string; type: PipeType } => {
    const value = entryOf(config, key);
    if (!value) return { type: UNKNOWN };
    const resolved = resolveSchemaValue(value, ctx.facts.decls, ctx.diagnostics);
    if (resolved === undefined) return { type: UNKNOWN };
    const validator = ctx.compileSchema(resolved, value.span, undefined, `${ctx.pipeline}-${key}`, schemaLocator(value, ctx.facts.decls));
    return { ...(validator ? { validator } : {}), type: schemaToType(resolved) };
  };

  switch (trigger.kind) {
    case 'http':
    case 'http-file': {
      const methodValue = entryOf(config, 'method');
      const methodJson = methodValue ? staticJson(methodValue) : undefined;
      const methods = Array.isArray(methodJson) ? methodJson.map(String) : typeof methodJson === 'string' ? [methodJson] : ['POST'];
      const path = str('path', '/');
      const auth = authSpec(entryOf(config, 'auth'), ctx);
      const rateLimit = entryOf(config, 'rate-limit');
      const rateJson = rateLimit ? staticJson(rateLimit) : undefined;
      const fields = envelope === 'all' ? '' : `, envelope: ${JSON.stringify([...envelope].sort())}`;
      const common = `methods: ${JSON.stringify(methods)}, path: ${JSON.stringify(path)}${auth ? `, auth: ${auth}` : ''}${rateJson ? `, rateLimit: ${JSON.stringify(rateJson)}` : ''}${fields}`;
      if (trigger.kind === 'http') {
        const body = bodySchema('body');
        const spec = `{ kind: "http", ${common}, maxBodySize: ${num('max-body-size', 5 * MB)}${body.validator ? `, validateBody: ${body.validator}` : ''} }`;
        return { plan: { kind: 'http', spec }, message: httpEnvelope(body.type) };
      }
      const spec = `{ kind: "http-file", ${common}, maxFileSize: ${num('max-file-size', 100 * MB)} }`;
      return { plan: { kind: 'http-file', spec }, message: httpFileEnvelope() };
    }
    case 'event': {
      const body = bodySchema('body');
      const redelivery = bool('redelivery', true);
      const maxDeliveries = num('max-deliveries', redelivery ? 5 : 1);
      const backoff = eventBackoff(entryOf(config, 'backoff'), ctx);
      // expiration 0: an event waits as long as the broker keeps it (its retention), never dropped sooner.
      const spec = `{ kind: "event", event: ${JSON.stringify(str('name', ''))}, expiration: ${num('expiration', 0)}, maxTimeout: ${num('max-timeout', 30000)}, maxDeliveries: ${maxDeliveries}${backoff ? `, backoff: ${backoff}` : ''}${body.validator ? `, validateBody: ${body.validator}` : ''} }`;
      return { plan: { kind: 'event', spec }, message: body.type };
    }
    case 'scheduler': {
      const cron = str('cron', '');
      const timezone = str('timezone', 'UTC');
      const cronValue = entryOf(config, 'cron');
      if (cronValue) checkCron(cron, timezone, cronValue, entryOf(config, 'timezone'), ctx);
      const missed = str('missed-ticks', '');
      const missedTicks = missed === 'skip' || missed === 'run-once' ? `, missedTicks: ${JSON.stringify(missed)}` : '';
      const spec = `{ kind: "scheduler", cron: ${JSON.stringify(cron)}, timezone: ${JSON.stringify(timezone)}, allowConcurrent: ${bool('allow-concurrent', false)}${missedTicks} }`;
      return { plan: { kind: 'scheduler', spec }, message: SCHEDULER_MESSAGE };
    }
    case 'mcp-tool': {
      const input = entryOf(config, 'input');
      const resolved = input ? resolveSchemaValue(input, ctx.facts.decls, ctx.diagnostics) : undefined;
      const validator = input && resolved !== undefined ? ctx.compileSchema(resolved, input.span, undefined, `${ctx.pipeline}-input`, schemaLocator(input, ctx.facts.decls)) : undefined;
      const auth = authSpec(entryOf(config, 'auth'), ctx);
      const spec = `{ kind: "mcp-tool", tool: ${JSON.stringify(str('name', ctx.pipeline))}, description: ${JSON.stringify(str('description', ''))}, inputSchema: ${JSON.stringify(resolved ?? { type: 'object' })}${validator ? `, validateBody: ${validator}` : ''}${auth ? `, auth: ${auth}` : ''} }`;
      return { plan: { kind: 'mcp-tool', spec }, message: resolved !== undefined ? schemaToType(resolved) : UNKNOWN };
    }
    default:
      return undefined;
  }
}

/** Defaults of the event trigger's `backoff` (runtime/backends/backoff.ts DEFAULT_REDELIVERY_BACKOFF). */
const BACKOFF_DEFAULTS = { initial: 1000, max: 300_000, multiplier: 2 };

/**
 * The event trigger's `backoff` as the runtime's RedeliveryBackoff (JS), absent when not given. The
 * schema checked each field; what it cannot say — `max` below `initial` — is checked here.
 */
function eventBackoff(value: Value | undefined, ctx: PipelineContext): string | undefined {
  if (!value || value.kind !== 'object') return undefined;
  const json = staticJson(value) as Record<string, unknown> | undefined;
  if (!json) return undefined;
  const pick = (key: 'initial' | 'max' | 'multiplier'): number => (typeof json[key] === 'number' ? json[key] : BACKOFF_DEFAULTS[key]);
  const initialMs = pick('initial');
  const maxMs = pick('max');
  if (maxMs < initialMs) {
    const at = entryOf(value, 'max') ?? entryOf(value, 'initial') ?? value;
    ctx.diagnostics.push(diagnostic('PIPE3003', {
      message: `\`backoff.max\` (${maxMs} ms) is below \`backoff.initial\` (${initialMs} ms)`,
      span: at.span,
      label: 'the longest wait cannot be shorter than the first',
      hint: `write a \`max\` of at least ${initialMs} ms, or a smaller \`initial\``,
    }));
  }
  return JSON.stringify({ initialMs, maxMs: Math.max(maxMs, initialMs), multiplier: pick('multiplier') });
}

/** The runtime AuthSpec (runtime/security/auth.ts) as JS, with the account checked. */
function authSpec(value: Value | undefined, ctx: PipelineContext): string | undefined {
  if (!value || value.kind !== 'object') return undefined;
  const json = staticJson(value) as Record<string, unknown> | undefined;
  if (!json) return undefined;
  const account = json['account'];
  if (typeof account === 'string') {
    const accountValue = entryOf(value, 'account');
    checkExists(ctx, 'PIPE2005', 'account', account, [...ctx.facts.decls.accounts.keys()], accountValue?.span ?? value.span);
  }
  const spec: Record<string, unknown> = { type: json['type'] };
  if (json['type'] === 'api-key') {
    spec['in'] = json['in'] ?? 'header';
    spec['name'] = json['name'] ?? 'x-api-key';
  }
  for (const [from, to] of [
    ['account', 'account'],
    ['jwks-url', 'jwksUrl'],
    ['issuer', 'issuer'],
    ['audience', 'audience'],
    ['scopes', 'scopes'],
    ['claims', 'claims'],
    ['realm', 'realm'],
  ] as const) {
    if (json[from] !== undefined) spec[to] = json[from];
  }
  if (typeof json['leeway'] === 'number') spec['leewaySeconds'] = Math.round(json['leeway'] / 1000);
  return JSON.stringify(spec);
}

// croner is loaded on the first cron expression, not by every `pipec check` (≈ 10 ms of start-up).
// Its CommonJS build is the same code as the ES module the runtime uses.
const require = createRequire(import.meta.url);
let cronModule: typeof import('croner') | undefined;

function checkCron(cron: string, timezone: string, cronValue: Value, tzValue: Value | undefined, ctx: PipelineContext): void {
  const fields = cron.trim().split(/\s+/).length;
  let problem: string | undefined = fields === 5 || fields === 6 ? undefined : `expected 5 or 6 fields, found ${fields}`;
  if (!problem) {
    try {
      const { Cron } = (cronModule ??= require('croner') as typeof import('croner'));
      new Cron(cron, { paused: true, timezone });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (/time ?zone/i.test(message) && tzValue) {
        ctx.diagnostics.push(diagnostic('PIPE5503', { message: `unknown time zone \`${timezone}\``, span: tzValue.span, label: 'not an IANA time zone', hint: 'write for example "America/Sao_Paulo" or "UTC"' }));
        return;
      }
      problem = message;
    }
  }
  if (problem) {
    ctx.diagnostics.push(diagnostic('PIPE5503', { message: `invalid cron expression: ${problem}`, span: cronValue.span, label: problem, hint: 'write for example "*/5 * * * *" (every 5 minutes) or "0 */1 * * * *" (with seconds)' }));
  }
}
