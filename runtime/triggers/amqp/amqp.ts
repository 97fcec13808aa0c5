/**
 * The `amqp` trigger: one consumer per pipeline on a RabbitMQ queue, over the account's link
 * (runtime/connections/amqp-link.ts), started with the service — also while the broker is down:
 * the link connects in the background, `/ready` names it until the consumer runs.
 *
 * - At most `prefetch` messages are unacknowledged at once; each runs the pipeline.
 * - A message is acknowledged only after its pipeline succeeded. A failure that may pass runs it
 *   again after a backoff, up to `max-deliveries` runs (runtime/connections/broker-delivery.ts).
 * - A message that failed for good (out of runs, a 4xx, an invalid or oversized body) is published
 *   to `dead-letter-exchange` with its error in `x-pipec-*` headers and acknowledged once the
 *   broker confirmed it; without a dead-letter exchange it is rejected back to the queue, after the
 *   last wait, and delivered again. Nothing is acknowledged unseen or dropped.
 * - A lost connection loses nothing: the broker gives every unacknowledged message back to the
 *   queue; the link reconnects with backoff and the consumer starts again.
 */
import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import type { CompiledValidator, Json, JsonObject, RedeliveryBackoff, TriggerSpec } from '../../types.js';
import type { TriggeredPipeline, TriggerHost, TriggerRuntime } from '../../service/trigger-host.js';
import { collectViolations, type Violation } from '../../service/validation.js';
import { Backoff, RECONNECT_BACKOFF, pause } from '../../backends/backoff.js';
import { amqpLink, type AmqpLink } from '../../connections/amqp-link.js';
import { deliver, errorLine, type DeliveryResult } from '../../connections/broker-delivery.js';

export interface AmqpTriggerSpec extends TriggerSpec {
  readonly kind: 'amqp';
  readonly account: string;
  readonly queue: string;
  readonly declare: boolean;
  readonly prefetch: number;
  readonly maxDeliveries: number;
  readonly backoff: RedeliveryBackoff;
  readonly maxSize: number;
  readonly deadLetterExchange?: string;
  readonly deadLetterRoutingKey?: string;
  readonly validateBody?: CompiledValidator;
}

const DEAD_LETTER_CONFIRM_MS = 10_000;

/** The body as the pipeline sees it: JSON when it says (or looks) so, else UTF-8 text. */
export function decodeBody(content: Buffer, contentType: string | undefined): Json {
  const text = content.toString('utf8');
  const type = contentType?.toLowerCase() ?? '';
  if (type.includes('json') || type === '') {
    try {
      return JSON.parse(text) as Json;
    } catch {
      if (type.includes('json')) throw new Error('the body is not the JSON its content type says');
    }
  }
  return text;
}

/** AMQP header values as JSON (Buffers as text, dates as ISO strings). */
function headerValue(value: unknown, depth = 0): Json {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return value.toString();
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (value instanceof Date) return value.toISOString();
  if (depth > 8) return null;
  if (Array.isArray(value)) return value.map((v) => headerValue(v, depth + 1));
  if (typeof value === 'object') {
    const out: JsonObject = Object.create(null) as JsonObject;
    for (const [k, v] of Object.entries(value)) {
      const property = { value: headerValue(v, depth + 1), enumerable: true, writable: true, configurable: true };
      Object.defineProperty(out, k, property);
    }
    return out;
  }
  return String(value);
}

/** The first message of the pipeline. */
export function messageOf(msg: ConsumeMessage, body: Json, redelivered: boolean): JsonObject {
  const p = msg.properties;
  const headers = headerValue(p.headers ?? {}) as JsonObject;
  return {
    body,
    headers,
    exchange: msg.fields.exchange,
    routingKey: msg.fields.routingKey,
    redelivered,
    ...(typeof p.messageId === 'string' ? { messageId: p.messageId } : {}),
    ...(typeof p.correlationId === 'string' ? { correlationId: p.correlationId } : {}),
    ...(typeof p.contentType === 'string' ? { contentType: p.contentType } : {}),
    ...(typeof p.replyTo === 'string' ? { replyTo: p.replyTo } : {}),
    ...(typeof p.timestamp === 'number' ? { timestamp: p.timestamp } : {}),
  };
}

/** String headers of a message, for the execution's trace context. */
function traceHeaders(msg: ConsumeMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(msg.properties.headers ?? {})) if (typeof v === 'string') out[k] = v;
  return out;
}

function validateMessage(spec: AmqpTriggerSpec, message: Json): Violation[] | null {
  if (!spec.validateBody) return null;
  const body = message !== null && typeof message === 'object' && !Array.isArray(message) ? message['body'] : undefined;
  return collectViolations(spec.validateBody, body ?? null);
}

/** One queue consumer of one pipeline; sets itself up again on every (re)connection. */
class QueueConsumer {
  private channel: Channel | undefined;
  private consumerTag: string | undefined;
  private readonly stopping = new AbortController();
  private readonly setupBackoff = new Backoff(RECONNECT_BACKOFF);
  private unlisten: (() => void) | undefined;
  private lastProblem: string | undefined;
  private settingUp = false;

  constructor(
    readonly pipeline: TriggeredPipeline<AmqpTriggerSpec>,
    private readonly host: TriggerHost,
    private readonly link: AmqpLink,
  ) {}

  get consuming(): boolean {
    return this.consumerTag !== undefined;
  }

  private get spec(): AmqpTriggerSpec {
    return this.pipeline.trigger;
  }

  start(): void {
    this.unlisten = this.link.onConnected((model) => void this.setUp(model));
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.unlisten?.();
    const { channel, consumerTag } = this;
    this.consumerTag = undefined;
    // Stop receiving; messages running now finish and are acknowledged on this channel (the
    // connection closes after the executions drained). Unacknowledged ones go back to the queue.
    if (channel && consumerTag) await channel.cancel(consumerTag).catch(() => undefined);
  }

  private async setUp(model: ChannelModel): Promise<void> {
    // One channel at a time: a reconnect and a retry after a closed channel may both ask.
    if (this.stopping.signal.aborted || this.settingUp || this.channel !== undefined) return;
    this.settingUp = true;
    let channel: Channel | undefined;
    try {
      channel = await model.createChannel();
      const opened = channel;
      this.channel = opened;
      opened.on('error', (err: unknown) => this.problem(`channel closed by the broker: ${describe(err)}`));
      opened.on('close', () => this.channelClosed(opened));
      await opened.prefetch(this.spec.prefetch);
      if (this.spec.declare) await opened.assertQueue(this.spec.queue, { durable: true });
      const { consumerTag } = await opened.consume(
        this.spec.queue,
        (msg) => {
          if (msg === null) {
            // The broker cancelled the consumer (the queue was deleted): set up again later.
            this.consumerTag = undefined;
            void opened.close().catch(() => undefined);
            return;
          }
          void this.handle(opened, msg);
        },
        { noAck: false },
      );
      this.consumerTag = consumerTag;
      this.setupBackoff.reset();
      if (this.lastProblem !== undefined) {
        this.host.logger.info({ pipeline: this.pipeline.name, queue: this.spec.queue }, 'amqp consumer running again');
      }
      this.lastProblem = undefined;
    } catch (err) {
      this.problem(err instanceof Error ? err.message : String(err));
      await channel?.close().catch(() => undefined);
    } finally {
      this.settingUp = false;
    }
  }

  /**
   * The channel closed: while the connection lives (a missing queue, a cancel), try again later on
   * the connection of that time; after a lost connection, the reconnect sets the consumer up.
   */
  private channelClosed(channel: Channel): void {
    if (this.channel === channel) {
      this.channel = undefined;
      this.consumerTag = undefined;
    }
    if (this.stopping.signal.aborted) return;
    void pause(this.setupBackoff.next(), this.stopping.signal).then(async () => {
      if (this.stopping.signal.aborted || this.channel !== undefined || !this.link.connected) return;
      const model = await this.link.connection().catch(() => undefined);
      if (model) await this.setUp(model);
    });
  }

  private problem(reason: string): void {
    if (reason === this.lastProblem) return;
    this.lastProblem = reason;
    const where = { pipeline: this.pipeline.name, queue: this.spec.queue, reason };
    this.host.logger.warn(where, 'amqp consumer not running; retrying');
  }

  private async handle(channel: Channel, msg: ConsumeMessage): Promise<void> {
    const { spec, pipeline, host } = this;
    const labels = { pipeline: pipeline.name, event: `amqp:${spec.queue}` };
    if (msg.fields.redelivered) host.metrics.eventsRedelivered.inc(labels);
    let body: Json;
    try {
      if (msg.content.length > spec.maxSize) {
        throw new Error(`the body has ${msg.content.length} bytes, more than max-size (${spec.maxSize})`);
      }
      body = decodeBody(msg.content, msg.properties.contentType as string | undefined);
    } catch (err) {
      host.metrics.eventsConsumed.inc({ ...labels, outcome: 'invalid' });
      await this.deadLetter(channel, msg, 'unreadable', 1, '', describe(err));
      return;
    }
    const result: DeliveryResult = await deliver(
      (attempt) =>
        host.engine.execute({
          pipeline: pipeline.name,
          message: messageOf(msg, body, msg.fields.redelivered || attempt > 1),
          validate: (m) => validateMessage(spec, m),
          redelivery: msg.fields.redelivered || attempt > 1,
          trigger: 'amqp',
          traceHeaders: traceHeaders(msg),
        }),
      { maxDeliveries: spec.maxDeliveries, backoff: spec.backoff, signal: this.stopping.signal },
    );
    if (result.kind === 'stopped') return; // unacknowledged: back to the queue when the channel closes
    if (result.kind === 'done') {
      host.metrics.eventsConsumed.inc({ ...labels, outcome: 'success' });
      settle(() => channel.ack(msg));
      return;
    }
    host.metrics.eventsConsumed.inc({ ...labels, outcome: 'failure' });
    await this.deadLetter(channel, msg, result.reason, result.attempts, result.executionId, errorLine(result.error));
  }

  /** A message that failed for good: to the dead-letter exchange (then acked), or back to the queue. */
  private async deadLetter(
    channel: Channel,
    msg: ConsumeMessage,
    reason: string,
    attempts: number,
    executionId: string,
    error: string,
  ): Promise<void> {
    const { spec, pipeline, host } = this;
    const context = { pipeline: pipeline.name, queue: spec.queue, reason, attempts, executionId, error };
    if (spec.deadLetterExchange === undefined) {
      host.logger.error(context, 'amqp message failed; rejected back to the queue (no dead-letter-exchange)');
      settle(() => channel.nack(msg, false, true));
      return;
    }
    const p = msg.properties;
    try {
      const routingKey = spec.deadLetterRoutingKey ?? msg.fields.routingKey;
      await this.link.publish(
        spec.deadLetterExchange,
        routingKey,
        msg.content,
        {
          persistent: true,
          mandatory: true,
          ...(p.contentType ? { contentType: p.contentType as string } : {}),
          ...(p.messageId ? { messageId: p.messageId as string } : {}),
          ...(p.correlationId ? { correlationId: p.correlationId as string } : {}),
          headers: {
            ...(p.headers ?? {}),
            'x-pipec-error': error,
            'x-pipec-reason': reason,
            'x-pipec-attempts': attempts,
            'x-pipec-queue': spec.queue,
            'x-pipec-pipeline': pipeline.name,
            'x-pipec-execution': executionId,
            'x-pipec-exchange': msg.fields.exchange,
            'x-pipec-routing-key': msg.fields.routingKey,
          },
        },
        DEAD_LETTER_CONFIRM_MS,
      );
      host.logger.warn(context, `amqp message dead-lettered to exchange "${spec.deadLetterExchange}"`);
      settle(() => channel.ack(msg));
    } catch (err) {
      // Not confirmed: the message stays in the queue and comes back.
      const failed = { ...context, deadLetterError: describe(err) };
      host.logger.error(failed, 'amqp dead-lettering failed; rejected back to the queue');
      settle(() => channel.nack(msg, false, true));
    }
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** An ack or nack on a channel that closed meanwhile: the broker already gave the message back. */
function settle(action: () => void): void {
  try {
    action();
  } catch {
    // the channel is gone; the broker requeued the message with it
  }
}

export const trigger: TriggerRuntime<AmqpTriggerSpec> = {
  attach(pipelines, host) {
    const consumers: QueueConsumer[] = [];
    for (const p of pipelines) {
      const consuming = (): boolean => consumers.find((c) => c.pipeline === p)?.consuming ?? true;
      host.readiness(`amqp:${p.trigger.account}/${p.trigger.queue}`, consuming);
    }
    return {
      async start() {
        for (const p of pipelines) {
          const { account } = p.trigger;
          const link = await amqpLink(host.connections, account, host.accounts[account], host.logger);
          const consumer = new QueueConsumer(p, host, link);
          consumers.push(consumer);
          consumer.start();
        }
      },
      async stop() {
        await Promise.allSettled(consumers.map((c) => c.stop()));
      },
    };
  },
  validate: validateMessage,
  // A test gives what it cares about (`input: { body: … }`); the rest is what a first delivery from the queue has.
  testMessage: (spec, given) => ({
    body: null,
    headers: {},
    exchange: '',
    routingKey: spec.queue,
    redelivered: false,
    ...(given !== null && typeof given === 'object' && !Array.isArray(given) ? given : {}),
  }),
};
