/**
 * CLI edge: finding .pipe files and reading them, and what a built service depends on. The
 * connector registry is loaded by compiler/connectors/load-registry.ts (shared with the language
 * server); where pipec is installed, by compiler/package-root.ts.
 */
import fs from 'node:fs';
import path from 'node:path';

import { packageRoot } from '../package-root.js';

export { packageRoot };

const SKIPPED_DIRS = new Set(['node_modules', 'out', 'dist', '.git', '.pipec-data']);

/** .pipe files named or found (recursively) in named folders, sorted; `*.test.pipe` only when asked. */
export function findPipeFiles(inputs: readonly string[], opts: { tests?: boolean } = {}): { files: string[]; missing: string[] } {
  const files = new Set<string>();
  const missing: string[] = [];
  const wanted = (file: string): boolean => file.endsWith('.pipe') && (opts.tests ? true : !file.endsWith('.test.pipe'));
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
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const deps = { ...(pkg.dependencies ?? {}) };
  // The compiler's own dependencies are not needed by a service.
  for (const compilerOnly of ['chevrotain', 'esbuild', 'ts-morph', 'vscode-languageserver', 'vscode-languageserver-textdocument']) delete deps[compilerOnly];
  return Object.fromEntries(Object.entries(deps).sort(([a], [b]) => a.localeCompare(b)));
}

export const MAX_SOURCE_BYTES = 5 * 1024 * 1024;

/** Reads a source file, refusing huge ones before reading them into memory. */
export function readSource(file: string): { text: string } | { error: string } {
  try {
    const size = fs.statSync(file).size;
    if (size > MAX_SOURCE_BYTES * 2) return { error: `file too large (${(size / 1024 / 1024).toFixed(1)} MB; the limit is 5 MB)` };
    return { text: fs.readFileSync(file, 'utf8') };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}
