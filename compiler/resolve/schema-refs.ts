/**
 * Schema values in parameters: a bare name refers to a declared or imported schema; an inline
 * object is the schema itself. Returns the schema as JSON, or undefined (with a diagnostic).
 */
import type { Value } from '../ast/ast.js';
import { schemaWithExpression, unknownSchema } from './errors.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import type { Declarations } from './declarations.js';
import type { Span } from '../../base/source/span.js';
import { spanAt, toLiteral, type LiteralInstance } from '../ast/literal.js';

export function resolveSchemaValue(value: Value, decls: Declarations, diagnostics: Diagnostic[]): unknown {
  if (value.kind === 'ident') {
    const symbol = decls.schemas.get(value.name);
    if (symbol) return symbol.json;
    const names = [...decls.schemas.keys()];
    diagnostics.push(unknownSchema(value.name, value.span, names, suggest(value.name, names)));
    return undefined;
  }
  const literal = toLiteral(value);
  if (literal.dynamic.size > 0) {
    diagnostics.push(schemaWithExpression(value.span));
    return undefined;
  }
  return literal.json;
}

/**
 * Where a JSON pointer inside a schema value is in the source: inside the inline value, inside the
 * declared `schema NAME { … }`, or (imported JSON) at the name.
 */
/** Where a JSON pointer of a schema is written; with `onKey`, the key it ends with (where the source has one). */
export type SchemaLocator = (pointer: string, onKey?: boolean) => Span;

export function schemaLocator(value: Value, decls: Declarations): SchemaLocator {
  let target: Value | undefined = value;
  if (value.kind === 'ident') target = decls.schemas.get(value.name)?.decl?.value;
  if (!target) return () => value.span;
  // Converted on the first call only: a locator is made for every use of a schema, but asked
  // only when the schema has a problem.
  const found = target;
  let literal: LiteralInstance | undefined;
  return (pointer: string, onKey?: boolean) => {
    literal ??= toLiteral(found);
    return (onKey ? literal.spans.get(`#key:${pointer}`) : undefined) ?? spanAt(literal, pointer, value.span);
  };
}
