/**
 * Connector `json-generator` (JSON Generator / mock): the output is the `json` parameter, whose
 * `{{ }}` expressions generated code has already evaluated. The input message is replaced.
 */
import type { ConnectorRun, Json } from '../../types.js';

export interface JsonGeneratorParams {
  json: Json;
}

export const run: ConnectorRun<JsonGeneratorParams> = async (params) => params.json ?? null;
