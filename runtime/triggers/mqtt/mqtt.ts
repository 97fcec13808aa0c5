/**
 * The `mqtt` trigger: one MQTT 5 client per pipeline, with a stable client id and a persistent
 * session, subscribed to the topic filters with QoS 1 (runtime/connections/mqtt-link.ts). Started
 * with the service, also while the broker is down (it connects in the background; `/ready` names
 * it meanwhile), and reconnected with backoff for as long as the service runs.
 *
 * Messages are handled one at a time, in order (mqtt.js `handleMessage`): the broker's PUBACK is
 * sent only when the pipeline succeeded — or the message was dead-lettered. A failure that may pass
 * runs again after a backoff, up to `max-deliveries` runs; a message that failed for good is
 * published to `dead-letter-topic` (QoS 1, the error in user properties) and then acknowledged;
 * without one, the connection is dropped unacknowledged and the broker delivers it again after the
 * reconnect. A message running when the service stops, or when the connection is lost, is not
 * acknowledged either: the session keeps it for the next connection.
 */
import type { IPublishPacket, MqttClient } from 'mqtt';
import type { CompiledValidator, Json, JsonObject, RedeliveryBackoff, TriggerSpec } from '../../types.js';
import type { TriggeredPipeline, TriggerHost, TriggerRuntime } from '../../service/trigger-host.js';
import { collectViolations, type Violation } from '../../service/validation.js';
import { connectionTarget, describeTarget } from '../../connections/connection-account.js';
import { ConnectionKeeper, MQTT, mqttFailure, mqttOptions } from '../../connections/mqtt-link.js';
import { deliver, errorLine, type DeliveryResult } from '../../connections/broker-delivery.js';
import { publishOn } from '../../connectors/mqtt-publish/mqtt-publish.js';

export interface MqttTriggerSpec extends TriggerSpec {
  readonly kind: 'mqtt';
  readonly account: string;
  readonly topics: readonly string[];
  readonly clientId: string;
  readonly sessionExpiryMs: number;
  readonly keepaliveMs: number;
  readonly maxDeliveries: number;
  readonly backoff: RedeliveryBackoff;
  readonly maxSize: number;
  readonly deadLetterTopic?: string;
  readonly validateBody?: CompiledValidator;
}

const DEAD_LETTER_ACK_MS = 10_000;

/** The payload as the pipeline sees it: JSON when it is (or says it is), else UTF-8 text. */
export function decodePayload(payload: Buffer, contentType: string | undefined): Json {
  const text = payload.toString('utf8');
  try {
    return JSON.parse(text) as Json;
  } catch {
    if (contentType?.toLowerCase().includes('json')) {
      throw new Error('the payload is not the JSON its content type says');
    }
    return text;
  }
}

function userProperties(packet: IPublishPacket): JsonObject {
  const out: JsonObject = Object.create(null) as JsonObject;
  for (const [name, value] of Object.entries(packet.properties?.userProperties ?? {})) {
    const text = Array.isArray(value) ? value.map(String) : String(value);
    Object.defineProperty(out, name, { value: text, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

export function messageOf(packet: IPublishPacket, body: Json, redelivered: boolean): JsonObject {
  const contentType = packet.properties?.contentType;
  return {
    topic: packet.topic,
    body,
    qos: packet.qos,
    retain: packet.retain,
    redelivered,
    headers: userProperties(packet),
    ...(typeof contentType === 'string' ? { contentType } : {}),
  };
}

function validateMessage(spec: MqttTriggerSpec, message: Json): Violation[] | null {
  if (!spec.validateBody) return null;
  const body = message !== null && typeof message === 'object' && !Array.isArray(message) ? message['body'] : undefined;
  return collectViolations(spec.validateBody, body ?? null);
}

/** One pipeline's subscriber. */
class TopicSubscriber {
  private keeper: ConnectionKeeper | undefined;
  private subscribed = false;
  private readonly stopping = new AbortController();
  private readonly dependency: string;

  constructor(
    readonly pipeline: TriggeredPipeline<MqttTriggerSpec>,
    private readonly host: TriggerHost,
  ) {
    this.dependency = `mqtt:${pipeline.trigger.account}/${pipeline.trigger.clientId}`;
  }

  get ready(): boolean {
    return this.subscribed && (this.keeper?.connected ?? false);
  }

  private get spec(): MqttTriggerSpec {
    return this.pipeline.trigger;
  }

  async start(): Promise<void> {
    const { spec, host } = this;
    const target = connectionTarget(host.accounts[spec.account], MQTT);
    const where = describeTarget(target, MQTT);
    const { connect } = await import('mqtt');
    const client: MqttClient = connect(
      mqttOptions(target, {
        clientId: spec.clientId,
        clean: false,
        keepalive: Math.max(1, Math.round(spec.keepaliveMs / 1000)),
        properties: { sessionExpiryInterval: Math.min(0xfffffffe, Math.round(spec.sessionExpiryMs / 1000)) },
        resubscribe: true,
      }),
    );
    const report = (up: boolean, cause?: unknown): void => host.connections.report(this.dependency, up, cause);
    const keeper = new ConnectionKeeper(client, where, report);
    this.keeper = keeper;
    let lastProblem: string | undefined;
    client.on('error', (err: unknown) => {
      // Once per distinct reason (the keeper retries with backoff): wrong credentials, a refused port …
      const reason = mqttFailure(err, where).message;
      if (reason === lastProblem) return;
      lastProblem = reason;
      host.logger.warn({ pipeline: this.pipeline.name, reason }, 'mqtt subscriber cannot connect; retrying');
    });
    client.on('connect', () => {
      lastProblem = undefined;
    });
    client.handleMessage = (packet, done) => {
      void this.handle(packet).then((acknowledge) => {
        if (acknowledge) done();
        // else: no PUBACK; handle() dropped the connection (or the service stops), so the broker
        // delivers the message again on the next connection of the session.
      });
    };
    client.on('connect', (connack) => {
      // A session the broker kept has the subscriptions; subscribe anyway (new filters, a lost session).
      if (connack.sessionPresent && this.subscribed) return;
      client.subscribe([...spec.topics], { qos: 1 }, (err, granted) => {
        const refused = granted?.filter((g) => g.qos !== 0 && g.qos !== 1 && g.qos !== 2) ?? [];
        if (err || refused.length > 0) {
          const reason = err?.message ?? 'subscription refused';
          host.logger.warn({ pipeline: this.pipeline.name, topics: spec.topics, reason }, 'mqtt subscription refused');
          return;
        }
        this.subscribed = true;
      });
    });
    // Until the first connection, report it missing (the keeper reports every change after that).
    host.connections.report(this.dependency, false, new Error(`${where}: not connected yet`));
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    // The client stays open until the executions drained (the connections are closed then), so
    // a run that succeeds meanwhile is still acknowledged.
  }

  async close(): Promise<void> {
    await this.keeper?.stop();
  }

  /** Runs the pipeline for one message; true: acknowledge it. */
  private async handle(packet: IPublishPacket): Promise<boolean> {
    const { spec, pipeline, host } = this;
    // By subscription, not by topic: topics carry ids (devices/<id>/…) and would grow the series without end.
    const labels = { pipeline: pipeline.name, event: `mqtt:${spec.topics.join(',')}` };
    if (this.stopping.signal.aborted) return false;
    if (packet.dup) host.metrics.eventsRedelivered.inc(labels);
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
    let body: Json;
    try {
      if (payload.length > spec.maxSize) {
        throw new Error(`the payload has ${payload.length} bytes, more than max-size (${spec.maxSize})`);
      }
      body = decodePayload(payload, packet.properties?.contentType);
    } catch (err) {
      host.metrics.eventsConsumed.inc({ ...labels, outcome: 'invalid' });
      return this.deadLetter(packet, payload, 'unreadable', 1, '', err instanceof Error ? err.message : String(err));
    }
    const result: DeliveryResult = await deliver(
      (attempt) =>
        host.engine.execute({
          pipeline: pipeline.name,
          message: messageOf(packet, body, packet.dup || attempt > 1),
          validate: (m) => validateMessage(spec, m),
          redelivery: packet.dup || attempt > 1,
          trigger: 'mqtt',
        }),
      { maxDeliveries: spec.maxDeliveries, backoff: spec.backoff, signal: this.stopping.signal },
    );
    if (result.kind === 'stopped') return false;
    if (result.kind === 'done') {
      host.metrics.eventsConsumed.inc({ ...labels, outcome: 'success' });
      return true;
    }
    host.metrics.eventsConsumed.inc({ ...labels, outcome: 'failure' });
    const { reason, attempts, executionId } = result;
    return this.deadLetter(packet, payload, reason, attempts, executionId, errorLine(result.error));
  }

  /** A message that failed for good: to the dead-letter topic (true: acknowledge), or given back. */
  private async deadLetter(
    packet: IPublishPacket,
    payload: Buffer,
    reason: string,
    attempts: number,
    executionId: string,
    error: string,
  ): Promise<boolean> {
    const { spec, pipeline, host, keeper } = this;
    const context = { pipeline: pipeline.name, topic: packet.topic, reason, attempts, executionId, error };
    if (!keeper) return false;
    if (spec.deadLetterTopic === undefined) {
      host.logger.error(context, 'mqtt message failed; not acknowledged (no dead-letter-topic): delivered again');
      keeper.dropConnection();
      return false;
    }
    try {
      await publishOn(
        { keeper, where: keeper.where },
        spec.deadLetterTopic,
        payload,
        {
          qos: 1,
          retain: false,
          properties: {
            ...(packet.properties?.contentType ? { contentType: packet.properties.contentType } : {}),
            userProperties: {
              ...(packet.properties?.userProperties ?? {}),
              'x-pipec-error': error,
              'x-pipec-reason': reason,
              'x-pipec-attempts': String(attempts),
              'x-pipec-topic': packet.topic,
              'x-pipec-pipeline': pipeline.name,
              'x-pipec-execution': executionId,
            },
          },
        },
        DEAD_LETTER_ACK_MS,
        'mqtt',
      );
      host.logger.warn(context, `mqtt message dead-lettered to topic "${spec.deadLetterTopic}"`);
      return true;
    } catch (err) {
      const deadLetterError = err instanceof Error ? err.message : String(err);
      host.logger.error({ ...context, deadLetterError }, 'mqtt dead-lettering failed; not acknowledged');
      keeper.dropConnection();
      return false;
    }
  }
}

export const trigger: TriggerRuntime<MqttTriggerSpec> = {
  attach(pipelines, host) {
    const subscribers: TopicSubscriber[] = [];
    for (const p of pipelines) {
      const ready = (): boolean => subscribers.find((s) => s.pipeline === p)?.ready ?? true;
      host.readiness(`mqtt:${p.trigger.account}/${p.trigger.clientId}/subscribed`, ready);
    }
    return {
      async start() {
        for (const p of pipelines) {
          const subscriber = new TopicSubscriber(p, host);
          subscribers.push(subscriber);
          await subscriber.start();
          // Closed with the service's other clients, after the executions drained.
          void host.connections.get(`mqtt-subscriber:${p.name}`, `mqtt-subscriber:${p.name}`, async () => ({
            client: subscriber,
            close: () => subscriber.close(),
          }));
        }
      },
      async stop() {
        await Promise.allSettled(subscribers.map((s) => s.stop()));
      },
    };
  },
  validate: validateMessage,
  // A test gives what it cares about (`input: { body: … }`); the rest is what a first delivery has.
  testMessage: (spec, given) => ({
    topic: spec.topics[0] ?? '',
    body: null,
    qos: 1,
    retain: false,
    redelivered: false,
    headers: {},
    ...(given !== null && typeof given === 'object' && !Array.isArray(given) ? given : {}),
  }),
};
