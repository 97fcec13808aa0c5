/**
 * Developer-experience commands: `fmt` (canonical layout), `graph` (Mermaid / SVG diagrams) and
 * `lsp` (the language server over stdio). pipec.ts merges `dxCommands()` into its command table.
 * File-system access happens here; formatting, graph building and the server logic are pure
 * modules under compiler/format, compiler/graph and compiler/lsp.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { PipeFile } from '../ast/ast.js';
import { parseFile } from '../ast/parse-file.js';
import { hasErrors, type Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { renderDiagnostic, renderSummary } from '../../base/diagnostics/render-text.js';
import { formatPipe } from '../format/format.js';
import { toDot, renderWithGraphviz } from '../graph/graphviz.js';
import { buildGraph, pipelineNames, toMermaid, toSvg, type GraphFormat } from '../graph/index.js';
import type { ConnectorRegistry } from '../connectors/connector-registry.js';
import { loadRegistry } from '../connectors/load-registry.js';
import { SourceFile } from '../../base/source/source-file.js';
import { displayPath, type Output } from './compile-files.js';
import type { Command } from './pipec.js';
import { findPipeFiles, readSource } from '../project-files.js';

export function dxCommands(): Record<string, Command> {
  return {
    fmt: {
      summary: 'Format .pipe files in the canonical layout (in place, or --check)',
      usage: 'pipec fmt [--check] [files|dirs]...   (default: the current folder)',
      options: { check: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      help: [
        'Rewrites each file in the one canonical layout: 2-space indentation, one step per line,',
        '`key: value`, objects on one line when they fit in 100 columns (else one entry per line with',
        'trailing commas), a blank line between declarations. Comments, `"""` strings and `{{ }}` text are',
        'kept exactly; the meaning never changes. A file with syntax errors is left alone and its errors are',
        'printed. With --check nothing is written: files that would change are listed and the exit code is 1.',
      ].join('\n'),
      async run(values, positionals, output) {
        return runFmt(positionals.length > 0 ? positionals : ['.'], values['check'] === true, output);
      },
    },
    graph: {
      summary: 'Draw pipelines as a Mermaid or SVG diagram',
      usage:
        'pipec graph <file|dir>... [--format mermaid|svg] [--pipeline NAME] [--out FILE] [--renderer auto|builtin|graphviz]',
      options: {
        format: { type: 'string' },
        pipeline: { type: 'string' },
        out: { type: 'string', short: 'o' },
        renderer: { type: 'string', default: 'auto' },
        help: { type: 'boolean', short: 'h' },
      },
      help: [
        'Draws every pipeline of the given files (a folder means all its .pipe files): trigger, steps,',
        'choice branches labelled with their conditions, try/catch, for-each, on-error, respond/fail; and the',
        'links between pipelines (`execute P`, and `publish X` to the pipelines triggered by event X).',
        '--format defaults to svg when --out ends in .svg, else mermaid (flowchart TD, for READMEs).',
        'SVG is drawn by Graphviz `dot` when installed (--renderer auto), else by the built-in layout;',
        '--renderer builtin always uses the built-in one (deterministic output).',
      ].join('\n'),
      async run(values, positionals, output) {
        if (positionals.length === 0) return usage(this, output);
        const out = typeof values['out'] === 'string' ? values['out'] : undefined;
        const format = values['format'] ?? (out?.endsWith('.svg') ? 'svg' : 'mermaid');
        const renderer = values['renderer'];
        if (
          (format !== 'mermaid' && format !== 'svg') ||
          (renderer !== 'auto' && renderer !== 'builtin' && renderer !== 'graphviz')
        )
          return usage(this, output);
        return runGraph(
          positionals,
          {
            format,
            renderer,
            ...(typeof values['pipeline'] === 'string' ? { pipeline: values['pipeline'] } : {}),
            ...(out ? { out } : {}),
          },
          output,
        );
      },
    },
    lsp: {
      summary: 'Start the .pipe language server (LSP over stdio, for editors)',
      usage: 'pipec lsp [--stdio]',
      options: {
        stdio: { type: 'boolean' },
        clientProcessId: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      help: [
        "Speaks the Language Server Protocol on stdin/stdout: diagnostics as you type (the file's folder is",
        'compiled as one service), hover (connector and parameter docs, Double Braces signatures), completion',
        '(connectors, parameters, functions, trigger kinds, message fields) and go-to-definition (pipelines,',
        'events, stores, accounts, schemas, globals). See docs/developer-experience.md for editor setup.',
      ].join('\n'),
      async run() {
        const { startStdioServer } = await import('../lsp/server.js');
        return startStdioServer();
      },
    },
  };
}

function usage(command: Command, output: Output): number {
  output.err(`usage: ${command.usage}\nRun with --help for details.`);
  return 2;
}

function printFileDiagnostics(diagnostics: readonly Diagnostic[], file: string, text: string, output: Output): void {
  const source = new SourceFile(file, text);
  const rendered = diagnostics.map((d) =>
    renderDiagnostic(d, (f) => (f === file ? source : undefined), { displayPath, color: false }),
  );
  output.err(`${rendered.join('\n\n')}\n\n${renderSummary(diagnostics)}`);
}

/** Formats (or checks) every .pipe file named or found; returns the exit code. */
export function runFmt(inputs: readonly string[], check: boolean, output: Output): number {
  const { files, missing } = findPipeFiles(inputs, { tests: true });
  let failed = missing.length > 0;
  for (const m of missing) output.err(`pipec fmt: no such file or folder: ${m}`);
  let changed = 0;
  for (const file of files) {
    const read = readSource(file);
    if ('error' in read) {
      output.err(`pipec fmt: cannot read ${displayPath(file)}: ${read.error}`);
      failed = true;
      continue;
    }
    const result = formatPipe(file, read.text);
    if (result.text === undefined) {
      printFileDiagnostics(result.diagnostics, file, read.text, output);
      failed = true;
      continue;
    }
    if (result.text === read.text) continue;
    changed++;
    if (check) output.out(displayPath(file));
    else fs.writeFileSync(file, result.text);
  }
  if (!check && changed > 0) output.err(`Formatted ${changed} of ${files.length} file(s).`);
  return failed || (check && changed > 0) ? 1 : 0;
}

interface GraphRun {
  readonly format: GraphFormat;
  readonly renderer: 'auto' | 'builtin' | 'graphviz';
  readonly pipeline?: string;
  readonly out?: string;
  /** The connectors and triggers whose schemas say what links pipelines (default: pipec's own). */
  readonly registry?: ConnectorRegistry;
}

/** Parses the inputs and writes the diagram to --out or stdout; returns the exit code. */
export async function runGraph(inputs: readonly string[], opts: GraphRun, output: Output): Promise<number> {
  const { files, missing } = findPipeFiles(inputs);
  for (const m of missing) output.err(`pipec graph: no such file or folder: ${m}`);
  if (missing.length > 0) return 1;
  if (files.length === 0) {
    output.err(`pipec graph: no .pipe files in ${inputs.join(', ')}`);
    return 1;
  }
  const asts: PipeFile[] = [];
  let failed = false;
  for (const file of files) {
    const read = readSource(file);
    if ('error' in read) {
      output.err(`pipec graph: cannot read ${displayPath(file)}: ${read.error}`);
      failed = true;
      continue;
    }
    const parsed = parseFile(file, read.text);
    if (hasErrors(parsed.diagnostics)) {
      printFileDiagnostics(parsed.diagnostics, file, read.text, output);
      failed = true;
    }
    asts.push(parsed.value);
  }
  if (failed) return 1;
  const names = pipelineNames(asts);
  if (opts.pipeline !== undefined && !names.includes(opts.pipeline)) {
    output.err(
      `pipec graph: no pipeline named \`${opts.pipeline}\`; the files declare: ${names.join(', ') || '(none)'}`,
    );
    return 2;
  }
  const registry = opts.registry ?? (await loadRegistry({ compileParts: false }));
  const graph = buildGraph(asts, registry, opts.pipeline !== undefined ? { pipeline: opts.pipeline } : {});
  let text: string;
  if (opts.format === 'mermaid') text = toMermaid(graph);
  else {
    const viaGraphviz = opts.renderer === 'builtin' ? undefined : renderWithGraphviz(toDot(graph));
    if (viaGraphviz === undefined && opts.renderer === 'graphviz') {
      output.err('pipec graph: Graphviz `dot` is not available (install it, or use --renderer builtin)');
      return 1;
    }
    text = viaGraphviz ?? toSvg(graph);
  }
  if (opts.out) {
    fs.mkdirSync(path.dirname(path.resolve(opts.out)), { recursive: true });
    fs.writeFileSync(opts.out, text);
  } else output.out(text);
  return 0;
}
