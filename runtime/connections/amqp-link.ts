/**
 * One AMQP 0-9-1 connection (RabbitMQ, amqplib) per `connection` account, shared by the
 * `amqp-publish` connector and the `amqp` trigger, kept in the service's connections under
 * `amqp:<account>`.
 *
 * - Opened on first use, never at start: a publish connects then (and fails with the reason when
 *   the broker is not there — the next use tries again); a consumer starts a connect loop.
 * - Once connected, or as soon as a consumer waits for it, a lost connection is re-established
 *   for as long as the service runs, with backoff (250 ms doubling to 5 s, jitter); every
 *   `onConnected` listener (the consumers) sets itself up again on the new connection. Meanwhile
 *   a publish fails at once (UNAVAILABLE, 503) and `/ready` names the dependency.
 * - Publishes go through one confirm channel: `publish` resolves only after the broker confirmed
 *   the message (and, with `mandatory`, routed it to a queue).
 */
import type { ChannelModel, ConfirmChannel, Options } from 'amqplib';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { PipeError } from '../errors.js';
import { Backoff, RECONNECT_BACKOFF, pause } from '../backends/backoff.js';
import {
  connectionFailure,
  connectionTarget,
  describeTarget,
  type ConnectionTarget,
  type Protocol,
} from './connection-account.js';
import type { Connections, Json } from '../types.js';

export const AMQP: Protocol = { scheme: 'amqp', secureScheme: 'amqps', defaultPort: 5672, server: 'RabbitMQ' };

/** How long connecting may take before it counts as failed. */
const CONNECT_TIMEOUT_MS = 10_000;
const HEARTBEAT_S = 10;

export interface AmqpLinkOptions {
  readonly target: ConnectionTarget;
  readonly report: (up: boolean, cause?: unknown) => void;
  readonly logger?: Logger;
}

type Listener = (model: ChannelModel) => void;

export class AmqpLink {
  readonly where: string;
  private model: ChannelModel | undefined;
  private connecting: Promise<ChannelModel> | undefined;
  private confirm: Promise<ConfirmChannel> | undefined;
  private readonly listeners = new Set<Listener>();
  private retrying = false;
  private closed = false;
  private lastFailure: PipeError | undefined;
  private readonly stopRetry = new AbortController();
  /** Message ids of mandatory publishes the broker returned (unroutable), until their confirm. */
  private readonly returned = new Set<string>();

  constructor(private readonly opts: AmqpLinkOptions) {
    this.where = describeTarget(opts.target, AMQP);
  }

  get connected(): boolean {
    return this.model !== undefined;
  }

  /** The live connection: connects when idle; while reconnecting, fails at once with why it is down. */
  connection(): Promise<ChannelModel> {
    if (this.closed) return Promise.reject(this.unavailable('the service is stopping'));
    if (this.model) return Promise.resolve(this.model);
    if (this.connecting) return this.connecting;
    if (this.retrying) return Promise.reject(this.lastFailure ?? this.unavailable('reconnecting'));
    return this.connectOnce();
  }

  /**
   * Calls `listener` with every connection from now on (at once when connected) and keeps the link
   * connecting until it is up; returns the function that removes it.
   */
  onConnected(listener: Listener): () => void {
    this.listeners.add(listener);
    if (this.model) listener(this.model);
    else this.connection().catch(() => this.retryForever());
    return () => this.listeners.delete(listener);
  }

  /**
   * Publishes and waits for the broker's confirm (PipeError TIMEOUT after `timeoutMs`); with
   * `mandatory`, a message no queue took fails with UNROUTABLE.
   */
  async publish(
    exchange: string,
    routingKey: string,
    content: Buffer,
    options: Options.Publish,
    timeoutMs: number,
  ): Promise<void> {
    const channel = await this.confirmChannel();
    const tracking = options.mandatory ? `${options.messageId ?? ''}\u0000${randomUUID()}` : undefined;
    const given = options.headers as Record<string, unknown> | undefined;
    const headers = tracking ? { ...given, 'x-pipec-publish-id': tracking } : given;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new PipeError(`${this.where} did not confirm the message within ${timeoutMs} ms`, {
              code: 504,
              kind: 'TIMEOUT',
              step: 'amqp-publish',
            }),
          ),
        timeoutMs,
      );
      const done = (err: unknown): void => {
        clearTimeout(timer);
        const wasReturned = tracking !== undefined && this.returned.delete(tracking);
        if (err) reject(this.channelFailure(channel, err));
        else if (wasReturned) {
          const why = `no queue is bound to exchange "${exchange}" for routing key "${routingKey}" (returned)`;
          reject(new PipeError(`${this.where}: ${why}`, { code: 502, kind: 'UNROUTABLE', step: 'amqp-publish' }));
        } else resolve();
      };
      try {
        channel.publish(exchange, routingKey, content, { ...options, ...(headers ? { headers } : {}) }, done);
      } catch (err) {
        done(err);
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopRetry.abort();
    this.listeners.clear();
    const model = this.model ?? (await this.connecting?.catch(() => undefined));
    this.model = undefined;
    await model?.close().catch(() => undefined);
  }

  private connectOnce(): Promise<ChannelModel> {
    const attempt = (async () => {
      try {
        const { connect } = await import('amqplib');
        const { target } = this.opts;
        const model = await connect(this.connectUrl(target), {
          timeout: CONNECT_TIMEOUT_MS,
          ...(target.tls ? { ...target.tls, servername: target.url.hostname } : {}),
        });
        if (this.closed) {
          await model.close().catch(() => undefined);
          throw this.unavailable('the service is stopping');
        }
        model.on('error', () => undefined); // a 'close' follows; handled there
        model.on('close', (err?: Error) => this.lost(model, err));
        this.model = model;
        this.lastFailure = undefined;
        this.opts.report(true);
        for (const listener of this.listeners) listener(model);
        return model;
      } catch (err) {
        const failure = amqpFailure(err, this.where);
        this.lastFailure = failure;
        this.opts.report(false, failure);
        throw failure;
      } finally {
        this.connecting = undefined;
      }
    })();
    this.connecting = attempt;
    return attempt;
  }

  /** The URL amqplib connects to: the account's, with its credentials and virtual host. */
  private connectUrl(target: ConnectionTarget): string {
    const url = new URL(target.url.toString());
    if (target.username !== undefined) url.username = encodeURIComponent(target.username);
    if (target.password !== undefined) url.password = encodeURIComponent(target.password);
    if (target.database !== undefined) url.pathname = `/${encodeURIComponent(target.database)}`;
    url.searchParams.set('heartbeat', String(HEARTBEAT_S));
    return url.toString();
  }

  private lost(model: ChannelModel, err: Error | undefined): void {
    if (this.model !== model) return;
    this.model = undefined;
    this.confirm = undefined;
    if (this.closed) return;
    const failure = this.unavailable(err ? `the connection was lost (${err.message})` : 'the connection was closed');
    this.lastFailure = failure;
    this.opts.report(false, failure);
    void this.retryForever();
  }

  private async retryForever(): Promise<void> {
    if (this.retrying || this.closed) return;
    this.retrying = true;
    const backoff = new Backoff(RECONNECT_BACKOFF);
    try {
      while (!this.closed && !this.model) {
        await pause(backoff.next(), this.stopRetry.signal);
        if (this.closed || this.model) break;
        await (this.connecting ?? this.connectOnce()).catch(() => undefined); // reported by connectOnce
      }
    } finally {
      this.retrying = false;
    }
  }

  private confirmChannel(): Promise<ConfirmChannel> {
    if (!this.confirm) {
      const opening = this.connection().then(async (model) => {
        const channel = await model.createConfirmChannel();
        channel.on('error', (err: unknown) => {
          (channel as ChannelWithFailure).pipecFailure = err;
        });
        channel.on('close', () => {
          if (this.confirm === opening) this.confirm = undefined;
        });
        channel.on('return', (message: { properties: { headers?: Record<string, unknown> } }) => {
          const id = message.properties.headers?.['x-pipec-publish-id'];
          if (typeof id === 'string') this.returned.add(id);
        });
        return channel;
      });
      this.confirm = opening;
      opening.catch(() => {
        if (this.confirm === opening) this.confirm = undefined;
      });
    }
    return this.confirm;
  }

  /** A publish failure: the reason the broker closed the channel when it did, else the connection's. */
  private channelFailure(channel: ConfirmChannel, err: unknown): PipeError {
    const cause = (channel as ChannelWithFailure).pipecFailure ?? err;
    const text = cause instanceof Error ? cause.message : String(cause);
    const step = 'amqp-publish';
    const brokerSays = (code: string): string => text.replace(new RegExp(`^.*${code} - `), '').replace(/"$/, '');
    if (/\b404\b|NOT_FOUND/.test(text)) {
      return new PipeError(`${this.where}: ${brokerSays('NOT_FOUND')}`, { code: 502, kind: 'NOT_FOUND', step });
    }
    if (/\b403\b|ACCESS_REFUSED/.test(text)) {
      const why = `${this.where} refused access: ${brokerSays('ACCESS_REFUSED')}`;
      return new PipeError(why, { code: 502, kind: 'ACCESS_REFUSED', step });
    }
    if (/nack/i.test(text)) {
      const why = `${this.where} did not take the message (negative confirm)`;
      return new PipeError(why, { code: 503, kind: 'NOT_CONFIRMED', step });
    }
    if (!this.model) return this.lastFailure ?? this.unavailable('the connection was lost before the confirm');
    return amqpFailure(cause, this.where);
  }

  private unavailable(why: string): PipeError {
    return new PipeError(`${this.where} is not available: ${why}`, { code: 503, kind: 'UNAVAILABLE' });
  }
}

type ChannelWithFailure = ConfirmChannel & { pipecFailure?: unknown };

/** The link of `account`, made on first use (connecting is the link's business, see above). */
export function amqpLink(
  connections: Connections,
  account: string,
  fields: Readonly<Record<string, Json>> | undefined,
  logger?: Logger,
): Promise<AmqpLink> {
  const dependency = `amqp:${account}`;
  return connections.get(dependency, dependency, async () => {
    const link = new AmqpLink({
      target: connectionTarget(fields, AMQP),
      report: (up, cause) => connections.report(dependency, up, cause),
      ...(logger ? { logger } : {}),
    });
    return { client: link, close: () => link.close() };
  });
}

/** A failure of amqplib as one of the standard kinds; anything else becomes UNAVAILABLE. */
export function amqpFailure(err: unknown, where: string): PipeError {
  if (err instanceof PipeError) return err;
  const text = err instanceof Error ? err.message : String(err);
  const auth = /ACCESS[-_]REFUSED|\b403\b|authentication/i.test(text) && !/CHANNEL_ERROR/.test(text);
  const common = connectionFailure(err, where, { auth });
  if (common) return common;
  if (/timeout|timed out/i.test(text)) {
    return new PipeError(`${where} did not answer in time`, { code: 504, kind: 'TIMEOUT' });
  }
  if (/NOT_ALLOWED|vhost|ConnectionOpenOk/i.test(text)) {
    const why = `${where} refused the virtual host of the account`;
    return new PipeError(why, { code: 502, kind: 'AUTHENTICATION_FAILED' });
  }
  return new PipeError(`${where} is not available: ${text.slice(0, 300)}`, { code: 503, kind: 'UNAVAILABLE' });
}
