/**
 * Phase `resolve`, part 2: a name written where a declaration is meant (a parameter marked
 * `x-pipe-ref` in a connector schema, a trigger's auth account) must name one. Reports an unknown
 * name with the closest known one.
 */
import { diagnostic } from '../../base/diagnostics/codes.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import type { Span } from '../../base/source/span.js';
import type { Declarations } from './declarations.js';
import type { DiagnosticCode } from '../../base/diagnostics/codes.js';

export type ReferenceKind = 'account' | 'pipeline' | 'store';

const CODES: Readonly<Record<ReferenceKind, DiagnosticCode>> = { account: 'PIPE2005', pipeline: 'PIPE2007', store: 'PIPE2006' };

function namesOf(decls: Declarations, kind: ReferenceKind): string[] {
  const table = kind === 'account' ? decls.accounts : kind === 'pipeline' ? decls.pipelines : decls.stores;
  return [...table.keys()];
}

/** True when `name` names a declaration of `kind`; otherwise reports it and answers false. */
export function checkExists(diagnostics: Diagnostic[], decls: Declarations, kind: ReferenceKind, name: string, span: Span): boolean {
  const candidates = namesOf(decls, kind);
  if (candidates.includes(name)) return true;
  const close = suggest(name, candidates);
  diagnostics.push(
    diagnostic(CODES[kind], {
      message: `unknown ${kind} \`${name}\``,
      span,
      label: close ? `did you mean \`${close}\`?` : `no ${kind} of that name`,
      ...(candidates.length > 0 ? { body: [`Known ${kind}s: ${candidates.map((c) => `\`${c}\``).join(', ')}.`] } : {}),
      ...(close ? { hint: `write \`${close}\`` } : {}),
    }),
  );
  return false;
}
