/**
 * Connector `amqp-publish`: publishes `payload` (default: the message) to a RabbitMQ exchange with
 * a routing key, headers and properties — persistent by default — over the account's link
 * (runtime/connections/amqp-link.ts) and returns only after the broker confirmed it (publisher
 * confirms), so a 2xx answered after it means the broker has the message. With `mandatory` (the
 * default) a message no queue takes fails with UNROUTABLE instead of vanishing. The message passes
 * through unchanged. Failures are PipeErrors with the kinds of schema.json `x-pipe-errors`.
 */
import type { Options } from 'amqplib';
import { PipeError } from '../../errors.js';
import { activeTraceHeaders } from '../../observability/propagation.js';
import type { ConnectorRun, Json, JsonObject } from '../../types.js';
import { amqpFailure, amqpLink, type AmqpLink } from '../../connections/amqp-link.js';
import { slowFailure } from '../../connections/connection-account.js';

export interface AmqpPublishParams {
  account: string;
  accountFields?: Readonly<Record<string, Json>>;
  exchange?: string;
  'routing-key'?: string;
  payload?: Json;
  headers?: JsonObject;
  persistent?: boolean;
  mandatory?: boolean;
  'content-type'?: string;
  'message-id'?: string;
  'correlation-id'?: string;
  'reply-to'?: string;
  priority?: number;
  expiration?: number;
  timeout?: number;
}

const MAX_HEADERS = 100;
const DEFAULT_TIMEOUT_MS = 10_000;

function invalid(message: string): PipeError {
  return new PipeError(`amqp-publish: ${message}`, { code: 400, kind: 'INVALID_PARAMETER', step: 'amqp-publish' });
}

/** The body and its default content type: strings as UTF-8 text, everything else as JSON text. */
export function encodeBody(payload: Json): { content: Buffer; contentType: string } {
  return typeof payload === 'string'
    ? { content: Buffer.from(payload, 'utf8'), contentType: 'text/plain; charset=utf-8' }
    : { content: Buffer.from(JSON.stringify(payload), 'utf8'), contentType: 'application/json' };
}

function headersOf(headers: JsonObject | undefined): Record<string, string | number | boolean> {
  type Scalar = string | number | boolean;
  const out: Record<string, Scalar> = Object.create(null) as Record<string, Scalar>;
  if (headers === undefined) return out;
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
    throw invalid('`headers` must be an object');
  }
  const entries = Object.entries(headers);
  if (entries.length > MAX_HEADERS) throw invalid(`at most ${MAX_HEADERS} headers`);
  for (const [name, value] of entries) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw invalid(`header "${name}" must be a string, a number or a boolean`);
    }
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function optionalText(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalid(`\`${name}\` must be a string`);
  return value;
}

/** The properties of the message (amqplib's publish options) from the parameters. */
export function publishOptions(
  params: AmqpPublishParams,
  contentType: string,
  ctx: { pipeline: string; executionId: string },
): Options.Publish {
  const priority = params.priority;
  if (priority !== undefined && (!Number.isInteger(priority) || priority < 0 || priority > 255)) {
    throw invalid('`priority` must be 0..255');
  }
  const expiration = params.expiration;
  if (expiration !== undefined && (!Number.isInteger(expiration) || expiration < 1)) {
    throw invalid('`expiration` must be a positive number of ms');
  }
  const messageId = optionalText(params['message-id'], 'message-id');
  const correlationId = optionalText(params['correlation-id'], 'correlation-id');
  const replyTo = optionalText(params['reply-to'], 'reply-to');
  return {
    persistent: params.persistent !== false,
    mandatory: params.mandatory !== false,
    contentType: optionalText(params['content-type'], 'content-type') ?? contentType,
    timestamp: Math.floor(Date.now() / 1000),
    headers: {
      ...headersOf(params.headers),
      ...activeTraceHeaders(),
      'x-pipec-source-pipeline': ctx.pipeline,
      'x-pipec-source-execution': ctx.executionId,
    },
    ...(messageId !== undefined ? { messageId } : {}),
    ...(correlationId !== undefined ? { correlationId } : {}),
    ...(replyTo !== undefined ? { replyTo } : {}),
    ...(priority !== undefined ? { priority } : {}),
    ...(expiration !== undefined ? { expiration: String(expiration) } : {}),
  };
}

export const run: ConnectorRun<AmqpPublishParams> = async (params, message, ctx) => {
  const exchange = optionalText(params.exchange, 'exchange') ?? '';
  const routingKey = optionalText(params['routing-key'], 'routing-key') ?? '';
  const timeoutMs = typeof params.timeout === 'number' ? params.timeout : DEFAULT_TIMEOUT_MS;
  const { content, contentType } = encodeBody(params.payload === undefined ? message : params.payload);
  const options = publishOptions(params, contentType, ctx);
  let link: AmqpLink | undefined;
  try {
    const opened = await amqpLink(ctx.services.connections, params.account, params.accountFields, ctx.log);
    link = opened;
    // Through the broker's circuit breaker: after consecutive timeouts, fail at once (CIRCUIT_OPEN).
    const send = (): Promise<void> => opened.publish(exchange, routingKey, content, options, timeoutMs);
    await ctx.services.connections.guard(`amqp:${params.account}`, send, { failed: slowFailure });
  } catch (err) {
    const failure = amqpFailure(err, link?.where ?? 'RabbitMQ');
    if (failure.step) throw failure;
    throw new PipeError(failure.message, { code: failure.code, kind: failure.kind, step: 'amqp-publish', cause: err });
  }
  return message;
};
