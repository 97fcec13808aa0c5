/**
 * The start-up bundle of a built service (see runtime/launch.ts): the generated modules, the
 * runtime and the npm packages it loads at start, as one CommonJS file (esbuild), plus a V8 code
 * cache of it, so that a cold start reads two files and compiles almost nothing.
 *
 * Packages stay outside the bundle when they are native (better-sqlite3), ship files they read
 * beside themselves (re2-wasm), or are loaded only on first use (the distributed backends, the
 * agent stack, the HTTP client, metrics and tracing exporters): the bundle `require`s those from
 * node_modules when, and only when, they are needed.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Script } from 'node:vm';
import type * as Esbuild from 'esbuild';
import { BUNDLE_FILE, CODE_CACHE_FILE, wrapBundle } from '../../runtime/launch.js';

/** Loaded on demand: neither on first use (native, own files) nor at start (lazy in the runtime). */
export const UNBUNDLED_PACKAGES: readonly string[] = [
  'better-sqlite3',
  're2-wasm',
  'pg',
  'nats',
  'undici',
  'openai',
  '@modelcontextprotocol/sdk',
  'zod',
  'prom-client',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/resources',
  '@opentelemetry/exporter-trace-otlp-http',
];

export interface BundleResult {
  readonly bundleBytes: number;
  readonly cacheBytes: number;
}

/** Bundles the service written in `serviceDir` and writes its code cache; throws on any bundler warning. */
export async function bundleService(serviceDir: string): Promise<BundleResult> {
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof Esbuild;
  const result = await esbuild.build({
    stdin: {
      contents: "export { startService } from './runtime/index.js';\nexport { service } from './service.js';\n",
      resolveDir: serviceDir,
      sourcefile: 'bundle-entry.js',
      loader: 'js',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    keepNames: true,
    logLevel: 'silent',
    define: { 'import.meta.url': '__pipecBundleUrl' },
    external: [...UNBUNDLED_PACKAGES],
    plugins: [requireUnbundledPackages(UNBUNDLED_PACKAGES)],
  });
  const problems = [...result.errors, ...result.warnings];
  if (problems.length > 0) {
    const text = (await esbuild.formatMessages(problems, { kind: 'warning', color: false })).join('\n');
    throw new Error(`bundling the service failed:\n${text}`);
  }
  const source = result.outputFiles[0]?.text;
  if (source === undefined) throw new Error('bundling the service produced no output');
  const bundleFile = path.join(serviceDir, BUNDLE_FILE);
  fs.mkdirSync(path.dirname(bundleFile), { recursive: true });
  fs.writeFileSync(bundleFile, source);
  // Compiling (without running) is enough: the cache then holds every function V8 compiles
  // eagerly, which measured as fast a start as a cache taken after serving a request.
  const cache = new Script(wrapBundle(source), { filename: bundleFile }).createCachedData();
  fs.writeFileSync(path.join(serviceDir, CODE_CACHE_FILE), cache);
  return { bundleBytes: Buffer.byteLength(source), cacheBytes: cache.length };
}

/**
 * A vm script cannot run `import()` in Node 20, so `import('pkg')` of an unbundled package becomes
 * a `require('pkg')` (every unbundled package ships CommonJS) behind the same promise.
 */
function requireUnbundledPackages(packages: readonly string[]): Esbuild.Plugin {
  const isUnbundled = (specifier: string): boolean => packages.some((p) => specifier === p || specifier.startsWith(`${p}/`));
  return {
    name: 'pipec-require-unbundled',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) =>
        args.kind === 'dynamic-import' && isUnbundled(args.path) ? { path: args.path, namespace: 'pipec-unbundled' } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'pipec-unbundled' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});\n`,
        loader: 'js',
      }));
    },
  };
}
