/**
 * Source positions. Offsets are the only stored position (0-based UTF-16, end exclusive);
 * line and column are computed only when rendering (see source-file.ts).
 */
export interface Span {
  readonly file: string;
  readonly start: number;
  readonly end: number;
}

export function span(file: string, start: number, end: number): Span {
  return { file, start, end };
}

/** The smallest span covering both. Both must be in the same file. */
export function joinSpans(a: Span, b: Span): Span {
  return { file: a.file, start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
}
