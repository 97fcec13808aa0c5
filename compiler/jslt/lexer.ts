/**
 * JSLT tokens, matched the way the reference's JavaCC lexer matches them: longest match wins,
 * and on a tie the earlier token kind (numbers, keywords, operators) beats identifiers. So
 * `123` is a number, `0123` and `2-1` are identifiers (a later parse error, as in the reference),
 * `-1` is one number token, and `is-number` or `foo:bar` are single names.
 * Input: JSLT source text. Output: tokens with 0-based offsets into that text, or a lex error.
 */

export type TokenKind =
  | 'null'
  | 'true'
  | 'false'
  | 'or'
  | 'and'
  | 'if'
  | 'else'
  | 'let'
  | 'for'
  | 'def'
  | 'import'
  | 'as'
  | 'integer'
  | 'decimal'
  | 'string'
  | 'ident'
  | 'pident'
  | 'variable'
  | '['
  | ']'
  | ','
  | ':'
  | '{'
  | '}'
  | '.'
  | '('
  | ')'
  | '='
  | '=='
  | '!='
  | '>='
  | '>'
  | '<'
  | '<='
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '|'
  | 'eof';

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

export interface LexError {
  readonly message: string;
  readonly start: number;
  readonly end: number;
}

const KEYWORDS = new Set(['null', 'true', 'false', 'or', 'and', 'if', 'else', 'let', 'for', 'def', 'import', 'as']);
// longest operators first, so `==` wins over `=`
const OPERATORS = [
  '==',
  '!=',
  '>=',
  '<=',
  '[',
  ']',
  ',',
  ':',
  '{',
  '}',
  '.',
  '(',
  ')',
  '=',
  '>',
  '<',
  '+',
  '-',
  '*',
  '/',
  '%',
  '|',
] as const;

function isIdentChar(code: number): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 45 ||
    (code >= 0xc0 && code <= 0xd6) ||
    (code >= 0xd8 && code <= 0xf6) ||
    (code >= 0xf8 && code <= 0x17f)
  );
}

function identRunLength(source: string, start: number): number {
  let end = start;
  while (end < source.length && isIdentChar(source.charCodeAt(end))) end++;
  return end - start;
}

const NUMBER_PATTERN = /-?(?:0|[1-9][0-9]*)(?:(\.[0-9]+)?([eE][+-]?[0-9]+)|(\.[0-9]+))?/y;

function matchNumber(source: string, start: number): { length: number; decimal: boolean } | undefined {
  NUMBER_PATTERN.lastIndex = start;
  const match = NUMBER_PATTERN.exec(source);
  if (!match || match[0].length === 0 || match[0] === '-') return undefined;
  return { length: match[0].length, decimal: match[2] !== undefined || match[3] !== undefined };
}

function stringLength(source: string, start: number): number | undefined {
  let pos = start + 1;
  while (pos < source.length) {
    const char = source[pos];
    if (char === '"') return pos + 1 - start;
    pos += char === '\\' ? 2 : 1;
  }
  return undefined;
}

/** Skips whitespace and `//` comments; returns the next significant offset. */
function skipTrivia(source: string, start: number): number {
  let pos = start;
  for (;;) {
    while (pos < source.length && ' \t\n\r\f'.includes(source[pos] as string)) pos++;
    if (source.startsWith('//', pos)) {
      while (pos < source.length && source[pos] !== '\n' && source[pos] !== '\r') pos++;
      continue;
    }
    return pos;
  }
}

function nextToken(source: string, start: number): Token | LexError {
  const char = source[start] as string;
  const make = (kind: TokenKind, length: number): Token => ({
    kind,
    text: source.slice(start, start + length),
    start,
    end: start + length,
  });

  if (char === '"') {
    const length = stringLength(source, start);
    if (length === undefined) return { message: 'unterminated string literal', start, end: source.length };
    return make('string', length);
  }
  if (char === '$') {
    const length = identRunLength(source, start + 1);
    if (length === 0) return { message: 'expected a variable name after `$`', start, end: start + 1 };
    return make('variable', length + 1);
  }

  const identLength = identRunLength(source, start);
  const number = matchNumber(source, start);
  let pidentLength = 0;
  if (identLength > 0 && source[start + identLength] === ':') {
    const after = identRunLength(source, start + identLength + 1);
    if (after > 0) pidentLength = identLength + 1 + after;
  }
  const operator = OPERATORS.find((op) => source.startsWith(op, start));
  const fixedLength = Math.max(number?.length ?? 0, operator?.length ?? 0);
  const word = source.slice(start, start + identLength);
  const keywordLength = KEYWORDS.has(word) ? identLength : 0;

  // JavaCC: the longest match wins; on equal length the token declared first (not IDENT) wins
  const bestFixed = Math.max(fixedLength, keywordLength);
  if (pidentLength > 0 && pidentLength > bestFixed) return make('pident', pidentLength);
  if (identLength > bestFixed) return make('ident', identLength);
  if (keywordLength > 0 && keywordLength >= fixedLength) return make(word as TokenKind, keywordLength);
  if (number && number.length >= (operator?.length ?? 0))
    return make(number.decimal ? 'decimal' : 'integer', number.length);
  if (operator) return make(operator, operator.length);
  return { message: `unexpected character \`${char}\``, start, end: start + 1 };
}

/** Tokenizes the whole source; the last token is always `eof`. */
export function tokenize(source: string): { tokens: Token[]; error?: LexError } {
  const tokens: Token[] = [];
  let pos = skipTrivia(source, 0);
  while (pos < source.length) {
    const token = nextToken(source, pos);
    if (!('kind' in token)) return { tokens, error: token };
    tokens.push(token);
    pos = skipTrivia(source, token.end);
  }
  tokens.push({ kind: 'eof', text: '', start: source.length, end: source.length });
  return { tokens };
}
