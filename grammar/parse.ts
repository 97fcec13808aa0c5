/**
 * The only entry to the grammar: .pipe text → CST + syntax diagnostics.
 *
 * Guards run before the lexer and parser so hostile input cannot blow up: a file over 5 MB is not
 * lexed, binary content gets one "not text" diagnostic, and nesting deeper than 256 brackets is
 * refused before Chevrotain recurses. The single parser instance is reset on every call (`input`),
 * and its errors are copied out, so no caller ever sees parser state from an earlier file.
 */
import type { CstNode, IToken } from 'chevrotain';
import type { Diagnostic } from '../base/diagnostics/diagnostic.js';
import { span } from '../base/source/span.js';
import { tokenize } from './lexer.js';
import { PipeParser } from './parser.js';
import { fileTooLarge, nestedTooDeep, notText, recognitionDiagnostics, strayDiagnostics } from './syntax-errors.js';
import { scanBlockCommentEnd, scanQuotedEnd, scanTripleEnd } from './scan.js';

export const MAX_FILE_CHARS = 5 * 1024 * 1024;
export const MAX_NESTING = 256;

export interface ParseOutput {
  /** Absent when a guard refused the file. */
  readonly cst?: CstNode;
  readonly diagnostics: readonly Diagnostic[];
}

const parser = new PipeParser();

export function parsePipe(file: string, text: string): ParseOutput {
  if (text.length > MAX_FILE_CHARS) {
    return {
      diagnostics: [fileTooLarge(span(file, 0, 0), text.length, MAX_FILE_CHARS)],
    };
  }
  const binaryAt = text.search(/[\u0000\uFFFD]/);
  if (binaryAt >= 0) {
    return {
      diagnostics: [notText(span(file, binaryAt, binaryAt + 1))],
    };
  }
  const tooDeepAt = firstTooDeep(text);
  if (tooDeepAt >= 0) {
    return {
      diagnostics: [nestedTooDeep(span(file, tooDeepAt, tooDeepAt + 1), MAX_NESTING)],
    };
  }
  const lexed = tokenize(file, text);
  parser.input = [...lexed.tokens];
  const cst = parser.file();
  const errors = [...parser.errors];
  parser.input = []; // drop references to this file's tokens
  const context = { file, text, tokens: lexed.tokens };
  const strays = (cst.children['stray'] ?? []) as IToken[];
  const recognition = recognitionDiagnostics(context, errors);
  const reportedAt = cascadeStarts(
    cst,
    recognition.map((d) => d.primary.span.start),
    strays,
  );
  return {
    cst,
    diagnostics: [...lexed.diagnostics, ...recognition, ...strayDiagnostics(context, strays, reportedAt)],
  };
}

/**
 * Offsets of stray-token runs that are fallout of an earlier parse error: a run is fallout when a
 * recognition error lies between the start of the declaration before it and the run itself
 * (e.g. `["a"}` closes the pipeline early and its remaining steps land at the top level).
 */
function cascadeStarts(cst: CstNode, errorStarts: readonly number[], strays: readonly IToken[]): Set<number> {
  const declStarts = Object.entries(cst.children)
    .filter(([name]) => name !== 'stray')
    .flatMap(([, nodes]) => nodes.map((n) => ('location' in n ? (n.location?.startOffset ?? 0) : 0)))
    .sort((a, b) => a - b);
  const fallout = new Set<number>(errorStarts);
  for (const stray of strays) {
    let regionStart = 0;
    for (const start of declStarts) if (start < stray.startOffset) regionStart = start;
    if (errorStarts.some((e) => e >= regionStart && e < stray.startOffset)) fallout.add(stray.startOffset);
  }
  return fallout;
}

/**
 * Offset of the first bracket that opens level MAX_NESTING + 1, or -1. A character scan that skips
 * strings and comments, run before lexing so megabytes of `[[[[` cost one linear pass. Brackets
 * inside `{{ }}` count too, which only makes the guard slightly stricter than the parser needs.
 */
function firstTooDeep(text: string): number {
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      i = text.startsWith('"""', i) ? scanTripleEnd(text, i) : scanQuotedEnd(text, i);
    } else if (c === 39 /* ' */) {
      i = scanQuotedEnd(text, i);
    } else if (c === 47 /* / */ && text.charCodeAt(i + 1) === 47) {
      const lineEnd = text.indexOf('\n', i);
      i = lineEnd === -1 ? text.length : lineEnd;
    } else if (c === 47 && text.charCodeAt(i + 1) === 42 /* * */) {
      i = scanBlockCommentEnd(text, i);
    } else {
      if (c === 123 || c === 91 || c === 40) {
        depth++;
        if (depth > MAX_NESTING) return i;
      } else if (c === 125 || c === 93 || c === 41) {
        depth = Math.max(0, depth - 1);
      }
      i++;
    }
  }
  return -1;
}
