import { describe, expect, it } from 'vitest';
import { tokenize, tokenEnd } from './lexer.js';
import { scanBracesEnd } from './scan.js';

function kinds(text: string): string[] {
  return tokenize('t.pipe', text).tokens.map((t) => `${t.tokenType.name}:${t.image}`);
}

describe('tokenize', () => {
  it('keeps keywords contextual: longer words and dashed or dotted words stay identifiers', () => {
    expect(kinds('store storeName store-x store.find trigger-x for-each foreach as assert')).toEqual([
      'Store:store',
      'Identifier:storeName',
      'Identifier:store-x',
      'DottedIdentifier:store.find',
      'Identifier:trigger-x',
      'ForEach:for-each',
      'Identifier:foreach',
      'As:as',
      'Identifier:assert',
    ]);
  });

  it('lexes numbers, durations, sizes and bad units as one token each', () => {
    expect(kinds('12 -1.5e3 0x1F 250ms 7d 10MB 5y 1e5')).toEqual([
      'NumberLiteral:12',
      'NumberLiteral:-1.5e3',
      'NumberLiteral:0x1F',
      'NumberLiteral:250ms',
      'NumberLiteral:7d',
      'NumberLiteral:10MB',
      'NumberLiteral:5y',
      'NumberLiteral:1e5',
    ]);
  });

  it('skips comments and whitespace, allows `$` keys, and separates the arrow from numbers', () => {
    expect(kinds('// c\n/* b */ $lte -> -1')).toEqual(['Identifier:$lte', 'Arrow:->', 'NumberLiteral:-1']);
  });

  it('reads a bare {{ }} as one token, with nested objects and strings containing braces', () => {
    const text = 'x: {{ JSONPATH({"a":{"b":1}}, "$.a}}") }} y';
    const braces = tokenize('t.pipe', text).tokens.find((t) => t.tokenType.name === 'Braces');
    expect(braces?.image).toBe('{{ JSONPATH({"a":{"b":1}}, "$.a}}") }}');
    expect(braces && tokenEnd(braces)).toBe(text.indexOf(' y'));
  });

  it('distinguishes `{{` from two object braces only at the start', () => {
    expect(kinds('{ a: {b: 1}}')).toEqual([
      'LBrace:{',
      'Identifier:a',
      'Colon::',
      'LBrace:{',
      'Identifier:b',
      'Colon::',
      'NumberLiteral:1',
      'RBrace:}',
      'RBrace:}',
    ]);
  });

  it('converts Chevrotain inclusive end offsets once: tokenEnd is exclusive', () => {
    const [token] = tokenize('t.pipe', '  pipeline').tokens;
    expect(token?.startOffset).toBe(2);
    expect(token && tokenEnd(token)).toBe(10);
    expect(token?.endOffset).toBe(9);
  });

  it('reports an unknown character and keeps lexing', () => {
    const result = tokenize('t.pipe', 'a ; b # c d\ne');
    expect(result.tokens.map((t) => t.image)).toEqual(['a', 'b', 'e']);
    expect(result.diagnostics.map((d) => [d.code, d.primary.span.start, d.primary.span.end])).toEqual([
      ['PIPE1001', 2, 3],
      ['PIPE1001', 6, 7],
    ]);
    expect(result.diagnostics[1]?.hint).toContain('//');
  });

  it('keeps an unterminated string as one token cut at the line end and reports it', () => {
    const result = tokenize('t.pipe', 'p: "abc\nq: 1');
    expect(result.tokens.map((t) => t.image)).toEqual(['p', ':', '"abc', 'q', ':', '1']);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['PIPE1002']);
  });

  it('does not treat an escaped quote as the end of a string', () => {
    const result = tokenize('t.pipe', '"a\\"b" "c\\\\"');
    expect(result.tokens.map((t) => t.image)).toEqual(['"a\\"b"', '"c\\\\"']);
    expect(result.diagnostics).toEqual([]);
    expect(tokenize('t.pipe', '"abc\\"').diagnostics.map((d) => d.code)).toEqual(['PIPE1002']);
  });

  it('reports unterminated """ strings, block comments and {{', () => {
    expect(tokenize('t.pipe', 'x: """abc').diagnostics.map((d) => d.code)).toEqual(['PIPE1002']);
    expect(tokenize('t.pipe', 'x /* abc').diagnostics.map((d) => d.code)).toEqual(['PIPE1003']);
    const braces = tokenize('t.pipe', 'x: {{ a');
    expect(braces.diagnostics.map((d) => [d.code, d.primary.span.start, d.primary.span.end])).toEqual([
      ['PIPE1004', 3, 5],
    ]);
  });

  it('ends a `{{ x }` typo at the lone `}` so the rest of the line still parses', () => {
    const result = tokenize('t.pipe', '{ a: {{ x }, b: 1 }');
    expect(result.tokens.map((t) => t.image)).toEqual(['{', 'a', ':', '{{ x }', ',', 'b', ':', '1', '}']);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['PIPE1004']);
  });
});

describe('scanBracesEnd', () => {
  it('tracks depth and skips string literals', () => {
    expect(scanBracesEnd('{{ {a: {b: 1}} }}', 2)).toEqual({ end: 17, textEnd: 15, closed: true });
    expect(scanBracesEnd("{{ f('}}') }}", 2)).toEqual({ end: 13, textEnd: 11, closed: true });
    expect(scanBracesEnd('{{ {a:1}}}', 2)).toEqual({ end: 10, textEnd: 8, closed: true });
    expect(scanBracesEnd('{{ a', 2)).toEqual({ end: 4, textEnd: 4, closed: false });
    expect(scanBracesEnd('{{ a } b', 2)).toEqual({ end: 6, textEnd: 5, closed: false });
  });
});
