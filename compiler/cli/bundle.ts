/**
 * One CommonJS file from an ES module graph, for a start with a V8 code cache (runtime/launch.ts
 * runs it): esbuild, with what a vm script needs. Used for built services (bundle-service.ts) and
 * for the pipec CLI itself (bundle-cli.ts).
 *
 * - Packages in `unbundled` stay in node_modules: native ones, ones that read files beside
 *   themselves, and heavy ones loaded only on first use. Every one ships CommonJS, so their
 *   `import('pkg')` becomes a `require('pkg')` behind the same promise.
 * - `import.meta.url` of each bundled module is its own file's URL, computed from the bundle's
 *   location, so a relocated package still finds its files.
 * - `replace` swaps whole modules (a module that imports at run time, or one with top-level await).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Esbuild from 'esbuild';

export interface BundleSpec {
  /** An entry file, or the entry's source with the folder its imports resolve from. */
  readonly entry: { readonly file: string } | { readonly contents: string; readonly resolveDir: string };
  /** Where the bundle will be written (module URLs are relative to it). */
  readonly outFile: string;
  readonly unbundled: readonly string[];
  /** Module file (absolute path) → the source that replaces it in the bundle. */
  readonly replace?: Readonly<Record<string, string>>;
}

/** Bundles; throws on any bundler error or warning (a warning here is a start-up failure later). */
export async function bundle(spec: BundleSpec): Promise<string> {
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof Esbuild;
  const entry =
    'file' in spec.entry
      ? { entryPoints: [spec.entry.file] }
      : {
          stdin: {
            contents: spec.entry.contents,
            resolveDir: spec.entry.resolveDir,
            sourcefile: 'bundle-entry.js',
            loader: 'js' as const,
          },
        };
  const result = await esbuild.build({
    ...entry,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    // No keepNames: it wraps every closure in a `__name` call (Object.defineProperty), which cost
    // ≈ 17 % of a request in the order-flow service; nothing here reads function names.
    logLevel: 'silent',
    define: { 'import.meta.url': '__pipecModuleUrl', 'import.meta.dirname': '__pipecModuleDir' },
    external: [...spec.unbundled],
    plugins: [requireUnbundled(spec.unbundled), moduleSources(spec)],
  });
  const problems = [...result.errors, ...result.warnings];
  if (problems.length > 0) {
    const text = (await esbuild.formatMessages(problems, { kind: 'warning', color: false })).join('\n');
    throw new Error(`bundling failed:\n${text}`);
  }
  const source = result.outputFiles[0]?.text;
  if (source === undefined) throw new Error('bundling produced no output');
  return source;
}

function requireUnbundled(packages: readonly string[]): Esbuild.Plugin {
  const isUnbundled = (specifier: string): boolean =>
    packages.some((p) => specifier === p || specifier.startsWith(`${p}/`));
  return {
    name: 'pipec-require-unbundled',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) =>
        args.kind === 'dynamic-import' && isUnbundled(args.path)
          ? { path: args.path, namespace: 'pipec-unbundled' }
          : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'pipec-unbundled' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});\n`,
        loader: 'js',
      }));
    },
  };
}

/** Replaced modules, and per-module `import.meta.url` / `import.meta.dirname` (see the define above). */
function moduleSources(spec: BundleSpec): Esbuild.Plugin {
  const bundleDir = path.dirname(spec.outFile);
  return {
    name: 'pipec-module-sources',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
        const replacement = spec.replace?.[args.path];
        const text = replacement ?? fs.readFileSync(args.path, 'utf8');
        if (replacement === undefined && !text.includes('import.meta')) return undefined;
        const relative = path.relative(bundleDir, args.path).split(path.sep).join('/');
        const url = `const __pipecModuleUrl = new URL(${JSON.stringify(relative)}, __pipecBundleUrl).href;`;
        const dir = text.includes('import.meta.dirname')
          ? ' const __pipecModuleDir = decodeURIComponent(new URL(".", __pipecModuleUrl).pathname).replace(/\\/$/, "");'
          : '';
        return { contents: `${url}${dir}\n${text}`, loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
}
