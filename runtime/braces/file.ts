/**
 * Double Braces FILE functions (reference §1.4.5): FILEEXISTS and FILESIZE, relative to the
 * execution's scratch folder `ctx.workDir`. Absolute paths, `..` escapes and symbolic links that
 * leave the folder are refused, so an expression can never probe the rest of the disk.
 */
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Json } from '../types.js';
import { fail, isAbsent, toStr } from './values.js';

/** What the file functions need from the execution context. */
export interface WorkDirContext {
  readonly workDir: string;
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel));
}

/** Resolves a user path inside workDir, or fails. Returns undefined when the file does not exist. */
function resolveInWorkDir(fn: string, ctx: WorkDirContext, file: Json): string | undefined {
  const name = toStr(fn, 1, file);
  if (name === '' || isAbsolute(name) || name.includes('\u0000'))
    fail(fn, `the path ${JSON.stringify(name)} must be relative to the execution folder`);
  const root = resolve(ctx.workDir);
  const target = resolve(root, name);
  if (!inside(root, target)) fail(fn, `the path ${JSON.stringify(name)} leaves the execution folder`);
  let real: string;
  try {
    real = realpathSync(target);
  } catch {
    return undefined;
  }
  if (!inside(realpathSync(root), real)) fail(fn, `the path ${JSON.stringify(name)} leaves the execution folder`);
  return real;
}

/** @example FILEEXISTS(ctx, "upload.pdf") // true */
export function FILEEXISTS(ctx: WorkDirContext, file: Json): boolean {
  if (isAbsent(file)) return false;
  const real = resolveInWorkDir('FILEEXISTS', ctx, file);
  return real !== undefined && statSync(real).isFile();
}

/** Size in bytes; a missing file is an error. @example FILESIZE(ctx, "upload.pdf") // 52113 */
export function FILESIZE(ctx: WorkDirContext, file: Json): Json {
  if (isAbsent(file)) return null;
  const real = resolveInWorkDir('FILESIZE', ctx, file);
  if (real === undefined) return fail('FILESIZE', `no file ${JSON.stringify(file)} in the execution folder`);
  const stat = statSync(real);
  if (!stat.isFile()) return fail('FILESIZE', `${JSON.stringify(file)} is not a file`);
  return stat.size;
}
