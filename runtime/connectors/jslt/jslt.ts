/** JSLT: applies the query compiled at build time (`params.transform`) to `payload` or the message. */
import { PipeError } from '../../errors.js';
import type { ConnectorRun, Json } from '../../types.js';

export interface JsltParams {
  readonly transform: (input: unknown, variables?: Record<string, unknown>) => unknown;
  readonly payload?: Json;
}

export const run: ConnectorRun<JsltParams> = async (params, message) => {
  try {
    return (params.transform(params.payload === undefined ? message : params.payload, {}) ?? null) as Json;
  } catch (err) {
    if (err instanceof PipeError) throw err;
    throw new PipeError(`JSLT transform failed: ${err instanceof Error ? err.message : String(err)}`, {
      code: 500,
      kind: 'JSLT',
    });
  }
};
