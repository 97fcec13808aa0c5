/**
 * Phase `resolve`, part 2: a name written where a declaration is meant (a parameter marked
 * `x-pipe-ref` in a connector schema, a trigger's auth account) must name one. Reports an unknown
 * name with the closest known one.
 */
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import type { Span } from '../../base/source/span.js';
import type { Declarations } from './declarations.js';
import { unknownReference, type ReferenceKind } from './errors.js';

export type { ReferenceKind };

function namesOf(decls: Declarations, kind: ReferenceKind): string[] {
  const table = kind === 'account' ? decls.accounts : kind === 'pipeline' ? decls.pipelines : decls.stores;
  return [...table.keys()];
}

/** True when `name` names a declaration of `kind`; otherwise reports it and answers false. */
export function checkExists(
  diagnostics: Diagnostic[],
  decls: Declarations,
  kind: ReferenceKind,
  name: string,
  span: Span,
): boolean {
  const candidates = namesOf(decls, kind);
  if (candidates.includes(name)) return true;
  diagnostics.push(unknownReference(kind, name, span, candidates, suggest(name, candidates)));
  return false;
}
