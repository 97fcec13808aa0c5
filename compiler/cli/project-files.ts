/**
 * CLI edge: finding .pipe files, loading the connector registry from the runtime's schema.json
 * files, and knowing where pipec is installed. All file-system access of the compiler is here and in
 * the command modules beside it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConnectorRegistry, type ConnectorRegistry, type ConnectorSchema } from '../connectors/connector-registry.js';

/** The folder holding pipec's package.json (works from dist/ and from the sources). */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    if (fs.existsSync(candidate)) {
      const pkg = JSON.parse(fs.readFileSync(candidate, 'utf8')) as { name?: string };
      if (pkg.name === 'pipec') return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the pipec package root');
    dir = parent;
  }
}

/** Reads every `runtime/{connectors,triggers}/<name>/schema.json`. */
export function loadRegistry(root = packageRoot()): ConnectorRegistry {
  const schemas: ConnectorSchema[] = [];
  for (const group of ['connectors', 'triggers']) {
    const base = path.join(root, 'runtime', group);
    if (!fs.existsSync(base)) continue;
    for (const name of fs.readdirSync(base).sort()) {
      const file = path.join(base, name, 'schema.json');
      if (!fs.existsSync(file)) continue;
      const schema = JSON.parse(fs.readFileSync(file, 'utf8')) as ConnectorSchema;
      // The implementation is always `<folder>/<folder>.ts`: the folder is the single source of truth.
      schemas.push(group === 'connectors' ? { ...schema, module: `connectors/${name}/${name}` } : schema);
    }
  }
  return createConnectorRegistry(schemas);
}

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
