/**
 * The start-up bundle of a built service (see runtime/launch.ts): the generated modules, the
 * runtime and the npm packages it loads at start, as one CommonJS file (bundle.ts), plus a V8 code
 * cache of it, so that a cold start reads two files and compiles almost nothing.
 *
 * Packages stay outside the bundle when they are native (better-sqlite3), ship files they read
 * beside themselves (re2-wasm), or are loaded only on first use (the distributed backends, the
 * agent stack, the HTTP client, metrics and tracing exporters): the bundle `require`s those from
 * node_modules when, and only when, they are needed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Script } from 'node:vm';
import { BUNDLE_FILE, CODE_CACHE_FILE, wrapBundle } from '../../runtime/launch.js';
import { bundle } from './bundle.js';

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

/** Bundles the service written in `serviceDir` and writes its code cache; throws on any bundler warning. */
export async function bundleService(serviceDir: string): Promise<void> {
  const bundleFile = path.join(serviceDir, BUNDLE_FILE);
  const source = await bundle({
    entry: {
      contents: "export { startService } from './runtime/index.js';\nexport { service } from './service.js';\n",
      resolveDir: serviceDir,
    },
    outFile: bundleFile,
    unbundled: UNBUNDLED_PACKAGES,
  });
  fs.mkdirSync(path.dirname(bundleFile), { recursive: true });
  fs.writeFileSync(bundleFile, source);
  // Compiling (without running) is enough: the cache then holds every function V8 compiles
  // eagerly, which measured as fast a start as a cache taken after serving a request.
  const cache = new Script(wrapBundle(source), { filename: bundleFile }).createCachedData();
  fs.writeFileSync(path.join(serviceDir, CODE_CACHE_FILE), cache);
}
