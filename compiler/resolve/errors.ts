/**
 * One constructor per diagnostic of the resolve phase: facts in, `Diagnostic` out, the prose here.
 * Following imports (compile.ts: PIPE2011–PIPE2015), collecting declarations (PIPE2003) and
 * resolving names written in parameters (PIPE2004–PIPE2007, PIPE3004 for a schema holding an
 * expression). Codes and titles come from base/diagnostics/codes/names.ts and config.ts.
 */
import { diagnostic, type DiagnosticCode } from '../../base/diagnostics/codes.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { Span } from '../../base/source/span.js';

// ───────────────────────────── imports ─────────────────────────────

export function notImportable(written: string, at: Span): Diagnostic {
  return diagnostic('PIPE2015', {
    message: `cannot import \`${written}\`: only \`.pipe\` and \`.json\` files can be imported`,
    span: at,
    label: 'not a .pipe or .json file',
  });
}

export function importNotFound(written: string, at: Span): Diagnostic {
  return diagnostic('PIPE2011', {
    message: `cannot read \`${written}\``,
    span: at,
    label: 'file not found',
    hint: 'paths are relative to the importing file',
  });
}

/** `detail` says why the project rules refuse the file (compiler/project-files.ts). */
export function importOutsideProject(written: string, at: Span, detail: string): Diagnostic {
  return diagnostic('PIPE2014', {
    message: `cannot import \`${written}\`: ${detail}`,
    span: at,
    label: 'outside the project',
    hint: 'imports stay inside the folders given to pipec; name a wider project folder with `--root DIR`',
  });
}

/** A file that is too large or not a regular file; `detail` says which. */
export function importRefused(written: string, at: Span, detail: string, tooLarge: boolean): Diagnostic {
  return diagnostic('PIPE2015', {
    message: `cannot import \`${written}\`: ${detail}`,
    span: at,
    label: tooLarge ? 'file too large' : 'not a regular file',
  });
}

/** `where` is `line L, column C` of the first bracket too deep. */
export function importNestedTooDeep(written: string, at: Span, limit: number, where: string): Diagnostic {
  return diagnostic('PIPE2015', {
    message: `cannot import \`${written}\`: it nests deeper than ${limit} levels (${where})`,
    span: at,
    label: 'nested too deep',
  });
}

export function jsonImportWithoutName(written: string, at: Span): Diagnostic {
  return diagnostic('PIPE2013', {
    message: `a JSON file is imported as a schema and needs a name: \`import "${written}" as Name\``,
    span: at,
    label: 'needs `as Name`',
  });
}

/** `problem` is the parser's complaint without the text it quotes. */
export function importNotJson(written: string, at: Span, problem: string): Diagnostic {
  return diagnostic('PIPE2013', {
    message: `\`${written}\` is not valid JSON: ${problem}`,
    span: at,
    label: 'not JSON',
  });
}

// ───────────────────────────── declarations and references ─────────────────────────────

export function declaredTwice(what: string, name: string, at: Span, first: Span): Diagnostic {
  return diagnostic('PIPE2003', {
    message: `the ${what} \`${name}\` is declared twice`,
    span: at,
    label: 'declared again here',
    secondary: [{ span: first, message: 'first declared here' }],
    hint: `rename one of the two ${what}s`,
  });
}

export type ReferenceKind = 'account' | 'pipeline' | 'store';

const UNKNOWN_REFERENCE: Readonly<Record<ReferenceKind, DiagnosticCode>> = {
  account: 'PIPE2005',
  pipeline: 'PIPE2007',
  store: 'PIPE2006',
};

/** A name that should be an account, a pipeline or a store; `candidates` are the declared ones. */
export function unknownReference(
  kind: ReferenceKind,
  name: string,
  at: Span,
  candidates: readonly string[],
  suggestion: string | undefined,
): Diagnostic {
  return diagnostic(UNKNOWN_REFERENCE[kind], {
    message: `unknown ${kind} \`${name}\``,
    span: at,
    label: suggestion ? `did you mean \`${suggestion}\`?` : `no ${kind} of that name`,
    ...(candidates.length > 0 ? { body: [`Known ${kind}s: ${candidates.map((c) => `\`${c}\``).join(', ')}.`] } : {}),
    ...(suggestion ? { hint: `write \`${suggestion}\`` } : {}),
  });
}

export function unknownSchema(
  name: string,
  at: Span,
  candidates: readonly string[],
  suggestion: string | undefined,
): Diagnostic {
  return diagnostic('PIPE2004', {
    message: `unknown schema \`${name}\``,
    span: at,
    label: suggestion ? `did you mean \`${suggestion}\`?` : 'no schema of that name',
    ...(candidates.length > 0 ? { body: [`Known schemas: ${candidates.map((n) => `\`${n}\``).join(', ')}.`] } : {}),
    hint: suggestion
      ? `write \`${suggestion}\``
      : `declare it with \`schema ${name} { … }\` or \`import "file.json" as ${name}\``,
  });
}

export function schemaWithExpression(at: Span): Diagnostic {
  return diagnostic('PIPE3004', {
    message: 'a schema is fixed at build time and cannot contain expressions',
    span: at,
    label: 'expression inside a schema',
    hint: 'write the schema as literal JSON',
  });
}
