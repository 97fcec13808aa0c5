/**
 * CST → AST: turns the CST of one file (grammar/parse.ts, typed by grammar/generated/cst.ts) into
 * the AST of ast.ts, and reports the structural mistakes the lenient grammar lets through
 * (PIPE1013–PIPE1027, PIPE7001–PIPE7005; the prose is in errors.ts). Works on partial CSTs from
 * error recovery: anything missing is skipped, never guessed. The walk is split by what it builds:
 *   cst/declarations.ts  imports, schemas, accounts, globals, stores, pipelines, capsules
 *   cst/steps.ts         blocks of steps and each kind of step
 *   cst/values.ts        values, objects and their entries
 *   cst/tests.ts         `test` blocks (cst/expectations.ts reads an `expect` line)
 *   cst/access.ts        the walk's context and the reading of recovered CSTs
 * No Chevrotain type leaves compiler/ast/.
 */
import type { CstNode } from 'chevrotain';
import type { PipeFile } from './ast.js';
import type { Result } from '../../base/diagnostics/diagnostic.js';
import type { FileCstNode } from '../../grammar/generated/cst.js';
import { AstContext } from './cst/access.js';
import { declarations } from './cst/declarations.js';
import { tests } from './cst/tests.js';

/** `cst` is the node `grammar/parse.ts` returns for a whole file. */
export function cstToAst(file: string, cst: CstNode): Result<PipeFile> {
  const ctx = new AstContext(file);
  const root = cst as FileCstNode; // the parser's `file` rule built it
  const decls = declarations(ctx, root);
  const found = tests(ctx, root);
  return { value: { path: file, decls, ...(found.length > 0 ? { tests: found } : {}) }, diagnostics: ctx.diagnostics };
}
