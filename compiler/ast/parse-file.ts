/**
 * Parse phase entry: one .pipe file's text → its AST and every syntax diagnostic (PIPE1xxx).
 * Never throws for user input. When a guard refuses the file (too large, not text, nested too
 * deep) the AST is empty and exactly one diagnostic explains why.
 */
import type { PipeFile } from './ast.js';
import type { Result } from '../diagnostics/diagnostic.js';
import { parsePipe } from '../../grammar/parse.js';
import { cstToAst } from './cst-to-ast.js';

export function parseFile(path: string, text: string): Result<PipeFile> {
  const parsed = parsePipe(path, text);
  if (!parsed.cst) return { value: { path, decls: [] }, diagnostics: parsed.diagnostics };
  const built = cstToAst(path, parsed.cst);
  return { value: built.value, diagnostics: [...parsed.diagnostics, ...built.diagnostics] };
}
