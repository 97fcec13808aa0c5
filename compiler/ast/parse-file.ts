/**
 * Parse phase entry: one .pipe file's text → its AST and every syntax diagnostic (PIPE1xxx).
 * Never throws for user input. When a guard refuses the file (too large, not text, nested too
 * deep) the AST is empty and exactly one diagnostic explains why. Diagnostics that are only fallout
 * of an unterminated string or `{{` are dropped so each mistake is reported once.
 */
import type { PipeFile } from './ast.js';
import type { Diagnostic, Result } from '../../base/diagnostics/diagnostic.js';
import { parsePipe } from '../../grammar/parse.js';
import { cstToAst } from './cst-to-ast.js';

export function parseFile(path: string, text: string): Result<PipeFile> {
  const parsed = parsePipe(path, text);
  if (!parsed.cst) return { value: { path, decls: [] }, diagnostics: parsed.diagnostics };
  const built = cstToAst(path, parsed.cst);
  return { value: built.value, diagnostics: withoutCascades(text, [...parsed.diagnostics, ...built.diagnostics]) };
}

/** Unterminated strings and `{{` swallow text the author meant as structure. */
const SWALLOWING_CODES = new Set(['PIPE1002', 'PIPE1004']);
/** Lexical codes are facts about characters and always kept. */
const LEXICAL_CODES = new Set(['PIPE1001', 'PIPE1002', 'PIPE1003', 'PIPE1004', 'PIPE1005', 'PIPE1006', 'PIPE1007']);

/**
 * Drops parse-level diagnostics from the rest of the line of an unterminated string or `{{` and
 * the line after it: they are consequences of the swallowed text, not separate mistakes.
 */
function withoutCascades(text: string, diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const windows = diagnostics
    .filter((d) => SWALLOWING_CODES.has(d.code))
    .map((d) => ({ start: d.primary.span.start, end: endOfNextLine(text, d.primary.span.end) }));
  if (windows.length === 0) return [...diagnostics];
  return diagnostics.filter(
    (d) =>
      LEXICAL_CODES.has(d.code) ||
      !windows.some((w) => d.primary.span.start >= w.start && d.primary.span.start <= w.end),
  );
}

function endOfNextLine(text: string, from: number): number {
  const lineEnd = text.indexOf('\n', from);
  if (lineEnd === -1) return text.length;
  const nextEnd = text.indexOf('\n', lineEnd + 1);
  return nextEnd === -1 ? text.length : nextEnd;
}
