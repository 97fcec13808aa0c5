/**
 * The problems a JSLT query can have past its syntax (PIPE5302–PIPE5310, PIPE5504), prose here:
 * facts in, a `JsltProblem` (code and message) out; codegen.ts and index.ts give it its place in
 * the query. The messages follow the reference implementation's wording, so a query moved from
 * Java reads the same error. Syntax errors (PIPE5300, 5301, 5311) are worded by the parser that
 * finds them (parser.ts, lexer.ts). Codes and titles: base/diagnostics/codes/transform.ts.
 */
import type { DiagnosticCode } from '../../base/diagnostics/codes.js';

export interface JsltProblem {
  readonly code: DiagnosticCode;
  readonly message: string;
  readonly hint?: string;
}

// ───────────────────────────── imports (index.ts) ─────────────────────────────

export function importNotSupported(path: string): JsltProblem {
  return { code: 'PIPE5307', message: `import is not supported: the query imports "${path}"` };
}

export function importedTwice(path: string): JsltProblem {
  return { code: 'PIPE5308', message: `Module '${path}' is already imported` };
}

export function moduleUnreadable(path: string): JsltProblem {
  return { code: 'PIPE5308', message: `Couldn't read resource ${path}` };
}

// ───────────────────────────── the query (codegen.ts) ─────────────────────────────

export function variableDeclaredTwice(name: string): JsltProblem {
  return { code: 'PIPE5304', message: `Duplicate variable declaration ${name}` };
}

export function duplicateObjectKey(key: string): JsltProblem {
  return { code: 'PIPE5305', message: `Invalid object declaration, duplicate key '${key}'` };
}

export function matcherWithDynamicKeys(): JsltProblem {
  return { code: 'PIPE5309', message: 'Object matcher not allowed in objects which have dynamic keys' };
}

/** `where` says what the matcher stands in (`an array`, `a function call`). */
export function matcherMisplaced(where: string): JsltProblem {
  return { code: 'PIPE5306', message: `Object matcher used inside ${where}` };
}

export function wrongArgumentCount(name: string, min: number, max: number, count: number): JsltProblem {
  return { code: 'PIPE5303', message: `Function '${name}' needs ${min}-${max} arguments, got ${count}` };
}

export function noSuchFunction(name: string): JsltProblem {
  return { code: 'PIPE5302', message: `No such function: '${name}'` };
}

/** `detail` is what the regex translator said of the pattern. */
export function regexNeedsBacktracking(pattern: string, detail: string): JsltProblem {
  return { code: 'PIPE5504', message: `The regular expression '${pattern}' needs a backtracking engine: ${detail}` };
}

export function badRegex(pattern: string, detail: string): JsltProblem {
  return { code: 'PIPE5310', message: `Syntax error in regular expression '${pattern}': ${detail}` };
}

/** `suggestion`: the closest known zone (compiler/braces/zones.ts). */
export function unknownZone(zone: string, suggestion: string | undefined): JsltProblem {
  const guess = suggestion === undefined ? '' : `; did you mean '${suggestion}'?`;
  return { code: 'PIPE5550', message: `Unknown timezone ${zone}${guess}` };
}

export function noSuchModule(prefix: string): JsltProblem {
  return { code: 'PIPE5308', message: `No module imported with prefix '${prefix}'` };
}

// ───────────────────────────── shapes (infer-shape.ts) ─────────────────────────────

/** A key read of a closed object without that field: `fields` are its fields, `near` the closest. */
export function fieldNeverThere(key: string, fields: readonly string[], near: string | undefined): JsltProblem {
  const has = fields.length === 0 ? 'no fields' : `only ${fields.map((f) => `\`${f}\``).join(', ')}`;
  return {
    code: 'PIPE5312',
    message: `\`.${key}\` is always null: the value here is a closed object with ${has}`,
    hint:
      near !== undefined
        ? `Did you mean \`.${near}\`?`
        : 'Read a field the shape has, or widen the schema that gives this shape.',
  };
}
