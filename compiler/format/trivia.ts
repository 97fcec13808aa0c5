/**
 * Trivia of a .pipe file: its comments and where blank lines were, recovered from the token stream.
 *
 * The AST drops comments, and the lexer skips line comments entirely, so comments are found in the
 * gaps between tokens (a gap can hold only whitespace and comments in a file that lexed cleanly).
 * In: the file text and its tokens (grammar/lexer.ts). Out: a `Trivia` value answering offset
 * questions for the printer (which comments lie before an offset, was there a blank line before it,
 * where the next `{` token is). Pure; no state beyond the value itself.
 */
import type { IToken } from 'chevrotain';
import { tokenEnd } from '../../grammar/lexer.js';

export interface Comment {
  readonly start: number;
  readonly end: number;
  /** The comment as written (line comments without trailing blanks). */
  readonly text: string;
  readonly kind: 'line' | 'block';
}

export interface Trivia {
  readonly comments: readonly Comment[];
  /** True when the source has an empty line between the previous token/comment and `offset`. */
  blankLineBefore(offset: number): boolean;
  /** True when no line break separates `from` and `to` (same source line). */
  sameLine(from: number, to: number): boolean;
  /** Offset of the first token at or after `from` whose text is `image`, or -1. */
  nextToken(from: number, image: string): number;
  /** Tokens whose start lies in [start, end). */
  tokensIn(start: number, end: number): readonly IToken[];
}

export function collectTrivia(text: string, tokens: readonly IToken[]): Trivia {
  const comments: Comment[] = [];
  let previousEnd = 0;
  for (const token of tokens) {
    scanGap(text, previousEnd, token.startOffset, comments);
    previousEnd = tokenEnd(token);
  }
  scanGap(text, previousEnd, text.length, comments);

  // Every "thing" end (token or comment), sorted, for blank-line questions.
  const ends = [...tokens.map((t) => ({ start: t.startOffset, end: tokenEnd(t) })), ...comments].sort(
    (a, b) => a.start - b.start,
  );
  const tokenStarts = tokens.map((t) => t.startOffset);

  const previousThingEnd = (offset: number): number => {
    let lo = 0;
    let hi = ends.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const thing = ends[mid] as { start: number; end: number };
      if (thing.start < offset) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found < 0 ? 0 : Math.min((ends[found] as { end: number }).end, offset);
  };

  const firstTokenAtOrAfter = (offset: number): number => {
    let lo = 0;
    let hi = tokenStarts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((tokenStarts[mid] as number) < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  return {
    comments,
    blankLineBefore(offset) {
      const from = previousThingEnd(offset);
      if (from === 0 && !ends.some((t) => t.start < offset)) return false;
      return /\n[ \t\r]*\n/.test(text.slice(from, offset));
    },
    sameLine(from, to) {
      return !text.slice(Math.min(from, to), Math.max(from, to)).includes('\n');
    },
    nextToken(from, image) {
      for (let i = firstTokenAtOrAfter(from); i < tokens.length; i++) {
        if ((tokens[i] as IToken).image === image) return (tokens[i] as IToken).startOffset;
      }
      return -1;
    },
    tokensIn(start, end) {
      const result: IToken[] = [];
      for (let i = firstTokenAtOrAfter(start); i < tokens.length && (tokens[i] as IToken).startOffset < end; i++)
        result.push(tokens[i] as IToken);
      return result;
    },
  };
}

/** Finds the comments in a gap between tokens (whitespace and comments only in a clean file). */
function scanGap(text: string, from: number, to: number, into: Comment[]): void {
  let i = from;
  while (i < to) {
    if (text.startsWith('//', i)) {
      const newline = text.indexOf('\n', i);
      const end = newline === -1 || newline > to ? to : newline;
      into.push({ start: i, end, text: text.slice(i, end).replace(/\s+$/, ''), kind: 'line' });
      i = end;
    } else if (text.startsWith('/*', i)) {
      const close = text.indexOf('*/', i + 2);
      const end = close === -1 || close + 2 > to ? to : close + 2;
      into.push({ start: i, end, text: text.slice(i, end), kind: 'block' });
      i = end;
    } else i++;
  }
}
