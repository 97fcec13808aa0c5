/**
 * The small type language of message shapes and Double Braces values.
 * `unknown` accepts everything and is never reported; `open` objects allow unlisted fields.
 * Any type may carry `secret`: the value holds (or is computed from) an account's field, and a
 * value whose type holds a secret anywhere may not leave the service (compiler/check/secret-sinks.ts).
 *
 * Example: the shape of `{ body: { total: 12.5 }, tokenUsage: {...} }` from an agent with an
 * output schema is
 *   { kind: 'object', open: false, fields: { body: { type: <schema type>, required: true }, ... } }
 */
import type { Span } from '../../base/source/span.js';

export type PipeType = (
  | { readonly kind: 'unknown' }
  | { readonly kind: 'null' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'number'; readonly integer?: boolean }
  | {
      readonly kind: 'string';
      readonly enum?: readonly string[];
      /**
       * The enum is declared (a schema's `enum` or `const`), not the value of a literal written in
       * the pipeline: only a declared list says which strings a field may ever hold.
       */
      readonly declared?: boolean;
    }
  | { readonly kind: 'array'; readonly items: PipeType }
  | {
      readonly kind: 'object';
      readonly fields: Readonly<Record<string, FieldType>>;
      /** Closed objects (additionalProperties: false, or a literal) reject unknown field paths. */
      readonly open: boolean;
      /**
       * Open, and the fields it does not declare have names chosen elsewhere (a `fail` step's
       * object joins the error a `catch` sees): a read one slip away from a declared name is then
       * not taken for a typo (near-miss.ts).
       */
      readonly freeNames?: boolean;
      /**
       * The object was closed by what the build's senders send (compiler/check/senders.ts): a
       * read of a field it lacks names them. Absent on objects closed by a schema or a literal.
       */
      readonly sentBy?: SentBy;
    }
  | { readonly kind: 'union'; readonly members: readonly PipeType[] }
) & { readonly secret?: SecretMark };

/**
 * Where a secret value comes from, for the diagnostic that stops it leaving: the account field
 * as it is read (`account.openai.key`) and the span of that field's declaration.
 */
export interface SecretMark {
  readonly from: string;
  readonly declaredAt?: Span;
}

/**
 * Who sends a message whose shape the build's senders closed: `who` in words (`publisher of
 * \`orders\``), the path of the object inside the message, and each sender's payload there.
 */
export interface SentBy {
  readonly who: string;
  readonly path: readonly string[];
  readonly senders: readonly { readonly span: Span; readonly fields: readonly string[] }[];
}

export interface FieldType {
  readonly type: PipeType;
  readonly required: boolean;
}

export const UNKNOWN: PipeType = { kind: 'unknown' };
export const NULL: PipeType = { kind: 'null' };
export const BOOLEAN: PipeType = { kind: 'boolean' };
export const NUMBER: PipeType = { kind: 'number' };
export const INTEGER: PipeType = { kind: 'number', integer: true };
export const STRING: PipeType = { kind: 'string' };

export function arrayOf(items: PipeType): PipeType {
  return { kind: 'array', items };
}

export function objectOf(fields: Record<string, PipeType>, open = false): PipeType {
  const out: Record<string, FieldType> = {};
  for (const [k, t] of Object.entries(fields)) out[k] = { type: t, required: true };
  return { kind: 'object', fields: out, open };
}
