/** Deterministic diagnostic order: file, start offset, severity (errors first), code, message. */
import type { Diagnostic } from './diagnostic.js';

export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const severityRank = (d: Diagnostic): number => (d.severity === 'error' ? 0 : 1);
  return [...diagnostics].sort(
    (a, b) =>
      compare(a.primary.span.file, b.primary.span.file) ||
      a.primary.span.start - b.primary.span.start ||
      severityRank(a) - severityRank(b) ||
      compare(a.code, b.code) ||
      compare(a.message, b.message),
  );
}

/** Drops exact duplicates (same code, span and message), which recovery can produce. */
export function dedupeDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.code}|${d.primary.span.file}|${d.primary.span.start}|${d.primary.span.end}|${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
