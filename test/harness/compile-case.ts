/**
 * Compiles .pipe files the way the CLI does (real connector registry, real file reads for imports)
 * and renders diagnostics without colour, with paths relative to a base folder: what goldens hold.
 */
import fs from 'node:fs';
import path from 'node:path';
import { compile, type CompileResult } from '../../compiler/compile.js';
import { loadRegistry } from '../../compiler/connectors/load-registry.js';
import { projectHost, projectRoots } from '../../compiler/project-files.js';
import { renderDiagnostic, renderSummary } from '../../base/diagnostics/render-text.js';

const registry = await loadRegistry();

export function compileForTest(
  files: readonly string[],
  opts: { base: string; emit?: boolean; serviceName?: string },
): CompileResult {
  const relative = (f: string) => path.relative(opts.base, f).split(path.sep).join('/');
  return compile({
    files: files.map((f) => ({ path: f, text: fs.readFileSync(f, 'utf8') })),
    registry,
    // As the CLI does: imports stay inside the folders of the files given.
    host: projectHost(projectRoots(files)),
    displayPath: relative,
    emit: opts.emit ?? false,
    serviceName: opts.serviceName ?? 'service',
    dependencies: {},
  });
}

export function renderForGolden(result: CompileResult, base: string): string {
  const relative = (f: string) => path.relative(base, f).split(path.sep).join('/');
  const lookup = (f: string) => result.sources.get(f);
  if (result.diagnostics.length === 0) return 'No problems found.\n';
  const rendered = result.diagnostics.map((d) => renderDiagnostic(d, lookup, { displayPath: relative, color: false }));
  return `${rendered.join('\n\n')}\n\n${renderSummary(result.diagnostics)}\n`;
}
