/**
 * Spans inside a quoted string literal: an offset into the decoded text maps to the file when the
 * literal has no escapes (its source is its text between two quotes); otherwise a sub-span falls
 * back to the whole literal, never to a wrong place.
 */
import type { Span } from '../../base/source/span.js';

/** A quoted string literal as the parser gives it. */
export interface QuotedLiteral {
  /** From the opening quote to the closing one. */
  readonly span: Span;
  /** The decoded text. */
  readonly value: string;
  readonly multiline?: boolean;
}

export function literalOffsets(literal: QuotedLiteral): (start: number, end: number) => Span {
  const { span, value } = literal;
  const inner: Span = { ...span, start: span.start + 1, end: Math.max(span.start + 1, span.end - 1) };
  const exact = literal.multiline !== true && inner.end - inner.start === value.length;
  return (start, end) =>
    exact && end > start ? { ...inner, start: inner.start + start, end: inner.start + end } : exact ? inner : span;
}
