/**
 * Lexer of Double Braces expressions: expression text → tokens with HOST-file spans.
 * Strings take double or single quotes with JSON escapes (`\"`, `\\`, `\n`, `\uXXXX`…); an
 * unknown escape such as `\d` keeps its backslash, so regexes read naturally.
 * In: the decoded expression text and its offset map. Out: tokens, or the first lexical error.
 */
import { span, type Span } from '../../base/source/span.js';

export type TokenKind = 'number' | 'string' | 'ident' | 'punct' | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** Identifier or punctuation text; decoded value for strings; raw text for numbers. */
  readonly text: string;
  /** Index in the expression text (for adjacency tests such as dashed names). */
  readonly start: number;
  readonly end: number;
  readonly span: Span;
}

export interface LexError {
  readonly reason: 'unterminated-string' | 'bad-character' | 'bad-number';
  readonly message: string;
  readonly span: Span;
}

/** Maps expression-text indexes to host-file offsets. */
export interface OffsetMap {
  readonly file: string;
  readonly textStart: number;
  readonly offsets?: readonly number[] | undefined;
}

export function hostOffset(map: OffsetMap, index: number): number {
  return map.offsets?.[index] ?? map.textStart + index;
}

export function hostSpan(map: OffsetMap, start: number, end: number): Span {
  return span(map.file, hostOffset(map, start), hostOffset(map, end));
}

const PUNCTUATION = [
  '==',
  '=>',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '??',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  '.',
  ':',
  '+',
  '-',
  '*',
  '/',
  '%',
  '!',
  '<',
  '>',
];

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** `[A-Za-z_]` */
function isWordStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** `[0-9]` */
function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** `[A-Za-z0-9_]` */
function isWordChar(code: number): boolean {
  return isWordStart(code) || isDigit(code);
}

export function tokenize(text: string, map: OffsetMap): { tokens: Token[]; error?: LexError } {
  const tokens: Token[] = [];
  const make = (kind: TokenKind, value: string, start: number, end: number): Token => ({
    kind,
    text: value,
    start,
    end,
    span: hostSpan(map, start, end),
  });
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    const cc = text.charCodeAt(i);
    if (cc === 32 || (cc < 128 ? cc >= 9 && cc <= 13 : /\s/.test(c))) {
      i++;
      continue;
    }
    const start = i;
    if (isDigit(cc)) {
      const m = /^(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
      const raw = m?.[0] ?? c;
      i += raw.length;
      if (i < text.length && isWordChar(text.charCodeAt(i))) {
        while (i < text.length && /[A-Za-z_0-9.]/.test(text[i] as string)) i++;
        return {
          tokens,
          error: {
            reason: 'bad-number',
            message: `\`${text.slice(start, i)}\` is not a number`,
            span: hostSpan(map, start, i),
          },
        };
      }
      tokens.push(make('number', raw, start, i));
      continue;
    }
    if (isWordStart(cc)) {
      while (i < text.length && isWordChar(text.charCodeAt(i))) i++;
      tokens.push(make('ident', text.slice(start, i), start, i));
      continue;
    }
    if (c === '"' || c === "'") {
      let value = '';
      i++;
      let closed = false;
      while (i < text.length) {
        const d = text[i] as string;
        if (d === c) {
          closed = true;
          i++;
          break;
        }
        if (d === '\\' && i + 1 < text.length) {
          const e = text[i + 1] as string;
          if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            value += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
            i += 6;
            continue;
          }
          value += ESCAPES[e] ?? `\\${e}`;
          i += 2;
          continue;
        }
        value += d;
        i++;
      }
      if (!closed)
        return {
          tokens,
          error: {
            reason: 'unterminated-string',
            message: 'this string is never closed',
            span: hostSpan(map, start, text.length),
          },
        };
      tokens.push(make('string', value, start, i));
      continue;
    }
    if (c === '$') {
      tokens.push(make('ident', '$', start, i + 1));
      i++;
      continue;
    }
    const punct = PUNCTUATION.find((p) => text.startsWith(p, i));
    if (punct) {
      i += punct.length;
      tokens.push(make('punct', punct, start, i));
      continue;
    }
    const code = text.codePointAt(i) ?? 0;
    const width = code > 0xffff ? 2 : 1;
    const hint =
      c === '&'
        ? ' (logical and is `&&`)'
        : c === '|'
          ? ' (logical or is `||`)'
          : c === '='
            ? ' (equality is `==`)'
            : '';
    return {
      tokens,
      error: {
        reason: 'bad-character',
        message: `unexpected character \`${text.slice(i, i + width)}\`${hint}`,
        span: hostSpan(map, i, i + width),
      },
    };
  }
  tokens.push(make('eof', '', text.length, text.length));
  return { tokens };
}
