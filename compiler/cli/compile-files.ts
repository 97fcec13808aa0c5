/**
 * CLI edge shared by check/build/run: read the .pipe files, compile, print diagnostics.
 */
import fs from 'node:fs';
import path from 'node:path';
import { compile, type CompileResult } from '../compile.js';
import { inputMissing, inputOutsideRoot, inputUnreadable, noPipeFiles } from './errors.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { toJsonDiagnostic } from '../../base/diagnostics/render-json.js';
import { renderDiagnostic, renderSummary } from '../../base/diagnostics/render-text.js';
import { SourceFile } from '../../base/source/source-file.js';
import { loadRegistry } from '../connectors/load-registry.js';
import type { ConnectorRegistry } from '../connectors/connector-registry.js';
import {
  findPipeFiles,
  isWithin,
  projectHost,
  projectRoots,
  projectSourcePath,
  readSource,
  runtimeDependencies,
} from '../project-files.js';

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

export const processOutput: Output = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

export function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel.split(path.sep).join('/');
}

/** Reads any file from disk for the compiler (undefined when a file cannot be read); see projectHost. */
export const fileHost = {
  readFile(p: string): string | undefined {
    try {
      return fs.readFileSync(p, 'utf8');
    } catch {
      return undefined;
    }
  },
};

export interface CompileFilesOptions {
  readonly inputs: readonly string[];
  readonly emit: boolean;
  readonly serviceName?: string;
  readonly skipFormat?: boolean;
  /** The connectors and triggers to compile with (default: pipec's own, loadRegistry()). */
  readonly registry?: ConnectorRegistry;
  /** The project folder (`--root`): imports resolve only inside it; default the folders of the inputs. */
  readonly root?: string;
  /** Make the OpenAPI document even without emitting (`pipec openapi`). */
  readonly openapi?: boolean;
}

/** Finds, reads and compiles; a missing or unreadable input is itself a diagnostic. */
export async function compileFiles(opts: CompileFilesOptions): Promise<CompileResult & { inputFiles: string[] }> {
  const { files, missing } = findPipeFiles(opts.inputs);
  const readErrors: Diagnostic[] = [];
  const extraSources = new Map<string, SourceFile>();
  const inputs: { path: string; text: string }[] = [];
  for (const m of missing) {
    readErrors.push(inputMissing(m));
  }
  const roots = projectRoots(opts.inputs, opts.root);
  readErrors.push(...inputsOutsideRoot(files, roots, opts.root));
  for (const file of files) {
    const read = readSource(file);
    if ('error' in read) {
      readErrors.push(inputUnreadable(file, displayPath(file), read.error));
      extraSources.set(file, new SourceFile(file, ''));
      continue;
    }
    inputs.push({ path: file, text: read.text });
  }
  if (files.length === 0 && missing.length === 0) {
    readErrors.push(noPipeFiles(opts.inputs));
  }
  const result = compile({
    files: inputs,
    registry: opts.registry ?? (await loadRegistry()),
    host: projectHost(roots),
    serviceName: opts.serviceName ?? 'service',
    displayPath,
    sourcePath: projectSourcePath(opts.inputs, opts.root),
    emit: opts.emit,
    ...(opts.openapi ? { openapi: true } : {}),
    // Only the generated package.json needs them; `check` skips reading and sorting them.
    ...(opts.emit ? { dependencies: runtimeDependencies() } : {}),
    ...(opts.skipFormat ? { skipFormat: true } : {}),
  });
  const sources = new Map([...result.sources, ...extraSources]);
  return { ...result, sources, diagnostics: [...readErrors, ...result.diagnostics], inputFiles: files };
}

/** With `--root`, every input must lie inside it (the root bounds what one compilation reads). */
export function inputsOutsideRoot(
  files: readonly string[],
  roots: readonly string[],
  root: string | undefined,
): Diagnostic[] {
  if (root === undefined) return [];
  return files
    .filter((file) => !roots.some((r) => isWithin(r, realPath(file))))
    .map((file) => inputOutsideRoot(file, displayPath(file), root));
}

function realPath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

export function printDiagnostics(
  result: { diagnostics: readonly Diagnostic[]; sources: ReadonlyMap<string, SourceFile> },
  format: 'text' | 'json',
  output: Output,
  color: boolean,
): void {
  const lookup = (f: string) => result.sources.get(f);
  if (format === 'json') {
    output.out(
      JSON.stringify(
        result.diagnostics.map((d) => toJsonDiagnostic(d, lookup, displayPath)),
        null,
        2,
      ),
    );
    return;
  }
  if (result.diagnostics.length === 0) return;
  const rendered = result.diagnostics.map((d) => renderDiagnostic(d, lookup, { displayPath, color }));
  output.err(`${rendered.join('\n\n')}\n\n${renderSummary(result.diagnostics)}`);
}
