/**
 * Lexing: .pipe text → Chevrotain tokens + lexical diagnostics (PIPE1001–PIPE1004).
 *
 * The lexer never stops: an unknown character is reported and skipped; an unterminated string,
 * `"""` string, block comment or `{{` is still one token (so the parser sees no cascade) and is
 * reported here. Chevrotain's inclusive `endOffset` is converted in exactly one place: `tokenEnd`.
 */
import type { IToken } from 'chevrotain';
import { Lexer } from './chevrotain.js';
import type { Diagnostic } from '../base/diagnostics/diagnostic.js';
import { diagnostic } from '../base/diagnostics/codes.js';
import { span, type Span } from '../base/source/span.js';
import { allTokens, Braces, StringLiteral, TripleString } from './tokens.js';

export interface LexResult {
  readonly tokens: readonly IToken[];
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * The .pipe lexer. Positions are offsets only (line:col comes later). `validateTokens` runs
 * Chevrotain's checks of the token definitions, a noticeable part of every `pipec` start that can
 * only fail when grammar/tokens.ts changes: production skips them, grammar/lexer.test.ts keeps them.
 */
export function createPipeLexer(options: { readonly validateTokens?: boolean } = {}): Lexer {
  return new Lexer([...allTokens], {
    positionTracking: 'onlyOffset',
    ensureOptimizations: true,
    skipValidations: options.validateTokens !== true,
  });
}

/** One shared lexer: it holds no per-call state. */
const pipeLexer = createPipeLexer();

/** End offset (exclusive) of a token: the single conversion from Chevrotain's inclusive form. */
export function tokenEnd(token: IToken): number {
  return token.startOffset + token.image.length;
}

/** The host-file span of a token. */
export function tokenSpan(file: string, token: IToken): Span {
  return span(file, token.startOffset, tokenEnd(token));
}

export function tokenize(file: string, text: string): LexResult {
  const result = pipeLexer.tokenize(text);
  // 'onlyOffset' tracking leaves endOffset unset; the parser's node locations need it (inclusive).
  for (const token of result.tokens) token.endOffset = tokenEnd(token) - 1;
  const diagnostics: Diagnostic[] = [];
  for (const error of result.errors) diagnostics.push(unknownCharacter(file, text, error.offset, error.length));
  for (const hash of result.groups['mistakes'] ?? []) diagnostics.push(unknownCharacter(file, text, hash.startOffset, 1));
  for (const comment of result.groups['comments'] ?? []) {
    if (!comment.image.endsWith('*/') || comment.image.length < 4) {
      diagnostics.push(
        diagnostic('PIPE1003', {
          message: 'this block comment is never closed',
          span: span(file, comment.startOffset, comment.startOffset + 2),
          label: 'comment opened here',
          hint: 'close it with `*/`',
        }),
      );
    }
  }
  for (const token of result.tokens) {
    const problem = unterminatedToken(file, token);
    if (problem) diagnostics.push(problem);
  }
  return { tokens: result.tokens, diagnostics };
}

function unknownCharacter(file: string, text: string, offset: number, length: number): Diagnostic {
  const found = text.slice(offset, offset + length);
  const first = found.charAt(0);
  return diagnostic('PIPE1001', {
    message:
      length === 1 ? `unexpected character \`${printable(first)}\`` : `unexpected characters \`${printable(found)}\``,
    span: span(file, offset, offset + length),
    label: 'not part of the language',
    ...hintForCharacter(first),
  });
}

function hintForCharacter(char: string): { hint?: string } {
  switch (char) {
    case '#':
      return { hint: 'comments start with `//` (or use `/* … */`)' };
    case ';':
      return { hint: 'steps and entries need no `;`: separate them with a newline or `,`' };
    case '/':
      return { hint: 'comments start with `//`; a path belongs in a string: "/orders"' };
    case '.':
      return { hint: 'numbers are written like `0.5` and dotted names like `crm.token`' };
    default:
      return {};
  }
}

/** Shows control characters as escapes so a message never carries raw bytes. */
function printable(text: string): string {
  const clipped = text.length > 20 ? `${text.slice(0, 20)}…` : text;
  return clipped.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function unterminatedToken(file: string, token: IToken): Diagnostic | undefined {
  const type = token.tokenType;
  if (type === StringLiteral && !isClosedQuoted(token.image)) {
    const quote = token.image.charAt(0);
    return diagnostic('PIPE1002', {
      message: 'this string is never closed',
      span: span(file, token.startOffset, tokenEnd(token)),
      label: `missing closing ${quote}`,
      hint: `end the string with ${quote} on the same line; for text over several lines use """ … """`,
    });
  }
  if (type === TripleString && (token.image.length < 6 || !token.image.endsWith('"""'))) {
    return diagnostic('PIPE1002', {
      message: 'this `"""` string is never closed',
      span: span(file, token.startOffset, token.startOffset + 3),
      label: 'opened here',
      hint: 'close it with `"""`',
    });
  }
  if (type === Braces && !(token.payload as { closed: boolean } | undefined)?.closed) {
    return diagnostic('PIPE1004', {
      message: 'this `{{` expression is never closed',
      span: span(file, token.startOffset, token.startOffset + 2),
      label: 'opened here',
      hint: 'close the expression with `}}`',
    });
  }
  return undefined;
}

/** True when a quoted token image ends with its unescaped opening quote. */
export function isClosedQuoted(image: string): boolean {
  if (image.length < 2) return false;
  const quote = image.charCodeAt(0);
  let i = 1;
  while (i < image.length) {
    const c = image.charCodeAt(i);
    if (c === 92) {
      i += 2;
      continue;
    }
    if (c === quote) return i === image.length - 1;
    i++;
  }
  return false;
}

/** The host-file span of a CST node location (Chevrotain's end is inclusive; converted here). */
export function locationSpan(file: string, location: { startOffset: number; endOffset?: number } | undefined): Span | undefined {
  if (!location || Number.isNaN(location.startOffset)) return undefined;
  const end = location.endOffset;
  if (end === undefined || Number.isNaN(end)) return undefined;
  return span(file, location.startOffset, end + 1);
}
