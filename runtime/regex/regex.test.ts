/** The shared Java/ECMAScript → RE2 translator and the match helpers Double Braces, JSLT and JOLT use. */
import { describe, expect, it } from 'vitest';
import { starN } from '../jolt/index.js';
import { allMatches, compileRegex, firstMatch, javaSplit, regexProblem } from './index.js';

describe('Java patterns on RE2', () => {
  const java = (pattern: string, flags: string[] = []) => compileRegex(pattern, 'java', flags);

  it('translates the Java forms RE2 writes differently', () => {
    expect(java('\\p{Upper}+').testExact('ABC')).toBe(true);
    expect(java('[\\p{Alpha}_]+').testExact('ab_C')).toBe(true);
    expect(java('\\P{Digit}').testExact('7')).toBe(false);
    expect(java('\\u00e9').testExact('é')).toBe(true);
    expect(java('\\uD83D\\uDE00').testExact('😀')).toBe(true);
    expect(java('\\0101').testExact('A')).toBe(true);
    expect(java('\\h+').testExact(' \t\u00a0')).toBe(true);
    expect(java('\\s').testExact('\u000b')).toBe(true);
    expect(java('[\\S]').testExact('\u000b')).toBe(false);
    expect(java('a\\R b', ['COMMENTS']).testExact('a\r\nb')).toBe(true);
    expect(java('(?x) a b # comment').testExact('ab')).toBe(true);
    expect(java('(?i)abc').test('xABCx')).toBe(true);
    expect(java('(?iu)abc').test('ABC')).toBe(true);
    expect(java('\\Qa.b\\E').testExact('a.b')).toBe(true);
    expect(java('\\Qa.b\\E').testExact('axb')).toBe(false);
    expect(java('[]a]+').testExact(']a]')).toBe(true);
    expect(java('a.c', ['DOTALL']).testExact('a\nc')).toBe(true);
    expect(java('a.c', ['LITERAL', 'CASE_INSENSITIVE']).testExact('A.C')).toBe(true);
    expect(java('(?<year>\\d{4})').namedGroups()).toEqual({ year: 1 });
  });

  it('refuses what needs backtracking, saying so', () => {
    for (const pattern of [
      '(a)\\1',
      '(?<n>a)\\k<n>',
      '(?=a)a',
      '(?!a)b',
      'a(?<=b)',
      '(?<!a)b',
      '(?>a+)b',
      'a++',
      'a*+',
      'a{2}+',
    ]) {
      const problem = regexProblem(pattern);
      expect(problem?.needsBacktracking, pattern).toBe(true);
      expect(problem?.message, pattern).toMatch(/linear-time engine/);
    }
    // An escaped backslash before a digit is a literal backslash, not a backreference.
    expect(java('\\\\1').testExact('\\1')).toBe(true);
  });

  it('refuses what RE2 would silently read differently, and plain syntax errors', () => {
    expect(regexProblem('[a-c[x-z]]')?.message).toMatch(/nested character classes/);
    expect(regexProblem('[a-z&&[^aeiou]]')?.message).toMatch(/intersections/);
    expect(regexProblem('{}')?.message).toMatch(/starts no repetition/);
    expect(regexProblem('[0-9')?.needsBacktracking).toBe(false);
    expect(regexProblem('[0-9')?.message).toMatch(/missing closing ]/);
    expect(regexProblem('a'.repeat(5000))?.message).toMatch(/longer than/);
  });

  it('matches the catastrophic-backtracking patterns of the attacks without backtracking', () => {
    const hostile = 'a'.repeat(200_000) + '!';
    expect(java('^([a-z0-9]+)*$').test(hostile)).toBe(false);
    expect(java('(a|aa)+$').test(hostile)).toBe(false);
    expect(javaSplit(java('(a*)*b'), hostile)).toEqual([hostile]);
  });

  it('iterates matches as Java does, empty matches included', () => {
    expect(allMatches(java('a|'), 'baa').map((m) => [m.index, m.end])).toEqual([
      [0, 0],
      [1, 2],
      [2, 3],
      [3, 3],
    ]);
    expect(firstMatch(java('(?<d>\\d)(x)?'), 'a1')).toEqual({
      index: 1,
      end: 2,
      groups: ['1', '1', undefined],
      named: { d: '1' },
    });
    expect(allMatches(java('😀'), 'x😀y😀').map((m) => m.index)).toEqual([1, 4]);
  });

  it('splits as Java String.split does', () => {
    expect(javaSplit(java(','), 'a,b,,c,,')).toEqual(['a', 'b', '', 'c']);
    expect(javaSplit(java(','), ',a')).toEqual(['', 'a']);
    expect(javaSplit(java(','), ',')).toEqual([]);
    expect(javaSplit(java(','), '')).toEqual(['']);
    expect(javaSplit(java(''), 'abc')).toEqual(['a', 'b', 'c']);
    expect(javaSplit(java('\\s*[,;]\\s*'), 'a , b;c')).toEqual(['a', 'b', 'c']);
  });
});

describe('ECMAScript (JSON Schema) patterns on RE2', () => {
  const ecma = (pattern: string) => compileRegex(pattern, 'ecmascript');

  it('keeps ECMAScript meaning where RE2 differs', () => {
    expect(ecma('^\\u{1F600}$').test('😀')).toBe(true);
    expect(ecma('^\\s$').test('\u00a0')).toBe(true);
    expect(ecma('^\\s$').test('\ufeff')).toBe(true);
    expect(ecma('^\\S$').test('\u00a0')).toBe(false);
    expect(ecma('^.$').test('\r')).toBe(false);
    expect(ecma('^[^]$').test('\n')).toBe(true);
    expect(ecma('^\\p{Script=Greek}+$').test('αβ')).toBe(true);
    expect(ecma('^\\p{Letter}+$').test('ação')).toBe(true);
    expect(ecma('^(?<a>x)\\/$').test('x/')).toBe(true);
    expect(ecma('^[\\b]$').test('\b')).toBe(true);
  });

  it('refuses lookaround and backreferences as needing backtracking', () => {
    expect(regexProblem('^(?!admin).*$', 'ecmascript')?.needsBacktracking).toBe(true);
    expect(regexProblem('(a)\\1', 'ecmascript')?.needsBacktracking).toBe(true);
    expect(regexProblem('\\Aabc', 'ecmascript')?.message).toMatch(/write `\^`/);
  });
});

describe('JOLT keys with three or more stars', () => {
  it('matches as the lazy regex would, in one pass', () => {
    expect(starN('a1b2c3', ['a', 'b', 'c', ''])).toEqual(['a1b2c3', '1', '2', '3']);
    expect(starN('xbbby', ['x', 'b', '', 'y'])).toBeNull();
    expect(starN('xbbbby', ['x', 'b', '', 'y'])).toEqual(['xbbbby', 'b', 'b', 'b']);
    expect(starN('abc', ['a', 'b', 'c', ''])).toBeNull();
    expect(starN('a-b-c-d', ['', '-', '-', ''])).toEqual(['a-b-c-d', 'a', 'b', 'c-d']);
    // Against the backtracking regex Jolt uses, on short keys (seeded, so every run checks the same cases).
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const text = (max: number): string => Array.from({ length: random(max) }, () => 'ab-'[random(3)]).join('');
    for (let i = 0; i < 2000; i++) {
      const parts = Array.from({ length: 4 + random(2) }, () => text(3));
      const key = text(12);
      const escaped = parts.map((p) => p.replace(/-/g, '\\-'));
      const expected = new RegExp(`^${escaped.join('(.+?)')}$`).exec(key);
      expect(starN(key, parts), `${key} ~ ${parts.join('*')}`).toEqual(expected === null ? null : [...expected]);
    }
    const long = 'a'.repeat(100_000);
    expect(starN(long, ['a', 'b', 'c', 'd'])).toBeNull();
  });
});
