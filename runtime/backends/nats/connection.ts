/**
 * The NATS connection of a service (@nats-io/transport-node), kept for as long as the service
 * runs: the client reconnects with no attempt limit (exponential backoff with jitter, capped at
 * 5 s), and should the client ever close its connection by itself (say, after repeated auth
 * failures) a new one is opened. Losses and recoveries go to the backend's Dependency (logged
 * once each, read by `/ready`). Nothing here writes to the console.
 *
 * Connection settings come from the URL and the environment (README "Running a service"):
 *   PIPEC_BROKER            nats://host:port or tls://host:port, several separated by commas;
 *                           `user:pass@` or `token@` in the URL work too
 *   PIPEC_NATS_TOKEN        token authentication
 *   PIPEC_NATS_USER, PIPEC_NATS_PASSWORD   user/password authentication
 *   PIPEC_NATS_NKEY_SEED    NKey authentication (the user's seed, `SU…`)
 *   PIPEC_NATS_CREDS        path of a .creds file (JWT + NKey seed; read again at every connect)
 *   PIPEC_NATS_TLS          `true`: require TLS (as a tls:// URL does)
 *   PIPEC_NATS_TLS_CA, PIPEC_NATS_TLS_CERT, PIPEC_NATS_TLS_KEY   PEM files: the CA to trust, and
 *                           a client certificate and key for mutual TLS (any of them implies TLS)
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import {
  connect,
  credsAuthenticator,
  nkeyAuthenticator,
  type NatsConnection,
  type NodeConnectionOptions,
} from '@nats-io/transport-node';
import { Backoff, pause, RECONNECT_BACKOFF } from '../backoff.js';
import type { Dependency } from '../availability.js';

/** How often the client pings the server; two missed answers make it reconnect (~6 s to notice a silent link). */
const PING_INTERVAL_MS = 2000;
/** Longest a connection attempt may take (a black-holed address must not stall reconnecting). */
const CONNECT_TIMEOUT_MS = 5000;
/** Longest a close waits for the connection to drain. */
const DRAIN_WAIT_MS = 2000;

/** Builds the client's options from the broker URL and the environment; throws on contradictory settings. */
export function natsConnectionOptions(url: string, env: NodeJS.ProcessEnv): NodeConnectionOptions {
  const servers: string[] = [];
  let urlUser: string | undefined;
  let urlPass: string | undefined;
  let tlsScheme = false;
  for (const part of url.split(',')) {
    const parsed = new URL(part.trim());
    if (parsed.protocol !== 'nats:' && parsed.protocol !== 'tls:')
      throw new Error(`PIPEC_BROKER: unsupported scheme ${parsed.protocol} (use nats:// or tls://)`);
    tlsScheme ||= parsed.protocol === 'tls:';
    servers.push(`${parsed.hostname}:${parsed.port || '4222'}`);
    if (parsed.username) urlUser = decodeURIComponent(parsed.username);
    if (parsed.password) urlPass = decodeURIComponent(parsed.password);
  }
  const auth: Partial<NodeConnectionOptions> & { method?: string } = {};
  const choose = (method: string, options: Partial<NodeConnectionOptions>): void => {
    if (auth.method) throw new Error(`NATS authentication: both ${auth.method} and ${method} are set; choose one`);
    Object.assign(auth, options, { method });
  };
  if (urlUser !== undefined && urlPass === undefined) choose('a token in PIPEC_BROKER', { token: urlUser });
  else if (urlUser !== undefined) choose('a user in PIPEC_BROKER', { user: urlUser, pass: urlPass ?? '' });
  const token = env['PIPEC_NATS_TOKEN'];
  if (token) choose('PIPEC_NATS_TOKEN', { token });
  const user = env['PIPEC_NATS_USER'];
  if (user) choose('PIPEC_NATS_USER', { user, pass: env['PIPEC_NATS_PASSWORD'] ?? '' });
  const seed = env['PIPEC_NATS_NKEY_SEED'];
  if (seed) {
    const bytes = new TextEncoder().encode(seed.trim());
    choose('PIPEC_NATS_NKEY_SEED', { authenticator: nkeyAuthenticator(() => bytes) });
  }
  const creds = env['PIPEC_NATS_CREDS'];
  if (creds) {
    readFileSync(creds); // a missing or unreadable file stops the start with the path in the message
    choose('PIPEC_NATS_CREDS', { authenticator: credsAuthenticator(() => readFileSync(creds)) });
  }
  delete auth.method;

  const ca = env['PIPEC_NATS_TLS_CA'];
  const cert = env['PIPEC_NATS_TLS_CERT'];
  const key = env['PIPEC_NATS_TLS_KEY'];
  if ((cert === undefined) !== (key === undefined))
    throw new Error('PIPEC_NATS_TLS_CERT and PIPEC_NATS_TLS_KEY go together');
  const wantTls = tlsScheme || env['PIPEC_NATS_TLS'] === 'true' || ca !== undefined || cert !== undefined;
  for (const file of [ca, cert, key]) if (file !== undefined) readFileSync(file);
  const tls = wantTls
    ? { ...(ca ? { caFile: ca } : {}), ...(cert ? { certFile: cert } : {}), ...(key ? { keyFile: key } : {}) }
    : undefined;

  return {
    servers,
    name: 'pipec',
    ...auth,
    ...(tls ? { tls } : {}),
    timeout: CONNECT_TIMEOUT_MS,
    pingInterval: PING_INTERVAL_MS,
    maxPingOut: 2,
    reconnect: true,
    maxReconnectAttempts: -1,
    // Credentials fixed on the server side heal too: keep trying after authentication errors.
    ignoreAuthErrorAbort: true,
    noAsyncTraces: true,
  };
}

/** A supervised connection: opened in the background, reopened for as long as the service runs. */
export class NatsLink {
  private current: NatsConnection | null = null;
  private readonly stopping = new AbortController();
  private readonly running: Promise<void>;
  private readonly reconnectDelays = new Backoff(RECONNECT_BACKOFF);
  private readonly onConnectHooks: Array<(nc: NatsConnection) => void> = [];

  constructor(
    private readonly options: NodeConnectionOptions,
    readonly dependency: Dependency,
    private readonly logger: Logger,
  ) {
    this.running = this.supervise();
  }

  /** The connection while it is up, else null. */
  connection(): NatsConnection | null {
    return this.dependency.up ? this.current : null;
  }

  /** Waits until connected; null when the link is closing. */
  async connected(signal?: AbortSignal): Promise<NatsConnection | null> {
    while (!this.stopping.signal.aborted && !signal?.aborted) {
      const nc = this.connection();
      if (nc) return nc;
      await this.dependency.whenUp(anySignal(this.stopping.signal, signal));
    }
    return null;
  }

  /** Called with each new connection object (not on reconnects of the same one). */
  onConnect(hook: (nc: NatsConnection) => void): void {
    this.onConnectHooks.push(hook);
  }

  async close(): Promise<void> {
    this.stopping.abort();
    const nc = this.current;
    if (nc && !nc.isClosed()) {
      // Draining flushes what is pending; a link that is down cannot, so it gets a moment, not for ever.
      await Promise.race([nc.drain().catch(() => undefined), pause(DRAIN_WAIT_MS)]);
      if (!nc.isClosed()) await nc.close().catch(() => undefined);
    }
    await this.running;
  }

  private async supervise(): Promise<void> {
    const failures = new Backoff(RECONNECT_BACKOFF);
    while (!this.stopping.signal.aborted) {
      let nc: NatsConnection;
      try {
        nc = await connect({ ...this.options, reconnectDelayHandler: () => this.reconnectDelays.next() });
      } catch (err) {
        this.dependency.down(errorText(err));
        await pause(failures.next(), this.stopping.signal);
        continue;
      }
      failures.reset();
      if (this.stopping.signal.aborted) {
        await nc.close();
        return;
      }
      this.current = nc;
      for (const hook of this.onConnectHooks) hook(nc);
      this.dependency.restored();
      void this.watch(nc);
      const closedWith = await nc.closed();
      this.current = null;
      if (this.stopping.signal.aborted) return;
      this.dependency.down(closedWith ? errorText(closedWith) : 'connection closed');
      this.logger.debug(
        { err: closedWith ? errorText(closedWith) : null },
        'NATS connection closed; opening a new one',
      );
    }
  }

  /** Status events of one connection → the dependency (which logs each change once). */
  private async watch(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'staleConnection') {
        this.dependency.down(
          status.type === 'disconnect' ? `disconnected from ${status.server}` : 'stale connection (no answer to pings)',
        );
      } else if (status.type === 'reconnect') {
        this.reconnectDelays.reset();
        this.dependency.restored();
      } else if (status.type === 'error') {
        this.logger.debug({ err: errorText(status.error) }, 'NATS server error');
      }
    }
  }
}

export function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 300);
}

function anySignal(a: AbortSignal, b: AbortSignal | undefined): AbortSignal {
  return b ? AbortSignal.any([a, b]) : a;
}
