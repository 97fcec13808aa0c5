/**
 * MQTT clients (mqtt.js, MQTT 5) of `connection` accounts, for the `mqtt-publish` connector and
 * the `mqtt` trigger.
 *
 * - The publisher: one client per account, kept in the service's connections under
 *   `mqtt:<account>`, opened on first use (a service whose broker is down still starts; the step
 *   fails with the reason and the next use tries again).
 * - A subscriber: one client per trigger, with its own stable client id and a persistent session
 *   (clean start off, a session expiry), so the broker keeps its subscriptions and the QoS 1
 *   messages it did not acknowledge while it is away.
 * - Both reconnect for as long as the service runs once connected (a subscriber from its start),
 *   with backoff (250 ms doubling to 5 s, jitter), and report to `/ready` while they are away.
 */
import type { IClientOptions, MqttClient } from 'mqtt';
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

export const MQTT: Protocol = { scheme: 'mqtt', secureScheme: 'mqtts', defaultPort: 1883, server: 'MQTT broker' };

const CONNECT_TIMEOUT_MS = 10_000;

/** Options of mqtt.js for a target: no automatic reconnect (the keeper below does it, with backoff). */
export function mqttOptions(target: ConnectionTarget, extra: IClientOptions): IClientOptions {
  return {
    protocol: target.tls ? 'mqtts' : 'mqtt',
    host: target.url.hostname,
    port: Number(target.url.port || MQTT.defaultPort),
    protocolVersion: 5,
    reconnectPeriod: 0,
    connectTimeout: CONNECT_TIMEOUT_MS,
    ...(target.username !== undefined ? { username: target.username } : {}),
    ...(target.password !== undefined ? { password: target.password } : {}),
    ...(target.tls ? { ...target.tls, servername: target.url.hostname } : {}),
    ...extra,
  };
}

/** MQTT 3 CONNACK codes 4 and 5, MQTT 5 reason codes 134 and 135: the broker refused the client. */
const AUTH_CODES = new Set([4, 5, 134, 135]);

/** A failure of mqtt.js as one of the standard kinds; anything else becomes UNAVAILABLE. */
export function mqttFailure(err: unknown, where: string): PipeError {
  if (err instanceof PipeError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const text = err instanceof Error ? err.message : String(err);
  const refusedCode = typeof code === 'number' && AUTH_CODES.has(code);
  const auth = refusedCode || /not authori[sz]ed|bad user ?name or password/i.test(text);
  const common = connectionFailure(err, where, { auth });
  if (common) return common;
  if (/connack timeout|timed? ?out/i.test(text)) {
    return new PipeError(`${where} did not answer in time`, { code: 504, kind: 'TIMEOUT' });
  }
  return new PipeError(`${where} is not available: ${text.slice(0, 300)}`, { code: 503, kind: 'UNAVAILABLE' });
}

/**
 * Keeps one mqtt.js client connected: reports every loss and recovery, and reconnects after a
 * loss with backoff until `stop`. The client is made with automatic reconnects off.
 */
export class ConnectionKeeper {
  private readonly backoff = new Backoff(RECONNECT_BACKOFF);
  private readonly stopped = new AbortController();
  private waiting = false;
  lastFailure: PipeError | undefined;

  constructor(
    readonly client: MqttClient,
    readonly where: string,
    private readonly report: (up: boolean, cause?: unknown) => void,
  ) {
    client.on('error', (err: unknown) => {
      this.lastFailure = mqttFailure(err, where);
    });
    client.on('connect', () => {
      this.backoff.reset();
      this.lastFailure = undefined;
      report(true);
    });
    client.on('close', () => {
      if (this.stopped.signal.aborted) return;
      report(false, this.lastFailure ?? new Error(`${where}: the connection was closed`));
      void this.reconnectLater();
    });
  }

  get connected(): boolean {
    return this.client.connected;
  }

  /** Drops the connection now (the broker redelivers what was not acknowledged), then reconnects. */
  dropConnection(): void {
    this.client.stream?.destroy();
  }

  async stop(): Promise<void> {
    this.stopped.abort();
    await this.client.endAsync(true).catch(() => undefined);
  }

  private async reconnectLater(): Promise<void> {
    if (this.waiting) return;
    this.waiting = true;
    try {
      await pause(this.backoff.next(), this.stopped.signal);
    } finally {
      this.waiting = false;
    }
    if (!this.stopped.signal.aborted && !this.client.connected && !this.client.reconnecting) this.client.reconnect();
  }
}

/** Connects once (the first use): resolves with the connected client, or rejects with why not. */
export async function connectMqtt(options: IClientOptions, where: string): Promise<MqttClient> {
  const { connect } = await import('mqtt');
  const client = connect(options);
  return new Promise<MqttClient>((resolve, reject) => {
    let lastError: unknown;
    const onError = (err: unknown): void => {
      lastError = err;
    };
    const onConnect = (): void => {
      cleanup();
      resolve(client);
    };
    const onClose = (): void => {
      cleanup();
      client.end(true);
      reject(mqttFailure(lastError ?? new Error('the connection was closed before the broker accepted it'), where));
    };
    const cleanup = (): void => {
      client.off('error', onError);
      client.off('connect', onConnect);
      client.off('close', onClose);
    };
    client.on('error', onError);
    client.on('connect', onConnect);
    client.on('close', onClose);
  });
}

export interface MqttPublisher {
  readonly keeper: ConnectionKeeper;
  readonly where: string;
}

/** The publishing client of `account`, opened on first use. */
export function mqttPublisher(
  connections: Connections,
  account: string,
  fields: Readonly<Record<string, Json>> | undefined,
): Promise<MqttPublisher> {
  const dependency = `mqtt:${account}`;
  return connections.get(dependency, dependency, async () => {
    const target = connectionTarget(fields, MQTT);
    const where = describeTarget(target, MQTT);
    const client = await connectMqtt(mqttOptions(target, { clean: true }), where);
    const keeper = new ConnectionKeeper(client, where, (up, cause) => connections.report(dependency, up, cause));
    return { client: { keeper, where }, close: () => keeper.stop() };
  });
}
