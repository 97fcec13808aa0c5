/**
 * The registry loader: every connector and trigger is one folder, found here by looking.
 *
 *   <root>/connectors/<name>/schema.json   parameters and x-pipe-* facts (data)
 *   <root>/connectors/<name>/compile.ts    optional compile-time part: `export const compile`
 *   <root>/connectors/<name>/<name>.ts     run-time part (imported by generated code, never here)
 *   <root>/triggers/<name>/…               the same for a trigger
 *
 * The default root is pipec's own runtime/. Running compiled (dist/), compile parts are loaded
 * from their compiled copies under dist/runtime/; running from the sources (tests, tsx), from the
 * .ts files. Other roots (tests, components kept elsewhere) hold `compile.js` or `compile.ts`.
 * Imported by the CLI and the language server alike; reads files, so it lives at the edge of the
 * compiler core and compile() itself never calls it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importModule } from '../import-module.js';
import { packageRoot } from '../package-root.js';
import { BUNDLED_PARTS } from './bundled-parts.js';
import {
  createConnectorRegistry,
  type ConnectorRegistry,
  type ConnectorSchema,
  type RegistryEntry,
} from './connector-registry.js';
import type { ConnectorCompiler, TriggerCompiler } from './hook-api.js';
import { componentSchemaProblems } from './schema-format.js';

export const COMPONENT_GROUPS = ['connectors', 'triggers'] as const;
export type ComponentGroup = (typeof COMPONENT_GROUPS)[number];

export interface LoadRegistryOptions {
  /** Folders laid out like runtime/ (`connectors/<name>/`, `triggers/<name>/`); default: pipec's runtime/. */
  readonly roots?: readonly string[];
  /** Load the compile-time parts too (default true); `pipec schema` needs the schemas only. */
  readonly compileParts?: boolean;
}

/** One component folder found under a root. */
export interface ComponentFolder {
  readonly group: ComponentGroup;
  readonly name: string;
  readonly folder: string;
}

/** The component folders under the roots, in root then group then name order. */
export function findComponentFolders(roots: readonly string[]): ComponentFolder[] {
  const found: ComponentFolder[] = [];
  for (const root of roots) {
    for (const group of COMPONENT_GROUPS) {
      const base = path.join(root, group);
      if (!fs.existsSync(base)) continue;
      for (const name of fs.readdirSync(base).sort()) {
        const folder = path.join(base, name);
        if (fs.existsSync(path.join(folder, 'schema.json'))) found.push({ group, name, folder });
      }
    }
  }
  return found;
}

/** pipec's own runtime/ (sources): where its connectors and triggers live. */
export function defaultComponentRoot(): string {
  return path.join(packageRoot(), 'runtime');
}

/** Reads every folder's schema and loads its compile-time part. */
export async function loadRegistry(opts: LoadRegistryOptions = {}): Promise<ConnectorRegistry> {
  const ownRoot = defaultComponentRoot();
  const roots = opts.roots ?? [ownRoot];
  const withParts = opts.compileParts ?? true;
  const entries = await Promise.all(
    findComponentFolders(roots).map((found) =>
      loadEntry(found, path.resolve(found.folder, '..', '..') === path.resolve(ownRoot), withParts),
    ),
  );
  return createConnectorRegistry(entries);
}

async function loadEntry(
  { group, name, folder }: ComponentFolder,
  own: boolean,
  withParts: boolean,
): Promise<RegistryEntry> {
  const raw = JSON.parse(fs.readFileSync(path.join(folder, 'schema.json'), 'utf8')) as ConnectorSchema;
  const kind = group === 'triggers' ? 'trigger' : 'connector';
  if (raw.name !== name)
    throw new Error(`${path.join(folder, 'schema.json')}: "name" is "${raw.name}", but the folder is named "${name}"`);
  if (raw.kind !== kind) throw new Error(`${path.join(folder, 'schema.json')}: "kind" must be "${kind}" in ${group}/`);
  const problems = componentSchemaProblems(raw);
  if (problems.length > 0) throw new Error(`${path.join(folder, 'schema.json')}: ${problems.join('; ')}`);
  // The run-time part is always `<folder>/<folder>.ts`: the folder is the single source of truth.
  const schema: ConnectorSchema = { ...raw, module: `${group}/${name}/${name}`, folder };
  if (!withParts) return { schema };
  // The CLI bundle carries pipec's own compile-time parts; outside it they are files to import.
  const bundled = own ? BUNDLED_PARTS.get(`${group}/${name}`) : undefined;
  const compileFile = bundled ? undefined : compileModuleOf(group, name, folder, own);
  if (!bundled && !compileFile) return { schema };
  const loaded = (bundled ?? (await importModule(pathToFileURL(compileFile as string).href))) as {
    compile?: ConnectorCompiler | TriggerCompiler;
  };
  if (!loaded.compile) throw new Error(`${compileFile ?? `${group}/${name}`} does not export \`compile\``);
  return { schema, compile: loaded.compile };
}

/** The file of a folder's compile-time part, or undefined when it has none. */
function compileModuleOf(group: ComponentGroup, name: string, folder: string, own: boolean): string | undefined {
  if (!own)
    return [path.join(folder, 'compile.js'), path.join(folder, 'compile.ts')].find((file) => fs.existsSync(file));
  const source = path.join(folder, 'compile.ts');
  if (!runningCompiled()) return fs.existsSync(source) ? source : undefined;
  // Compiled, the part is dist/runtime/…/compile.js; an installed pipec (npm pack) ships that
  // and the folder's schema.json, never the TypeScript source, so the source cannot decide.
  const compiled = path.join(packageRoot(), 'dist', 'runtime', group, name, 'compile.js');
  if (fs.existsSync(compiled)) return compiled;
  if (fs.existsSync(source)) throw new Error(`${compiled} is missing: run \`npm run build\``);
  return undefined;
}

/** True when this module runs from dist/ (JavaScript), false from the TypeScript sources. */
function runningCompiled(): boolean {
  return !fileURLToPath(import.meta.url).endsWith('.ts');
}
