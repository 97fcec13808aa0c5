/**
 * `node runtime/code-cache.js`: makes the V8 code cache of the service's bundle (bundle/) for the
 * Node.js version and flags that run it. `pipec build` runs it on the build machine; the
 * Dockerfile of `pipec build --container` runs it inside the image, for the image's own Node.js.
 *
 * The cache is taken once the bundle's top level has run (its modules defined, nothing started),
 * in a process of its own so that no service code runs inside pipec. A cache of the bundle only
 * compiled (not run) starts as fast, but measured ≈ 1.5–4 % more CPU per request under load for as
 * long as the service runs; this one does not.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_FILE, CODE_CACHE_FILE, runBundle } from './launch.js';

/** Writes bundle/service.cjs.cache of the service in `serviceDir`. */
export function writeCodeCache(serviceDir: string): void {
  const loaded = runBundle(path.join(serviceDir, BUNDLE_FILE), '', (specifier) => import(specifier));
  writeFileSync(path.join(serviceDir, CODE_CACHE_FILE), loaded.script.createCachedData());
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // runtime/code-cache.js lives in the service's runtime/ folder.
  writeCodeCache(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
  // Whatever the service's modules scheduled at load (none should) must not keep this process alive.
  process.exit(0);
}
