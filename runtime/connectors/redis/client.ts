/**
 * The Redis client of one `connection` account (ioredis), kept in the service's connections under
 * `redis:<account>`: opened on first use — failing at once with the reason (refused, credentials,
 * timeout) when the server is not there, so a service whose Redis is down still starts — then
 * reconnecting for as long as the service runs, with backoff. Commands never wait for a lost
 * connection (no offline queue): they fail with UNAVAILABLE at once, and /ready names the
 * dependency until the client is back.
 */
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import { PipeError } from '../../errors.js';
import type { Connections, OpenedConnection } from '../../types.js';
import { RECONNECT_BACKOFF, backoffDelay } from '../../backends/backoff.js';
import {
  connectionFailure,
  connectionTarget,
  describeTarget,
  type Protocol,
} from '../../connections/connection-account.js';
import type { Json } from '../../types.js';

export const REDIS: Protocol = { scheme: 'redis', secureScheme: 'rediss', defaultPort: 6379, server: 'Redis' };

export interface RedisHandle {
  readonly client: RedisClient;
  /** 'Redis at redis://host:port' (for messages). */
  readonly where: string;
}

/** The client of `account`, opened on first use (see the file comment). */
export function redisClient(
  connections: Connections,
  account: string,
  fields: Readonly<Record<string, Json>> | undefined,
  timeoutMs: number,
): Promise<RedisHandle> {
  const dependency = `redis:${account}`;
  const report = (up: boolean, cause?: unknown): void => connections.report(dependency, up, cause);
  return connections.get(dependency, dependency, () => openRedis(fields, timeoutMs, report));
}

async function openRedis(
  fields: Readonly<Record<string, Json>> | undefined,
  timeoutMs: number,
  report: (up: boolean, cause?: unknown) => void,
): Promise<OpenedConnection<RedisHandle>> {
  const target = connectionTarget(fields, REDIS);
  const where = describeTarget(target, REDIS);
  const database = target.database ?? target.url.pathname.replace(/^\//, '');
  if (database !== '' && !/^\d{1,2}$/.test(database)) {
    const why = `the account's Redis database must be a number, not "${database}"`;
    throw new PipeError(why, { code: 500, kind: 'ACCOUNT_CONFIGURATION' });
  }
  let opened = false;
  let lastError: unknown;
  const options: RedisOptions = {
    host: target.url.hostname,
    port: Number(target.url.port || REDIS.defaultPort),
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    ...(database !== '' ? { db: Number(database) } : {}),
    ...(target.tls ? { tls: { ...target.tls, servername: target.url.hostname } } : {}),
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    // The first connection fails at once (the step says why); a lost one is retried forever.
    retryStrategy: (times) => (opened ? backoffDelay(RECONNECT_BACKOFF, times) : null),
  };
  const { Redis } = await import('ioredis');
  const client = new Redis(options);
  client.on('error', (err: unknown) => {
    lastError = err;
  });
  try {
    await client.connect();
  } catch (err) {
    client.disconnect();
    throw redisFailure(lastError ?? err, where);
  }
  opened = true;
  let closing = false;
  client.on('ready', () => report(true));
  client.on('close', () => {
    if (!closing) report(false, lastError ?? new Error(`${where}: the connection was closed`));
  });
  return {
    client: { client, where },
    close: async () => {
      closing = true;
      opened = false;
      await client.quit().catch(() => client.disconnect());
    },
  };
}

const AUTH_REPLY = /^(WRONGPASS|NOAUTH|NOPERM)|invalid password|invalid username/i;

/** A failure of ioredis as the standard error object's kinds (see schema.json `x-pipe-errors`). */
export function redisFailure(err: unknown, where: string): PipeError {
  if (err instanceof PipeError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const common = connectionFailure(err, where, { auth: AUTH_REPLY.test(message), step: 'redis' });
  if (common) return common;
  const step = 'redis';
  if (/Command timed out/i.test(message)) {
    return new PipeError(`${where} did not answer in time`, { code: 504, kind: 'TIMEOUT', step });
  }
  if (/enableOfflineQueue|Connection is closed|max retries per request|Stream isn't writeable/i.test(message)) {
    const why = `${where} is not connected: the command was not sent`;
    return new PipeError(why, { code: 503, kind: 'UNAVAILABLE', step });
  }
  if (message.startsWith('WRONGTYPE')) {
    return new PipeError(`${where}: the key holds another type`, { code: 409, kind: 'WRONG_TYPE', step });
  }
  if (/not an integer|out of range|increment or decrement would overflow/i.test(message)) {
    return new PipeError(`${where}: the value is not an integer in range`, { code: 409, kind: 'NOT_A_NUMBER', step });
  }
  return new PipeError(`${where} answered: ${message.slice(0, 300)}`, { code: 502, kind: 'REDIS_ERROR', step });
}
