/**
 * Checks of the service-level declarations that no pipeline step checks for them: every declared
 * or imported schema (also one no pipeline uses yet) must compile, with no `{{ }}` or env() in a
 * declared one (a schema is compiled at build time: an expression would be baked in as text), and
 * every `store NAME { … }` declaration is checked against the Object Store's declaration schema
 * (runtime/connectors/store/schema.json, `declaration`) like a step's parameters.
 */
import type { StoreDecl } from '../ast/ast.js';
import type { ConnectorRegistry, ConnectorSchema } from '../connectors/connector-registry.js';
import { expressionInSchema } from './errors.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { Declarations } from '../resolve/declarations.js';
import { checkParams, type ParamValidators } from './check-params.js';
import { schemaDiagnostics } from './context.js';
import { detectDraft, type SchemaCompiler } from './json-schema.js';
import { entryOf, toLiteral } from '../ast/literal.js';
import { schemaLocator } from '../resolve/schema-refs.js';

export function checkSchemaDeclarations(decls: Declarations, schemas: SchemaCompiler): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const symbol of decls.schemas.values()) {
    if (symbol.decl) {
      const literal = toLiteral(symbol.decl.value);
      if (literal.dynamic.size > 0) {
        for (const pointer of literal.dynamic) {
          out.push(expressionInSchema(symbol.name, literal.spans.get(pointer) ?? symbol.decl.value.span));
        }
        continue;
      }
    }
    const draft = detectDraft(symbol.json) ?? 'draft-07';
    const outcome = schemas.compile(symbol.json, draft);
    const problems = outcome.ok ? outcome.findings : outcome.problems;
    if (problems.length === 0) continue;
    const value = symbol.decl?.value;
    const locate = value ? schemaLocator(value, decls) : undefined;
    out.push(...schemaDiagnostics(problems, draft, value?.span ?? symbol.nameSpan, locate));
  }
  return out;
}

/** The Object Store's declaration schema as a parameter schema (what checkParams takes). */
function declarationSchema(registry: ConnectorRegistry): ConnectorSchema | undefined {
  const store = registry.connectors.get('store');
  const params = store?.declaration;
  return store && params ? { name: 'store', kind: 'connector', summary: store.summary, params } : undefined;
}

export function checkStoreDeclarations(
  decls: Declarations,
  registry: ConnectorRegistry,
  validators: ParamValidators,
): Diagnostic[] {
  const schema = declarationSchema(registry);
  if (!schema) return [];
  const out: Diagnostic[] = [];
  for (const decl of decls.stores.values()) {
    if (!decl.options) continue;
    const checked = checkParams(
      schema,
      decl.options,
      {},
      { what: 'store declaration', name: decl.name, nameSpan: decl.nameSpan },
      validators,
    );
    out.push(...checked.diagnostics);
  }
  return out;
}

/** `expire-after` of a store declaration in seconds, rounded up (a duration, or a number of milliseconds). */
export function storeExpireSeconds(decl: StoreDecl | undefined): number | undefined {
  const expire = entryOf(decl?.options, 'expire-after');
  const ms = expire?.kind === 'duration' ? expire.ms : expire?.kind === 'number' ? expire.value : undefined;
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}

/** A declared index of a store (`store NAME { indexes: [{ fields: { status: 1 }, unique: true }] }`). */
export interface DeclaredIndex {
  readonly fields: Readonly<Record<string, 1 | -1>>;
  readonly unique?: boolean;
}

/** `indexes` of a store declaration (checked against the declaration schema before it is used). */
export function storeIndexes(decl: StoreDecl | undefined): DeclaredIndex[] | undefined {
  const value = entryOf(decl?.options, 'indexes');
  if (value === undefined) return undefined;
  const literal = toLiteral(value);
  if (literal.dynamic.size > 0 || !Array.isArray(literal.json)) return undefined;
  return literal.json as unknown as DeclaredIndex[];
}
