/** Machine rendering: `{ file, line, column, endLine, endColumn, severity, code, message, hint }`, 1-based. */
import type { Diagnostic } from './diagnostic.js';
import type { SourceFile } from '../source/source-file.js';

export interface JsonDiagnostic {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  readonly severity: string;
  readonly code: string;
  readonly title: string;
  readonly message: string;
  readonly label?: string;
  readonly hint?: string;
}

export function toJsonDiagnostic(
  d: Diagnostic,
  files: (file: string) => SourceFile | undefined,
  displayPath: (f: string) => string = (f) => f,
): JsonDiagnostic {
  const source = files(d.primary.span.file);
  const start = source?.positionOf(d.primary.span.start) ?? { line: 1, column: 1 };
  const end = source?.positionOf(d.primary.span.end) ?? start;
  return {
    file: displayPath(d.primary.span.file),
    line: start.line,
    column: start.column,
    endLine: end.line,
    endColumn: end.column,
    severity: d.severity,
    code: d.code,
    title: d.title,
    message: d.message,
    ...(d.primary.message ? { label: d.primary.message } : {}),
    ...(d.hint !== undefined ? { hint: d.hint } : {}),
  };
}
