/**
 * How a generated server.js starts its service. `pipec build` also writes the service and the
 * runtime as one CommonJS file with a V8 code cache (bundle/); loading that skips resolving,
 * reading and compiling ~250 modules, which is most of a cold start. Without a bundle (built with
 * `--no-bundle`, or PIPEC_BUNDLE=0 to debug with the readable modules' stack traces) the modules
 * are imported as they are. A code cache made by another Node.js version is rejected by V8 and
 * the bundle is compiled as usual: slower, never wrong. The pipec CLI starts the same way
 * (bin/pipec.js, dist/pipec.cjs).
 *
 * This module imports only node: built-ins, so that choosing costs nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';
import type { ServiceDefinition } from './service/create-service.js';

/** What the bundle (and the module graph) exports for a start. */
export interface Startable {
  readonly startService: (def: ServiceDefinition) => Promise<void>;
  readonly service: ServiceDefinition;
}

/** Where `pipec build` puts the bundle and its code cache, relative to the service folder. */
export const BUNDLE_FILE = 'bundle/service.cjs';
export const CODE_CACHE_FILE = 'bundle/service.cjs.cache';

/** Dynamic `import()` for code inside a bundle: a vm script cannot make one itself in Node 20. */
export type ImportModule = (specifier: string) => Promise<unknown>;

/**
 * A bundle runs as the body of this function: what Node does to any CommonJS file, plus
 * `__pipecBundleUrl` (each bundled module's `import.meta.url` is computed from it) and
 * `__pipecImport` (see ImportModule).
 */
function wrapBundle(source: string): string {
  return `(function (exports, require, module, __filename, __dirname, __pipecBundleUrl, __pipecImport) {${source}\n})`;
}

export interface LoadedBundle<T> {
  readonly exports: T;
  /** False when there was no code cache or V8 rejected it (another Node.js version or flags). */
  readonly codeCacheUsed: boolean;
  /** The compiled script (to take a new code cache from after a training run). */
  readonly script: Script;
}

/** Runs a CommonJS bundle with its V8 code cache (when the file exists). */
export function runBundle<T>(file: string, cacheFile: string, importModule: ImportModule): LoadedBundle<T> {
  const cachedData = existsSync(cacheFile) ? readFileSync(cacheFile) : undefined;
  const script = new Script(wrapBundle(readFileSync(file, 'utf8')), {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const body = script.runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {} as T };
  body.call(
    module.exports,
    module.exports,
    createRequire(file),
    module,
    file,
    path.dirname(file),
    pathToFileURL(file).href,
    importModule,
  );
  return { exports: module.exports, codeCacheUsed: cachedData !== undefined && !script.cachedDataRejected, script };
}

/** Loads bundle/service.cjs with its code cache; undefined when the service has no bundle. */
export function loadBundle(serviceDir: string): LoadedBundle<Startable> | undefined {
  const file = path.join(serviceDir, BUNDLE_FILE);
  if (!existsSync(file)) return undefined;
  return runBundle<Startable>(file, path.join(serviceDir, CODE_CACHE_FILE), (specifier) => import(specifier));
}

/** Starts the service in `serviceDir` (a file URL of the folder, as server.js passes it). */
/**
 * V8 settings the service runs with unless node was given its own (each setting apart):
 * `--max-inlined-bytecode-size=1840`, `--max-inlined-bytecode-size-cumulative=3680` (V8: 460,
 * 920). A request runs through many small functions (trigger, engine, step hooks, connectors,
 * the generated steps); with four times V8's inlining budget TurboFan inlines more of them into
 * each other: ≈ 4 % less CPU per request in the order-flow benchmark (BENCHMARKS.md). V8 reads
 * them when it optimizes a function, so they can be set at start. Returns the flags it set.
 *
 * The young generation keeps V8's growth: a larger one (`--semi-space-growth-factor=8`, set here
 * before) saved ≈ 2 % CPU per request but made each scavenge longer (it sweeps more buffers), and
 * at ten concurrent requests the 99th-percentile latency grew by more than that.
 */
export function tuneV8(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env['NODE_OPTIONS'] ?? '',
): string[] {
  const given = (flag: string): boolean => {
    const pattern = new RegExp(`${flag.replace(/-/g, '[-_]')}(?![-_\\w])`);
    return execArgv.some((arg) => pattern.test(arg)) || pattern.test(nodeOptions);
  };
  const set = Object.entries(V8_TUNING)
    .filter(([flag]) => !given(flag))
    .map(([flag, value]) => `--${flag}=${value}`);
  for (const flag of set) setFlagsFromString(flag);
  return set;
}

/** The settings tuneV8 gives a service (flag name without `--` → value). */
export const V8_TUNING: Readonly<Record<string, number>> = {
  'max-inlined-bytecode-size': 1840,
  'max-inlined-bytecode-size-cumulative': 3680,
};

export async function launch(serviceDirUrl: URL, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { startable } = await loadService(serviceDirUrl, env);
  await startable.startService(startable.service);
}

/** What `launch` loaded, and how. */
export interface LoadedService {
  readonly startable: Startable;
  /** The service came from its bundle, and V8 took the bundle's code cache. */
  readonly codeCacheUsed: boolean;
}

/**
 * Loads the service (its bundle, or its modules), then sets V8's flags (tuneV8). In this order:
 * V8 accepts a code cache only under the flags it was made with, and a flag set before the bundle
 * is compiled makes it reject the cache (and compile the whole bundle again, ≈ 50 ms).
 */
export async function loadService(serviceDirUrl: URL, env: NodeJS.ProcessEnv = process.env): Promise<LoadedService> {
  const serviceDir = fileURLToPath(serviceDirUrl);
  const bundle = env['PIPEC_BUNDLE'] === '0' ? undefined : loadBundle(serviceDir);
  const startable = bundle?.exports ?? (await importModules(serviceDirUrl));
  tuneV8();
  return { startable, codeCacheUsed: bundle?.codeCacheUsed ?? false };
}

async function importModules(serviceDirUrl: URL): Promise<Startable> {
  const [runtime, definition] = await Promise.all([
    import('./index.js'),
    import(new URL('service.js', serviceDirUrl).href) as Promise<{ service: ServiceDefinition }>,
  ]);
  return { startService: runtime.startService, service: definition.service };
}
