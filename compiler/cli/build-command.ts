/**
 * `pipec build <files|dirs> [--out DIR]`: compile and write a standalone service: the generated
 * TypeScript and JavaScript, the runtime it runs on (copied from pipec's compiled runtime), a
 * package.json naming its npm dependencies, and the start-up bundle (bundle-service.ts).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { hasErrors } from '../../base/diagnostics/diagnostic.js';
import { bundleService } from './bundle-service.js';
import { DOCKERIGNORE, dockerfile } from './container.js';
import { compileFiles, displayPath, printDiagnostics, type Output } from './compile-files.js';
import type * as Esbuild from 'esbuild';
import type { ConnectorRegistry } from '../connectors/connector-registry.js';
import { packageRoot, runtimeDependencies } from '../project-files.js';
import { installFromPipec, readPipecLockfile, serviceLockfile, usedPackages } from './service-packages.js';

export interface BuildOptions {
  readonly inputs: readonly string[];
  readonly out?: string;
  readonly name?: string;
  readonly format: 'text' | 'json';
  readonly color: boolean;
  readonly skipFormat?: boolean;
  /** Also write a Dockerfile and .dockerignore (container.ts); needs the bundle. */
  readonly container?: boolean;
  /** Also write bundle/ (one file + V8 code cache) for a fast start; default true. */
  readonly bundle?: boolean;
  /** The connectors and triggers to build with (default: pipec's own). */
  readonly registry?: ConnectorRegistry;
  /** The project folder (`--root`); default the folders of the inputs. */
  readonly root?: string;
}

export interface BuildResult {
  readonly ok: boolean;
  readonly outDir: string;
  readonly fileCount: number;
}

export function defaultServiceName(inputs: readonly string[]): string {
  const first = inputs[0] ?? 'service';
  const base = path.basename(path.resolve(first)).replace(/\.pipe$/, '');
  return base.replace(/[^A-Za-z0-9_-]/g, '-') || 'service';
}

export async function build(opts: BuildOptions, output: Output): Promise<BuildResult> {
  const name = opts.name ?? defaultServiceName(opts.inputs);
  const outDir = path.resolve(opts.out ?? path.join('out', name));
  const result = await compileFiles({
    inputs: opts.inputs,
    emit: true,
    serviceName: name,
    ...(opts.skipFormat ? { skipFormat: true } : {}),
    ...(opts.registry ? { registry: opts.registry } : {}),
    ...(opts.root !== undefined ? { root: opts.root } : {}),
  });
  printDiagnostics(result, opts.format, output, opts.color);
  if (hasErrors(result.diagnostics) || !result.files) {
    if (opts.format === 'text') output.err('Nothing was generated.');
    return { ok: false, outDir, fileCount: 0 };
  }
  writeService(outDir, result.files, opts.registry, 'ship');
  if (opts.bundle !== false) await bundleService(outDir);
  if (opts.container) {
    fs.writeFileSync(path.join(outDir, 'Dockerfile'), dockerfile(name.toLowerCase(), opts.bundle !== false));
    fs.writeFileSync(path.join(outDir, '.dockerignore'), DOCKERIGNORE);
  }
  if (opts.format === 'text') {
    output.err(
      `Built ${result.plan?.pipelines.length ?? 0} pipeline(s) from ${result.inputFiles.length} file(s) into ${displayPath(outDir)} — start it with: node ${displayPath(path.join(outDir, 'server.js'))}`,
    );
  }
  return { ok: true, outDir, fileCount: result.files.length };
}

/**
 * Replaces the generated parts of outDir (never anything else the user put there). Connectors and
 * triggers of `registry` kept outside pipec's runtime/ get their run-time parts copied in too.
 * `ship` (pipec build) makes the service's own package.json, lockfile and node_modules; `link`
 * (a service run in-process by pipec itself: pipec test) links pipec's node_modules, so the
 * service and pipec share one copy of each package.
 */
export function writeService(
  outDir: string,
  files: readonly { path: string; text: string }[],
  registry?: ConnectorRegistry,
  packages: 'ship' | 'link' = 'link',
): void {
  fs.mkdirSync(outDir, { recursive: true });
  for (const generated of ['pipelines', 'capsules', 'validators', 'runtime', 'bundle'])
    fs.rmSync(path.join(outDir, generated), { recursive: true, force: true });
  for (const file of files) {
    const target = path.join(outDir, file.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, file.text);
  }
  copyRuntime(path.join(outDir, 'runtime'));
  if (registry) copyOutsideComponents(path.join(outDir, 'runtime'), registry);
  if (packages === 'ship') shipDependencies(outDir);
  else linkDependencies(outDir);
}

/**
 * The run-time parts of components whose folder is not in pipec's runtime/ (the registry was
 * loaded with other roots): each TypeScript file but the compile-time part and tests, transpiled
 * (esbuild) to `runtime/<group>/<name>/`, where the generated code imports them from.
 */
function copyOutsideComponents(target: string, registry: ConnectorRegistry): void {
  const own = path.join(packageRoot(), 'runtime') + path.sep;
  const outside = [...registry.connectors.values(), ...registry.triggers.values()].filter(
    (s) => s.folder && !s.folder.startsWith(own),
  );
  if (outside.length === 0) return;
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof Esbuild;
  for (const schema of outside) {
    const folder = schema.folder as string;
    const into = path.join(target, schema.kind === 'trigger' ? 'triggers' : 'connectors', schema.name);
    fs.mkdirSync(into, { recursive: true });
    fs.copyFileSync(path.join(folder, 'schema.json'), path.join(into, 'schema.json'));
    for (const file of fs.readdirSync(folder)) {
      if (!file.endsWith('.ts') || file.endsWith('.d.ts') || file.endsWith('.test.ts') || file === 'compile.ts')
        continue;
      const source = fs.readFileSync(path.join(folder, file), 'utf8');
      const js = esbuild.transformSync(source, {
        loader: 'ts',
        format: 'esm',
        target: 'node20',
        sourcefile: file,
      }).code;
      fs.writeFileSync(path.join(into, file.replace(/\.ts$/, '.js')), js);
    }
  }
}

/**
 * The compiled runtime (JavaScript + declarations + connector schemas), without tests and without
 * the compile-time parts of connectors and triggers (compile.js: build-time code, never run there).
 */
const COMPILE_PART = /[\\/](connectors|triggers)[\\/][^\\/]+[\\/]compile\.(js|d\.ts)$/;

function copyRuntime(target: string): void {
  const root = packageRoot();
  const compiled = path.join(root, 'dist', 'runtime');
  if (!fs.existsSync(compiled))
    throw new Error(`the compiled runtime is missing (${compiled}); run \`npm run build\` in ${root}`);
  fs.cpSync(compiled, target, {
    recursive: true,
    filter: (src) =>
      !/\.test\.(js|d\.ts)$/.test(src) && !src.includes(`${path.sep}test-support`) && !COMPILE_PART.test(src),
  });
  // Connector schemas are data the runtime may read (documentation, MCP input schemas).
  const sourceRuntime = path.join(root, 'runtime');
  for (const group of ['connectors', 'triggers']) {
    const base = path.join(sourceRuntime, group);
    if (!fs.existsSync(base)) continue;
    for (const name of fs.readdirSync(base)) {
      const schema = path.join(base, name, 'schema.json');
      if (fs.existsSync(schema)) {
        fs.mkdirSync(path.join(target, group, name), { recursive: true });
        fs.copyFileSync(schema, path.join(target, group, name, 'schema.json'));
      }
    }
  }
}

/**
 * The service's package.json names only the packages it loads (service-packages.ts), with
 * pipec's ranges, and its package-lock.json pins the versions of pipec's own lockfile. Unless its
 * folder already sees installed packages (built inside a project that has them), its
 * node_modules is made from pipec's installed packages, so it starts as built; elsewhere,
 * `npm ci --omit=dev` installs the same tree.
 */
function shipDependencies(outDir: string): void {
  const root = packageRoot();
  const manifestFile = path.join(outDir, 'package.json');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as {
    name: string;
    version?: string;
    dependencies?: Record<string, string>;
  };
  const ranges = runtimeDependencies(root);
  const dependencies: Record<string, string> = {};
  for (const name of usedPackages(outDir)) {
    const range = ranges[name];
    if (range === undefined)
      throw new Error(`the service loads the package ${name}, which is not a dependency of pipec`);
    dependencies[name] = range;
  }
  const version = manifest.version ?? '0.0.0';
  const updated = { ...manifest, version, dependencies };
  fs.writeFileSync(manifestFile, `${JSON.stringify(updated, null, 2)}\n`);
  const lock = serviceLockfile(readPipecLockfile(root), manifest.name, version, dependencies);
  const lockText = `${JSON.stringify(lock, null, 2)}\n`;
  fs.writeFileSync(path.join(outDir, 'package-lock.json'), lockText);
  const modules = path.join(outDir, 'node_modules');
  const stat = fs.lstatSync(modules, { throwIfNoEntry: false });
  // A link into pipec's tree (what builds before this one made) is replaced by the real thing.
  if (stat?.isSymbolicLink()) fs.unlinkSync(modules);
  else if (!stat && canResolve(outDir, 'hono')) return;
  // npm's own record of what node_modules holds: unchanged, nothing to copy again.
  const hidden = path.join(modules, '.package-lock.json');
  if (fs.existsSync(hidden) && fs.readFileSync(hidden, 'utf8') === lockText) return;
  const missing = installFromPipec(outDir, lock, root);
  if (missing.length > 0) return;
  fs.writeFileSync(hidden, lockText);
}

/** For a service pipec runs in its own process: pipec's packages, shared, through a link. */
function linkDependencies(outDir: string): void {
  if (canResolve(outDir, 'hono')) return;
  const link = path.join(outDir, 'node_modules');
  if (fs.existsSync(link)) return;
  fs.symlinkSync(path.join(packageRoot(), 'node_modules'), link, 'dir');
}

function canResolve(from: string, pkg: string): boolean {
  let dir = from;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'node_modules', pkg, 'package.json'))) return true;
    const parent = path.dirname(dir);
    if (parent === dir) return false;
    dir = parent;
  }
}
