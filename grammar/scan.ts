/**
 * Character scanners shared by the lexer's custom token patterns and by literal decoding.
 * Pure functions over a string and an offset; each returns where its construct ends, never throws,
 * and always makes progress, so an unterminated construct simply ends at the end of the input
 * (or line) and the caller reports it.
 */

/** Where a `"…"` or `'…'` string that opens at `offset` ends (exclusive): after its closing quote,
 *  or before the line break / end of input that cut it short. */
export function scanQuotedEnd(text: string, offset: number): number {
  const quote = text.charCodeAt(offset);
  let i = offset + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === quote) return i + 1;
    if (c === 10 /* \n */) return i;
    if (c === 92 /* \ */) {
      // An escape never swallows a line break: `"abc\` + newline is unterminated.
      if (i + 1 < text.length && text.charCodeAt(i + 1) !== 10) i += 2;
      else i += 1;
      continue;
    }
    i++;
  }
  return i;
}

/** Where a `"""` string that opens at `offset` ends: after the closing `"""`, or at end of input. */
export function scanTripleEnd(text: string, offset: number): number {
  const close = text.indexOf('"""', offset + 3);
  return close === -1 ? text.length : close + 3;
}

/** Where a block comment that opens at `offset` ends: after `*\/`, or at end of input. */
export function scanBlockCommentEnd(text: string, offset: number): number {
  const close = text.indexOf('*/', offset + 2);
  return close === -1 ? text.length : close + 2;
}

export interface BracesScan {
  /** Offset just after the closing `}}` (or the lone `}` standing in for it); else the limit. */
  readonly end: number;
  /** Where the expression text ends (before its closer). */
  readonly textEnd: number;
  readonly closed: boolean;
}

/**
 * Finds the `}}` closing a Double Braces expression whose text starts at `from` (just after `{{`).
 * Nested `{`/`}` are counted so object literals inside the expression work, and `'…'`/`"…"` string
 * literals are skipped. A lone `}` at depth 0 is the typo `{{ x }`: it ends the expression (which
 * is reported as unterminated) so the rest of the line still parses as the author meant. Scanning
 * never goes past where the resulting token ends, so lexing stays linear.
 */
export function scanBracesEnd(text: string, from: number, limit: number = text.length): BracesScan {
  let depth = 0;
  let i = from;
  while (i < limit) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */ || c === 39 /* ' */) {
      i = Math.min(scanQuotedEnd(text, i), limit);
      continue;
    }
    if (c === 123 /* { */) {
      depth++;
    } else if (c === 125 /* } */) {
      if (depth > 0) {
        depth--;
      } else if (i + 1 < limit && text.charCodeAt(i + 1) === 125) {
        return { end: i + 2, textEnd: i, closed: true };
      } else {
        return { end: i + 1, textEnd: i, closed: false };
      }
    }
    i++;
  }
  return { end: limit, textEnd: limit, closed: false };
}
