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
import {
  unclosedBraces,
  unclosedComment,
  unclosedString,
  unclosedTripleString,
  unexpectedCharacters,
} from './syntax-errors.js';
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
  for (const hash of result.groups['mistakes'] ?? [])
    diagnostics.push(unknownCharacter(file, text, hash.startOffset, 1));
  for (const comment of result.groups['comments'] ?? []) {
    if (!comment.image.endsWith('*/') || comment.image.length < 4) {
      diagnostics.push(unclosedComment(span(file, comment.startOffset, comment.startOffset + 2)));
    }
  }
  for (const token of result.tokens) {
    const problem = unterminatedToken(file, token);
    if (problem) diagnostics.push(problem);
  }
  return { tokens: result.tokens, diagnostics };
}

function unknownCharacter(file: string, text: string, offset: number, length: number): Diagnostic {
  return unexpectedCharacters(span(file, offset, offset + length), text.slice(offset, offset + length));
}

function unterminatedToken(file: string, token: IToken): Diagnostic | undefined {
  const type = token.tokenType;
  if (type === StringLiteral && !isClosedQuoted(token.image)) {
    return unclosedString(span(file, token.startOffset, tokenEnd(token)), token.image.charAt(0));
  }
  if (type === TripleString && (token.image.length < 6 || !token.image.endsWith('"""'))) {
    return unclosedTripleString(span(file, token.startOffset, token.startOffset + 3));
  }
  if (type === Braces && !(token.payload as { closed: boolean } | undefined)?.closed) {
    return unclosedBraces(span(file, token.startOffset, token.startOffset + 2));
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
export function locationSpan(
  file: string,
  location: { startOffset: number; endOffset?: number } | undefined,
): Span | undefined {
  if (!location || Number.isNaN(location.startOffset)) return undefined;
  const end = location.endOffset;
  if (end === undefined || Number.isNaN(end)) return undefined;
  return span(file, location.startOffset, end + 1);
}
