/**
 * Connector `execute` (Pipeline Executor): runs another pipeline of the service through
 * `ctx.services.execute`. SYNC waits and returns
 * `{ operation: "SYNC", pipelineName, success: true, payload, pipelineResponse }`; ASYNC starts the
 * pipeline detached from this execution's timeout and returns `{ operation: "ASYNC", … }` at once.
 */
import { PipeError } from '../../errors.js';
import type { ConnectorRun, ExecutionContext, Json, JsonObject } from '../../types.js';

export interface ExecuteParams {
  pipeline: string;
  payload?: Json;
  mode?: 'sync' | 'async';
  timeout?: number;
}

export const DEFAULT_EXECUTE_TIMEOUT = 20_000;
const MAX_TIMEOUT = 900_000;

function paramError(message: string): PipeError {
  return new PipeError(`execute: ${message}`, { code: 500, kind: 'EXECUTE_ERROR', step: 'execute' });
}

/** The caller as parent, minus its abort signal: an async run outlives the caller's timeout. */
function detached(ctx: ExecutionContext): ExecutionContext {
  const never = new AbortController().signal;
  return Object.create(ctx, { signal: { value: never, enumerable: true } }) as ExecutionContext;
}

export const run: ConnectorRun<ExecuteParams> = async (params, message, ctx) => {
  const pipelineName = params.pipeline;
  if (typeof pipelineName !== 'string' || pipelineName === '') throw paramError('the pipeline name is empty');
  const mode = params.mode ?? 'sync';
  if (mode !== 'sync' && mode !== 'async') throw paramError(`unknown mode "${String(mode)}"`);
  const timeout = params.timeout ?? DEFAULT_EXECUTE_TIMEOUT;
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > MAX_TIMEOUT)
    throw paramError(`timeout must be 1…${MAX_TIMEOUT} ms`);
  const payload = params.payload === undefined ? message : params.payload;

  if (mode === 'async') {
    ctx.services.execute(pipelineName, payload, { timeout, parent: detached(ctx) }).catch((err: unknown) => {
      const reason = err instanceof Error ? err.message : String(err);
      ctx.log.error({ connector: 'execute', pipelineName, error: reason }, 'asynchronous pipeline execution failed');
    });
    const started: JsonObject = { operation: 'ASYNC', pipelineName, success: true, payload };
    return started;
  }
  const pipelineResponse = await ctx.services.execute(pipelineName, payload, { timeout, parent: ctx });
  const finished: JsonObject = { operation: 'SYNC', pipelineName, success: true, payload, pipelineResponse };
  return finished;
};
