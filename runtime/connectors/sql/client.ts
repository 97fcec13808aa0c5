/**
 * The SQL databases behind the `sql` connector and the `sql-poll` trigger: one pool per account
 * (PostgreSQL through `pg`, MySQL/MariaDB through `mysql2`), kept in the service's connection
 * registry — opened on first use, never at start, closed when the service stops — and the
 * database's failures as PipeErrors with a kind a pipeline can route on.
 *
 * Values are bound, never spliced into the SQL text: `run(sql, [42])` sends the statement and its
 * values apart (PostgreSQL's extended protocol, MySQL's prepared statements). Results are JSON:
 * integers that fit a double as numbers (bigger ones as text), DECIMAL/NUMERIC as text (exact),
 * dates and times as the database writes them (text, exact to the microsecond), JSON columns
 * parsed, binary columns as base64.
 *
 * Example:
 *   const pool = await sqlPool(ctx.services.connections, 'orders-db', fields, undefined);
 *   const { rows } = await pool.run('SELECT id FROM orders WHERE total > $1', [100], 30_000);
 */
import { PipeError } from '../../errors.js';
import type { Connections, Json, JsonObject, OpenedConnection } from '../../types.js';

export type Dialect = 'postgres' | 'mysql';

export interface SqlResult {
  readonly rows: JsonObject[];
  /** Rows returned, or affected by an INSERT/UPDATE/DELETE. */
  readonly rowCount: number;
}

/** Statements on one connection (inside a transaction, or a held session). */
export interface SqlSession {
  query(sql: string, params: readonly Json[], timeoutMs: number): Promise<SqlResult>;
}

export interface SqlPool {
  readonly dialect: Dialect;
  /** One statement on any pooled connection. */
  run(sql: string, params: readonly Json[], timeoutMs: number): Promise<SqlResult>;
  /** `fn` between BEGIN and COMMIT on one connection; ROLLBACK when it throws (the error is rethrown). */
  transaction<T>(fn: (session: SqlSession) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The account fields a SQL database takes (account type `connection`). */
export interface SqlAccount {
  readonly url?: string;
  readonly host?: string;
  readonly port?: string | number;
  readonly username?: string;
  readonly password?: string;
  readonly database?: string;
  /** "true": TLS, the server's certificate checked against `ca` (or the system's authorities). */
  readonly tls?: string | boolean;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

const POOL_SIZE = 10;
const CONNECT_TIMEOUT_MS = 10_000;
const IDLE_MS = 30_000;

/** The dialect: the `dialect` parameter, else the scheme of the account's URL. */
export function dialectOf(account: SqlAccount | undefined, given: string | undefined): Dialect {
  if (given === 'postgres' || given === 'mysql') return given;
  const scheme = /^([a-z0-9+]+):\/\//i.exec(account?.url ?? '')?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') return 'postgres';
  if (scheme === 'mysql' || scheme === 'mariadb') return 'mysql';
  throw new PipeError(
    'sql: cannot tell the database: give the account a url starting with postgres://, mysql:// or mariadb://, ' +
      'or set `dialect`',
    { code: 500, kind: 'ACCOUNT_CONFIGURATION' },
  );
}

/** The name /ready shows while the database is unreachable: `postgres orders-db`. */
export function dependencyName(dialect: Dialect, account: string): string {
  return `${dialect} ${account}`;
}

/**
 * The account's pool, opened on first use (a connection is made and checked then, so a database
 * that is down is reported at once and the next use tries again).
 */
export function sqlPool(
  connections: Connections,
  account: string,
  fields: SqlAccount | undefined,
  given: string | undefined,
): Promise<SqlPool> {
  if (!fields) {
    throw new PipeError(`sql: the account "${account}" has no fields at run time`, {
      code: 500,
      kind: 'ACCOUNT_CONFIGURATION',
    });
  }
  const dialect = dialectOf(fields, given);
  const open = (): Promise<OpenedConnection<SqlPool>> => openPool(dialect, fields);
  return connections.get(`sql:${dialect}:${account}`, dependencyName(dialect, account), open);
}

export async function openPool(dialect: Dialect, account: SqlAccount): Promise<OpenedConnection<SqlPool>> {
  const pool = dialect === 'postgres' ? await openPostgres(account) : await openMysql(account);
  try {
    await pool.run('SELECT 1', [], CONNECT_TIMEOUT_MS);
  } catch (err) {
    await pool.close().catch(() => undefined);
    throw err;
  }
  return { client: pool, close: () => pool.close() };
}

interface TlsOptions {
  readonly rejectUnauthorized: boolean;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

function tlsOptions(account: SqlAccount): TlsOptions | undefined {
  if (account.tls !== true && account.tls !== 'true') return undefined;
  return {
    rejectUnauthorized: true,
    ...(account.ca ? { ca: account.ca } : {}),
    ...(account.cert ? { cert: account.cert } : {}),
    ...(account.key ? { key: account.key } : {}),
  };
}

function portOf(account: SqlAccount): number | undefined {
  if (account.port === undefined || account.port === '') return undefined;
  const port = Number(account.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new PipeError(`sql: the account's port ${JSON.stringify(account.port)} is no port number`, {
      code: 500,
      kind: 'ACCOUNT_CONFIGURATION',
    });
  }
  return port;
}

// ───────────────────────────── PostgreSQL ─────────────────────────────

/** Type ids whose text pg would turn into lossy JS values: kept exact. */
const PG_INT8 = 20;
const PG_TEXT_KEPT = new Set([1082, 1083, 1114, 1184, 1266]); // date, time, timestamp, timestamptz, timetz

type PgClient = import('pg').PoolClient;

async function openPostgres(account: SqlAccount): Promise<SqlPool> {
  const pg = (await import('pg')).default;
  const types = {
    getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
      if (oid === PG_INT8) return safeInteger;
      if (PG_TEXT_KEPT.has(oid)) return (value: string) => value;
      return (pg.types.getTypeParser as (o: number, f?: string) => (v: string) => unknown)(oid, format);
    },
  };
  const ssl = tlsOptions(account);
  const port = portOf(account);
  const pool = new pg.Pool({
    ...(account.url ? { connectionString: account.url } : {}),
    ...(account.host ? { host: account.host } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(account.username ? { user: account.username } : {}),
    ...(account.password !== undefined ? { password: account.password } : {}),
    ...(account.database ? { database: account.database } : {}),
    ...(ssl ? { ssl } : {}),
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: IDLE_MS,
    allowExitOnIdle: true,
    types,
  });
  // An idle connection the server closed: the pool drops it; without a listener node would crash.
  pool.on('error', () => undefined);
  // The statement_timeout each pooled connection has now (set again only when a step asks another).
  // Inside a transaction it is set with SET LOCAL: a session-wide SET there would be undone by a ROLLBACK.
  const timeouts = new WeakMap<object, number>();
  const onClient = async (
    client: PgClient,
    sql: string,
    params: readonly Json[],
    timeoutMs: number,
    tx?: { timeoutMs?: number },
  ): Promise<SqlResult> => {
    const ms = Math.max(1, Math.floor(timeoutMs));
    if (tx) {
      if (tx.timeoutMs !== ms && timeouts.get(client) !== ms) await client.query(`SET LOCAL statement_timeout = ${ms}`);
      tx.timeoutMs = ms;
    } else if (timeouts.get(client) !== ms) {
      await client.query(`SET statement_timeout = ${ms}`);
      timeouts.set(client, ms);
    }
    const result = await client.query({ text: sql, values: params.map(pgValue) });
    const rows = (result.rows as Record<string, unknown>[]).map(jsonRow);
    return { rows, rowCount: result.command === 'SELECT' ? rows.length : (result.rowCount ?? rows.length) };
  };
  const held = async <T>(fn: (client: PgClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    let broken: Error | undefined;
    // A checked-out client has no listener of the pool's: a link that drops now must not crash the process.
    const onError = (err: Error): void => {
      broken = err;
    };
    client.on('error', onError);
    try {
      return await fn(client);
    } catch (err) {
      if (isConnectionLoss(err)) broken = err as Error;
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  };
  return {
    dialect: 'postgres',
    run: (sql, params, timeoutMs) => held((client) => onClient(client, sql, params, timeoutMs)),
    transaction: (fn) =>
      held(async (client) => {
        await client.query('BEGIN');
        try {
          const tx: { timeoutMs?: number } = {};
          const out = await fn({ query: (sql, params, timeoutMs) => onClient(client, sql, params, timeoutMs, tx) });
          await client.query('COMMIT');
          return out;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }),
    close: () => pool.end(),
  };
}

/** Objects and arrays go as JSON text (json/jsonb columns); everything else as it is. */
function pgValue(value: Json): unknown {
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
}

// ───────────────────────────── MySQL / MariaDB ─────────────────────────────

async function openMysql(account: SqlAccount): Promise<SqlPool> {
  const mysql = await import('mysql2/promise');
  const ssl = tlsOptions(account);
  const port = portOf(account);
  const options = {
    ...(account.host ? { host: account.host } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(account.username ? { user: account.username } : {}),
    ...(account.password !== undefined ? { password: account.password } : {}),
    ...(account.database ? { database: account.database } : {}),
    ...(ssl ? { ssl } : {}),
    connectionLimit: POOL_SIZE,
    connectTimeout: CONNECT_TIMEOUT_MS,
    idleTimeout: IDLE_MS,
    waitForConnections: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
    dateStrings: true,
    decimalNumbers: false,
  };
  const pool = account.url
    ? mysql.createPool({ uri: account.url.replace(/^mariadb:/i, 'mysql:'), ...options })
    : mysql.createPool(options);
  pool.on('connection', (connection) => connection.on('error', () => undefined));
  type Executor = Pick<typeof pool, 'execute'>;
  const onConnection = async (
    on: Executor,
    sql: string,
    params: readonly Json[],
    timeoutMs: number,
  ): Promise<SqlResult> => {
    // Rows as arrays, made objects here (duplicate column names alike on both dialects: the last one wins).
    const values = params.map(mysqlValue) as never[];
    const [result, fields] = await on.execute({ sql, timeout: timeoutMs, rowsAsArray: true }, values);
    if (Array.isArray(result)) {
      const names = (fields ?? []).map((f) => f.name);
      const rows = (result as unknown as unknown[][]).map((row) =>
        jsonRow(Object.fromEntries(names.map((n, i) => [n, row[i]]))),
      );
      return { rows, rowCount: rows.length };
    }
    return { rows: [], rowCount: (result as { affectedRows?: number }).affectedRows ?? 0 };
  };
  return {
    dialect: 'mysql',
    run: (sql, params, timeoutMs) => onConnection(pool, sql, params, timeoutMs),
    async transaction(fn) {
      const connection = await pool.getConnection();
      let dropped = false;
      try {
        await connection.beginTransaction();
        try {
          const out = await fn({ query: (sql, params, timeoutMs) => onConnection(connection, sql, params, timeoutMs) });
          await connection.commit();
          return out;
        } catch (err) {
          // A statement past its time still runs on the server, and a lost link answers nothing: closing the
          // connection ends the session, and the server rolls its transaction back.
          if (isConnectionLoss(err) || classify(err).kind === 'TIMEOUT') {
            dropped = true;
            connection.destroy();
          } else {
            await connection.rollback().catch(() => undefined);
          }
          throw err;
        }
      } finally {
        if (!dropped) connection.release();
      }
    },
    close: () => pool.end(),
  };
}

/** mysql2 binds no objects and no undefined: JSON text and NULL instead. */
function mysqlValue(value: Json | undefined): unknown {
  if (value === undefined) return null;
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
}

// ───────────────────────────── values ─────────────────────────────

function safeInteger(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

/** A driver's row as JSON (own keys only: a column named `__proto__` is data). */
function jsonRow(row: Record<string, unknown>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(row)) {
    Object.defineProperty(out, key, { value: jsonValue(value), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function jsonValue(value: unknown): Json {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return safeInteger(value.toString());
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return value.map(jsonValue);
  if (typeof value === 'object') return jsonRow(value as Record<string, unknown>);
  return value as Json;
}

// ───────────────────────────── errors ─────────────────────────────

interface DriverError {
  readonly code?: unknown;
  readonly sqlState?: unknown;
  readonly errno?: unknown;
  readonly message?: unknown;
}

const REFUSED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const LOST = new Set(['ECONNRESET', 'EPIPE', 'PROTOCOL_CONNECTION_LOST', 'ERR_SOCKET_CLOSED', 'ER_SERVER_SHUTDOWN']);
const TIMED_OUT = new Set(['ETIMEDOUT', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_LOCK_WAIT_TIMEOUT', 'ER_STATEMENT_TIMEOUT']);
const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_|CERT_)/;
/** MySQL errors whose SQLSTATE (42000) does not tell them from a syntax error. */
const MYSQL_DENIED = new Set([1044, 1045, 1142, 1143, 1227, 1370]);
/** MySQL errors of a value that does not fit its column whose SQLSTATE is the general HY000. */
const MYSQL_BAD_VALUE = new Set([1366, 1292, 1265]);

/** The kind and status of a driver error (SQLSTATE first, then the socket's code). */
export function classify(err: unknown): { kind: string; status: number } {
  const e = (err ?? {}) as DriverError;
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  const sqlState = typeof e.sqlState === 'string' ? e.sqlState : /^[0-9A-Z]{5}$/.test(code) ? code : '';
  const errno = typeof e.errno === 'number' ? e.errno : 0;
  if (errno === 1045 || errno === 1044 || sqlState.startsWith('28')) {
    return { kind: 'AUTHENTICATION_FAILED', status: 502 };
  }
  if (MYSQL_DENIED.has(errno) || sqlState === '42501') return { kind: 'PERMISSION_DENIED', status: 502 };
  if (sqlState === '57014' || sqlState === '70100' || TIMED_OUT.has(code)) return { kind: 'TIMEOUT', status: 504 };
  if (sqlState === '' && /timeout|timed out/i.test(message)) return { kind: 'TIMEOUT', status: 504 };
  if (sqlState.startsWith('23')) return { kind: 'CONSTRAINT_VIOLATION', status: 409 };
  if (sqlState.startsWith('22') || MYSQL_BAD_VALUE.has(errno)) return { kind: 'INVALID_VALUE', status: 400 };
  if (sqlState.startsWith('40')) return { kind: 'TRANSACTION_CONFLICT', status: 503 };
  if (sqlState.startsWith('42')) return { kind: 'SQL_SYNTAX', status: 500 };
  if (REFUSED.has(code)) return { kind: 'CONNECTION_REFUSED', status: 503 };
  if (TLS_CODES.test(code) || /\bSSL\b|\bTLS\b|certificate/i.test(message)) return { kind: 'TLS', status: 502 };
  const lostLink = sqlState.startsWith('08') || sqlState.startsWith('57P') || sqlState.startsWith('53');
  if (lostLink || LOST.has(code) || isConnectionLoss(err)) {
    return { kind: 'UNAVAILABLE', status: 503 };
  }
  return { kind: 'SQL_ERROR', status: 500 };
}

/** What the drivers say when the link closed under a statement. */
const CLOSED_LINK = /Connection terminated|connection is closed|Can't add new command when connection is in closed/i;

function isConnectionLoss(err: unknown): boolean {
  const e = (err ?? {}) as DriverError;
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  return REFUSED.has(code) || LOST.has(code) || CLOSED_LINK.test(message);
}

/** Kinds that say the database (not the statement) is the trouble: /ready names it until a use succeeds. */
export const DEPENDENCY_KINDS: ReadonlySet<string> = new Set([
  'CONNECTION_REFUSED',
  'UNAVAILABLE',
  'AUTHENTICATION_FAILED',
  'TLS',
]);

const LINK_PHRASES: Readonly<Record<string, string>> = {
  CONNECTION_REFUSED: 'the database refused the connection, or its host is unknown',
  UNAVAILABLE: 'the connection to the database was lost, or the server is not taking connections',
  AUTHENTICATION_FAILED: "the database refused the account's credentials",
  TLS: 'the TLS handshake with the database failed',
};

/**
 * A driver error as a PipeError. The message is the database's for a statement's failure (it names
 * the table, column or constraint at fault), ours for the link's; `details` carry the SQLSTATE.
 * `step` is for errors outside a step (the sql-poll trigger); a step's error leaves it out, so the
 * engine names the step by its label (`sql load { … }` fails as step "load").
 */
export function sqlError(err: unknown, what: string, step?: string): PipeError {
  if (err instanceof PipeError) return err;
  const { kind, status } = classify(err);
  const e = (err ?? {}) as DriverError & { constraint?: unknown; detail?: unknown };
  // The link's troubles in words of our own: the driver's (host, port, user) reach the log through
  // the connection registry, not an HTTP caller.
  const reason = LINK_PHRASES[kind] ?? (typeof e.message === 'string' && e.message !== '' ? e.message : String(err));
  const sqlState =
    typeof e.sqlState === 'string'
      ? e.sqlState
      : typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)
        ? e.code
        : undefined;
  const details: JsonObject = {};
  if (sqlState) details['sqlState'] = sqlState;
  if (typeof e.constraint === 'string') details['constraint'] = e.constraint;
  return new PipeError(`${what}: ${reason}`, {
    code: status,
    kind,
    ...(step !== undefined ? { step } : {}),
    cause: err,
    ...(Object.keys(details).length > 0 ? { details } : {}),
  });
}
