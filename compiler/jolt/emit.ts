/**
 * Shared plumbing of the JOLT code generators: an indented line writer, JS literal quoting, hoisted
 * constants/functions of one compiled chain, and spec diagnostics located through `Locate`.
 */
import { diagnostic } from '../diagnostics/codes.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Span } from '../source/span.js';

export type JsonPath = readonly (string | number)[];
export type Locate = (path: JsonPath, part: 'key' | 'value') => Span;

/** Deepest spec nesting compiled (a spec, unlike input data, is code: deeper means a mistake). */
export const MAX_SPEC_DEPTH = 200;

/** JS source for a string (or other JSON scalar) constant. */
export function lit(value: string | number | boolean | null): string {
  return JSON.stringify(value);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Collects the top-level declarations and diagnostics of one chain compilation. */
export class Program {
  readonly declarations: string[] = [];
  readonly diagnostics: Diagnostic[] = [];
  private counter = 0;
  private readonly reported = new Set<string>();

  constructor(readonly locate: Locate) {}

  /** A fresh identifier with a readable prefix. */
  name(prefix: string): string {
    this.counter += 1;
    return `${prefix}${this.counter}`;
  }

  declare(source: string): void {
    this.declarations.push(source);
  }

  /** Hoists a JSON value (parsed once at load) and returns the constant's name. */
  constant(value: unknown): string {
    const id = this.name('K');
    this.declare(`const ${id} = J.constant(${JSON.stringify(JSON.stringify(value))});`);
    return id;
  }

  /** Source of an expression producing a fresh copy of a spec value. */
  freshValue(value: unknown): string {
    if (value === null || typeof value !== 'object') return lit(value as string | number | boolean | null);
    return `J.copy(${this.constant(value)})`;
  }

  error(code: string, path: JsonPath, part: 'key' | 'value', message: string, hint?: string): void {
    this.report(code, path, part, message, hint, 'error');
  }

  warning(code: string, path: JsonPath, part: 'key' | 'value', message: string): void {
    this.report(code, path, part, message, undefined, 'warning');
  }

  private report(code: string, path: JsonPath, part: 'key' | 'value', message: string, hint: string | undefined, severity: 'error' | 'warning'): void {
    // the same spec element can be emitted in several branches; report it once
    const id = `${code}\u0000${JSON.stringify(path)}\u0000${part}\u0000${message}`;
    if (this.reported.has(id)) return;
    this.reported.add(id);
    this.diagnostics.push(
      diagnostic(code, { message, span: this.locate(path, part), severity, ...(hint !== undefined ? { hint } : {}) }),
    );
  }
}

/** An indented block of generated lines. */
export class Lines {
  private readonly lines: string[] = [];

  add(indent: number, text: string): void {
    this.lines.push(`${'  '.repeat(indent)}${text}`);
  }

  addAll(other: Lines): void {
    this.lines.push(...other.lines);
  }

  toString(): string {
    return this.lines.join('\n');
  }
}

/** Splits a spec key on `|` the way Java's String.split does (trailing empty parts dropped). */
export function splitOr(key: string): string[] {
  const parts = key.split('|');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}
