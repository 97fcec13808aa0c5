/**
 * Files travelling through a pipeline. A file is never in the message itself: it lies in the
 * execution's work folder (`ctx.workDir`, removed when the execution ends) and the message holds
 * a reference to it, the object the HTTP File trigger lists in `message.files[]`:
 *
 *   { fileName, originalFileName, contentType, size, path }   (path: absolute, inside the work folder)
 *
 * Connectors that produce a file (`sftp get`, `csv generate`, `xml generate`) write it there and
 * output such a reference (`fileReference`); connectors that consume one (`sftp put`, `email`
 * attachments, `csv parse`, `xml parse`) take the reference, or a path relative to the work
 * folder, and stream the file from disk (`resolveWorkFile`). Whatever the reference says, the file
 * must lie inside the work folder once symbolic links are resolved, so a message cannot make a
 * step read the rest of the disk.
 */
import { randomUUID } from 'node:crypto';
import { realpath, stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { PipeError } from './errors.js';
import type { Json, JsonObject } from './types.js';

/** A file of the work folder a step reads. */
export interface WorkFile {
  /** The resolved path (inside the work folder). */
  readonly path: string;
  /** The name it travels under: the client's file name when known. */
  readonly name: string;
  readonly contentType: string;
  readonly size: number;
}

const CONTENT_TYPE_BY_EXTENSION: Readonly<Record<string, string>> = {
  '.pdf': 'application/pdf',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.csv': 'text/csv',
  '.txt': 'text/plain',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
};

/** The extension of a name (`.csv`), when it is a plain one; '' otherwise. */
export function plainExtension(name: string): string {
  return /(\.[A-Za-z0-9]{1,16})$/.exec(name)?.[1] ?? '';
}

/** The extension of a name, lower-cased (`.csv`). */
export const extensionOf = (name: string): string => extname(name).toLowerCase();

/** The content type a file name suggests (application/octet-stream when it suggests none). */
export function contentTypeOf(name: string): string {
  return CONTENT_TYPE_BY_EXTENSION[plainExtension(name).toLowerCase()] ?? 'application/octet-stream';
}

/** Where a new file of the work folder goes: a generated name keeping the original's plain extension. */
export function newWorkFilePath(workDir: string, originalName: string): { fileName: string; path: string } {
  const fileName = `${randomUUID()}${plainExtension(originalName)}`;
  return { fileName, path: join(workDir, fileName) };
}

/** A file reference as http-file lists it, for a file a step wrote. */
export function fileReference(
  path: string,
  fileName: string,
  originalFileName: string,
  contentType: string,
  size: number,
): JsonObject {
  return { fileName, originalFileName, param: 'output', contentType, size, path };
}

/**
 * The work-folder file a parameter names: a file object (`message.files[0]`, the output of
 * `sftp get`) or its path. `who` names the step and parameter in the message (`sftp: file`).
 * Throws 400 BAD_FILE_REFERENCE when it is neither or not a regular file, 404 FILE_NOT_FOUND when
 * no such file exists, 403 FILE_FORBIDDEN when it leads outside the work folder (also through a
 * symbolic link).
 */
export async function resolveWorkFile(ref: Json | undefined, workDir: string, who: string): Promise<WorkFile> {
  const { path, name, contentType } = referenceOf(ref, who);
  if (path.includes('\u0000')) throw fileError(400, 'BAD_FILE_REFERENCE', `${who}: the file path is not valid`);
  const root = await realpath(workDir).catch(() => resolve(workDir));
  const candidate = isAbsolute(path) ? path : resolve(root, path);
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    throw fileError(404, 'FILE_NOT_FOUND', `${who}: no file "${name}" in the execution's work folder`);
  }
  if (!inside(root, real)) {
    throw fileError(
      403,
      'FILE_FORBIDDEN',
      `${who}: "${name}" is outside the execution's work folder (an uploaded file, or one a step fetched)`,
    );
  }
  const info = await stat(real);
  if (!info.isFile()) throw fileError(400, 'BAD_FILE_REFERENCE', `${who}: "${name}" is not a regular file`);
  return { path: real, name, contentType: contentType ?? contentTypeOf(name), size: info.size };
}

function stringField(value: JsonObject, key: string): string | undefined {
  const field = Object.hasOwn(value, key) ? value[key] : undefined;
  return typeof field === 'string' && field.length > 0 ? field : undefined;
}

function referenceOf(ref: Json | undefined, who: string): { path: string; name: string; contentType?: string } {
  if (typeof ref === 'string' && ref !== '') return { path: ref, name: basename(ref) };
  if (ref !== null && typeof ref === 'object' && !Array.isArray(ref)) {
    const path = stringField(ref, 'path');
    if (path !== undefined) {
      const name = stringField(ref, 'originalFileName') ?? stringField(ref, 'fileName') ?? basename(path);
      const contentType = stringField(ref, 'contentType');
      return { path, name, ...(contentType !== undefined ? { contentType } : {}) };
    }
  }
  throw fileError(
    400,
    'BAD_FILE_REFERENCE',
    `${who}: a file is a file object of message.files[] ({ path, … }) or a path in the work folder`,
  );
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel !== '' && !rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel);
}

function fileError(code: number, kind: string, message: string): PipeError {
  return new PipeError(message, { code, kind });
}
