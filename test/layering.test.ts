/**
 * The layering of the house (docs/architecture.md), checked over the import graph of the sources:
 * every `import`/`export … from`/`import()` of base/, grammar/, compiler/ and runtime/ (tests and
 * test support excluded) is parsed with the TypeScript parser and judged by the rules below. A
 * new import that breaks a rule fails here, naming the file, the import and the rule.
 *
 *   base/        spans, sources, diagnostics          → nothing of ours
 *   grammar/     the .pipe language (Chevrotain)      → base/
 *   compiler/    the phases (cli/ excepted)           → base/, grammar/, compiler/ (not cli/), and of the
 *                runtime only the code build time and run time share (see SHARED_WITH_RUNTIME),
 *                or types
 *   compiler/cli the edge: files, processes, commands → anything; nothing imports it
 *   runtime/     what services run on                → runtime/ only, never a compile-time part
 *   compile-time parts (runtime/{connectors,triggers}/<name>/compile.ts)
 *                → the compiler's hook API as types only, other compile-time parts, packages
 *
 * Inside the compiler, the phases (compiler/README.md): ast/ imports no later phase, resolve/ none
 * of check/, lower/, codegen/; lower/ imports check/ for types only (check calls lower).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const LAYERS = ['base', 'grammar', 'compiler', 'runtime'];

/**
 * The one dependency of the compiler on the runtime: what build time and run time must share to
 * agree — the embedded languages' helpers (Double Braces, JOLT, JSLT, JSONPath: one implementation
 * of their functions, date and number patterns and Java semantics; the RE2 pattern translator, so
 * a pattern refused at build time is the one that would run; the Object Store's query parser, whose
 * operators the store step's query is checked against), the error type they throw, and the
 * test plan's keys (the compiler writes them, the runner reads them).
 */
const SHARED_WITH_RUNTIME = [
  /^runtime\/braces\//,
  /^runtime\/jolt\//,
  /^runtime\/jslt\//,
  /^runtime\/jsonpath(-filter)?\.ts$/,
  /^runtime\/regex\//,
  /^runtime\/backends\/query\/filter\.ts$/,
  /^runtime\/backends\/json-safe\.ts$/,
  /^runtime\/errors\.ts$/,
  /^runtime\/testing\/test-plan\.ts$/,
];
const HOOK_API = 'compiler/connectors/hook-api.ts';
const COMPILE_PART = /^runtime\/(connectors|triggers)\/[^/]+\/compile\.ts$/;

interface Import {
  readonly from: string;
  /** Repository-relative path of the imported source file; undefined for packages and node builtins. */
  readonly to: string | undefined;
  readonly specifier: string;
  readonly typeOnly: boolean;
}

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'test-support') walk(full);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts'))
        files.push(full);
    }
  };
  for (const layer of LAYERS) walk(path.join(ROOT, layer));
  return files;
}

function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = path.resolve(path.dirname(fromFile), specifier).replace(/\.js$/, '.ts');
  return path.relative(ROOT, target).split(path.sep).join('/');
}

function importsOf(file: string): Import[] {
  const text = fs.readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const from = path.relative(ROOT, file).split(path.sep).join('/');
  const found: Import[] = [];
  const add = (specifier: string, typeOnly: boolean): void => {
    found.push({ from, to: resolveSpecifier(file, specifier), specifier, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named =
        clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (!clause.name && named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier.text, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node.argument.literal.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Why an import breaks the layering, or undefined when it is allowed. */
export function violation(imp: Import): string | undefined {
  const { from, to } = imp;
  if (to === undefined) return undefined; // packages and node builtins
  const layer = (p: string): string => p.split('/')[0] ?? '';
  const isCli = (p: string): boolean => p.startsWith('compiler/cli/');
  if (isCli(to) && !isCli(from)) return 'nothing imports the CLI (compiler/cli/ is the edge)';
  if (COMPILE_PART.test(from)) {
    if (COMPILE_PART.test(to)) return undefined;
    if (to === HOOK_API && imp.typeOnly) return undefined;
    return `a compile-time part imports only \`import type\` from ${HOOK_API} (its services come through \`api\`), other compile-time parts and packages`;
  }
  if (COMPILE_PART.test(to))
    return 'compile-time parts are found by the registry loader, never imported (the runtime must not carry them)';
  switch (layer(from)) {
    case 'base':
      return layer(to) === 'base' ? undefined : 'base/ stands below everything: it imports nothing of ours';
    case 'grammar':
      return ['base', 'grammar'].includes(layer(to)) ? undefined : 'grammar/ imports only base/';
    case 'runtime':
      return layer(to) === 'runtime'
        ? undefined
        : 'the runtime is copied into every service: it imports nothing of the compiler';
    case 'compiler':
      if (isCli(from)) return undefined;
      if (phaseOf(from) !== undefined && layer(to) === 'compiler')
        return phaseViolation(phaseOf(from) as string, phaseOf(to), imp.typeOnly);
      if (['base', 'grammar', 'compiler'].includes(layer(to))) return undefined;
      if (layer(to) === 'runtime' && (imp.typeOnly || SHARED_WITH_RUNTIME.some((r) => r.test(to)))) return undefined;
      return 'the compiler uses of the runtime only what build and run time share (SHARED_WITH_RUNTIME) and its types';
    default:
      return undefined;
  }
}

/** The phase folder of a compiler file (`compiler/check/x.ts` → `check`). */
function phaseOf(p: string): string | undefined {
  const match = /^compiler\/(ast|resolve|check|lower|codegen)\//.exec(p);
  return match?.[1];
}

const LATER: Readonly<Record<string, readonly string[]>> = {
  ast: ['resolve', 'check', 'lower', 'codegen'],
  resolve: ['check', 'lower', 'codegen'],
  lower: ['codegen'],
  check: ['codegen'],
};

function phaseViolation(from: string, to: string | undefined, typeOnly: boolean): string | undefined {
  if (to === undefined) return undefined;
  if (LATER[from]?.includes(to)) return `phase ${from}/ comes before ${to}/ and does not import it`;
  if (from === 'lower' && to === 'check' && !typeOnly)
    return 'lower/ is called by check/: it imports check/ for types only';
  return undefined;
}

const imports = sourceFiles().flatMap(importsOf);

describe('layering of the house (docs/architecture.md)', () => {
  it('reads the import graph', () => {
    expect(imports.length).toBeGreaterThan(500);
    expect(imports.some((i) => i.from === 'compiler/compile.ts' && i.to === 'compiler/check/check-program.ts')).toBe(
      true,
    );
  });

  it('every import follows the rules', () => {
    const broken = imports
      .map((imp) => ({ imp, why: violation(imp) }))
      .filter((v) => v.why !== undefined)
      .map(({ imp, why }) => `${imp.from} imports '${imp.specifier}'${imp.typeOnly ? ' (types)' : ''}: ${why}`);
    expect(broken).toEqual([]);
  });

  it('fails on the imports the rules forbid', () => {
    const imp = (from: string, to: string, typeOnly = false): Import => ({ from, to, specifier: to, typeOnly });
    expect(violation(imp('grammar/parse.ts', 'compiler/ast/ast.ts', true))).toBeDefined();
    expect(violation(imp('base/source/span.ts', 'grammar/tokens.ts'))).toBeDefined();
    expect(violation(imp('compiler/lsp/server.ts', 'compiler/cli/project-files.ts'))).toBeDefined();
    expect(violation(imp('runtime/service/create-service.ts', 'compiler/compile.ts', true))).toBeDefined();
    expect(violation(imp('runtime/service/create-service.ts', 'runtime/triggers/http/compile.ts'))).toBeDefined();
    expect(violation(imp('compiler/check/check-steps.ts', 'runtime/connectors/jolt/compile.ts'))).toBeDefined();
    expect(violation(imp('compiler/check/check-steps.ts', 'runtime/service/execution.ts'))).toBeDefined();
    expect(violation(imp('runtime/connectors/jolt/compile.ts', 'compiler/jolt/index.ts'))).toBeDefined();
    expect(violation(imp('runtime/connectors/jolt/compile.ts', HOOK_API))).toBeDefined(); // a value import
    expect(violation(imp('compiler/resolve/schema-refs.ts', 'compiler/check/context.ts', true))).toBeDefined();
    expect(violation(imp('compiler/lower/values.ts', 'compiler/check/context.ts'))).toBeDefined();
    expect(violation(imp('compiler/ast/literal.ts', 'compiler/lower/plan.ts', true))).toBeDefined();
    // …and allows what they allow.
    expect(violation(imp('compiler/braces/constant-args.ts', 'runtime/braces/date.ts'))).toBeUndefined();
    expect(violation(imp('compiler/compile.ts', 'runtime/testing/test-plan.ts', true))).toBeUndefined();
    expect(violation(imp('runtime/connectors/jolt/compile.ts', HOOK_API, true))).toBeUndefined();
    expect(violation(imp('runtime/triggers/http-file/compile.ts', 'runtime/triggers/http/compile.ts'))).toBeUndefined();
    expect(violation(imp('compiler/cli/bundle-cli.ts', 'runtime/launch.ts'))).toBeUndefined();
    expect(violation(imp('compiler/lower/conditions.ts', 'compiler/check/context.ts', true))).toBeUndefined();
  });
});
