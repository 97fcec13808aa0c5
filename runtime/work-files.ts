/**
 * Files of an execution's work folder as connectors read and write them. A file reference is what
 * the http-file trigger lists in `message.files[]` (`{ path, fileName, originalFileName,
 * contentType, size, … }`), or a path relative to the work folder. Whatever the reference says,
 * the file must lie inside the work folder once symbolic links are resolved (403 otherwise), so a
 * message cannot make a step read the rest of the disk.
 */
import { randomUUID } from 'node:crypto';
import { realpath, stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { PipeError } from './errors.js';
import type { Json, JsonObject } from './types.js';

export interface WorkFile {
  /** The resolved path (inside the work folder). */
  readonly path: string;
  /** A name for messages: the client's file name when known. */
  readonly name: string;
  readonly size: number;
}

/** Resolves a file reference inside `workDir`: 400 malformed, 404 missing, 403 outside. */
export async function resolveWorkFile(ref: Json | undefined, workDir: string, who: string): Promise<WorkFile> {
  const { path, name } = referencePath(ref, who);
  if (path.includes('\u0000')) throw fileError(400, 'BAD_FILE_REFERENCE', `${who}: the file path is not valid`);
  const root = await realpath(workDir).catch(() => resolve(workDir));
  const candidate = isAbsolute(path) ? path : resolve(root, path);
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    throw fileError(404, 'FILE_NOT_FOUND', `${who}: no file "${name}" in the execution's work folder`);
  }
  if (!inside(root, real)) throw fileError(403, 'FILE_FORBIDDEN', `${who}: "${name}" is outside the execution's work folder`);
  const info = await stat(real);
  if (!info.isFile()) throw fileError(400, 'BAD_FILE_REFERENCE', `${who}: "${name}" is not a regular file`);
  return { path: real, name, size: info.size };
}

/** A new file's path in the work folder, named after `fileName` (kept only as a plain extension). */
export function newWorkFilePath(workDir: string, fileName: string): { path: string; fileName: string } {
  const ext = /(\.[A-Za-z0-9]{1,16})$/.exec(fileName)?.[1] ?? '';
  const stored = `${randomUUID()}${ext}`;
  return { path: join(workDir, stored), fileName: stored };
}

/** A file reference as http-file lists it, for a file a step wrote. */
export function fileReference(path: string, fileName: string, originalFileName: string, contentType: string, size: number): JsonObject {
  return { fileName, originalFileName, param: 'output', contentType, size, path };
}

function referencePath(ref: Json | undefined, who: string): { path: string; name: string } {
  if (typeof ref === 'string' && ref !== '') return { path: ref, name: basename(ref) };
  if (ref && typeof ref === 'object' && !Array.isArray(ref)) {
    const path = Object.hasOwn(ref, 'path') ? ref['path'] : undefined;
    if (typeof path === 'string' && path !== '') {
      const original = Object.hasOwn(ref, 'originalFileName') ? ref['originalFileName'] : undefined;
      const stored = Object.hasOwn(ref, 'fileName') ? ref['fileName'] : undefined;
      const name = typeof original === 'string' && original !== '' ? original : typeof stored === 'string' && stored !== '' ? stored : basename(path);
      return { path, name };
    }
  }
  throw fileError(400, 'BAD_FILE_REFERENCE', `${who}: a file is a file object of message.files[] ({ path, … }) or a path in the work folder`);
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel !== '' && !rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel);
}

function fileError(code: number, kind: string, message: string): PipeError {
  return new PipeError(message, { code, kind });
}

/** The extension of a name, lower-cased (`.csv`). */
export const extensionOf = (name: string): string => extname(name).toLowerCase();
