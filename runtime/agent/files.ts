/**
 * Files attached to an agent call. In: the `files` parameter (one file object or an array, as the
 * http-file trigger produces: `{ path, fileName | originalFileName, contentType, size }`), the
 * execution's work folder and a size limit; out: chat content parts — PDFs as base64 `file` parts,
 * images as `image_url` data URLs. Everything is checked before any model call: the path must lie
 * inside the work folder (after resolving symlinks), the size must be within the limit (413), and
 * the type must be PDF or an image both by declaration and by the file's first bytes (415).
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import { PipeError } from '../errors.js';
import type { Json, JsonObject } from '../types.js';

export const DEFAULT_MAX_FILE_SIZE = 20 * 1024 * 1024;
export const MAX_FILES = 32;

type FileKind = 'pdf' | 'png' | 'jpeg' | 'gif' | 'webp';

interface FileRef {
  readonly path: string;
  readonly fileName: string;
  readonly declaredType: string;
}

const MIME_OF: Record<FileKind, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};
const KIND_OF_MIME: Readonly<Record<string, FileKind>> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};
const KIND_OF_EXTENSION: Readonly<Record<string, FileKind>> = {
  '.pdf': 'pdf',
  '.png': 'png',
  '.jpg': 'jpeg',
  '.jpeg': 'jpeg',
  '.gif': 'gif',
  '.webp': 'webp',
};

/** Loads and checks every file, then returns one content part per file (same order). */
export async function loadFileParts(
  files: Json | undefined,
  opts: { readonly workDir: string; readonly maxFileSize: number },
): Promise<ChatCompletionContentPart[]> {
  const refs = fileRefs(files);
  if (refs.length === 0) return [];
  const root = await realpath(opts.workDir);
  const checked: Array<{ ref: FileRef; kind: FileKind; fullPath: string }> = [];
  for (const ref of refs) {
    const kind = declaredKind(ref);
    const fullPath = await pathInside(root, ref);
    const info = await stat(fullPath);
    if (!info.isFile()) throw fileError(400, 'AGENT_FILE_INVALID', `"${ref.fileName}" is not a regular file`);
    if (info.size > opts.maxFileSize) {
      throw fileError(
        413,
        'AGENT_FILE_TOO_LARGE',
        `"${ref.fileName}" is ${info.size} bytes; the limit is ${opts.maxFileSize}`,
      );
    }
    checked.push({ ref, kind, fullPath });
  }
  const parts: ChatCompletionContentPart[] = [];
  for (const { ref, kind, fullPath } of checked) {
    const bytes = await readFile(fullPath);
    if (bytes.length > opts.maxFileSize) {
      throw fileError(
        413,
        'AGENT_FILE_TOO_LARGE',
        `"${ref.fileName}" grew beyond the limit of ${opts.maxFileSize} bytes`,
      );
    }
    if (sniffKind(bytes) !== kind) {
      throw fileError(415, 'AGENT_FILE_UNSUPPORTED', `"${ref.fileName}" does not contain ${MIME_OF[kind]} data`);
    }
    parts.push(contentPart(kind, ref.fileName, bytes));
  }
  return parts;
}

export function contentPart(kind: FileKind, fileName: string, bytes: Buffer): ChatCompletionContentPart {
  const dataUrl = `data:${MIME_OF[kind]};base64,${bytes.toString('base64')}`;
  if (kind === 'pdf') return { type: 'file', file: { filename: fileName, file_data: dataUrl } };
  return { type: 'image_url', image_url: { url: dataUrl } };
}

/** The `files` parameter as a list of references; malformed entries are a 400. */
export function fileRefs(files: Json | undefined): FileRef[] {
  if (files === undefined || files === null) return [];
  const list = Array.isArray(files) ? files : [files];
  if (list.length > MAX_FILES)
    throw fileError(400, 'AGENT_FILE_INVALID', `at most ${MAX_FILES} files may be sent, got ${list.length}`);
  return list.map((entry, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw fileError(400, 'AGENT_FILE_INVALID', `files[${index}] is not a file object`);
    }
    const path = stringField(entry, 'path');
    if (!path) throw fileError(400, 'AGENT_FILE_INVALID', `files[${index}] has no "path"`);
    const fileName = stringField(entry, 'fileName') ?? stringField(entry, 'originalFileName') ?? basename(path);
    const declaredType = (stringField(entry, 'contentType') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    return { path, fileName, declaredType };
  });
}

function declaredKind(ref: FileRef): FileKind {
  const byMime = Object.hasOwn(KIND_OF_MIME, ref.declaredType) ? KIND_OF_MIME[ref.declaredType] : undefined;
  const extension = extname(ref.fileName).toLowerCase();
  const byExtension = Object.hasOwn(KIND_OF_EXTENSION, extension) ? KIND_OF_EXTENSION[extension] : undefined;
  // A generic or missing content type defers to the file name's extension.
  const generic = ref.declaredType === '' || ref.declaredType === 'application/octet-stream';
  const kind = generic ? byExtension : byMime;
  if (!kind) {
    const what = ref.declaredType === '' ? `extension "${extension}"` : `type ${ref.declaredType}`;
    throw fileError(
      415,
      'AGENT_FILE_UNSUPPORTED',
      `"${ref.fileName}" has ${what}; only PDF and PNG/JPEG/GIF/WebP images can be sent to the model`,
    );
  }
  return kind;
}

async function pathInside(root: string, ref: FileRef): Promise<string> {
  const candidate = isAbsolute(ref.path) ? ref.path : resolve(root, ref.path);
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    throw fileError(400, 'AGENT_FILE_INVALID', `"${ref.fileName}" does not exist`);
  }
  const rel = relative(root, real);
  if (rel === '' || rel.startsWith('..' + sep) || rel === '..' || isAbsolute(rel)) {
    throw fileError(403, 'AGENT_FILE_FORBIDDEN', `"${ref.fileName}" is outside the execution's work folder`);
  }
  return real;
}

/** The kind the file's first bytes announce, if any. */
export function sniffKind(bytes: Buffer): FileKind | undefined {
  const starts = (signature: number[], offset = 0): boolean => signature.every((b, i) => bytes[offset + i] === b);
  if (starts([0x25, 0x50, 0x44, 0x46, 0x2d])) return 'pdf'; // %PDF-
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (starts([0xff, 0xd8, 0xff])) return 'jpeg';
  if (starts([0x47, 0x49, 0x46, 0x38])) return 'gif'; // GIF8
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'webp'; // RIFF....WEBP
  return undefined;
}

function stringField(entry: JsonObject, key: string): string | undefined {
  const value = Object.hasOwn(entry, key) ? entry[key] : undefined;
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function fileError(code: number, kind: string, message: string): PipeError {
  return new PipeError(`Agent file rejected: ${message}`, { code, kind });
}
