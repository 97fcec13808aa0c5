import { describe, expect, it } from 'vitest';
import { PipeError } from '../errors.js';
import { compileDatePattern, formatDate, parseDate, zoneOf } from './date-pattern.js';
import { compileNumberPattern, formatNumber, parseNumber } from './number-format.js';
import { add, arith, compare, template } from './operators.js';
import { allMatches, compileRegex as compileShared } from '../regex/index.js';
import { compileRegex } from './regex.js';
import { deepEqual, get, obj, toText } from './values.js';

describe('values', () => {
  it('reads only own properties', () => {
    expect(get({ a: [{ b: 1 }] }, 'a', 0, 'b')).toBe(1);
    expect(get({}, '__proto__')).toBeNull();
    expect(get({}, 'constructor')).toBeNull();
    expect(get([1, 2], 'length')).toBeNull();
    expect(get('text', 0)).toBeNull();
    expect(get({ a: 1 }, null)).toBeNull();
    expect(get(JSON.parse('{"__proto__": {"x": 1}}'), '__proto__', 'x')).toBe(1);
  });

  it('builds objects whose keys are plain data', () => {
    const o = obj(['__proto__', 1], ['constructor', 2]);
    expect(Object.getPrototypeOf(o)).toBeNull();
    expect(Object.keys(o)).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('compares deeply and prints values as text', () => {
    expect(deepEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(toText(null)).toBe('');
    expect(toText({ a: 1 })).toBe('{"a":1}');
    expect(template('id-', 12, null, [1])).toBe('id-12[1]');
  });
});

describe('operators', () => {
  it('throws PipeErrors naming the operator', () => {
    expect(add(1, 2)).toBe(3);
    expect(() => add(1, 'a')).toThrow(PipeError);
    expect(() => arith('/', 1, 0)).toThrow(/division by zero/);
    try {
      arith('%', 1, 0);
    } catch (err) {
      expect((err as PipeError).kind).toBe('OPERATOR_MODULO');
    }
    expect(compare(null, -1)).toBeLessThan(0);
  });
});

describe('number patterns', () => {
  it('formats with HALF_EVEN rounding on the exact binary value', () => {
    const p = compileNumberPattern('0.00');
    expect(formatNumber(p, 0.125, 'en-US')).toBe('0.12');
    expect(formatNumber(p, 0.375, 'en-US')).toBe('0.38');
    expect(formatNumber(p, 1.005, 'en-US')).toBe('1.00');
    expect(formatNumber(p, -0.001, 'en-US')).toBe('-0.00');
    expect(formatNumber(compileNumberPattern('#,##0'), 1e21, 'en-US')).toBe('1,000,000,000,000,000,000,000');
  });

  it('uses locale separators and parses them back', () => {
    const p = compileNumberPattern('#,##0.00');
    expect(formatNumber(p, 1234.5, 'pt-BR')).toBe('1.234,50');
    expect(parseNumber(p, '1.234,50', 'pt-BR')).toBe(1234.5);
    expect(parseNumber(p, formatNumber(p, 1234.5, 'fr-FR'), 'fr-FR')).toBe(1234.5);
    expect(parseNumber(p, '12x', 'en-US')).toBeUndefined();
  });

  it('rejects broken patterns', () => {
    expect(() => compileNumberPattern('abc')).toThrow(/no digits/);
    expect(() => compileNumberPattern("'open")).toThrow(/unterminated/);
    expect(() => compileNumberPattern('0.0E0')).toThrow(/scientific/);
  });
});

describe('date patterns', () => {
  it('formats and parses Java letters in zones and locales', () => {
    const tokens = compileDatePattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
    expect(formatDate(tokens, 0, 'UTC', 'en-US')).toBe('1970-01-01T00:00:00.000Z');
    expect(parseDate(tokens, '2020-02-29T12:30:00.250-03:00', 'UTC', 'en-US')).toBe(
      Date.UTC(2020, 1, 29, 15, 30, 0, 250),
    );
    expect(formatDate(compileDatePattern('dd MMMM yyyy, EEEE'), 0, 'UTC', 'pt-BR')).toBe(
      '01 janeiro 1970, quinta-feira',
    );
    expect(parseDate(compileDatePattern('hh:mm a'), '01:15 PM', 'UTC', 'en-US')).toBe(13 * 3600000 + 15 * 60000);
    expect(formatDate(compileDatePattern("''yy''"), 0, 'UTC', 'en-US')).toBe("'70'");
  });

  it('reports the index where parsing fails, like java.time', () => {
    expect(() => parseDate(compileDatePattern('yyyy-MM-dd'), '2020-1x-01', 'UTC', 'en-US')).toThrow(
      'could not be parsed at index 5',
    );
    expect(() => parseDate(compileDatePattern('yyyy-MM-dd'), '2020-02-30', 'UTC', 'en-US')).toThrow(
      /could not be parsed/,
    );
  });

  it('reads Java zone ids', () => {
    expect(zoneOf('GMT-3')).toBe('UTC-3');
    expect(zoneOf('-03:30')).toBe('UTC-3:30');
    expect(zoneOf('America/Sao_Paulo')).toBe('America/Sao_Paulo');
    expect(zoneOf('Nowhere')).toBeUndefined();
    expect(() => compileDatePattern('yyyy-bb')).toThrow(/unknown pattern letter/);
  });
});

describe('regex', () => {
  // No clock: a backtracking engine would not end this within the test's timeout (2^100000 paths).
  it('runs hostile patterns in linear time', () => {
    expect(compileRegex('MATCHES', '^(a+)+$').test('a'.repeat(100_000) + '!')).toBe(false);
  });

  it('translates Java syntax and refuses what RE2 cannot run', () => {
    expect(compileShared('\\p{Upper}+').test('ABC')).toBe(true);
    expect(compileShared('(?x) a b # comment').test('ab')).toBe(true);
    expect(() => compileShared('(a)\\1')).toThrow(/backreferences/);
    expect(() => compileShared('a(?<=b)')).toThrow(/lookbehind/);
    expect(() => compileShared('a++')).toThrow(/possessive/);
    expect(() => compileRegex('SPLIT', '[')).toThrow(PipeError);
  });

  it('finds every match of a global search over a large input', () => {
    const input = 'ab'.repeat(1024 * 1024);
    const matches = allMatches(compileShared('a|b'), input);
    expect(matches).toHaveLength(input.length);
    expect(matches[matches.length - 1]).toMatchObject({ index: input.length - 1, end: input.length });
  });
});

describe('JSONPATH on paths from the data', () => {
  it('reads tail functions from the end of the path', async () => {
    const { splitTailFunction } = await import('./json.js');
    expect(splitTailFunction('$.a.max()')).toEqual({ path: '$.a', fn: 'max' });
    expect(splitTailFunction('$.length()')).toEqual({ path: '$', fn: 'length' });
    expect(splitTailFunction('length()')).toEqual({ path: '$', fn: 'length' });
    expect(splitTailFunction('$.a.nope()')).toEqual({ path: '$.a.nope()', fn: undefined });
  });

  it('refuses a very long path instead of scanning it with backtracking regexes', async () => {
    const { JSONPATH } = await import('./json.js');
    // Both took seconds: `[,,,…` (the indefinite-path check) and `aaa…` (the tail-function split).
    expect(() => JSONPATH({ a: 1 }, `$[${','.repeat(200_000)}`)).toThrow(/longer than/);
    expect(() => JSONPATH({ a: 1 }, 'a'.repeat(200_000))).toThrow(/longer than/);
    expect(JSONPATH({ a: [1, 2] }, '$.a[0,1]')).toEqual([1, 2]);
    expect(JSONPATH({ a: [1, 2] }, '$.a[0]')).toBe(1);
  });
});
