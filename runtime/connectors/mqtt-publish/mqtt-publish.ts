/**
 * Connector `mqtt-publish`: publishes `payload` (default: the message) on an MQTT topic through
 * the account's publishing client (runtime/connections/mqtt-link.ts). With QoS 1 (the default) it
 * returns only after the broker's PUBACK — the broker has the message; QoS 0 returns once the
 * message was written to the connection. A lost connection fails the step at once (UNAVAILABLE)
 * rather than queueing the message. The message passes through unchanged.
 */
import type { IClientPublishOptions } from 'mqtt';
import { PipeError } from '../../errors.js';
import type { ConnectorRun, Json, JsonObject } from '../../types.js';
import { mqttFailure, mqttPublisher, type MqttPublisher } from '../../connections/mqtt-link.js';
import { slowFailure } from '../../connections/connection-account.js';

export interface MqttPublishParams {
  account: string;
  accountFields?: Readonly<Record<string, Json>>;
  topic: string;
  payload?: Json;
  qos?: 0 | 1;
  retain?: boolean;
  headers?: JsonObject;
  'content-type'?: string;
  timeout?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_HEADERS = 100;

function invalid(message: string): PipeError {
  return new PipeError(`mqtt-publish: ${message}`, { code: 400, kind: 'INVALID_PARAMETER', step: 'mqtt-publish' });
}

/** MQTT 5 user properties from the `headers` parameter. */
function userProperties(headers: JsonObject | undefined): Record<string, string> | undefined {
  if (headers === undefined) return undefined;
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
    throw invalid('`headers` must be an object');
  }
  const entries = Object.entries(headers);
  if (entries.length > MAX_HEADERS) throw invalid(`at most ${MAX_HEADERS} headers`);
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of entries) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw invalid(`header "${name}" must be a string, a number or a boolean`);
    }
    Object.defineProperty(out, name, { value: String(value), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Publishes on the connected client; rejects when the connection closes before the acknowledgement. */
export async function publishOn(
  { keeper, where }: MqttPublisher,
  topic: string,
  body: Buffer,
  options: IClientPublishOptions,
  timeoutMs: number,
  step: string,
): Promise<void> {
  if (!keeper.connected) {
    const why = `${where} is not connected: the message was not sent`;
    throw new PipeError(why, { code: 503, kind: 'UNAVAILABLE', step });
  }
  let timer: NodeJS.Timeout | undefined;
  let onClose: (() => void) | undefined;
  try {
    await Promise.race([
      keeper.client.publishAsync(topic, body, options),
      new Promise<never>((_, reject) => {
        const late = `${where} did not acknowledge the message within ${timeoutMs} ms`;
        timer = setTimeout(() => reject(new PipeError(late, { code: 504, kind: 'TIMEOUT', step })), timeoutMs);
        const lost = `${where}: the connection was lost before the acknowledgement`;
        onClose = () => reject(new PipeError(lost, { code: 503, kind: 'UNAVAILABLE', step }));
        keeper.client.once('close', onClose);
      }),
    ]);
  } catch (err) {
    if (err instanceof PipeError) throw err;
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'number' && code >= 0x80) {
      throw new PipeError(`${where} refused the message (reason code ${code})`, { code: 502, kind: 'REFUSED', step });
    }
    throw mqttFailure(err, where);
  } finally {
    clearTimeout(timer);
    if (onClose) keeper.client.off('close', onClose);
  }
}

export const run: ConnectorRun<MqttPublishParams> = async (params, message, ctx) => {
  const topic = params.topic;
  if (typeof topic !== 'string' || topic.length === 0 || /[#+\u0000]/.test(topic)) {
    throw invalid('`topic` must be a non-empty topic name without wildcards');
  }
  const payload = params.payload === undefined ? message : params.payload;
  const body = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload), 'utf8');
  const contentType =
    typeof params['content-type'] === 'string' && params['content-type'] !== ''
      ? params['content-type']
      : typeof payload === 'string'
        ? 'text/plain; charset=utf-8'
        : 'application/json';
  const user = userProperties(params.headers);
  const options: IClientPublishOptions = {
    qos: params.qos === 0 ? 0 : 1,
    retain: params.retain === true,
    properties: {
      contentType,
      userProperties: {
        ...(user ?? {}),
        'x-pipec-source-pipeline': ctx.pipeline,
        'x-pipec-source-execution': ctx.executionId,
      },
    },
  };
  let publisher: MqttPublisher | undefined;
  try {
    publisher = await mqttPublisher(ctx.services.connections, params.account, params.accountFields);
  } catch (err) {
    const failure = mqttFailure(err, 'MQTT broker');
    throw new PipeError(failure.message, { code: failure.code, kind: failure.kind, step: 'mqtt-publish', cause: err });
  }
  const timeoutMs = typeof params.timeout === 'number' ? params.timeout : DEFAULT_TIMEOUT_MS;
  const opened = publisher;
  // Through the broker's circuit breaker: after consecutive timeouts, fail at once (CIRCUIT_OPEN).
  const send = (): Promise<void> => publishOn(opened, topic, body, options, timeoutMs, 'mqtt-publish');
  await ctx.services.connections.guard(`mqtt:${params.account}`, send, { failed: slowFailure });
  return message;
};
