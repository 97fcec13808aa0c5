/**
 * Phase `resolve`, part 1: collects the top-level declarations of every file of one service into
 * name tables, reporting duplicates. All files given to one pipec command form one namespace.
 */
import type {
  AccountDecl,
  CapsuleDecl,
  Decl,
  GlobalDecl,
  PipeFile,
  PipelineDecl,
  SchemaDecl,
  StoreDecl,
} from '../ast/ast.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { declaredTwice } from './errors.js';
import type { Span } from '../../base/source/span.js';

/** A schema known to the service: declared inline, or imported from a JSON file. */
export interface SchemaSymbol {
  readonly name: string;
  readonly nameSpan: Span;
  /** The schema as JSON (imported files are parsed by the host; inline ones converted from the AST). */
  readonly json: unknown;
  readonly decl?: SchemaDecl;
  /** For imported schemas: the file it came from. */
  readonly importedFrom?: string;
}

export interface Declarations {
  readonly pipelines: ReadonlyMap<string, PipelineDecl>;
  readonly schemas: ReadonlyMap<string, SchemaSymbol>;
  readonly accounts: ReadonlyMap<string, AccountDecl>;
  readonly globals: ReadonlyMap<string, GlobalDecl>;
  readonly stores: ReadonlyMap<string, StoreDecl>;
  readonly capsules: ReadonlyMap<string, CapsuleDecl>;
}

export function collectDeclarations(
  files: readonly PipeFile[],
  importedSchemas: readonly SchemaSymbol[],
  inlineSchemaJson: (decl: SchemaDecl) => unknown,
): { value: Declarations; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const pipelines = new Map<string, PipelineDecl>();
  const schemas = new Map<string, SchemaSymbol>();
  const accounts = new Map<string, AccountDecl>();
  const globals = new Map<string, GlobalDecl>();
  const stores = new Map<string, StoreDecl>();
  const capsules = new Map<string, CapsuleDecl>();

  const add = <T extends { nameSpan: Span }>(table: Map<string, T>, what: string, name: string, item: T): void => {
    const previous = table.get(name);
    if (previous) {
      diagnostics.push(declaredTwice(what, name, item.nameSpan, previous.nameSpan));
      return;
    }
    table.set(name, item);
  };

  for (const symbol of importedSchemas) add(schemas, 'schema', symbol.name, symbol);
  for (const file of files) {
    for (const decl of file.decls) addDecl(decl);
  }

  function addDecl(decl: Decl): void {
    switch (decl.kind) {
      case 'pipeline':
        return add(pipelines, 'pipeline', decl.name, decl);
      case 'schema':
        return add(schemas, 'schema', decl.name, {
          name: decl.name,
          nameSpan: decl.nameSpan,
          json: inlineSchemaJson(decl),
          decl,
        });
      case 'account':
        return add(accounts, 'account', decl.name, decl);
      case 'global':
        return add(globals, 'global', decl.name, decl);
      case 'store':
        return add(stores, 'store', decl.name, decl);
      case 'capsule':
        return add(capsules, 'capsule', decl.name, decl);
      case 'import':
        return; // handled by the host before compile (see compile.ts)
    }
  }

  return { value: { pipelines, schemas, accounts, globals, stores, capsules }, diagnostics };
}
