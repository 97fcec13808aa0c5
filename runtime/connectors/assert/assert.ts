/**
 * Assert v2: the condition (a {{ }} expression evaluated by the generated code) must be true.
 * False → PipeError with the configured status and message; the generated step turns it into
 * `{ success: false, error, internalErrorMessage, code }` when fail-on-error is off.
 */
import { PipeError } from '../../errors.js';
import type { ConnectorRun, Json } from '../../types.js';

export interface AssertParams {
  readonly condition: Json;
  readonly 'error-message'?: string;
  readonly 'internal-message'?: string;
  readonly status?: number;
}

export const run: ConnectorRun<AssertParams> = async (params, message, ctx) => {
  if (params.condition === true) return message;
  const internal = params['internal-message'] ?? 'Internal Error';
  ctx.log.info({ internalErrorMessage: internal }, 'assertion failed');
  throw new PipeError(params['error-message'] ?? 'Error', {
    code: params.status ?? 500,
    kind: 'ASSERTION',
    details: { internalErrorMessage: internal },
  });
};
