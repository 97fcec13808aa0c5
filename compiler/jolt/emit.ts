/**
 * Shared plumbing of the JOLT code generators: an indented line writer, JS literal quoting, hoisted
 * constants/functions of one compiled chain (including per-key map readers, so that each read site
 * has its own monomorphic property access instead of sharing one megamorphic helper), and spec
 * diagnostics located through `Locate`.
 */
import { diagnostic } from '../../base/diagnostics/codes.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { Span } from '../../base/source/span.js';
import type { JoltProblem } from './errors.js';

export type JsonPath = readonly (string | number)[];
export type Locate = (path: JsonPath, part: 'key' | 'value') => Span;
/** Names where a span is for a reader of generated code: `orders.pipe:12`. */
export type SourceLine = (span: Span) => string;

/** Deepest spec nesting compiled (a spec, unlike input data, is code: deeper means a mistake). */
export const MAX_SPEC_DEPTH = 200;

/** JS source for a string (or other JSON scalar) constant. */
export function lit(value: string | number | boolean | null): string {
  return JSON.stringify(value);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * A key that generated code may read and assign with plain `o[key]` on an ordinary object: not a
 * name inherited from Object.prototype (a read would find the inherited member) and not `__proto__`
 * (an assignment would set the prototype).
 */
export function plainKey(key: string): boolean {
  return !(key in Object.prototype) && key !== '__proto__';
}

/** Names generated code uses to read a map key (see Program.readMap). */
export interface ReadNames {
  /** Source of an expression reading literal `key` of the map `tree` evaluates to (J.N when absent). */
  readMap(tree: string, key: string): string;
}

/** Collects the top-level declarations and diagnostics of one chain compilation. */
export class Program implements ReadNames {
  readonly declarations: string[] = [];
  readonly diagnostics: Diagnostic[] = [];
  private counter = 0;
  private readonly reported = new Set<string>();
  private readonly readers = new Map<string, string>();

  constructor(
    readonly locate: Locate,
    /** When given, the comments of generated code say on which line of the .pipe file each spec entry is. */
    private readonly sourceLine?: SourceLine,
  ) {}

  /**
   * A comment showing the spec entry at `path` as written, and its line when known:
   * `// orders.pipe:12 "sku": "lines[&1].code"` (an object value shows as `{ … }`).
   */
  specLine(path: JsonPath, rhs: unknown): string {
    const key = path[path.length - 1];
    const isObject = rhs !== null && typeof rhs === 'object' && !Array.isArray(rhs);
    const value = isObject ? '{ … }' : clip(JSON.stringify(rhs) ?? 'null');
    const where = this.sourceLine ? `${this.sourceLine(this.locate(path, 'key'))} ` : '';
    return `// ${where}${clip(JSON.stringify(String(key)))}: ${value}`;
  }

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

  /**
   * A hoisted reader of one literal map key (`@(1,name)` steps): a small function per key keeps the
   * property load monomorphic where a shared `J.gm(t, k)` sees every key and shape of the chain.
   * Keys that are not plain (inherited names, `__proto__`) go through J.gm's own-property check.
   */
  readMap(tree: string, key: string): string {
    if (!plainKey(key)) return `J.gm(${tree}, ${lit(key)})`;
    let name = this.readers.get(key);
    if (name === undefined) {
      name = this.name('get');
      this.readers.set(key, name);
      this.declare(
        `/** reads ${lit(key).replace(/\*\//g, '*\\/')} of a map (J.N when absent or not a map) */\n` +
          `function ${name}(tree) {\n` +
          `  if (tree === null || typeof tree !== "object" || Array.isArray(tree)) return J.N;\n` +
          `  const value = tree[${lit(key)}];\n` +
          `  return value === undefined ? J.N : value;\n` +
          `}`,
      );
    }
    return `${name}(${tree})`;
  }

  /**
   * A hoisted argument list reused by one modify call site (`slots` are its initial values: the
   * literal arguments). Only for stock functions, which neither keep nor change their argument list
   * (see KEEPS_ARGUMENTS), and run synchronously without calling back into generated code.
   */
  argumentList(slots: readonly string[]): string {
    const id = this.name('A');
    this.declare(`const ${id} = [${slots.join(', ')}];`);
    return id;
  }

  /** Source of an expression producing a fresh copy of a spec value. */
  freshValue(value: unknown): string {
    if (value === null || typeof value !== 'object') return lit(value as string | number | boolean | null);
    return `J.copy(${this.constant(value)})`;
  }

  /** Reports a problem (errors.ts) at the key or the value of the spec entry at `path`. */
  error(problem: JoltProblem, path: JsonPath, part: 'key' | 'value'): void {
    this.report(problem, path, part, 'error');
  }

  warning(problem: JoltProblem, path: JsonPath, part: 'key' | 'value'): void {
    this.report(problem, path, part, 'warning');
  }

  private report(problem: JoltProblem, path: JsonPath, part: 'key' | 'value', severity: 'error' | 'warning'): void {
    const { code, message, hint } = problem;
    // the same spec element can be emitted in several branches; report it once
    const id = `${code}\u0000${JSON.stringify(path)}\u0000${part}\u0000${message}`;
    if (this.reported.has(id)) return;
    this.reported.add(id);
    this.diagnostics.push(
      diagnostic(code, { message, span: this.locate(path, part), severity, ...(hint !== undefined ? { hint } : {}) }),
    );
  }
}

/** At most 60 characters of a spec text (`…` marks a cut). */
function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/** An indented block of generated lines. */
export class Lines {
  private readonly lines: string[] = [];

  /** Adds a line (an empty text adds nothing: optional statements may come out empty). */
  add(indent: number, text: string): void {
    if (text === '') return;
    this.lines.push(`${'  '.repeat(indent)}${text}`);
  }

  addAll(other: Lines): void {
    this.lines.push(...other.lines);
  }

  get empty(): boolean {
    return this.lines.length === 0;
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
