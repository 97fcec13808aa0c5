/**
 * `x-pipe-account-types` on a parameter marked `x-pipe-ref: account`: the account types the
 * connector or trigger can use (a database takes a `connection` account, not a `basic` one). An
 * account of another type is error PIPE3031 at the name, with the account's declaration beside it.
 *
 * Example (runtime/connectors/sql/schema.json):
 *   "account": { "type": "string", "x-pipe-ref": "account", "x-pipe-account-types": ["connection"] }
 */
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { Span } from '../../base/source/span.js';
import type { JsonSchema } from '../connectors/connector-registry.js';
import type { Declarations } from '../resolve/declarations.js';
import { accountOfWrongType } from './errors.js';

/** The types a parameter's schema accepts; undefined when it accepts any. */
export function accountTypesOf(property: JsonSchema | undefined): readonly string[] | undefined {
  const types = property?.['x-pipe-account-types'];
  return Array.isArray(types) ? types.map(String) : undefined;
}

/** Reports (PIPE3031) an existing account whose type the parameter does not take. */
export function checkAccountType(
  diagnostics: Diagnostic[],
  decls: Declarations,
  property: JsonSchema | undefined,
  name: string,
  span: Span,
  owner: string,
): void {
  const accepted = accountTypesOf(property);
  const account = decls.accounts.get(name);
  if (!accepted || !account || accepted.includes(account.accountType)) return;
  const type = account.accountType;
  diagnostics.push(
    accountOfWrongType({ name, type, accepted, parameter: owner, at: span, declaredAt: account.typeSpan }),
  );
}
