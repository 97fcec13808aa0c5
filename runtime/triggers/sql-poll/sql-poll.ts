/**
 * The `sql-poll` trigger: every `intervalMs`, each pipeline reads the rows of its table whose
 * watermark column is past the recorded watermark, in watermark order, and runs itself with each
 * row (`each: row`) or each query's rows (`each: batch`). The watermark advances — durably, in
 * pipec's backend (runtime/backends/watermarks.ts) — only after the execution succeeded, and only
 * past a value once every row of that value was handled, so:
 *   - a restart goes on after the last handled row (nothing skipped, nothing read again, except
 *     the rows of one value whose handling a crash cut short: at least once);
 *   - one replica polls a pipeline at a time (the watermark's claim), so no row runs twice at once;
 *   - a failed execution stops the poll at that row; the next poll tries it again (rows stay in order).
 * The database is reached through the account's pool (the `sql` connector's, connections
 * registry): a database that is down fails the poll, /ready names it, and the next poll tries again.
 *
 * Query (PostgreSQL; MySQL quotes with backticks, casts AS CHAR):
 *   SELECT pipec_t.*, CAST(pipec_t."id" AS TEXT) AS pipec_watermark__ FROM "orders" AS pipec_t
 *   WHERE (<where>) AND pipec_t."id" > $1 ORDER BY pipec_t."id" LIMIT 100
 * The watermark is kept as the database's text of the value (exact: microseconds, big integers).
 */
import type { Json, JsonObject, TriggerSpec } from '../../types.js';
import {
  DEPENDENCY_KINDS,
  dependencyName,
  dialectOf,
  sqlError,
  sqlPool,
  type Dialect,
  type SqlAccount,
  type SqlPool,
} from '../../connectors/sql/client.js';
import { coerceRows } from '../../connectors/sql/rows.js';
import type { TriggeredPipeline, TriggerHost, TriggerRuntime } from '../../service/trigger-host.js';

export interface SqlPollTriggerSpec extends TriggerSpec {
  readonly kind: 'sql-poll';
  readonly account: string;
  readonly dialect?: string;
  readonly table: string;
  readonly watermark: string;
  readonly columns?: readonly string[];
  readonly where?: string;
  readonly intervalMs: number;
  readonly batchSize: number;
  readonly each: 'row' | 'batch';
  readonly startAfter?: string;
  readonly rowSchema?: Json;
  readonly timeoutMs: number;
}

/** The column carrying the watermark's text in the polling query (removed from the row). */
const WATERMARK_COLUMN = 'pipec_watermark__';
/** Most rows sharing one watermark value read together (they cannot be split without skipping). */
const MAX_TIED_ROWS = 100_000;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export const trigger: TriggerRuntime<SqlPollTriggerSpec> = {
  attach(pipelines, host) {
    const pollers = pipelines.map((p) => new SqlPoller(p, host));
    return {
      async start() {
        for (const poller of pollers) poller.start();
      },
      async stop() {
        await Promise.all(pollers.map((p) => p.stop()));
      },
    };
  },
  testMessage: (spec, given) => given ?? (spec.each === 'batch' ? { rows: [] } : {}),
};

/** A quoted identifier of the dialect (`a.b` → "a"."b"); the schema's patterns admit no quote. */
export function quoteIdentifier(dialect: Dialect, name: string): string {
  const parts = name.split('.');
  if (parts.length > 2 || !parts.every((p) => IDENTIFIER.test(p))) {
    throw new Error(`sql-poll: "${name}" is no table or column name`);
  }
  const q = dialect === 'postgres' ? '"' : '`';
  return parts.map((p) => `${q}${p}${q}`).join('.');
}

/** The polling query: rows past `after` (all when null), or — `equal` — the rows of exactly that value. */
export function pollQuery(
  dialect: Dialect,
  spec: PollTarget,
  after: string | null,
  limit: number,
  equal = false,
): { sql: string; params: Json[] } {
  const t = 'pipec_t';
  const wm = `${t}.${quoteIdentifier(dialect, spec.watermark)}`;
  const columns = spec.columns ? spec.columns.map((c) => `${t}.${quoteIdentifier(dialect, c)}`).join(', ') : `${t}.*`;
  const table = quoteIdentifier(dialect, spec.table);
  const asText = `CAST(${wm} AS ${dialect === 'postgres' ? 'TEXT' : 'CHAR'})`;
  const conditions: string[] = [];
  if (spec.where) conditions.push(`(${spec.where})`);
  if (after !== null) conditions.push(`${wm} ${equal ? '=' : '>'} ${dialect === 'postgres' ? '$1' : '?'}`);
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
  return {
    sql:
      `SELECT ${columns}, ${asText} AS ${WATERMARK_COLUMN} FROM ${table} AS ${t}${where} ` +
      `ORDER BY ${wm} LIMIT ${limit}`,
    params: after === null ? [] : [after],
  };
}

/** What the polling query needs of the spec. */
type PollTarget = Pick<SqlPollTriggerSpec, 'table' | 'watermark' | 'columns' | 'where'>;

/** Records a watermark durably. */
type Advance = (value: string) => Promise<void>;

interface PolledRow {
  readonly row: JsonObject;
  readonly watermark: string;
}

/**
 * The next rows past `after`, never ending inside a run of rows sharing one value: a full batch
 * whose last value continues is cut before that value, and a batch of one value only is read whole.
 */
export async function nextRows(
  pool: SqlPool,
  spec: SqlPollTriggerSpec,
  after: string | null,
): Promise<{ rows: PolledRow[]; full: boolean }> {
  const query = pollQuery(pool.dialect, spec, after, spec.batchSize);
  const rows = split((await pool.run(query.sql, query.params, spec.timeoutMs)).rows);
  const full = rows.length >= spec.batchSize;
  if (!full) return { rows, full };
  const last = (rows[rows.length - 1] as PolledRow).watermark;
  const before = rows.filter((r) => r.watermark !== last);
  if (before.length > 0) return { rows: before, full };
  const tied = pollQuery(pool.dialect, spec, last, MAX_TIED_ROWS + 1, true);
  const all = split((await pool.run(tied.sql, tied.params, spec.timeoutMs)).rows);
  if (all.length > MAX_TIED_ROWS) {
    throw new Error(`sql-poll: more than ${MAX_TIED_ROWS} rows share the watermark value ${last}`);
  }
  return { rows: all, full };
}

function split(rows: readonly JsonObject[]): PolledRow[] {
  return rows.map((row) => {
    const watermark = String(row[WATERMARK_COLUMN]);
    const { [WATERMARK_COLUMN]: _dropped, ...rest } = row;
    return { row: rest, watermark };
  });
}

export class SqlPoller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private lastProblem: string | undefined;

  constructor(
    private readonly pipeline: TriggeredPipeline<SqlPollTriggerSpec>,
    private readonly host: TriggerHost,
  ) {}

  private get spec(): SqlPollTriggerSpec {
    return this.pipeline.trigger;
  }

  /** The watermark's key in pipec's backend: the pipeline, table and column it follows. */
  get key(): string {
    return `sql-poll:${this.pipeline.name}:${this.spec.table}:${this.spec.watermark}`;
  }

  start(): void {
    this.stopping = false;
    // The first poll right after the start, in the background: a database that is down never holds the start up.
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.running = this.pollOnce().finally(() => {
        this.running = undefined;
        this.schedule(this.spec.intervalMs);
      });
    }, ms);
    this.timer.unref();
  }

  /** One poll: reads and hands over rows until none are left, one fails, or the service stops. */
  async pollOnce(): Promise<void> {
    const spec = this.spec;
    const name = this.pipeline.name;
    let dependency: string | undefined;
    try {
      const fields = this.host.accounts[spec.account] as SqlAccount | undefined;
      const dialect = dialectOf(fields, spec.dialect);
      dependency = dependencyName(dialect, spec.account);
      const pool = await sqlPool(this.host.connections, spec.account, fields, spec.dialect);
      await this.host.watermarks.withWatermark(this.key, async (recorded, advance) => {
        let after = recorded ?? spec.startAfter ?? null;
        for (;;) {
          const { rows, full } = await nextRows(pool, spec, after);
          this.host.connections.report(dependency as string, true);
          if (rows.length === 0) return;
          const handled = await (spec.each === 'batch' ? this.runBatch(rows, advance) : this.runRows(rows, advance));
          if (handled === undefined) return;
          after = handled;
          if (!full || this.stopping) return;
        }
      });
      this.lastProblem = undefined;
    } catch (err) {
      const error = sqlError(err, `sql-poll of ${name} failed`, 'sql-poll');
      if (dependency && DEPENDENCY_KINDS.has(error.kind)) this.host.connections.report(dependency, false, err);
      // Said once while the same problem lasts, not at every poll.
      if (error.message !== this.lastProblem) {
        this.host.logger.warn({ pipeline: name, kind: error.kind, reason: error.message }, 'sql-poll: poll failed');
      }
      this.lastProblem = error.message;
    }
  }

  /** One execution per row, in order; the watermark passes a value when its last row is done (undefined: a failure). */
  private async runRows(rows: readonly PolledRow[], advance: Advance): Promise<string | undefined> {
    let reached: string | undefined;
    for (let i = 0; i < rows.length; i++) {
      const { row, watermark } = rows[i] as PolledRow;
      if (this.stopping) return undefined;
      const message = coerceRows({ rows: [row] }, this.spec.rowSchema)['rows'] as Json[];
      if (!(await this.execute(message[0] as Json, watermark))) return undefined;
      if (rows[i + 1]?.watermark !== watermark) {
        await advance(watermark);
        reached = watermark;
      }
    }
    return reached;
  }

  /** One execution for the rows; the watermark passes them all when it succeeded. */
  private async runBatch(rows: readonly PolledRow[], advance: Advance): Promise<string | undefined> {
    const last = (rows[rows.length - 1] as PolledRow).watermark;
    const message = coerceRows({ rows: rows.map((r) => r.row) }, this.spec.rowSchema);
    if (this.stopping || !(await this.execute(message, last))) return undefined;
    await advance(last);
    return last;
  }

  private async execute(message: Json, watermark: string): Promise<boolean> {
    const outcome = await this.host.engine.execute({ pipeline: this.pipeline.name, message, trigger: 'sql-poll' });
    if (outcome.ok) return true;
    this.host.logger.warn(
      {
        pipeline: this.pipeline.name,
        executionId: outcome.executionId,
        watermark,
        code: outcome.error.code,
        reason: outcome.error.message,
      },
      'sql-poll: the execution failed; the row is read again at the next poll',
    );
    return false;
  }
}
