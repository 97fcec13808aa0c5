/**
 * What the Double Braces checker knows about the place of an expression: the shapes of the
 * message and of every scope, and (optionally) the type the place requires and why.
 *
 * Example (a `rest` step after an http trigger with a body schema):
 *   { file: 'cep.pipe', message: <http envelope>, globals: { 'read-timeout': integer },
 *     accounts: {}, steps: {}, expected: { type: integer, why: 'the field `timeout` of connector `rest`' } }
 */
import type { PipeType } from '../types/pipe-type.js';

export interface BracesEnv {
  readonly file: string;
  /** Shape of `message` at this step. */
  readonly message: PipeType;
  readonly globals: Readonly<Record<string, PipeType>>;
  /** Account name → shape of its fields. */
  readonly accounts: Readonly<Record<string, PipeType>>;
  /** Step label → output shape. */
  readonly steps: Readonly<Record<string, PipeType>>;
  /** Inside JSON Transformer / for-each. */
  readonly item?: PipeType;
  /** Capsule parameters (`capsule.x`). */
  readonly capsule?: Readonly<Record<string, PipeType>>;
  /** E.g. { type: integer, why: "the field `timeout` of connector `rest`" }. */
  readonly expected?: { readonly type: PipeType; readonly why: string };
}
