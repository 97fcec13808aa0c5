import { describe, expect, it } from 'vitest';
import { Cron } from 'croner';
import { normalizeCron, quartzWeekdayNumbers } from './compile.js';

describe('normalizeCron', () => {
  it('rewrites a step from a number into a range with the field maximum', () => {
    expect(normalizeCron('0 0/5 * * * ?')).toBe('0 0-59/5 * * * ?');
    expect(normalizeCron('5/15 * * * *')).toBe('5-59/15 * * * *');
    expect(normalizeCron('0 0 0/2 1/1 * ?')).toBe('0 0 0-23/2 1-31/1 * ?');
    expect(normalizeCron('0 0 12 1,10/5 * ?')).toBe('0 0 12 1,10-31/5 * ?');
  });

  it('drops an open year of a Quartz expression (one with `?`)', () => {
    expect(normalizeCron('0 0 12 1/1 * ? *')).toBe('0 0 12 1-31/1 * ?');
    expect(normalizeCron('0 15 10 ? * MON-FRI *')).toBe('0 15 10 ? * MON-FRI');
  });

  it('leaves other expressions as they are', () => {
    expect(normalizeCron('*/5 * * * *')).toBe('*/5 * * * *');
    expect(normalizeCron('0 */5 * * * * *')).toBe('0 */5 * * * * *');
    expect(normalizeCron('0 0 12 ? * MON 2030')).toBe('0 0 12 ? * MON 2030');
    expect(normalizeCron('@daily')).toBe('@daily');
    expect(normalizeCron('every day')).toBe('every day');
  });

  it('keeps the Quartz schedule: the rewritten expression fires when the star form does', () => {
    const from = new Date(Date.UTC(2026, 0, 5, 10, 2, 30));
    const next = (pattern: string): number | undefined =>
      new Cron(pattern, { paused: true, timezone: 'UTC' }).nextRuns(3, from).map((d) => d.getTime())[2];
    expect(next(normalizeCron('0 0/5 * * * ?'))).toBe(next('0 */5 * * * *'));
    expect(next(normalizeCron('0 0 0/6 * * ?'))).toBe(next('0 0 */6 * * *'));
  });
});

describe('quartzWeekdayNumbers', () => {
  it('finds days of the week by number in an expression of Quartz form', () => {
    expect(quartzWeekdayNumbers('0 0 12 ? * 2-6')).toBe('2-6');
    expect(quartzWeekdayNumbers('0 0 12 ? * 1,7 *')).toBe('1,7');
    expect(quartzWeekdayNumbers('0 0 12 ? * 6#3')).toBe('6#3');
  });

  it('is quiet for day names, for forms without `?`, and for open days', () => {
    expect(quartzWeekdayNumbers('0 0 12 ? * MON-FRI')).toBeUndefined();
    expect(quartzWeekdayNumbers('0 0 9 ? * MON#1')).toBeUndefined();
    expect(quartzWeekdayNumbers('0 0 9 ? * SAT,SUN *')).toBeUndefined();
    expect(quartzWeekdayNumbers('0 0 9 ? * 2#1')).toBe('2#1');
    expect(quartzWeekdayNumbers('0 0 12 * * 1-5')).toBeUndefined();
    expect(quartzWeekdayNumbers('0 12 * * 1-5')).toBeUndefined();
    expect(quartzWeekdayNumbers('0 0 12 1 * ?')).toBeUndefined();
  });
});
