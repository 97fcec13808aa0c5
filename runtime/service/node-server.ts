/**
 * The Node.js edge: serves a service's Hono app on a TCP port (@hono/node-server) and turns
 * SIGTERM/SIGINT into a graceful stop (drain, close backends) followed by exit. The only file
 * here that listens on sockets or touches process signals.
 *
 * Connection hygiene (docs/security.md): a request's headers must arrive within the header timeout
 * and the whole request (headers and body) within the body timeout, or Node answers 408 and
 * closes; an idle keep-alive connection is closed after the idle timeout; one client address may
 * hold at most `maxConnectionsPerClient` connections (more are answered 429 and closed before a
 * request of theirs reaches the app). All are set by environment (connectionLimitsFromEnv).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { serve as honoServe } from '@hono/node-server';
import type { Logger } from 'pino';
import { createService, DEFAULT_GRACE_MS, type Service, type ServiceDefinition } from './create-service.js';

export interface ConnectionLimits {
  /** Time for a request's headers to arrive (PIPEC_HEADER_TIMEOUT_MS). */
  readonly headerTimeoutMs: number;
  /** Time for a whole request, headers and body, to arrive (PIPEC_BODY_TIMEOUT_MS). */
  readonly bodyTimeoutMs: number;
  /** How long an idle keep-alive connection stays open (PIPEC_IDLE_TIMEOUT_MS). */
  readonly idleTimeoutMs: number;
  /** Open connections per client address; 0: no cap (PIPEC_MAX_CONNECTIONS_PER_CLIENT). */
  readonly maxConnectionsPerClient: number;
}

/**
 * Like common reverse proxies: nginx gives 60 s for headers and between body reads and keeps idle
 * connections 75 s; load balancers close idle connections after 60 s, so the service keeps them a
 * little longer (the proxy, not the service, then closes first).
 */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headerTimeoutMs: 20_000,
  bodyTimeoutMs: 60_000,
  idleTimeoutMs: 65_000,
  maxConnectionsPerClient: 256,
};

export interface ServeOptions {
  readonly port?: number;
  /** The interface to listen on; default env HOST, else every interface. */
  readonly hostname?: string;
  readonly limits?: Partial<ConnectionLimits>;
}

export interface RunningServer {
  readonly port: number;
  /** The address listened on (`::` or `0.0.0.0` for every interface). */
  readonly address: string;
  close(): Promise<void>;
}

/** A listen failure the operator can act on (port in use, no permission, unknown HOST). */
export class ListenError extends Error {
  override readonly name = 'ListenError';
}

function portFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env['PORT'];
  const port = raw === undefined ? Number.NaN : Number(raw);
  return Number.isInteger(port) && port >= 0 && port <= 65535 ? port : 8080;
}

function graceFromEnv(): number {
  const raw = Number(process.env['PIPEC_SHUTDOWN_GRACE_MS']);
  return Number.isInteger(raw) && raw >= 0 ? raw : DEFAULT_GRACE_MS;
}

function nonNegativeInteger(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  return Number.isInteger(value) && value >= 0 ? value : fallback;
}

/** The limits from PIPEC_HEADER_TIMEOUT_MS, PIPEC_BODY_TIMEOUT_MS, PIPEC_IDLE_TIMEOUT_MS and
 * PIPEC_MAX_CONNECTIONS_PER_CLIENT. */
export function connectionLimitsFromEnv(env: NodeJS.ProcessEnv): ConnectionLimits {
  const d = DEFAULT_CONNECTION_LIMITS;
  return {
    headerTimeoutMs: nonNegativeInteger(env['PIPEC_HEADER_TIMEOUT_MS'], d.headerTimeoutMs),
    bodyTimeoutMs: nonNegativeInteger(env['PIPEC_BODY_TIMEOUT_MS'], d.bodyTimeoutMs),
    idleTimeoutMs: nonNegativeInteger(env['PIPEC_IDLE_TIMEOUT_MS'], d.idleTimeoutMs),
    maxConnectionsPerClient: nonNegativeInteger(env['PIPEC_MAX_CONNECTIONS_PER_CLIENT'], d.maxConnectionsPerClient),
  };
}

/**
 * Node's options for the limits. Node checks the header and request timeouts on a timer
 * (30 s by default); it runs at a tenth of the shorter timeout so they hold to within 10 %.
 * Node wants the header timeout no longer than the request timeout.
 */
function serverOptionsOf(limits: ConnectionLimits) {
  const requestTimeout = limits.bodyTimeoutMs;
  const headersTimeout = requestTimeout > 0 ? Math.min(limits.headerTimeoutMs, requestTimeout) : limits.headerTimeoutMs;
  const shortest = Math.min(...[headersTimeout, requestTimeout].filter((t) => t > 0), 30_000);
  return {
    headersTimeout,
    requestTimeout,
    keepAliveTimeout: limits.idleTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(shortest / 10))),
  };
}

/**
 * An answer written straight to a socket (no request reached the app): the error object with an
 * id, which the log line of the refusal carries too.
 */
function rawRefusal(
  status: number,
  reason: string,
  message: string,
  executionId: string,
  extraHeaders: readonly string[] = [],
): string {
  const body = JSON.stringify({ timestamp: Date.now(), error: message, message, code: status, executionId });
  return [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...extraHeaders,
    '',
    body,
  ].join('\r\n');
}

const TOO_MANY_MESSAGE = 'Too many connections from this address';

/** `::ffff:1.2.3.4` and `1.2.3.4` are one client. */
function clientAddressOf(socket: Socket): string {
  const address = socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/**
 * Counts open connections per client address and refuses those over `max`. Returns the set of
 * refused sockets: a request that still arrives on one (pipelined before the close) is not served.
 */
function capConnectionsPerClient(server: Server, max: number, logger: Logger): WeakSet<Socket> {
  const refused = new WeakSet<Socket>();
  if (max <= 0) return refused;
  const open = new Map<string, number>();
  server.prependListener('connection', (socket: Socket) => {
    const client = clientAddressOf(socket);
    const count = open.get(client) ?? 0;
    if (count >= max) {
      refused.add(socket);
      socket.on('error', () => undefined);
      const executionId = randomUUID();
      logger.info({ executionId, code: 429, kind: 'TOO_MANY_CONNECTIONS', client, open: count }, 'connection refused');
      socket.end(rawRefusal(429, 'Too Many Requests', TOO_MANY_MESSAGE, executionId, ['Retry-After: 1']));
      socket.setTimeout(1_000, () => socket.destroy());
      return;
    }
    open.set(client, count + 1);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left <= 0) open.delete(client);
      else open.set(client, left);
    });
  });
  return refused;
}

function socketOf(env: unknown): Socket | undefined {
  const socket = (env as { incoming?: { socket?: unknown } } | undefined)?.incoming?.socket;
  return socket !== null && typeof socket === 'object' ? (socket as Socket) : undefined;
}

function listenError(err: NodeJS.ErrnoException, host: string | undefined, port: number): Error {
  const where = `${host ?? '*'}:${port}`;
  if (err.code === 'EADDRINUSE')
    return new ListenError(
      `port ${port} is already in use (${where}); stop the other process or set PORT to a free port`,
    );
  if (err.code === 'EACCES')
    return new ListenError(`no permission to listen on ${where}; use a port above 1023 or set PORT`);
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND')
    return new ListenError(`cannot listen on ${where}: HOST is not an address of this machine`);
  return new ListenError(`cannot listen on ${where}: ${err.code ?? err.message}`);
}

/**
 * Listens on opts.port, else env PORT, else 8080 (on opts.hostname, else env HOST, else every
 * interface); SIGTERM/SIGINT → graceful stop then exit. Rejects with a ListenError (one sentence)
 * when the port cannot be bound.
 */
export function serve(
  service: Service,
  opts: ServeOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningServer> {
  const limits: ConnectionLimits = { ...connectionLimitsFromEnv(env), ...opts.limits };
  const port = opts.port ?? portFromEnv(env);
  const hostEnv = env['HOST']?.trim();
  const hostname = opts.hostname ?? (hostEnv ? hostEnv : undefined);
  return new Promise((resolve, reject) => {
    let refused = new WeakSet<Socket>();
    const tooMany = (): Response => {
      const executionId = randomUUID();
      service.logger.info({ executionId, code: 429, kind: 'TOO_MANY_CONNECTIONS' }, 'request refused');
      const body = JSON.stringify({
        timestamp: Date.now(),
        error: TOO_MANY_MESSAGE,
        message: TOO_MANY_MESSAGE,
        code: 429,
        executionId,
      });
      return new Response(body, {
        status: 429,
        headers: { 'content-type': 'application/json; charset=utf-8', connection: 'close' },
      });
    };
    const fetch = (request: Request, nodeEnv: unknown): Response | Promise<Response> => {
      const socket = socketOf(nodeEnv);
      return socket !== undefined && refused.has(socket) ? tooMany() : service.app.fetch(request, nodeEnv);
    };
    // A request a route answers onto the Node response itself skips the adapter (Service.serveNode).
    const createServing = (options: ServerOptions, adapter: RequestListener): Server =>
      createServer(options, (incoming, outgoing) => {
        if (refused.has(incoming.socket) || !service.serveNode(incoming, outgoing)) void adapter(incoming, outgoing);
      });
    const server = honoServe(
      {
        fetch,
        port,
        ...(hostname ? { hostname } : {}),
        // The adapter calls it as createServer(options, listener), the one form it needs.
        createServer: createServing as typeof createServer,
        serverOptions: serverOptionsOf(limits),
      },
      (info: AddressInfo) => {
        server.off('error', onListenError);
        let closing: Promise<void> | undefined;
        const close = (): Promise<void> => {
          closing ??= new Promise<void>((done) => {
            process.off('SIGTERM', onSignal);
            process.off('SIGINT', onSignal);
            server.close(() => done());
            // Idle keep-alive sockets would otherwise hold close() open.
            if ('closeIdleConnections' in server) server.closeIdleConnections();
          });
          return closing;
        };
        const onSignal = (): void => {
          void (async () => {
            try {
              await service.stop(graceFromEnv());
              await close();
              process.exit(0);
            } catch {
              process.exit(1);
            }
          })();
        };
        process.once('SIGTERM', onSignal);
        process.once('SIGINT', onSignal);
        resolve({ port: info.port, address: info.address, close });
      },
    ) as Server;
    refused = capConnectionsPerClient(server, limits.maxConnectionsPerClient, service.logger);
    // Node hands CONNECT to a 'connect' listener and, without one, closes the connection silently.
    server.on('connect', (request: IncomingMessage, socket: Socket) => {
      socket.on('error', () => undefined);
      const executionId = randomUUID();
      service.logger.info(
        { executionId, code: 405, kind: 'METHOD_NOT_ALLOWED', method: request.method },
        'request refused',
      );
      socket.end(rawRefusal(405, 'Method Not Allowed', 'CONNECT is not supported', executionId));
    });
    const onListenError = (err: NodeJS.ErrnoException): void => reject(listenError(err, hostname, port));
    server.once('error', onListenError);
  });
}

/**
 * What a generated server.ts calls: create, listen, then start the triggers, and only then say
 * "service started". A port that cannot be bound is one log line and exit code 1 — before any
 * event or schedule trigger has started.
 */
export async function startService(def: ServiceDefinition): Promise<void> {
  let service: Service;
  try {
    service = await createService(def, { routeProcessOutput: true });
  } catch (err) {
    // A configuration the service must not run with: createService logged its one line.
    if ((err as { name?: unknown } | null)?.name !== 'BackendConfigError') throw err;
    process.exitCode = 1;
    return;
  }
  let server: RunningServer;
  try {
    server = await serve(service);
  } catch (err) {
    if (!(err instanceof ListenError)) throw err;
    // Nothing has started (no trigger, no execution): the one line, and out. Stopping would log more.
    service.logger.fatal(err.message);
    await flushed(service);
    process.exit(1);
  }
  try {
    await service.start();
  } catch (err) {
    service.logger.fatal({ err }, 'the triggers could not start');
    await server.close();
    await service.stop(0).catch(() => undefined);
    await flushed(service);
    process.exit(1);
  }
  service.logger.info({ port: server.port, pipelines: def.pipelines.map((p) => p.name) }, 'service started');
}

/** Waits for the log lines written so far (stdout is written asynchronously) before an exit. */
function flushed(service: Service): Promise<void> {
  return new Promise((resolve) => service.logger.flush(() => resolve()));
}
