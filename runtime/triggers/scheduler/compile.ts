/**
 * Compile-time part of the `scheduler` trigger: the cron expression (5 or 6 fields) is parsed by
 * croner, the library the trigger runs on, so a schedule that cannot fire is a build error; the
 * time zone is checked as its schema's `"format": "timezone"` says (compiler/check/param-formats.ts);
 * `missed-ticks` travels with the spec; the first message is `{ scheduledAt }`.
 */
import { createRequire } from 'node:module';
import type { CompileApi, PipelineContext, TriggerCompiler, Value } from '../../../compiler/connectors/hook-api.js';

// croner is loaded on the first cron expression, not by every `pipec check` (≈ 10 ms of start-up).
// Its CommonJS build is the same code as the ES module the runtime uses.
const require = createRequire(import.meta.url);
let cronModule: typeof import('croner') | undefined;

export const compile: TriggerCompiler = {
  trigger({ trigger, ctx }, api) {
    const read = api.reader(trigger.config);
    const cron = read.str('cron', '');
    const timezone = read.str('timezone', 'UTC');
    const cronValue = api.entryOf(trigger.config, 'cron');
    if (cronValue) checkCron(cron, cronValue, ctx, api);
    const missed = read.str('missed-ticks', '');
    return {
      spec: {
        cron: JSON.stringify(cron),
        timezone: JSON.stringify(timezone),
        allowConcurrent: String(read.bool('allow-concurrent', false)),
        ...(missed === 'skip' || missed === 'run-once' ? { missedTicks: JSON.stringify(missed) } : {}),
      },
      message: api.types.closed({ scheduledAt: api.types.INTEGER }),
    };
  },
};

function checkCron(cron: string, cronValue: Value, ctx: PipelineContext, api: CompileApi): void {
  const fields = cron.trim().split(/\s+/).length;
  let problem: string | undefined =
    fields === 5 || fields === 6 ? undefined : `expected 5 or 6 fields, found ${fields}`;
  if (!problem) {
    try {
      const { Cron } = (cronModule ??= require('croner') as typeof import('croner'));
      new Cron(cron, { paused: true });
    } catch (err) {
      problem = err instanceof Error ? err.message : String(err);
    }
  }
  if (problem) {
    ctx.diagnostics.push(
      api.diagnostic('PIPE5503', {
        message: `invalid cron expression: ${problem}`,
        span: cronValue.span,
        label: problem,
        hint: 'write for example "*/5 * * * *" (every 5 minutes) or "0 */1 * * * *" (with seconds)',
      }),
    );
  }
}
