/**
 * Connector `publish` (Event Publisher): hands `payload` to the broker under `event`, waits until
 * the broker stored it (JetStream's publish acknowledgement, the SQLite commit) and returns the
 * input message unchanged; delivery is then the broker's at-least-once job. A publish that was not
 * stored fails with the broker's status — 503 while it is away, 413/422/400 for a payload no
 * backend keeps — so the caller of the execution learns it (fail-on-error is on by default).
 * The publishing execution and pipeline travel as headers for tracing, with the W3C trace context
 * of the publish step when tracing is on (the consuming execution's span becomes its child).
 */
import { PipeError } from '../../errors.js';
import { activeTraceHeaders } from '../../observability/propagation.js';
import type { PublishSink } from '../../publish-batch.js';
import type { ConnectorRun, ExecutionContext, Json, JsonObject } from '../../types.js';

export interface PublishParams {
  event: string;
  payload?: Json;
  headers?: JsonObject;
}

const MAX_HEADERS = 50;

function stringHeaders(headers: JsonObject | undefined): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  if (!headers || typeof headers !== 'object' || Array.isArray(headers)) return out;
  for (const [name, value] of Object.entries(headers).slice(0, MAX_HEADERS)) {
    if (typeof value === 'string') out[name] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') out[name] = String(value);
  }
  return out;
}

export const run: ConnectorRun<PublishParams> = async (params, message, ctx) => {
  const event = params.event;
  if (typeof event !== 'string' || event.length === 0) {
    throw new PipeError('publish: the event name is empty', { code: 500, kind: 'PUBLISH_ERROR', step: 'publish' });
  }
  const payload = params.payload === undefined ? message : params.payload;
  const headers = {
    ...stringHeaders(params.headers),
    ...activeTraceHeaders(),
    'x-pipec-source-pipeline': ctx.pipeline,
    'x-pipec-source-execution': ctx.executionId,
  };
  // Inside a for-each that only computes and publishes, the loop hands the events over together
  // (runtime/publish-batch.ts) and fails the element with this step's error if one is not stored.
  const batch = (ctx as ExecutionContext & { readonly publishes?: PublishSink }).publishes;
  if (batch) {
    batch.add({ name: event, payload, headers }, (err) => publishFailure(event, err));
    return message;
  }
  try {
    await ctx.services.broker.publish(event, payload, headers);
  } catch (err) {
    throw publishFailure(event, err);
  }
  return message;
};

function publishFailure(event: string, err: unknown): PipeError {
  const reason = err instanceof Error ? err.message : String(err);
  // The broker's 4xx (refused payload) and 503 (unavailable, with its retry hint) reach the caller as they are.
  const known = err instanceof PipeError && err.code >= 400 && err.code < 600 ? err : undefined;
  return new PipeError(`could not publish event "${event}": ${reason}`, {
    code: known?.code ?? 500,
    kind: known?.kind ?? 'PUBLISH_ERROR',
    step: 'publish',
    cause: err,
    ...(known?.details ? { details: known.details } : {}),
  });
}
