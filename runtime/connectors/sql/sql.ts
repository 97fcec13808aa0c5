/**
 * Connector `sql`: runs SQL on PostgreSQL or MySQL/MariaDB through the account's pool
 * (client.ts), with every value bound — the SQL text is fixed at build time (a `{{ }}` in it is
 * a compile error) and values travel in `params`.
 *
 * One of three forms:
 *   sql + params       one statement → { rows, rowCount }
 *   sql + batch        the statement once per item, in one transaction → { rows: [], rowCount: Σ }
 *   statements         several statements in one transaction, rolled back when one fails
 *                      → { rows: <the last statement's>, rowCount: Σ, results: [{ rows, rowCount }, …] }
 *
 * Failures are PipeErrors with the kinds of schema.json (CONSTRAINT_VIOLATION 409, SQL_SYNTAX 500,
 * CONNECTION_REFUSED 503, …); the connection-level ones mark the database unavailable for /ready
 * until a later use succeeds.
 *
 * Example (a .pipe step):
 *   sql save { account: orders-db, sql: "INSERT INTO orders (id, total) VALUES ($1, $2)",
 *              params: [{{ message.id }}, {{ message.total }}] }
 */
import { PipeError } from '../../errors.js';
import type { ConnectorRun, Json, JsonObject } from '../../types.js';
import {
  DEPENDENCY_KINDS, dependencyName, dialectOf, sqlError, sqlPool, type SqlAccount, type SqlResult, type SqlSession,
} from './client.js';
import { coerceRows } from './rows.js';

export interface SqlStatement {
  readonly sql: string;
  readonly params?: Json[];
}

export interface SqlParams {
  readonly account: string;
  readonly accountFields?: SqlAccount;
  readonly dialect?: string;
  readonly sql?: string;
  readonly params?: Json;
  readonly batch?: Json;
  readonly 'batch-fields'?: string[];
  readonly statements?: SqlStatement[];
  readonly 'row-schema'?: Json;
  readonly timeout?: number;
  readonly 'max-rows'?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_ROWS = 10_000;

function invalid(message: string): PipeError {
  return new PipeError(`sql: ${message}`, { code: 400, kind: 'INVALID_PARAMETER', step: 'sql' });
}

/** A `params` value as the list of placeholder values. */
function valueList(value: Json | undefined, what: string): Json[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid(`${what} must be a list of values, got ${typeof value}`);
  return value;
}

/** One batch item as its placeholder values: a list as it is, an object through `batch-fields`. */
function batchValues(item: Json, index: number, fields: readonly string[] | undefined): Json[] {
  if (Array.isArray(item)) return item;
  if (item !== null && typeof item === 'object' && fields) {
    return fields.map((field) => {
      if (!Object.hasOwn(item, field)) throw invalid(`batch item ${index} has no field \`${field}\``);
      return (item as JsonObject)[field] as Json;
    });
  }
  throw invalid(`batch item ${index} must be a list of values${fields ? ' or an object' : ' (or give `batch-fields` for objects)'}`);
}

export const run: ConnectorRun<SqlParams> = async (params, _message, ctx) => {
  const timeoutMs = params.timeout ?? DEFAULT_TIMEOUT_MS;
  const maxRows = params['max-rows'] ?? DEFAULT_MAX_ROWS;
  const dialect = dialectOf(params.accountFields, params.dialect);
  const dependency = dependencyName(dialect, params.account);
  const connections = ctx.services.connections;
  const bounded = (result: SqlResult): SqlResult => {
    if (result.rows.length > maxRows) {
      throw new PipeError(`sql: the statement returned ${result.rows.length} rows, more than max-rows (${maxRows})`, {
        code: 502, kind: 'TOO_MANY_ROWS', step: 'sql',
      });
    }
    return result;
  };
  const inSession = async (session: SqlSession, statements: readonly { sql: string; values: Json[] }[]): Promise<SqlResult[]> => {
    const results: SqlResult[] = [];
    for (const s of statements) {
      if (ctx.signal.aborted) throw new PipeError('sql: the execution was aborted', { code: 504, kind: 'TIMEOUT', step: 'sql' });
      results.push(bounded(await session.query(s.sql, s.values, timeoutMs)));
    }
    return results;
  };
  // The parameters are checked before any connection is made.
  type Plan = { form: 'statements' | 'batch' | 'one'; statements: { sql: string; values: Json[] }[] };
  let plan: Plan;
  if (params.statements !== undefined) {
    plan = { form: 'statements', statements: params.statements.map((s, i) => ({ sql: s.sql, values: valueList(s.params, `statements[${i}].params`) })) };
  } else if (params.sql === undefined) {
    throw invalid('give `sql` (with `params`, or `batch`) or `statements`');
  } else if (params.batch !== undefined) {
    const sql = params.sql;
    plan = { form: 'batch', statements: valueList(params.batch, '`batch`').map((item, i) => ({ sql, values: batchValues(item, i, params['batch-fields']) })) };
  } else {
    plan = { form: 'one', statements: [{ sql: params.sql, values: valueList(params.params, '`params`') }] };
  }
  try {
    const pool = await sqlPool(connections, params.account, params.accountFields, params.dialect);
    let output: JsonObject;
    if (plan.form === 'one') {
      const only = plan.statements[0] as { sql: string; values: Json[] };
      const result = bounded(await pool.run(only.sql, only.values, timeoutMs));
      output = { rows: result.rows, rowCount: result.rowCount };
    } else {
      const statements = plan.statements;
      const results = statements.length === 0 ? [] : await pool.transaction((session) => inSession(session, statements));
      const rowCount = results.reduce((sum, r) => sum + r.rowCount, 0);
      output = plan.form === 'batch'
        ? { rows: [], rowCount }
        : { rows: results[results.length - 1]?.rows ?? [], rowCount, results: results.map((r) => ({ rows: r.rows, rowCount: r.rowCount })) };
    }
    connections.report(dependency, true);
    return coerceRows(output, params['row-schema']);
  } catch (err) {
    const error = sqlError(err, `sql on ${dependency} failed`, 'sql');
    if (DEPENDENCY_KINDS.has(error.kind)) connections.report(dependency, false, err);
    throw error;
  }
};
