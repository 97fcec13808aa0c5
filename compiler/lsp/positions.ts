/**
 * Offsets ↔ LSP positions. Spans are 0-based UTF-16 offsets (end exclusive); LSP positions are
 * 0-based line and UTF-16 character, which is the same unit, so only the line table is needed.
 * A `\r\n` line ending counts its `\r` as part of the line, as the LSP specification says.
 */
import type { Span } from '../../base/source/span.js';

export interface LspPosition {
  readonly line: number;
  readonly character: number;
}

export interface LspRange {
  readonly start: LspPosition;
  readonly end: LspPosition;
}

export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(private readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }

  positionAt(offset: number): LspPosition {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] as number) <= clamped) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: clamped - (this.starts[lo] as number) };
  }

  offsetAt(position: LspPosition): number {
    if (position.line < 0) return 0;
    const start = this.starts[position.line];
    if (start === undefined) return this.text.length;
    const next = this.starts[position.line + 1];
    const lineEnd = next === undefined ? this.text.length : next - 1;
    return Math.min(start + Math.max(0, position.character), lineEnd);
  }

  rangeOf(span: Pick<Span, 'start' | 'end'>): LspRange {
    return { start: this.positionAt(span.start), end: this.positionAt(span.end) };
  }
}
