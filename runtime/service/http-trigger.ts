/**
 * The HTTP trigger: one Hono route per method + path. The request body is read within
 * `maxBodySize` and parsed before an execution starts (bad requests never take a concurrency
 * slot); the envelope is the message; the trigger's body schema is checked inside the execution
 * (so a 422 carries an execution id); the outcome becomes the response. Authentication and rate
 * limits (trigger-guard.ts) run first, before any body byte is read.
 */
import type { Context, Hono } from 'hono';
import { PipeError } from '../errors.js';
import type { Clock, HttpTriggerSpec, Json, JsonObject, PipelineModule } from '../types.js';
import { buildEnvelope, DEFAULT_MAX_BODY_SIZE, parseRequestBody, readBodyLimited } from './envelope.js';
import type { ExecutionEngine } from './execution.js';
import { outcomeResponse, refusalResponse } from './http-response.js';
import type { ServiceMetrics } from './metrics.js';
import { createTriggerGuard } from './trigger-guard.js';
import { validateTriggerMessage } from './validation.js';

export interface HttpTriggerDeps {
  readonly engine: ExecutionEngine;
  readonly metrics: ServiceMetrics;
  readonly clock: Clock;
  /** Resolved account fields, for trigger authentication. */
  readonly accounts: Readonly<Record<string, Readonly<Record<string, Json>>>>;
}

export function registerHttpTrigger(app: Hono, pipeline: PipelineModule, spec: HttpTriggerSpec, deps: HttpTriggerDeps): void {
  const limit = spec.maxBodySize > 0 ? spec.maxBodySize : DEFAULT_MAX_BODY_SIZE;
  const guard = createTriggerGuard(spec, deps.accounts, deps.clock);
  app.on([...spec.methods], spec.path, async (c: Context) => {
    let principal: JsonObject | null = null;
    if (guard) {
      const checked = await guard(c);
      if (checked.ok) principal = checked.principal;
      if (!checked.ok) {
        deps.metrics.requestsRejected.inc({ pipeline: pipeline.name, reason: String(checked.response.status) });
        return checked.response;
      }
    }
    const request = c.req.raw;
    let body;
    try {
      const bytes = await readBodyLimited(request, limit);
      body = parseRequestBody(bytes, request.headers.get('content-type'));
    } catch (err) {
      if (!(err instanceof PipeError)) throw err;
      deps.metrics.requestsRejected.inc({ pipeline: pipeline.name, reason: String(err.code) });
      return refusalResponse(err, deps.clock.now());
    }
    const message = buildEnvelope({ request, pathParams: c.req.param() as Record<string, string>, body, principal });
    const outcome = await deps.engine.execute({
      pipeline: pipeline.name,
      message,
      validate: (m) => validateTriggerMessage(spec, m),
      trigger: 'http',
      traceHeaders: request.headers,
    });
    return outcomeResponse(outcome);
  });
}
