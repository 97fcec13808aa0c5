/**
 * Pipeline Executor core: `services.execute(pipeline, payload, { timeout, parent })` runs another
 * pipeline of this service in-process, through the same engine (so its concurrency limit, timeout,
 * logs and metrics apply), and returns its final message or throws its PipeError.
 */
import { PipeError } from '../errors.js';
import { Reply, type Json, type ServiceServices } from '../types.js';
import type { EngineOutcome, ExecutionRequest } from './execution.js';

export function createPipelineExecutor(
  run: (request: ExecutionRequest) => Promise<EngineOutcome>,
): ServiceServices['execute'] {
  return async (pipeline, payload, opts) => {
    let outcome: EngineOutcome;
    try {
      outcome = await run({
        pipeline,
        message: payload,
        timeoutMs: opts.timeout,
        parent: opts.parent,
        trigger: 'execute',
      });
    } catch (err) {
      if (err instanceof PipeError) throw err;
      throw new PipeError(`could not execute pipeline "${pipeline}"`, { code: 500, kind: 'EXECUTE_ERROR', cause: err });
    }
    if (outcome.ok) return finalMessage(outcome.result);
    const child = outcome.error;
    throw new PipeError(child.message, {
      code: child.code,
      kind: child.kind,
      details: { ...(child.details ?? {}), pipelineName: pipeline, childExecutionId: outcome.executionId },
      cause: child,
      ...(child.step ? { step: child.step } : {}),
    });
  };
}

/** A child that ended with `respond` hands its reply body back to the caller. */
function finalMessage(result: Json | Reply): Json {
  return result instanceof Reply ? result.body : result;
}
