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
  DEPENDENCY_KINDS,
  dependencyName,
  dialectOf,
  sqlError,
  sqlPool,
  type SqlAccount,
  type SqlResult,
  type SqlSession,
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
  return new PipeError(`sql: ${message}`, { code: 400, kind: 'INVALID_PARAMETER' });
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
  const objects = fields ? ' or an object' : ' (or give `batch-fields` for objects)';
  throw invalid(`batch item ${index} must be a list of values${objects}`);
}

interface Statement {
  readonly sql: string;
  readonly values: Json[];
}

/** What the step runs: one statement, or statements in one transaction (a batch, or `statements`). */
interface Plan {
  readonly form: 'one' | 'batch' | 'statements';
  readonly statements: readonly Statement[];
}

/** The step's parameters as the statements it runs; checked before any connection is made. */
export function planOf(params: SqlParams): Plan {
  if (params.statements !== undefined) {
    const statements = params.statements.map((s, i) => ({
      sql: s.sql,
      values: valueList(s.params, `statements[${i}].params`),
    }));
    return { form: 'statements', statements };
  }
  const sql = params.sql;
  if (sql === undefined) throw invalid('give `sql` (with `params`, or `batch`) or `statements`');
  if (params.batch !== undefined) {
    const items = valueList(params.batch, '`batch`');
    const fields = params['batch-fields'];
    return { form: 'batch', statements: items.map((item, i) => ({ sql, values: batchValues(item, i, fields) })) };
  }
  return { form: 'one', statements: [{ sql, values: valueList(params.params, '`params`') }] };
}

/** The step's output from the results of its statements. */
function outputOf(form: Plan['form'], results: readonly SqlResult[]): JsonObject {
  const rowCount = results.reduce((sum, r) => sum + r.rowCount, 0);
  if (form === 'one') return { rows: results[0]?.rows ?? [], rowCount };
  if (form === 'batch') return { rows: [], rowCount };
  const each = results.map((r) => ({ rows: r.rows, rowCount: r.rowCount }));
  return { rows: results[results.length - 1]?.rows ?? [], rowCount, results: each };
}

export const run: ConnectorRun<SqlParams> = async (params, _message, ctx) => {
  const timeoutMs = params.timeout ?? DEFAULT_TIMEOUT_MS;
  const maxRows = params['max-rows'] ?? DEFAULT_MAX_ROWS;
  const dialect = dialectOf(params.accountFields, params.dialect);
  const dependency = dependencyName(dialect, params.account);
  const connections = ctx.services.connections;
  const plan = planOf(params);
  const bounded = (result: SqlResult): SqlResult => {
    if (result.rows.length <= maxRows) return result;
    throw new PipeError(`sql: the statement returned ${result.rows.length} rows, more than max-rows (${maxRows})`, {
      code: 502,
      kind: 'TOO_MANY_ROWS',
    });
  };
  const inSession = async (session: SqlSession): Promise<SqlResult[]> => {
    const results: SqlResult[] = [];
    for (const s of plan.statements) {
      if (ctx.signal.aborted) {
        throw new PipeError('sql: the execution was aborted', { code: 504, kind: 'TIMEOUT' });
      }
      results.push(bounded(await session.query(s.sql, s.values, timeoutMs)));
    }
    return results;
  };
  try {
    const pool = await sqlPool(connections, params.account, params.accountFields, params.dialect);
    const only = plan.form === 'one' ? plan.statements[0] : undefined;
    let results: SqlResult[];
    if (only) results = [bounded(await pool.run(only.sql, only.values, timeoutMs))];
    else results = plan.statements.length === 0 ? [] : await pool.transaction(inSession);
    connections.report(dependency, true);
    return coerceRows(outputOf(plan.form, results), params['row-schema']);
  } catch (err) {
    const error = sqlError(err, `sql on ${dependency} failed`);
    if (DEPENDENCY_KINDS.has(error.kind)) connections.report(dependency, false, err);
    throw error;
  }
};
