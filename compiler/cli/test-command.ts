/**
 * `pipec test [files|dirs]... [--coverage] [--format text|json]`: runs the `test` blocks of the
 * given files (`*.test.pipe` and tests beside pipelines) in this process. It compiles the pipelines
 * and tests together, builds the service into a temporary folder, loads it with the runner from
 * that service's own copy of the runtime (one set of classes), runs every test on fresh temporary
 * backends with its mocks, prints ✓/✗ per test, the failures and a summary, and exits 0 only when
 * every test passed. The IO of the feature is here; checking and reporting are pure modules.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { compile } from '../compile.js';
import { inputMissing, inputUnreadable, noPipeFiles } from './errors.js';
import { hasErrors, type Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { toJsonDiagnostic } from '../../base/diagnostics/render-json.js';
import { renderReport, renderTestLine } from '../testing/report.js';
import type { ServiceDefinition } from '../../runtime/service/create-service.js';
import type { RunSuiteOptions, SuiteResult } from '../../runtime/testing/run-tests.js';
import type { TestSuite } from '../../runtime/testing/test-plan.js';
import { displayPath, inputsOutsideRoot, printDiagnostics, type Output } from './compile-files.js';
import { importModule } from '../import-module.js';
import type { Command } from './pipec.js';
import type { ConnectorRegistry } from '../connectors/connector-registry.js';
import { loadRegistry } from '../connectors/load-registry.js';
import {
  findPipeFiles,
  projectHost,
  projectRoots,
  projectSourcePath,
  readSource,
  runtimeDependencies,
} from '../project-files.js';

export interface TestRunOptions {
  readonly inputs: readonly string[];
  readonly coverage: boolean;
  readonly format: 'text' | 'json';
  readonly color: boolean;
  /** The connectors and triggers to test with (default: pipec's own). */
  readonly registry?: ConnectorRegistry;
  /** The project folder (`--root`); default the folders of the inputs. */
  readonly root?: string;
}

export function testCommand(): Record<string, Command> {
  return {
    test: {
      summary: 'Run the `test` blocks of .pipe files (mocks, expectations, coverage)',
      usage:
        'pipec test [files|dirs]... [--root DIR] [--coverage] [--format text|json] [--color auto|always|never]' +
        '   (default: the current folder)',
      options: {
        coverage: { type: 'boolean' },
        root: { type: 'string' },
        format: { type: 'string', default: 'text' },
        color: { type: 'string', default: 'auto' },
        help: { type: 'boolean', short: 'h' },
      },
      help: [
        'Reads the .pipe files (including *.test.pipe, which check/build/run ignore), checks the `test "…" { … }`',
        'blocks against the pipelines and runs each test in this process: no server, no network. Each test gets a',
        'fresh service on its own temporary SQLite store and queue; steps run for real except those it mocks.',
        '`rest` steps and `agent` steps with a real model (or MCP tools) must be mocked. Events published are',
        'recorded, not delivered. With --coverage, prints per pipeline the steps run and the choice branches taken.',
        'Exit code: 0 when every test passed, 1 when a test failed or the files have errors, 2 on bad usage.',
        'See docs/testing.md.',
      ].join('\n'),
      async run(values, positionals, output) {
        const format = values['format'] === 'json' ? 'json' : values['format'] === 'text' ? 'text' : undefined;
        if (!format) {
          output.err(`usage: ${this.usage}`);
          return 2;
        }
        return runPipeTests(
          {
            inputs: positionals.length > 0 ? positionals : ['.'],
            coverage: values['coverage'] === true,
            format,
            color: wantsColor(values['color']),
            ...(typeof values['root'] === 'string' ? { root: values['root'] } : {}),
          },
          output,
        );
      },
    },
  };
}

function wantsColor(value: unknown): boolean {
  if (value === 'always') return true;
  if (value === 'never') return false;
  return Boolean(process.stdout.isTTY) && !process.env['NO_COLOR'];
}

/** The runner module inside a built service (runtime/testing/index.ts, compiled). */
interface RunnerModule {
  runTestSuite(def: ServiceDefinition, suite: TestSuite, opts: RunSuiteOptions): Promise<SuiteResult>;
}

export async function runPipeTests(opts: TestRunOptions, output: Output): Promise<number> {
  const started = performance.now();
  const registry = opts.registry ?? (await loadRegistry());
  const compiled = compileWithTests(opts.inputs, registry, opts.root);
  // JSON: one document with the diagnostics and the results, for CI tools.
  const diagnosticsJson = compiled.diagnostics.map((d) =>
    toJsonDiagnostic(d, (f) => compiled.sources.get(f), displayPath),
  );
  const printJson = (rest: object): void =>
    output.out(JSON.stringify({ diagnostics: diagnosticsJson, ...rest }, null, 2));
  if (opts.format === 'text') printDiagnostics(compiled, 'text', output, opts.color);
  if (hasErrors(compiled.diagnostics) || !compiled.files) {
    if (opts.format === 'text') output.err('No tests were run: fix the errors above first.');
    else printJson({ tests: [], coverage: [] });
    return 1;
  }
  const suite = compiled.tests;
  if (!suite || suite.tests.length === 0) {
    if (opts.format === 'text')
      output.err(
        `No tests found in ${opts.inputs.map((i) => `\`${i}\``).join(', ')} (write \`test "…" { … }\` blocks, e.g. in a *.test.pipe file).`,
      );
    else printJson({ tests: [], coverage: [] });
    return 1;
  }
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pipec-test-'));
  try {
    const outDir = path.join(workDir, 'service');
    // Imported here: build-command (and the bundler behind it) is not needed by the other commands.
    const { writeService } = await import('./build-command.js');
    writeService(outDir, compiled.files, registry);
    const definition = (
      (await importModule(pathToFileURL(path.join(outDir, 'service.js')).href)) as { service: ServiceDefinition }
    ).service;
    const runner = (await importModule(
      pathToFileURL(path.join(outDir, 'runtime', 'testing', 'index.js')).href,
    )) as RunnerModule;
    const backendsDir = path.join(workDir, 'data');
    fs.mkdirSync(backendsDir);
    const result = await runner.runTestSuite(definition, suite, {
      workDir: backendsDir,
      ...(opts.format === 'text' ? { onResult: (r) => output.out(renderTestLine(r, { color: opts.color })) } : {}),
    });
    const totalMs = performance.now() - started;
    if (opts.format === 'json') printJson({ ...result, durationMs: Math.round(totalMs) });
    else output.out(renderReport(result, totalMs, { color: opts.color, coverage: opts.coverage }));
    return result.tests.every((t) => t.passed) ? 0 : 1;
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

/** Reads and compiles the inputs with their *.test.pipe files; unreadable inputs are diagnostics. */
function compileWithTests(inputs: readonly string[], registry: ConnectorRegistry, root: string | undefined) {
  const { files, missing } = findPipeFiles(inputs, { tests: true });
  const readErrors: Diagnostic[] = missing.map(inputMissing);
  const roots = projectRoots(inputs, root);
  readErrors.push(...inputsOutsideRoot(files, roots, root));
  const sources: { path: string; text: string }[] = [];
  for (const file of files) {
    const read = readSource(file);
    if ('error' in read) readErrors.push(inputUnreadable(file, displayPath(file), read.error));
    else sources.push({ path: file, text: read.text });
  }
  if (files.length === 0 && missing.length === 0) {
    readErrors.push(noPipeFiles(inputs));
  }
  const result = compile({
    files: sources,
    registry,
    host: projectHost(roots),
    serviceName: 'pipec-test',
    displayPath,
    sourcePath: projectSourcePath(inputs, root),
    emit: readErrors.length === 0,
    dependencies: runtimeDependencies(),
    skipFormat: true,
  });
  return { ...result, diagnostics: [...readErrors, ...result.diagnostics] };
}
