/**
 * Finding .pipe files and reading them inside the project (the CLI and the language server read
 * through this one module, so both confine imports alike), and what a built service depends on. The
 * connector registry is loaded by compiler/connectors/load-registry.ts (shared with the language
 * server); where pipec is installed, by compiler/package-root.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CompileHost, FileRead } from './compile.js';

import { packageRoot } from './package-root.js';

export { packageRoot };

const SKIPPED_DIRS = new Set(['node_modules', 'out', 'dist', '.git', '.pipec-data']);

/** .pipe files named or found (recursively) in named folders, sorted; `*.test.pipe` only when asked. */
export function findPipeFiles(
  inputs: readonly string[],
  opts: { tests?: boolean } = {},
): { files: string[]; missing: string[] } {
  const files = new Set<string>();
  const missing: string[] = [];
  const wanted = (file: string): boolean =>
    file.endsWith('.pipe') && (opts.tests ? true : !file.endsWith('.test.pipe'));
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(full);
      } else if (entry.isFile() && wanted(entry.name)) files.add(path.resolve(full));
    }
  };
  for (const input of inputs) {
    if (!fs.existsSync(input)) {
      missing.push(input);
      continue;
    }
    if (fs.statSync(input).isDirectory()) walk(input);
    else files.add(path.resolve(input));
  }
  return { files: [...files].sort(), missing };
}

/** The runtime dependencies of pipec (what a generated service needs from npm). */
export function runtimeDependencies(root = packageRoot()): Record<string, string> {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  const deps = { ...(pkg.dependencies ?? {}) };
  // The compiler's own dependencies are not needed by a service.
  for (const compilerOnly of [
    'chevrotain',
    'esbuild',
    'ts-morph',
    'vscode-languageserver',
    'vscode-languageserver-textdocument',
  ])
    delete deps[compilerOnly];
  return Object.fromEntries(Object.entries(deps).sort(([a], [b]) => a.localeCompare(b)));
}

/** The size limit of every file the compiler reads: `.pipe` sources and imported files alike. */
export const MAX_SOURCE_BYTES = 5 * 1024 * 1024;

/** Reads a source file given on the command line (a regular file of at most 5 MB). */
export function readSource(file: string): { text: string } | { error: string } {
  const read = readRegularFile(file, MAX_SOURCE_BYTES);
  return 'text' in read ? read : { error: read.detail };
}

/**
 * Reads a regular file of at most `maxBytes` without ever blocking: the file is opened
 * non-blocking (a FIFO with no writer opens at once), and its type and size come from the open
 * descriptor, so a device (`/dev/zero`), a FIFO, a socket or a folder is refused before one byte is
 * read, and a file that grows while being read is cut off at `maxBytes + 1` and refused.
 * The refusal says what the file is, never what it holds.
 */
export function readRegularFile(file: string, maxBytes: number): FileRead {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { refused: 'not-found', detail: 'no such file' };
    if (code === 'EISDIR') return { refused: 'not-a-file', detail: 'it is a folder, not a file' };
    return { refused: 'unreadable', detail: `it cannot be opened (${code ?? 'unknown error'})` };
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { refused: 'not-a-file', detail: `it is ${fileKind(stat)}, not a regular file` };
    if (stat.size > maxBytes) {
      return { refused: 'too-large', detail: `it is larger than ${megabytes(maxBytes)} (${megabytes(stat.size)})` };
    }
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const n = fs.readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > maxBytes) return { refused: 'too-large', detail: `it is larger than ${megabytes(maxBytes)}` };
      if (length === buffer.length) break;
    }
    return { text: buffer.subarray(0, length).toString('utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') return { refused: 'not-a-file', detail: 'it is a folder, not a file' };
    return { refused: 'unreadable', detail: `it cannot be read (${code ?? 'unknown error'})` };
  } finally {
    fs.closeSync(fd);
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MB`;
}

function fileKind(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The folders a compilation may read from: `--root` when given, else the folder of every file
 * given and every folder given — each as written (absolute) and as its real path, so a project
 * reached through a symbolic link still contains its own files.
 */
export function projectRoots(inputs: readonly string[], root?: string): string[] {
  const folderOf = (input: string): string => (isDirectory(input) ? input : path.dirname(input));
  return folderRoots(root !== undefined ? [root] : inputs.map(folderOf));
}

/**
 * How the files of a compilation are named in the service it builds (provenance comments, step
 * sources): relative to the project folder — `--root` when given, else the deepest folder holding
 * every input — with `/` separators, so the same project builds the same code from any directory.
 * A file outside that folder keeps its absolute path.
 */
export function projectSourcePath(inputs: readonly string[], root?: string): (file: string) => string {
  const folderOf = (input: string): string => (isDirectory(input) ? input : path.dirname(input));
  const base =
    root !== undefined ? path.resolve(root) : commonFolder(inputs.map((input) => path.resolve(folderOf(input))));
  return (file) => {
    const rel = path.relative(base, path.resolve(file));
    return rel === '' || rel.startsWith('..') || path.isAbsolute(rel)
      ? path.resolve(file)
      : rel.split(path.sep).join('/');
  };
}

/** The deepest folder that holds every one of `folders` (absolute paths). */
function commonFolder(folders: readonly string[]): string {
  const [first, ...rest] = folders.map((f) => f.split(path.sep));
  if (!first) return process.cwd();
  let length = first.length;
  for (const parts of rest) {
    let i = 0;
    while (i < length && i < parts.length && parts[i] === first[i]) i++;
    length = i;
  }
  return first.slice(0, length).join(path.sep) || path.sep;
}

/** Project roots for folders known to be folders (each as written and as its real path). */
export function folderRoots(folders: readonly string[]): string[] {
  return [...new Set(folders.flatMap((folder) => [path.resolve(folder), realFolder(folder)]))];
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function realFolder(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** True when `file` is `folder` itself or below it (both absolute). */
export function isWithin(folder: string, file: string): boolean {
  const rel = path.relative(folder, file);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

/**
 * The compiler's view of the disk: `.pipe` and imported files are read only from inside the
 * project roots (after resolving symbolic links), only when they are regular files, and only up
 * to 5 MB. What a refusal says never includes the refused file's content.
 */
export function projectHost(roots: readonly string[]): CompileHost {
  const shown = [...new Set(roots.map(displayRoot))].join(', ');
  const outside: FileRead = { refused: 'outside-project', detail: `it is outside the project (${shown})` };
  const readProjectFile = (file: string): FileRead => {
    // Written outside the project: refused without touching the disk (not even to say it is absent).
    if (!roots.some((root) => isWithin(root, path.resolve(file)))) return outside;
    let real: string;
    try {
      real = fs.realpathSync(file);
    } catch {
      return { refused: 'not-found', detail: 'no such file' };
    }
    // A symbolic link inside the project that leads out of it.
    if (!roots.some((root) => isWithin(root, real))) return outside;
    return readRegularFile(real, MAX_SOURCE_BYTES);
  };
  return {
    readFile: (file) => {
      const read = readProjectFile(file);
      return 'text' in read ? read.text : undefined;
    },
    readProjectFile,
  };
}

function displayRoot(root: string): string {
  const rel = path.relative(process.cwd(), root);
  if (rel === '') return '.';
  return rel.startsWith('..') || path.isAbsolute(rel) ? root : rel.split(path.sep).join('/');
}
