/**
 * Structured JSON logs (pino). Every execution logs through a child logger carrying
 * `{ executionId, pipeline }`. Credentials never reach the output: known secret-bearing paths are
 * redacted, and account values are masked out of free text (the `log` connector uses
 * `maskSecrets`).
 */
import { formatWithOptions } from 'node:util';
import { pino, type DestinationStream, type Logger } from 'pino';

export const REDACTED = '[REDACTED]';

/**
 * What is removed from every line, whatever the caller logs: these keys at the top level and one
 * level down (`password`, `x.password`), and these headers inside a `headers` object at the top
 * level and one level down (`headers.authorization`, `x.headers.cookie`). Names compare
 * case-insensitively.
 */
const SECRET_KEYS = new Set(['authorization', 'cookie', 'password', 'secret', 'accounts', 'apikey']);
const SECRET_HEADERS = new Set(['authorization', 'cookie', 'set-cookie', 'x-api-key', 'proxy-authorization']);

type LogRecord = Record<string, unknown>;

function isPlainRecord(value: unknown): value is LogRecord {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** `headers` with secret header values replaced; the same object when there is none. */
function redactHeaders(headers: LogRecord): LogRecord {
  let out: LogRecord | undefined;
  for (const name of Object.keys(headers)) {
    if (!SECRET_HEADERS.has(name.toLowerCase())) continue;
    out ??= copyRecord(headers);
    out[name] = REDACTED;
  }
  return out ?? headers;
}

/** Copies own enumerable keys onto a null-prototype object (`__proto__` stays a plain key). */
function copyRecord(source: LogRecord): LogRecord {
  const out: LogRecord = Object.create(null) as LogRecord;
  for (const key of Object.keys(source)) out[key] = source[key];
  return out;
}

/** One level of redaction: secret keys, and secret headers inside `headers`. */
function redactLevel(record: LogRecord, deeper: boolean): LogRecord {
  let out: LogRecord | undefined;
  for (const key of Object.keys(record)) {
    const value = record[key];
    let replacement: unknown = value;
    if (SECRET_KEYS.has(key.toLowerCase())) replacement = REDACTED;
    else if (key === 'headers' && isPlainRecord(value)) replacement = redactHeaders(value);
    else if (deeper && isPlainRecord(value)) replacement = redactLevel(value, false);
    if (replacement !== value) {
      out ??= copyRecord(record);
      out[key] = replacement;
    }
  }
  return out ?? record;
}

/**
 * Removes secrets (SECRET_KEYS, SECRET_HEADERS) from a log record. Copy-on-write: a record without secrets is returned as
 * it is, so the common line costs one pass over its keys (pino's generic path redaction costs
 * tens of µs per line and per child logger).
 */
export function redactRecord(record: LogRecord): LogRecord {
  return redactLevel(record, true);
}

export interface LoggerOptions {
  readonly level?: string;
  readonly service?: string;
  /** Where lines go (tests pass a stream that collects them); default stdout, written asynchronously. */
  readonly destination?: DestinationStream;
}

const redactedValue = (): string => REDACTED;

/**
 * pino runs serializers on child-logger bindings too (its `formatters.bindings` only sees the
 * base bindings): top-level secret keys and `headers` of a child are redacted through them.
 */
const BINDING_SERIALIZERS: Record<string, (value: unknown) => unknown> = {
  authorization: redactedValue,
  cookie: redactedValue,
  password: redactedValue,
  secret: redactedValue,
  accounts: redactedValue,
  apiKey: redactedValue,
  headers: (value) => (isPlainRecord(value) ? redactHeaders(value) : value),
};

export function createLogger(opts: LoggerOptions = {}): Logger {
  const options = {
    level: opts.level ?? 'info',
    base: opts.service ? { service: opts.service } : {},
    formatters: { log: redactRecord },
    serializers: BINDING_SERIALIZERS,
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  // stdout is written asynchronously: lines logged while a write is under way go out together
  // in the next one (one syscall per batch under load), and pino flushes what is left on exit.
  return pino(options, opts.destination ?? pino.destination({ dest: 1, sync: false }));
}

/**
 * Account fields that say where and as whom, not how to prove it: masking them would hide an
 * address in every error about it ("cannot reach [REDACTED]:587") and protect nothing.
 */
const ADDRESS_FIELDS = new Set([
  'type',
  'host',
  'hostname',
  'port',
  'user',
  'username',
  'database',
  'region',
  'from',
  'ca',
  'host-key',
  'fingerprint',
]);

/**
 * The account values worth masking (short values would mask noise): every field but addresses,
 * and of a URL its password (and the whole URL when its query may carry a key).
 */
export function secretValues(accounts: Readonly<Record<string, Readonly<Record<string, unknown>>>>): string[] {
  // Every log line and step error asks; the accounts of a service are resolved once at its start.
  const known = secretsByAccounts.get(accounts);
  if (known) return known;
  const found = collectSecretValues(accounts);
  secretsByAccounts.set(accounts, found);
  return found;
}

const secretsByAccounts = new WeakMap<object, string[]>();

function collectSecretValues(accounts: Readonly<Record<string, Readonly<Record<string, unknown>>>>): string[] {
  const values = new Set<string>();
  for (const fields of Object.values(accounts)) {
    for (const [key, v] of Object.entries(fields)) {
      if (ADDRESS_FIELDS.has(key.toLowerCase())) continue;
      const text = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
      if (text === undefined) continue;
      for (const secret of key.toLowerCase() === 'url' ? urlSecrets(text) : [text])
        if (secret.length >= 4) values.add(secret);
    }
  }
  // Longest first, so a secret containing another is masked whole.
  return [...values].sort((a, b) => b.length - a.length);
}

/** The parts of a connection URL that are secret: its password, or all of it when it has a query. */
function urlSecrets(text: string): string[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [text];
  }
  if (url.search !== '') return [text];
  return url.password === '' ? [] : [url.password, decodeURIComponent(url.password)];
}

/** Replaces every occurrence of a secret value in `text` with the redaction marker. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/**
 * Makes the service process's log JSON only: what libraries print with `console.*` (the NATS
 * client does on rare internal errors) and Node's process warnings (a TLS or deprecation notice)
 * become records of `logger` instead of plain lines on stdout/stderr. For service processes only
 * (`startService`); tests and tools keep their console. Returns a function that undoes it.
 */
export function routeProcessOutput(logger: Logger): () => void {
  const original = {
    log: console.log,
    info: console.info,
    debug: console.debug,
    warn: console.warn,
    error: console.error,
  };
  const lineOf = (args: unknown[]): string => formatWithOptions({ breakLength: Infinity }, ...args).slice(0, 4000);
  console.log = (...args: unknown[]) => logger.info({ source: 'console' }, lineOf(args));
  console.info = console.log;
  console.debug = (...args: unknown[]) => logger.debug({ source: 'console' }, lineOf(args));
  console.warn = (...args: unknown[]) => logger.warn({ source: 'console' }, lineOf(args));
  console.error = (...args: unknown[]) => logger.error({ source: 'console' }, lineOf(args));
  // Node prints warnings through its own 'warning' listener; replaced by one that logs JSON.
  const previous = process.listeners('warning');
  process.removeAllListeners('warning');
  const onWarning = (warning: Error & { code?: string }): void => {
    logger.warn(
      { source: 'process', warning: warning.name, ...(warning.code ? { code: warning.code } : {}) },
      warning.message,
    );
  };
  process.on('warning', onWarning);
  return () => {
    Object.assign(console, original);
    process.off('warning', onWarning);
    for (const listener of previous) process.on('warning', listener);
  };
}
