/**
 * The one orchestrator the CLI, the language server and tests call:
 *   parse (every file, following imports) → resolve (declarations) → check + lower (one walk per
 *   pipeline; the plan) → emit (files). compiler/README.md has the phase table.
 * Pure apart from the `host` it is given for reading imported files. Diagnostics from every phase
 * are collected and sorted; emit runs only when there are no errors. A throw inside a phase is a
 * pipec bug and becomes PIPE9001 naming the phase.
 */
import path from 'node:path';
import type { PipeFile, SchemaDecl } from './ast/ast.js';
import type { Span } from '../base/source/span.js';
import { parseFile } from './ast/parse-file.js';
import { MAX_NESTING } from '../grammar/parse.js';
import { toLiteral } from './ast/literal.js';
import { buildOpenApi } from './openapi/openapi.js';
import { checkProgram } from './check/check-program.js';
import type { StepShape } from './check/context.js';
import { generateService, type OutputFile } from './codegen/generate-service.js';
import type { ConnectorRegistry } from './connectors/connector-registry.js';
import { diagnostic } from '../base/diagnostics/codes.js';
import { hasErrors, type Diagnostic } from '../base/diagnostics/diagnostic.js';
import { dedupeDiagnostics, sortDiagnostics } from '../base/diagnostics/sort.js';
import type { ServicePlan } from './lower/plan.js';
import { collectDeclarations, type Declarations, type SchemaSymbol } from './resolve/declarations.js';
import { SourceFile } from '../base/source/source-file.js';
import { checkTests } from './testing/check-tests.js';
import {
  importNestedTooDeep,
  importNotFound,
  importNotJson,
  importOutsideProject,
  importRefused,
  jsonImportWithoutName,
  notImportable,
} from './resolve/errors.js';
import type { TestSuite } from '../runtime/testing/test-plan.js';

export interface CompileHost {
  /** Reads a file; undefined when it does not exist or cannot be read. */
  readFile(filePath: string): string | undefined;
  /**
   * Reads a file that a source names (an import, a test's `input:` file) within the project's
   * limits; a refusal says why without quoting the file. Hosts without it read with `readFile`.
   */
  readProjectFile?(filePath: string): FileRead;
}

/** Why a named file was not read: absent, outside the project, not a regular file, over 5 MB, … */
export type FileRefusal = 'not-found' | 'outside-project' | 'not-a-file' | 'too-large' | 'unreadable';
export type FileRead = { readonly text: string } | { readonly refused: FileRefusal; readonly detail: string };

/** Files an `import` may name: sources and JSON Schemas. */
const IMPORTABLE = /\.(pipe|json)$/i;

export interface CompileInput {
  readonly files: readonly { readonly path: string; readonly text: string }[];
  readonly registry: ConnectorRegistry;
  readonly host: CompileHost;
  /** Name of the generated service. */
  readonly serviceName?: string;
  /** How paths appear in diagnostics. */
  readonly displayPath?: (file: string) => string;
  /**
   * How paths appear in the plan and the generated service (provenance comments, step sources in
   * logs and spans): the CLI names them relative to the project root, so a build does not depend
   * on the current directory. Default: `displayPath`.
   */
  readonly sourcePath?: (file: string) => string;
  /** Produce output files (build) or only diagnostics (check). */
  readonly emit?: boolean;
  /** Make the OpenAPI document without emitting (`pipec openapi`); a build always makes it. */
  readonly openapi?: boolean;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly skipFormat?: boolean;
}

export interface CompileResult {
  readonly diagnostics: readonly Diagnostic[];
  /** Every source read (including imports), for rendering diagnostics. */
  readonly sources: ReadonlyMap<string, SourceFile>;
  readonly asts: readonly PipeFile[];
  readonly declarations?: Declarations;
  readonly plan?: ServicePlan;
  /** The message shape each step receives (for editors). */
  readonly shapes?: readonly StepShape[];
  readonly files?: readonly OutputFile[];
  /** The OpenAPI 3.1 document of the HTTP routes (compiler/openapi), when the program checked clean. */
  readonly openapi?: Readonly<Record<string, unknown>>;
  /** The checked `test` blocks, when the files have any (for `pipec test`). */
  readonly tests?: TestSuite;
}

/** Only a service with HTTP routes has a document to serve. */
function hasRoutes(document: { readonly paths?: unknown }): boolean {
  return typeof document.paths === 'object' && document.paths !== null && Object.keys(document.paths).length > 0;
}

export function compile(input: CompileInput): CompileResult {
  const diagnostics: Diagnostic[] = [];
  const sources = new Map<string, SourceFile>();
  const sourcePath = input.sourcePath ?? input.displayPath ?? ((f: string) => f);
  const finish = (rest: Partial<CompileResult> = {}): CompileResult => ({
    diagnostics: sortDiagnostics(dedupeDiagnostics(diagnostics)),
    sources,
    asts: rest.asts ?? [],
    ...rest,
  });
  const guard = <T>(phase: string, anchorFile: string, fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (err) {
      diagnostics.push(internalError(phase, anchorFile, err));
      return undefined;
    }
  };

  const firstFile = input.files[0]?.path ?? '<input>';
  const parsed = guard('parse', firstFile, () => parseAll(input, sources, diagnostics));
  if (!parsed || hasErrors(diagnostics)) return finish({ asts: parsed?.asts ?? [] });

  const resolved = guard('resolve', firstFile, () =>
    collectDeclarations(parsed.asts, parsed.schemas, (decl: SchemaDecl) => toLiteral(decl.value).json),
  );
  if (!resolved) return finish({ asts: parsed.asts });
  diagnostics.push(...resolved.diagnostics);

  const checked = guard('check', firstFile, () =>
    checkProgram({
      serviceName: input.serviceName ?? 'service',
      registry: input.registry,
      decls: resolved.value,
      sourceOf: (f) => sources.get(f),
      sourcePath,
      forEmit: input.emit === true || input.openapi === true,
    }),
  );
  if (!checked) return finish({ asts: parsed.asts, declarations: resolved.value });
  diagnostics.push(...checked.diagnostics);

  // `test` blocks (run by `pipec test`) are checked with everything else; build ignores them.
  const tests = parsed.asts.some((a) => (a.tests ?? []).length > 0)
    ? guard('test', firstFile, () =>
        checkTests({
          files: parsed.asts,
          registry: input.registry,
          sourceOf: (f) => sources.get(f),
          sourcePath,
          readFile: (f) => input.host.readFile(f),
          readProjectFile: (f) => readNamedFile(input.host, f),
        }),
      )
    : undefined;
  if (tests) diagnostics.push(...tests.diagnostics);
  const testSuite = tests ? { tests: tests.value } : {};
  // Made for a build (served by the service) or when asked (`pipec openapi`); `check` skips it.
  const openapi =
    hasErrors(diagnostics) || !(input.emit || input.openapi)
      ? undefined
      : guard('openapi', firstFile, () =>
          buildOpenApi(parsed.asts, resolved.value, input.registry, {
            title: input.serviceName ?? 'service',
            version: '0.0.0',
            where: (span) => `${sourcePath(span.file)}:${sources.get(span.file)?.positionOf(span.start).line ?? 0}`,
          }),
        );
  const openapiPart = openapi ? { openapi } : {};
  if (hasErrors(diagnostics) || !input.emit)
    return finish({
      asts: parsed.asts,
      declarations: resolved.value,
      plan: checked.value,
      shapes: checked.shapes,
      ...testSuite,
      ...openapiPart,
    });

  const files = guard('emit', firstFile, () =>
    generateService(checked.value, {
      dependencies: input.dependencies ?? {},
      ...(input.skipFormat ? { skipFormat: true } : {}),
      ...(openapi && hasRoutes(openapi) ? { openapi } : {}),
    }),
  );
  return finish({
    asts: parsed.asts,
    declarations: resolved.value,
    plan: checked.value,
    shapes: checked.shapes,
    ...testSuite,
    ...openapiPart,
    ...(files ? { files } : {}),
  });
}

/** Parses the given files and every file they import (once each). */
function parseAll(
  input: CompileInput,
  sources: Map<string, SourceFile>,
  diagnostics: Diagnostic[],
): { asts: PipeFile[]; schemas: SchemaSymbol[] } {
  const asts: PipeFile[] = [];
  const schemas: SchemaSymbol[] = [];
  const queue = input.files.map((f) => ({ path: f.path, text: f.text as string | undefined }));
  const seen = new Set<string>();
  while (queue.length > 0) {
    const next = queue.shift() as { path: string; text: string | undefined };
    if (seen.has(next.path)) continue;
    seen.add(next.path);
    const text = next.text ?? input.host.readFile(next.path) ?? '';
    sources.set(next.path, new SourceFile(next.path, text));
    const result = parseFile(next.path, text);
    diagnostics.push(...result.diagnostics);
    asts.push(result.value);
    for (const decl of result.value.decls) {
      if (decl.kind !== 'import') continue;
      const target = path.resolve(path.dirname(next.path), decl.path);
      if (!IMPORTABLE.test(target)) {
        diagnostics.push(notImportable(decl.path, decl.pathSpan));
        continue;
      }
      const read = readNamedFile(input.host, target);
      if (!('text' in read)) {
        diagnostics.push(importRefusal(decl.path, decl.pathSpan, read));
        continue;
      }
      const content = read.text;
      if (target.toLowerCase().endsWith('.pipe')) {
        queue.push({ path: target, text: content });
        continue;
      }
      if (!decl.alias || !decl.aliasSpan) {
        diagnostics.push(jsonImportWithoutName(decl.path, decl.pathSpan));
        continue;
      }
      const deepAt = jsonNestingBeyond(content, MAX_NESTING);
      if (deepAt >= 0) {
        diagnostics.push(importNestedTooDeep(decl.path, decl.pathSpan, MAX_NESTING, lineAndColumn(content, deepAt)));
        continue;
      }
      try {
        schemas.push({
          name: decl.alias,
          nameSpan: decl.aliasSpan,
          json: JSON.parse(content) as unknown,
          importedFrom: target,
        });
      } catch (err) {
        diagnostics.push(importNotJson(decl.path, decl.pathSpan, jsonErrorWithoutExcerpt(err, content)));
      }
    }
  }
  return { asts, schemas };
}

/** A file named by a source, through the host's project rules when it has them. */
function readNamedFile(host: CompileHost, file: string): FileRead {
  if (host.readProjectFile) return host.readProjectFile(file);
  const text = host.readFile(file);
  return text === undefined ? { refused: 'not-found', detail: 'no such file' } : { text };
}

function importRefusal(written: string, span: Span, read: Exclude<FileRead, { text: string }>): Diagnostic {
  switch (read.refused) {
    case 'not-found':
      return importNotFound(written, span);
    case 'outside-project':
      return importOutsideProject(written, span, read.detail);
    default:
      return importRefused(written, span, read.detail, read.refused === 'too-large');
  }
}

/**
 * V8's JSON errors may quote the text around the mistake (`Unexpected token 'r', "root:x:0:0"...
 * is not valid JSON`): keep the kind of mistake and its line and column, never the quoted text.
 */
function jsonErrorWithoutExcerpt(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/^Unexpected end of JSON input/.test(message)) return 'unexpected end of input';
  const located = /^(.*?) in JSON at position (\d+)/.exec(message);
  if (located?.[1] !== undefined && located[2] !== undefined) {
    return `${located[1].toLowerCase()} (${lineAndColumn(text, Number(located[2]))})`;
  }
  if (/^Unexpected token/.test(message)) return 'unexpected character';
  return 'syntax error';
}

/**
 * Offset of the bracket that opens level `max + 1` of a JSON text (outside strings), or -1. An
 * imported schema is as limited as `.pipe` nesting: deeper ones would exhaust the checker's stack.
 */
function jsonNestingBeyond(text: string, max: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > max) return i;
    } else if (ch === 0x7d || ch === 0x5d) depth--;
  }
  return -1;
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

function internalError(phase: string, file: string, err: unknown): Diagnostic {
  const stack = err instanceof Error ? (err.stack ?? err.message).split('\n').slice(0, 6).join('\n') : String(err);
  return diagnostic('PIPE9001', {
    message: `internal error in phase \`${phase}\` (this is a pipec bug)`,
    span: { file, start: 0, end: 0 },
    body: [stack],
    hint: 'please report this with the .pipe file that triggers it',
  });
}
