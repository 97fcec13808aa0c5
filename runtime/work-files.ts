/**
 * Files travelling through a pipeline. A file is never in the message itself: it lies in the
 * execution's work folder (`ctx.workDir`, removed when the execution ends) and the message holds
 * a reference to it, the object the HTTP File trigger lists in `message.files[]`:
 *
 *   { fileName, originalFileName, contentType, size, path }   (path: absolute, inside the work folder)
 *
 * Connectors that produce a file (`sftp get`) write it there and output that object; connectors
 * that consume one (`sftp put`, `email` attachments) take that object (or its `path`) and stream
 * the file from disk. They read only files inside the execution's own work folder: a path from a
 * message must not reach the rest of the disk.
 */
import { randomUUID } from 'node:crypto';
import { realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { PipeError } from './errors.js';
import type { Json, JsonObject } from './types.js';

/** A file of the work folder, as a message references it. */
export interface WorkFile {
  readonly fileName: string;
  readonly originalFileName: string | null;
  readonly contentType: string;
  readonly size: number;
  /** Absolute, inside the execution's work folder. */
  readonly path: string;
}

const CONTENT_TYPE_BY_EXTENSION: Readonly<Record<string, string>> = {
  '.pdf': 'application/pdf', '.json': 'application/json', '.xml': 'application/xml', '.csv': 'text/csv',
  '.txt': 'text/plain', '.html': 'text/html', '.htm': 'text/html', '.png': 'image/png', '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.zip': 'application/zip', '.gz': 'application/gzip',
};

/** The extension of a name (`.csv`), when it is a plain one; '' otherwise. */
export function plainExtension(name: string): string {
  return /(\.[A-Za-z0-9]{1,16})$/.exec(name)?.[1] ?? '';
}

/** The content type a file name suggests (application/octet-stream when it suggests none). */
export function contentTypeOf(name: string): string {
  return CONTENT_TYPE_BY_EXTENSION[plainExtension(name).toLowerCase()] ?? 'application/octet-stream';
}

/** Where a new file of the work folder goes: a generated name keeping the original's plain extension. */
export function newWorkFilePath(workDir: string, originalName: string): { fileName: string; path: string } {
  const fileName = `${randomUUID()}${plainExtension(originalName)}`;
  return { fileName, path: join(workDir, fileName) };
}

/** A file the step reads: where it is, and the name and type it should travel under. */
export interface LocalFile {
  readonly path: string;
  readonly name: string;
  readonly contentType: string;
  readonly size: number;
}

function invalid(what: string, message: string): PipeError {
  return new PipeError(`${what}: ${message}`, { code: 400, kind: 'INVALID_PARAMETER' });
}

function stringField(value: JsonObject, key: string): string | undefined {
  const field = Object.hasOwn(value, key) ? value[key] : undefined;
  return typeof field === 'string' && field.length > 0 ? field : undefined;
}

/**
 * The work-folder file a parameter names: a file object (`message.files[0]`, the output of
 * `sftp get`) or its path. Throws 400 INVALID_PARAMETER when it is neither, when the path leads
 * outside the execution's work folder (also through a symbolic link), or when no such file exists.
 * `what` names the parameter in the message (`sftp: file`).
 */
export async function workFileOf(value: Json | undefined, workDir: string, what: string): Promise<LocalFile> {
  let path: string | undefined;
  let name: string | undefined;
  let contentType: string | undefined;
  if (typeof value === 'string' && value.length > 0) path = value;
  else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    path = stringField(value, 'path');
    name = stringField(value, 'originalFileName') ?? stringField(value, 'fileName');
    contentType = stringField(value, 'contentType');
  }
  if (path === undefined) throw invalid(what, 'expected a file of the work folder (an object with `path`, or a path)');
  const root = await realpath(workDir);
  const absolute = isAbsolute(path) ? path : resolve(root, path);
  let real: string;
  try {
    real = await realpath(absolute);
  } catch {
    throw invalid(what, `no such file in the execution's work folder: ${basename(path)}`);
  }
  const inside = relative(root, real);
  if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
    throw invalid(what, 'the file must be in the execution\'s work folder (an uploaded file, or one a step fetched)');
  }
  const info = await stat(real);
  if (!info.isFile()) throw invalid(what, `not a file: ${basename(path)}`);
  const travelName = name ?? basename(real);
  return { path: real, name: travelName, contentType: contentType ?? contentTypeOf(travelName), size: info.size };
}
