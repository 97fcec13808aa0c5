/**
 * The small type language of message shapes and Double Braces values.
 * `unknown` accepts everything and is never reported; `open` objects allow unlisted fields.
 *
 * Example: the shape of `{ body: { total: 12.5 }, tokenUsage: {...} }` from an agent with an
 * output schema is
 *   { kind: 'object', open: false, fields: { body: { type: <schema type>, required: true }, ... } }
 */
export type PipeType =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'null' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'number'; readonly integer?: boolean }
  | { readonly kind: 'string'; readonly enum?: readonly string[] }
  | { readonly kind: 'array'; readonly items: PipeType }
  | {
      readonly kind: 'object';
      readonly fields: Readonly<Record<string, FieldType>>;
      /** Closed objects (additionalProperties: false, or a literal) reject unknown field paths. */
      readonly open: boolean;
    }
  | { readonly kind: 'union'; readonly members: readonly PipeType[] };

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
