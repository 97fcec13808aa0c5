/**
 * Human rendering of diagnostics: header with code, `--> file:line:col`, a code frame with carets
 * under the primary span and dashes under secondary spans, body paragraphs, then the hint.
 *
 *   error[PIPE3001]: unknown parameter `max-tokens` for connector `agent`
 *     --> examples/expenses/expense-validation.pipe:14:5
 *      |
 *   14 |     max-tokens: 1024,
 *      |     ^^^^^^^^^^ did you mean `max-output-tokens`?
 *      |
 *      = hint: …
 */
import type { Diagnostic, Label } from './diagnostic.js';
import type { SourceFile } from '../source/source-file.js';

export interface RenderOptions {
  /** Path shown for a file (e.g. relative to the working directory). */
  readonly displayPath?: (file: string) => string;
  readonly color?: boolean;
}

type FileLookup = (file: string) => SourceFile | undefined;

const ANSI = { red: '\x1b[31;1m', yellow: '\x1b[33;1m', blue: '\x1b[34;1m', bold: '\x1b[1m', reset: '\x1b[0m' };

export function renderDiagnostic(d: Diagnostic, files: FileLookup, opts: RenderOptions = {}): string {
  const paint = (code: keyof typeof ANSI, text: string): string =>
    opts.color ? `${ANSI[code]}${text}${ANSI.reset}` : text;
  const show = opts.displayPath ?? ((f: string) => f);
  const source = files(d.primary.span.file);
  const lines: string[] = [];
  const sevColor = d.severity === 'error' ? 'red' : 'yellow';
  lines.push(`${paint(sevColor, `${d.severity}[${d.code}]`)}${paint('bold', `: ${d.message}`)}`);

  if (!source) {
    lines.push(`  --> ${show(d.primary.span.file)}`);
  } else {
    const pos = source.positionOf(d.primary.span.start);
    const labels = [
      { label: d.primary, primary: true },
      ...d.secondary.filter((l) => l.span.file === d.primary.span.file).map((label) => ({ label, primary: false })),
    ];
    const lineNumbers = labels.map(({ label }) => source.positionOf(label.span.start).line);
    const gutter = String(Math.max(...lineNumbers)).length;
    const pad = ' '.repeat(gutter);
    lines.push(`${pad}${paint('blue', '-->')} ${show(d.primary.span.file)}:${pos.line}:${pos.column}`);
    lines.push(`${pad} ${paint('blue', '|')}`);
    const ordered = labels
      .map((entry, i) => ({ ...entry, line: lineNumbers[i] ?? 1 }))
      .sort((a, b) => a.line - b.line || (a.primary ? -1 : 1));
    let previousLine = -1;
    for (const { label, primary, line } of ordered) {
      if (previousLine !== -1 && line > previousLine + 1) lines.push(`${pad} ${paint('blue', '·')}`);
      if (line !== previousLine) {
        lines.push(
          `${paint('blue', String(line).padStart(gutter))} ${paint('blue', '|')} ${expandTabs(source.lineText(line))}`,
        );
      }
      lines.push(`${pad} ${paint('blue', '|')} ${underline(source, label, primary, paint)}`);
      previousLine = line;
    }
    for (const other of d.secondary.filter((l) => l.span.file !== d.primary.span.file)) {
      const otherSource = files(other.span.file);
      const where = otherSource
        ? `:${otherSource.positionOf(other.span.start).line}:${otherSource.positionOf(other.span.start).column}`
        : '';
      lines.push(`${pad} ${paint('blue', '=')} note: ${other.message} (${show(other.span.file)}${where})`);
    }
    if (d.body.length > 0 || d.hint) lines.push(`${pad} ${paint('blue', '|')}`);
    for (const paragraph of d.body) {
      for (const bodyLine of paragraph.split('\n')) lines.push(`${pad} ${paint('blue', '=')} ${bodyLine}`.trimEnd());
    }
    if (d.hint) lines.push(`${pad} ${paint('blue', '=')} ${paint('bold', 'hint')}: ${d.hint}`);
    return lines.join('\n');
  }
  for (const paragraph of d.body) lines.push(`  = ${paragraph}`);
  if (d.hint) lines.push(`  = hint: ${d.hint}`);
  return lines.join('\n');
}

function underline(
  source: SourceFile,
  label: Label,
  primary: boolean,
  paint: (code: keyof typeof ANSI, text: string) => string,
): string {
  const start = source.positionOf(label.span.start);
  const end = source.positionOf(Math.max(label.span.start, label.span.end));
  const lineText = source.lineText(start.line);
  const prefix = expandTabs(lineText.slice(0, start.column - 1));
  const lastColumn = end.line === start.line ? end.column : lineText.length + 1;
  const width = Math.max(1, expandTabs(lineText.slice(start.column - 1, lastColumn - 1)).length);
  const mark = (primary ? '^' : '-').repeat(width);
  const text = `${' '.repeat(prefix.length)}${paint(primary ? 'red' : 'blue', mark)}${label.message ? ` ${label.message}` : ''}`;
  return text.trimEnd();
}

function expandTabs(text: string): string {
  return text.replace(/\t/g, '    ');
}

/** `2 errors and 1 warning in 1 file.` */
export function renderSummary(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  const files = new Set(diagnostics.map((d) => d.primary.span.file)).size;
  const parts: string[] = [];
  if (errors > 0) parts.push(`${errors} error${errors === 1 ? '' : 's'}`);
  if (warnings > 0) parts.push(`${warnings} warning${warnings === 1 ? '' : 's'}`);
  if (parts.length === 0) return 'No problems found.';
  return `${parts.join(' and ')} in ${files} file${files === 1 ? '' : 's'}.`;
}
