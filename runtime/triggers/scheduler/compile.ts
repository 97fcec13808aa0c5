/**
 * Compile-time part of the `scheduler` trigger: the cron expression (5 or 6 fields, or a nickname
 * such as `@daily`; Quartz forms are rewritten first, `normalizeCron`) is parsed by croner, the
 * library the trigger runs on, so a schedule that cannot fire is a build error; the
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
    const written = read.str('cron', '');
    const cron = normalizeCron(written);
    const timezone = read.str('timezone', 'UTC');
    const cronValue = api.entryOf(trigger.config, 'cron');
    if (cronValue) checkCron(cron, cronValue, ctx, api);
    const weekdays = quartzWeekdayNumbers(written);
    if (cronValue && weekdays !== undefined) {
      ctx.diagnostics.push(
        api.diagnostic('PIPE5507', {
          message: `day of week \`${weekdays}\` by number in a Quartz-form expression: here 0 (or 7) is Sunday, in Quartz 1 is`,
          span: cronValue.span,
          label: 'days of the week by number',
          hint: 'name the days (`MON-FRI`, `SAT,SUN`): names mean the same in every cron dialect',
        }),
      );
    }
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
  const nickname = fields === 1 && cron.trim().startsWith('@');
  let problem: string | undefined =
    fields === 5 || fields === 6 || nickname ? undefined : `expected 5 or 6 fields, found ${fields}`;
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

/**
 * Cron forms users of Quartz (Digibee's scheduler) write, rewritten into what croner reads with
 * the same schedule, so that a correct Quartz expression builds and runs:
 * - a step from a number, `0/5` or `10/15` ("from 0, every 5"): croner takes a step only on `*`
 *   or a range, so it becomes `0-59/5`, `10-59/15` (the field's own maximum);
 * - a seventh field, the year, left open (`*` or `?`) in an expression that has Quartz's `?` in
 *   its day-of-month or day-of-week: the year is dropped.
 * Nicknames (`@daily`, `@hourly`…) pass unchanged (croner reads them). Anything else is returned
 * as it came, for croner to accept or reject.
 */

/** Largest value of each field of a six-field expression: second, minute, hour, day of month, month. */
const FIELD_MAX: readonly (number | undefined)[] = [59, 59, 23, 31, 12, undefined];

export function normalizeCron(cron: string): string {
  let fields = cron.trim().split(/\s+/u);
  if (fields.length === 7 && (fields[3] === '?' || fields[5] === '?') && (fields[6] === '*' || fields[6] === '?'))
    fields = fields.slice(0, 6);
  if (fields.length !== 5 && fields.length !== 6) return cron;
  const offset = fields.length === 6 ? 0 : 1;
  return fields
    .map((field, i) => {
      const max = FIELD_MAX[i + offset];
      if (max === undefined) return field;
      return field
        .split(',')
        .map((part) => {
          const step = /^(\d+)\/(\d+)$/u.exec(part);
          return step ? `${step[1]}-${max}/${step[2]}` : part;
        })
        .join(',');
    })
    .join(' ');
}

/**
 * The day-of-week field of an expression in Quartz's form (6 or 7 fields with `?` for the day of
 * month or the day of week) when it names days by number: Quartz counts SUN=1…SAT=7, croner (and
 * Unix cron) SUN=0…SAT=6, so a Quartz `2-6` (Monday to Friday) runs Tuesday to Saturday here.
 * Undefined otherwise.
 */
export function quartzWeekdayNumbers(cron: string): string | undefined {
  const fields = cron.trim().split(/\s+/u);
  if (fields.length !== 6 && fields.length !== 7) return undefined;
  if (fields[3] !== '?' && fields[5] !== '?') return undefined;
  const weekday = fields[5] as string;
  // The number after `#` (the nth such day of the month) or `/` (a step) counts occurrences, not
  // days: `MON#1` and `MON/2` name their day.
  return /\d/u.test(weekday.replace(/[#/]\d+/gu, '')) ? weekday : undefined;
}
