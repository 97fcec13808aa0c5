/**
 * The npm packages of a built service, and how it gets them (issue 22, item 1).
 *
 * - `usedPackages`: the packages the service's modules can load, found by following its import
 *   graph from server.js and service.js (esbuild, every package left external), static and dynamic
 *   imports alike, plus the `createRequire(…)('pkg')` loads esbuild cannot see. Only the connectors
 *   and triggers the pipelines use are in that graph, so a service without an agent step never
 *   names openai. The backend clients (pg, @nats-io/*) are always in it: the backend is chosen
 *   where the service runs, not where it is built.
 * - `serviceLockfile`: a package-lock.json for exactly those packages, cut out of pipec's own
 *   lockfile (the versions pipec was tested with): the packages they need, transitively, at the
 *   same places in node_modules. `npm ci --omit=dev` installs it anywhere.
 * - `installFromPipec`: the same node_modules made on the build machine by copying (hard links
 *   when the file system allows) the locked packages from the node_modules pipec runs with, so a
 *   built service starts as it is, without a symlink into pipec's folder and without a network.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Esbuild from 'esbuild';

/** One entry of a lockfile's `packages` (version 2 and 3). */
interface LockEntry {
  readonly version?: string;
  readonly resolved?: string;
  readonly integrity?: string;
  readonly link?: boolean;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
  readonly [key: string]: unknown;
}

export interface Lockfile {
  readonly name?: string;
  readonly lockfileVersion: number;
  readonly packages: Readonly<Record<string, LockEntry>>;
  readonly [key: string]: unknown;
}

/** `pkg` of `pkg/sub/path` and `@scope/pkg` of `@scope/pkg/sub`; null for relative paths and builtins. */
export function packageName(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return null;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? '');
  if (name === '' || BUILTINS.has(name)) return null;
  return name;
}

const BUILTINS = new Set(createRequire(import.meta.url)('node:module').builtinModules as string[]);

/** `createRequire(import.meta.url)('pkg')` (and `require('pkg')` in ESM): loads a bundler does not follow. */
const REQUIRE_CALL = /\brequire\w*\([^()]*\)\(\s*["']([^"']+)["']\s*\)|(?<![.\w])require\(\s*["']([^"']+)["']\s*\)/g;

/** Packages the service in `serviceDir` can load, sorted. */
export function usedPackages(serviceDir: string): string[] {
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof Esbuild;
  const entries = ['server.js', 'service.js', 'runtime/index.js', 'runtime/backends/index.js']
    .map((file) => path.join(serviceDir, file))
    .filter((file) => fs.existsSync(file));
  const result = esbuild.buildSync({
    entryPoints: entries,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    outdir: path.join(serviceDir, '.pipec-packages'),
    absWorkingDir: serviceDir,
    metafile: true,
    logLevel: 'silent',
    packages: 'external',
  });
  const found = new Set<string>();
  for (const [file, input] of Object.entries(result.metafile.inputs)) {
    for (const imported of input.imports) {
      const name = imported.external ? packageName(imported.path) : null;
      if (name) found.add(name);
    }
    const text = fs.readFileSync(path.resolve(serviceDir, file), 'utf8');
    for (const match of text.matchAll(REQUIRE_CALL)) {
      const name = packageName(match[1] ?? match[2] ?? '');
      if (name) found.add(name);
    }
  }
  return [...found].sort();
}

/** Where npm puts `dependency` as seen from the package at `from` (a lockfile key): the nearest node_modules. */
function resolveLocation(packages: Lockfile['packages'], from: string, dependency: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = base === '' ? `node_modules/${dependency}` : `${base}/node_modules/${dependency}`;
    if (packages[candidate]) return candidate;
    if (base === '') return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/**
 * The lockfile of a service depending on `dependencies` (name → range, as in its package.json),
 * cut out of `source`: every package they reach through dependencies, optional dependencies and
 * required peers, kept at its place and version. Throws when a dependency is not in `source`.
 */
export function serviceLockfile(
  source: Lockfile,
  name: string,
  version: string,
  dependencies: Readonly<Record<string, string>>,
): Lockfile {
  const packages = source.packages;
  // location → true when only optional edges reach it
  const reached = new Map<string, boolean>();
  const queue: { location: string; optional: boolean }[] = [];
  for (const dep of Object.keys(dependencies)) {
    const location = resolveLocation(packages, '', dep);
    if (!location) throw new Error(`${dep} is not in pipec's package-lock.json`);
    queue.push({ location, optional: false });
  }
  while (queue.length > 0) {
    const { location, optional } = queue.shift() as { location: string; optional: boolean };
    const before = reached.get(location);
    if (before !== undefined && (before === optional || before === false)) continue;
    reached.set(location, optional);
    const entry = packages[location] as LockEntry;
    const edges: [string, boolean][] = [
      ...Object.keys(entry.dependencies ?? {}).map((d): [string, boolean] => [d, optional]),
      ...Object.keys(entry.optionalDependencies ?? {}).map((d): [string, boolean] => [d, true]),
      ...Object.keys(entry.peerDependencies ?? {})
        .filter((d) => !entry.peerDependenciesMeta?.[d]?.optional)
        .map((d): [string, boolean] => [d, optional]),
    ];
    for (const [dep, edgeOptional] of edges) {
      const target = resolveLocation(packages, location, dep);
      // An optional dependency for another platform is missing from the lockfile's tree: fine.
      if (!target) {
        if (edgeOptional) continue;
        throw new Error(`${dep} (needed by ${location}) is not in pipec's package-lock.json`);
      }
      queue.push({ location: target, optional: edgeOptional });
    }
  }
  const out: Record<string, LockEntry> = {
    '': { name, version, dependencies: { ...dependencies } },
  };
  for (const location of [...reached.keys()].sort()) {
    // pipec's dev/optional marks describe pipec's tree; this tree's are recomputed.
    const {
      dev: _dev,
      devOptional: _devOptional,
      optional: _optional,
      peer: _peer,
      ...entry
    } = packages[location] as LockEntry;
    out[location] = reached.get(location) ? { ...entry, optional: true } : entry;
  }
  return { name, version, lockfileVersion: 3, requires: true, packages: out };
}

/** The lockfile pipec was tested with: the repository's, or the copy `npm run build` puts in dist/ (npm never packs a package-lock.json). */
export function readPipecLockfile(root: string): Lockfile {
  for (const file of [path.join(root, 'package-lock.json'), path.join(root, 'dist', PACKED_LOCKFILE)]) {
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as Lockfile;
  }
  throw new Error(`pipec's lockfile is missing (${path.join(root, 'package-lock.json')})`);
}

export const PACKED_LOCKFILE = 'pipec-lock.json';

/**
 * The folder of the package a lockfile location names, as installed for pipec: the same place
 * under pipec's node_modules, or (pipec itself installed by npm, its dependencies hoisted) where
 * Node's resolution finds it from pipec's folder upwards. Null when no copy of that version is found.
 */
function installedFolder(pipecRoot: string, location: string, version: string | undefined): string | null {
  const name = location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
  const candidates = [path.join(pipecRoot, location)];
  for (let dir = pipecRoot; ; dir = path.dirname(dir)) {
    candidates.push(path.join(dir, 'node_modules', name));
    if (path.dirname(dir) === dir) break;
  }
  for (const folder of candidates) {
    try {
      const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')) as { version?: string };
      if (version === undefined || manifest.version === version) return folder;
    } catch {
      // not there: the next candidate
    }
  }
  return null;
}

/**
 * Makes `serviceDir/node_modules` hold exactly the packages of `lock`, from pipec's installed ones.
 * Returns the locations it could not find (then nothing is written and `npm ci` is the way).
 */
export function installFromPipec(serviceDir: string, lock: Lockfile, pipecRoot: string): string[] {
  const sources: [string, string][] = [];
  const missing: string[] = [];
  for (const [location, entry] of Object.entries(lock.packages)) {
    if (location === '') continue;
    const folder = installedFolder(pipecRoot, location, entry.version);
    if (folder) sources.push([location, folder]);
    else if (!entry.optional) missing.push(location);
  }
  if (missing.length > 0) return missing;
  const target = path.join(serviceDir, 'node_modules');
  fs.rmSync(target, { recursive: true, force: true });
  for (const [location, folder] of sources) copyPackage(folder, path.join(serviceDir, location));
  return [];
}

/** A package's own files (not its nested node_modules: those are locations of their own), hard-linked when possible. */
function copyPackage(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') copyPackage(source, target);
    } else if (entry.isSymbolicLink()) {
      // node_modules/.bin links and the like: keep the link as it is (it points inside the package).
      fs.symlinkSync(fs.readlinkSync(source), target);
    } else if (entry.isFile()) {
      try {
        fs.linkSync(source, target);
      } catch {
        fs.copyFileSync(source, target);
      }
    }
  }
}
