/**
 * Diagnostics are data: every phase returns them as values, never throws them.
 * Codes and titles come from the catalogue in codes.ts; prose stays with the phase that knows the facts.
 */
import type { Span } from '../source/span.js';
import type { DiagnosticCode } from './codes.js';

export type Severity = 'error' | 'warning';

export interface Label {
  readonly span: Span;
  readonly message: string;
}

export interface Diagnostic {
  /** Stable code from codes.ts, e.g. 'PIPE3001'. */
  readonly code: DiagnosticCode;
  readonly severity: Severity;
  /** Terse title from codes.ts; never contains user names. */
  readonly title: string;
  /** One sentence naming the user's things: "unknown parameter `max-tokens` for connector `agent`". */
  readonly message: string;
  /** The smallest wrong thing, with one short phrase under the caret. */
  readonly primary: Label;
  /** Related places ("first declared here"). */
  readonly secondary: readonly Label[];
  /** Paragraphs and indented blocks (expected / found / candidates). */
  readonly body: readonly string[];
  /** One actionable sentence, or nothing. */
  readonly hint?: string;
}

export interface Result<T> {
  readonly value: T;
  readonly diagnostics: readonly Diagnostic[];
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}
