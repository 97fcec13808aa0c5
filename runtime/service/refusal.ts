/**
 * Requests refused before any execution runs (bad body, too large, unauthenticated, rate limited,
 * no route, draining, an unexpected failure of the HTTP layer): the reply carries the message, the
 * code and an id, and one log line carries the same id, so a client's report can be found in the
 * log. Refusals run no pipeline, so the id is made here rather than by the execution engine.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { PipeError } from '../errors.js';
import type { Clock } from '../types.js';
import { mapFailure, toWebResponse } from './result-mapping.js';

export type Refuse = (err: PipeError, request: Request, headers?: Readonly<Record<string, string>>) => Response;

export interface RefusalDeps {
  readonly clock: Clock;
  /** Absent: refusals are not logged (unit tests of single triggers). */
  readonly logger?: Logger;
  readonly newId?: () => string;
}

/** Long request paths are cut in the log line (they come from the client). */
const MAX_LOGGED_PATH = 200;

export function createRefusals(deps: RefusalDeps): Refuse {
  const newId = deps.newId ?? randomUUID;
  return (err, request, headers) => {
    const executionId = newId();
    if (deps.logger) {
      const fields = { executionId, code: err.code, kind: err.kind, method: request.method, path: pathOf(request.url) };
      if (err.code >= 500)
        deps.logger.error({ ...fields, ...(err.cause !== undefined ? { err: err.cause } : {}) }, 'request refused');
      else deps.logger.info(fields, 'request refused');
    }
    const parts = mapFailure(err.code, {
      ...(err.details ?? {}),
      timestamp: deps.clock.now(),
      error: err.message,
      message: err.message,
      code: err.code,
      executionId,
    });
    return toWebResponse(headers ? { ...parts, headers: { ...parts.headers, ...headers } } : parts);
  };
}

function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const end = url.indexOf('?', start);
  const path = start < 0 ? '/' : url.slice(start, end < 0 ? undefined : end);
  return path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}…` : path;
}
