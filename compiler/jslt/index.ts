/**
 * JSLT compiler entry points.
 *
 * `compileJslt` turns a JSLT query (the `query` of a `jslt` step) into the source of a JS
 * function expression `(input, variables) => output` that uses only `L`, the namespace import of
 * runtime/jslt/index.ts. Problems come back as diagnostics located in the host .pipe file
 * through `mapOffset`. `jsltToFunction` does the same and instantiates the function (for
 * `pipec jslt` and tests).
 *
 * Imports: a step's query must be self-contained, so `import` is rejected (PIPE5307), except the
 * reference's built-in experimental module. Callers that can read files (tests, the CLI) may pass
 * `resolveImport` to support `import "file.jslt" as m`; modules are then compiled into the same
 * function.
 */
import * as runtime from '../../runtime/jslt/index.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { diagnostic } from '../../base/diagnostics/codes.js';
import { hasErrors } from '../../base/diagnostics/diagnostic.js';
import type { ImportDecl, Program, Range } from './ast.js';
import { EXPERIMENTAL_MODULE, type ModuleUnit, UNAVAILABLE_MODULE, generateJs } from './codegen.js';
import { type ParseError, parseJslt } from './parser.js';
import type { DiagnosticCode } from '../../base/diagnostics/codes.js';
import * as E from './errors.js';

export interface CompiledJslt {
  readonly js: string;
  readonly diagnostics: readonly Diagnostic[];
}

/** Reads an imported module's text by its import path; undefined when it does not exist. */
export type ImportResolver = (path: string) => string | undefined;

export interface CompileJsltOptions {
  readonly file: string;
  /** Maps an offset in the JSLT source to an offset in the host file. */
  readonly mapOffset: (offset: number) => number;
  /** Enables `import "file.jslt"`; without it, only the experimental module can be imported. */
  readonly resolveImport?: ImportResolver;
}

export type JsltFunction = (input: unknown, variables?: Record<string, unknown>) => unknown;

interface Problem {
  readonly code: DiagnosticCode;
  readonly message: string;
  readonly range: Range;
}

const PARSE_CODES: Readonly<Record<ParseError['problem'], DiagnosticCode>> = {
  syntax: 'PIPE5300',
  escape: 'PIPE5301',
  nesting: 'PIPE5311',
};
const MAIN_ID = 'query';

/** Loads the imports of `program` (depth first), appending units in dependency order. */
function loadImports(
  program: Program,
  reportAt: Range | undefined,
  chain: readonly string[],
  units: ModuleUnit[],
  problems: Problem[],
  resolveImport: ImportResolver | undefined,
): Map<string, string> {
  const prefixes = new Map<string, string>();
  for (const decl of program.imports) {
    const at = reportAt ?? decl;
    const unitId = loadModule(decl, at, chain, units, problems, resolveImport);
    prefixes.set(decl.prefix, unitId ?? UNAVAILABLE_MODULE);
  }
  return prefixes;
}

function loadModule(
  decl: ImportDecl,
  at: Range,
  chain: readonly string[],
  units: ModuleUnit[],
  problems: Problem[],
  resolveImport: ImportResolver | undefined,
): string | undefined {
  if (decl.path === EXPERIMENTAL_MODULE) {
    if (!units.some((unit) => unit.id === EXPERIMENTAL_MODULE)) {
      units.push({ id: EXPERIMENTAL_MODULE, program: 'experimental', imports: new Map(), reportAt: at });
    }
    return EXPERIMENTAL_MODULE;
  }
  if (!resolveImport) {
    problems.push({ ...E.importNotSupported(decl.path), range: at });
    return undefined;
  }
  if (chain.includes(decl.path)) {
    problems.push({ ...E.importedTwice(decl.path), range: at });
    return undefined;
  }
  if (units.some((unit) => unit.id === decl.path)) return decl.path;
  const text = resolveImport(decl.path);
  if (text === undefined) {
    problems.push({ ...E.moduleUnreadable(decl.path), range: at });
    return undefined;
  }
  const parsed = parseJslt(text, { module: true });
  if (parsed.error) {
    problems.push({
      code: PARSE_CODES[parsed.error.problem],
      message: `${parsed.error.message} (in module ${decl.path})`,
      range: at,
    });
    return undefined;
  }
  const imports = loadImports(parsed.program, at, [...chain, decl.path], units, problems, resolveImport);
  units.push({ id: decl.path, program: parsed.program, imports, reportAt: at });
  return decl.path;
}

function compileToProblems(
  source: string,
  resolveImport: ImportResolver | undefined,
): { js: string; problems: Problem[] } {
  const parsed = parseJslt(source);
  if (parsed.error) {
    const { problem, message, start, end } = parsed.error;
    return { js: '', problems: [{ code: PARSE_CODES[problem], message, range: { start, end } }] };
  }
  const problems: Problem[] = [];
  const units: ModuleUnit[] = [];
  const imports = loadImports(parsed.program, undefined, [], units, problems, resolveImport);
  units.push({ id: MAIN_ID, program: parsed.program, imports, reportAt: undefined });
  const generated = generateJs(units);
  for (const problem of generated.problems) {
    problems.push({ code: problem.code, message: problem.message, range: { start: problem.start, end: problem.end } });
  }
  return { js: problems.length > 0 ? '' : generated.js, problems };
}

/** Compiles a JSLT query to the source of `(input, variables) => output` over `L`. */
export function compileJslt(source: string, opts: CompileJsltOptions): CompiledJslt {
  const { js, problems } = compileToProblems(source, opts.resolveImport);
  const diagnostics = problems.map((problem) =>
    diagnostic(problem.code, {
      message: problem.message,
      span: { file: opts.file, start: opts.mapOffset(problem.range.start), end: opts.mapOffset(problem.range.end) },
    }),
  );
  return { js, diagnostics };
}

export interface JsltToFunctionOptions {
  readonly resolveImport?: ImportResolver;
  /** Keep JSLT decimal boxes in the result instead of plain JSON numbers (conformance tests). */
  readonly keepDecimals?: boolean;
}

/** Compiles and instantiates a JSLT query; `fn` is absent when there are errors. */
export function jsltToFunction(
  source: string,
  options: JsltToFunctionOptions = {},
): { fn?: JsltFunction; diagnostics: readonly Diagnostic[] } {
  const compiled = compileJslt(source, {
    file: '<jslt>',
    mapOffset: (offset) => offset,
    ...(options.resolveImport ? { resolveImport: options.resolveImport } : {}),
  });
  if (hasErrors(compiled.diagnostics)) return { diagnostics: compiled.diagnostics };
  const library = options.keepDecimals ? { ...runtime, run: runtime.runKeepingDecimals } : runtime;
  // the generated source refers only to `L`; building it from text is the point of this function
  const factory = new Function('L', `"use strict";\nreturn (${compiled.js});`) as (lib: typeof runtime) => JsltFunction;
  return { fn: factory(library as typeof runtime), diagnostics: compiled.diagnostics };
}
