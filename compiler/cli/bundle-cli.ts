/**
 * The pipec CLI as one file with a V8 code cache, so that every `pipec` command starts in about
 * half the time (bin/pipec.js loads it through runtime/launch.ts). `npm run build` runs this after
 * tsc: `node dist/compiler/cli/bundle-cli.js`.
 *
 * The code cache is taken after a training run — `pipec check` of the examples, in this process,
 * output discarded — so it also holds the functions a check compiles lazily (the parser, the
 * checker, ajv's code generator), not only those compiled at load.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chevrotainSingleFile } from '../../grammar/chevrotain-file.js';
import { runBundle } from '../../runtime/launch.js';
import { bundle } from './bundle.js';
import { PACKED_LOCKFILE } from './service-packages.js';
import { UNBUNDLED_PACKAGES } from './bundle-service.js';
import type { Output } from './compile-files.js';

/** Paths of the CLI bundle inside the pipec package. */
export const CLI_BUNDLE_FILE = 'dist/pipec.cjs';
export const CLI_CODE_CACHE_FILE = 'dist/pipec.cjs.cache';

/** The compiler's own heavy or native packages stay in node_modules too. */
const CLI_UNBUNDLED = [
  ...UNBUNDLED_PACKAGES,
  'ts-morph',
  'esbuild',
  'vscode-languageserver',
  'vscode-languageserver-textdocument',
];

export async function bundleCli(packageRoot: string): Promise<{ bundleBytes: number; cacheBytes: number }> {
  const dist = path.join(packageRoot, 'dist');
  const outFile = path.join(packageRoot, CLI_BUNDLE_FILE);
  const source = await bundle({
    entry: { file: path.join(dist, 'compiler', 'cli', 'pipec.js') },
    outFile,
    unbundled: CLI_UNBUNDLED,
    replace: {
      // Top-level await (choosing Chevrotain's single-file build) cannot be CommonJS: bundle that build directly.
      [path.join(dist, 'grammar', 'chevrotain.js')]:
        `export { createToken, CstParser, EOF, Lexer } from ${JSON.stringify(chevrotainSource(packageRoot))};\nexport const loadedFromBundle = true;\n`,
      [path.join(dist, 'compiler', 'import-module.js')]:
        'export function importModule(url) { return __pipecImport(url); }\n',
      [path.join(dist, 'compiler', 'connectors', 'bundled-parts.js')]: bundledPartsSource(dist),
    },
  });
  fs.writeFileSync(outFile, source);
  const cacheFile = path.join(packageRoot, CLI_CODE_CACHE_FILE);
  fs.rmSync(cacheFile, { force: true });
  const loaded = runBundle<{ main: (argv: readonly string[], output: Output) => Promise<number> }>(
    outFile,
    cacheFile,
    (specifier) => import(specifier),
  );
  const examples = path.join(packageRoot, 'examples');
  if (fs.existsSync(examples)) {
    const silent: Output = { out: () => undefined, err: () => undefined };
    const code = await loaded.exports.main(['check', examples], silent);
    if (code !== 0) throw new Error(`the training run (pipec check ${examples}) exited with ${code}`);
  }
  const cache = loaded.script.createCachedData();
  fs.writeFileSync(cacheFile, cache);
  return { bundleBytes: Buffer.byteLength(source), cacheBytes: cache.length };
}

/** The connectors' and triggers' compile-time parts, built in (compiler/connectors/bundled-parts.ts). */
function bundledPartsSource(dist: string): string {
  const parts: string[] = [];
  for (const group of ['connectors', 'triggers']) {
    const base = path.join(dist, 'runtime', group);
    if (!fs.existsSync(base)) continue;
    for (const name of fs.readdirSync(base).sort()) {
      if (fs.existsSync(path.join(base, name, 'compile.js'))) parts.push(`${group}/${name}`);
    }
  }
  const imports = parts.map(
    (part, i) => `import * as part${i} from ${JSON.stringify(path.join(dist, 'runtime', part, 'compile.js'))};`,
  );
  return `${imports.join('\n')}\nexport const BUNDLED_PARTS = new Map([${parts.map((part, i) => `[${JSON.stringify(part)}, part${i}]`).join(', ')}]);\n`;
}

/** Chevrotain's single-file build when the package ships it (see grammar/chevrotain.ts), else its entry. */
function chevrotainSource(packageRoot: string): string {
  const manifest = path.join(packageRoot, 'package.json');
  return chevrotainSingleFile(manifest) ?? createRequire(manifest).resolve('chevrotain');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
  const { bundleBytes, cacheBytes } = await bundleCli(root);
  // npm never packs a package-lock.json; built services pin their versions from this copy.
  fs.copyFileSync(path.join(root, 'package-lock.json'), path.join(root, 'dist', PACKED_LOCKFILE));
  console.error(
    `wrote ${CLI_BUNDLE_FILE} (${Math.round(bundleBytes / 1024)} KB) and its code cache (${Math.round(cacheBytes / 1024)} KB)`,
  );
}
