/**
 * What the messaging and cache connectors (amqp, mqtt, redis) share about reaching a server: the
 * fields of a `connection` account turned into a URL, credentials and TLS options, and the
 * classification of a client's failure into the standard kinds a pipeline routes on
 * (CONNECTION_REFUSED, AUTHENTICATION_FAILED, TIMEOUT, TLS, UNAVAILABLE). Pure functions: no IO.
 *
 * A `connection` account: `url` (or `host` + `port`), `username`, `password`, `database` (the
 * RabbitMQ virtual host, the Redis database number), `tls` (true, or implied by an amqps/mqtts/
 * rediss URL), `ca`, `cert`, `key` (PEM text). Credentials given as fields win over the URL's.
 */
import { PipeError } from '../errors.js';
import type { Json } from '../types.js';

export interface ConnectionTarget {
  /** The URL without credentials (safe to log). */
  readonly url: URL;
  readonly username: string | undefined;
  readonly password: string | undefined;
  /** The `database` field: a RabbitMQ virtual host, a Redis database number. */
  readonly database: string | undefined;
  /** TLS options when TLS is on (tls: true, or a secure scheme). */
  readonly tls: { ca?: string; cert?: string; key?: string } | undefined;
}

export interface Protocol {
  /** e.g. 'amqp'; the scheme of a URL built from host and port. */
  readonly scheme: string;
  readonly secureScheme: string;
  readonly defaultPort: number;
  /** For messages: 'RabbitMQ', 'MQTT broker', 'Redis'. */
  readonly server: string;
}

function text(fields: Readonly<Record<string, Json>> | undefined, name: string): string | undefined {
  const value = fields?.[name];
  if (typeof value === 'string') return value.length > 0 ? value : undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** The account's fields as a target; PipeError 500 ACCOUNT_CONFIGURATION when they name no server. */
export function connectionTarget(
  fields: Readonly<Record<string, Json>> | undefined,
  protocol: Protocol,
): ConnectionTarget {
  if (!fields) throw accountError(`no account fields for the ${protocol.server} connection`);
  const given = text(fields, 'url');
  if (given === undefined && text(fields, 'host') === undefined) {
    throw accountError(`the account names no ${protocol.server}: give \`url\` or \`host\``);
  }
  let url: URL;
  try {
    const port = text(fields, 'port') ?? protocol.defaultPort;
    url = new URL(given ?? `${protocol.scheme}://${text(fields, 'host')}:${port}`);
  } catch {
    throw accountError(`the account's url is not a URL`);
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme !== protocol.scheme && scheme !== protocol.secureScheme) {
    throw accountError(`the account's url must start with ${protocol.scheme}:// or ${protocol.secureScheme}://`);
  }
  if (!given && text(fields, 'port') === undefined) url.port = String(protocol.defaultPort);
  const username = text(fields, 'username') ?? (url.username ? decodeURIComponent(url.username) : undefined);
  const password = text(fields, 'password') ?? (url.password ? decodeURIComponent(url.password) : undefined);
  url.username = '';
  url.password = '';
  const tlsField = fields['tls'];
  const tlsOn = scheme === protocol.secureScheme || tlsField === true || tlsField === 'true';
  if (tlsOn && scheme !== protocol.secureScheme) {
    url = new URL(url.toString().replace(/^[a-z]+:/, `${protocol.secureScheme}:`));
  }
  const tls: { ca?: string; cert?: string; key?: string } = {};
  for (const name of ['ca', 'cert', 'key'] as const) {
    const value = text(fields, name);
    if (value !== undefined) tls[name] = value;
  }
  return { url, username, password, database: text(fields, 'database'), tls: tlsOn ? tls : undefined };
}

function accountError(message: string): PipeError {
  return new PipeError(message, { code: 500, kind: 'ACCOUNT_CONFIGURATION' });
}

/** Node's socket error codes that mean "could not reach the server". */
const REFUSED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const LOST = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);
const TIMED_OUT = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT']);

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  // AggregateError of a connect that tried several addresses.
  const inner = (err as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(inner)) return undefined;
  for (const e of inner) {
    const innerCode = (e as { code?: unknown } | null)?.code;
    if (typeof innerCode === 'string') return innerCode;
  }
  return undefined;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * A client failure as a PipeError of one of the common kinds, or undefined when it is none of
 * them (the connector classifies what its protocol says). `auth` tells whether the protocol said
 * the credentials were refused. The message names the server by its URL without credentials.
 */
export function connectionFailure(
  err: unknown,
  where: string,
  opts: { auth?: boolean; step?: string } = {},
): PipeError | undefined {
  if (err instanceof PipeError) return err;
  const step = opts.step ? { step: opts.step } : {};
  const code = codeOf(err);
  const message = messageOf(err);
  if (opts.auth) {
    return new PipeError(`${where} refused the credentials`, { code: 502, kind: 'AUTHENTICATION_FAILED', ...step });
  }
  if (code && REFUSED.has(code)) {
    const why = `${where} refused the connection (${code})`;
    return new PipeError(why, { code: 503, kind: 'CONNECTION_REFUSED', ...step });
  }
  if (code && TIMED_OUT.has(code)) {
    return new PipeError(`${where} did not answer in time (${code})`, { code: 504, kind: 'TIMEOUT', ...step });
  }
  const tlsCode = code !== undefined && (/^ERR_(TLS|SSL)/.test(code) || code.includes('CERT'));
  if (tlsCode || /certificate|SSL routines|TLS/i.test(message)) {
    return new PipeError(`${where}: TLS failed (${code ?? 'handshake'})`, { code: 502, kind: 'TLS', ...step });
  }
  if (code && LOST.has(code)) {
    return new PipeError(`${where}: the connection was lost (${code})`, { code: 503, kind: 'UNAVAILABLE', ...step });
  }
  return undefined;
}

/**
 * What counts against a server's circuit breaker (`connections.guard`): a call that timed out. A
 * refused or lost connection already fails at once (the clients do not wait while disconnected)
 * and their reconnect is quicker than an open circuit's wait; a refused message says nothing of
 * the server's health.
 */
export function slowFailure(err: unknown): boolean {
  return err instanceof PipeError && err.kind === 'TIMEOUT';
}

/** Where a target is, for messages and logs: scheme, host and port (never credentials). */
export function describeTarget(target: ConnectionTarget, protocol: Protocol): string {
  return `${protocol.server} at ${target.url.protocol}//${target.url.host}`;
}
