/**
 * Connector `json-generator` (JSON Generator / mock): the output is the `json` parameter, whose
 * `{{ }}` expressions generated code has already evaluated. The input message is replaced.
 */
import type { SyncConnectorRun } from '../../steps.js';
import type { Json } from '../../types.js';

export interface JsonGeneratorParams {
  json: Json;
}

/** Synchronous: generated code evaluated the expressions already. */
export const run: SyncConnectorRun<JsonGeneratorParams> = (params) => params.json ?? null;
