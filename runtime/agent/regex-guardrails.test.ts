/** Regex guardrails on reply fields: pass, typed 422 naming the field, RE2-only patterns. */
import { describe, expect, it } from 'vitest';
import { PipeError } from '../errors.js';
import { enforceRegexRules, valueAt } from './regex-guardrails.js';

describe('enforceRegexRules', () => {
  const body = { employee: { code: 'EMP-0042', tags: ['A1', 'B2'] }, total: 120.5 };

  it('passes when every field matches', () => {
    expect(() =>
      enforceRegexRules(body, [
        { field: 'employee.code', pattern: '^EMP-\\d{4}$' },
        { field: 'employee.tags', pattern: '^[A-Z]\\d$' },
        { field: 'total', pattern: '^\\d+(\\.\\d+)?$' },
      ]),
    ).not.toThrow();
  });

  it('throws a 422 AGENT_GUARDRAIL naming the field', () => {
    try {
      enforceRegexRules(body, [
        { field: 'employee.code', pattern: '^X' },
        { field: 'missing.field', pattern: '.', message: 'needs a value' },
      ]);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(PipeError);
      const e = err as PipeError;
      expect(e.code).toBe(422);
      expect(e.kind).toBe('AGENT_GUARDRAIL');
      expect(e.message).toContain('"employee.code"');
      expect(e.details?.violations).toEqual([
        { field: 'employee.code', problem: 'the value does not match the pattern ^X' },
        { field: 'missing.field', problem: 'needs a value' },
      ]);
    }
  });

  it('rejects objects and backreference patterns (RE2 has none)', () => {
    expect(() => enforceRegexRules(body, [{ field: 'employee', pattern: '.' }])).toThrow(/not a text value/);
    expect(() => enforceRegexRules(body, [{ field: 'total', pattern: '(a)\\1' }])).toThrow(
      /not a supported regular expression/,
    );
  });

  it('reads own properties only', () => {
    expect(valueAt({ a: [{ b: 'x' }] }, 'a.0.b')).toBe('x');
    expect(valueAt({}, '__proto__')).toBeUndefined();
    expect(valueAt({ a: 'x' }, 'a.constructor')).toBeUndefined();
  });
});
