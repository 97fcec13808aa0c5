/**
 * Transformer (JOLT): applies the chain compiled at build time (`params.transform`). Shift does not
 * copy the values it moves, so the input message is never mutated by the generated code's callers.
 */
import { PipeError } from '../../errors.js';
import type { Json } from '../../types.js';
import type { SyncConnectorRun } from '../../steps.js';

export interface JoltParams {
  readonly transform: (input: unknown, context: unknown) => unknown;
}

/** Synchronous (no promise per step): the compiled chain is plain code. */
export const run: SyncConnectorRun<JoltParams> = (params, message) => {
  try {
    return (params.transform(message, null) ?? null) as Json;
  } catch (err) {
    if (err instanceof PipeError) throw err;
    throw new PipeError(`JOLT transform failed: ${err instanceof Error ? err.message : String(err)}`, {
      code: 500,
      kind: 'JOLT',
    });
  }
};
