/**
 * Compile-time part of `sql`: the step takes one form — `sql` (with `params` or `batch`) or
 * `statements` — and its output shape follows the form and the declared `row-schema` (rows of
 * that shape; open objects without one). The SQL text refusing `{{ }}` is the schema's fact
 * (`x-pipe-refuses-braces`), the account's type its `x-pipe-account-types`.
 */
import type {
  CompileApi,
  ConnectorCompiler,
  ObjectValue,
  PipeType,
  PipelineContext,
  Span,
  Value,
} from '../../../compiler/connectors/hook-api.js';

export const compile: ConnectorCompiler = {
  step({ step, ctx, message }, result, api) {
    const sql = api.entryOf(step.params, 'sql');
    const statements = api.entryOf(step.params, 'statements');
    const params = api.entryOf(step.params, 'params');
    const batch = api.entryOf(step.params, 'batch');
    const conflict = (span: Span, message: string, hint: string): void => {
      ctx.diagnostics.push(api.diagnostic('PIPE3003', { message, span, label: 'one form per step', hint }));
    };
    if (sql && statements) {
      conflict(
        statements.span,
        'a `sql` step takes `sql` or `statements`, not both',
        'run one statement with `sql`, or several in one transaction with ' +
          '`statements: [{ sql: "…", params: […] }, …]`',
      );
    } else if (!sql && !statements) {
      ctx.diagnostics.push(
        api.diagnostic('PIPE3002', {
          message: 'missing required parameter `sql` (or `statements`) for connector `sql`',
          span: step.connectorSpan,
          label: 'needs `sql` or `statements`',
          hint: 'add `sql: "SELECT … WHERE id = $1", params: [{{ message.id }}]`',
        }),
      );
    }
    if (params && batch) {
      conflict(
        batch.span,
        '`params` and `batch` of a `sql` step do not go together',
        "bind one statement's values with `params`, or run the statement once per item with `batch`",
      );
    }
    const dialect = knownDialect(api, step.params, ctx);
    if (sql && batch) {
      const fields = api.entryOf(step.params, 'batch-fields');
      const item = batchItem(api.valueType(batch, message, ctx));
      if (fields?.kind === 'array' && item?.kind === 'object') {
        checkBatchFields(api, ctx, item, fields);
        checkValues(api, ctx, dialect, sql, fields, '`batch-fields`');
      }
    } else if (sql) checkValues(api, ctx, dialect, sql, params, '`params`');
    if (statements?.kind === 'array') {
      for (const statement of statements.items) {
        if (statement.kind !== 'object') continue;
        const text = api.entryOf(statement, 'sql');
        if (text) checkValues(api, ctx, dialect, text, api.entryOf(statement, 'params'), "this statement's `params`");
      }
    }
    // The generic reference pass resolved `row-schema` already (and reported a name that does not resolve).
    const rowSchema = result.params['row-schema'];
    const row = rowSchema ? api.schemaToType(JSON.parse(rowSchema.js) as unknown) : api.types.objectOf({}, true);
    result.output = outputShape(api, row, statements !== undefined);
  },
};

type Dialect = 'postgres' | 'mysql';

/** The type of a batch's items when the batch is known to be a list; undefined otherwise. */
function batchItem(batch: PipeType): PipeType | undefined {
  return batch.kind === 'array' ? batch.items : undefined;
}

/**
 * Each name of `batch-fields` must be a field of the batch's items when they are closed objects:
 * an item without it fails the whole batch (400 INVALID_PARAMETER, nothing written). A field the
 * items may lack (optional) or an open item is left to run time.
 */
function checkBatchFields(
  api: CompileApi,
  ctx: PipelineContext,
  item: Extract<PipeType, { kind: 'object' }>,
  fields: Extract<Value, { kind: 'array' }>,
): void {
  if (item.open) return;
  const names = Object.keys(item.fields);
  for (const entry of fields.items) {
    if (entry.kind !== 'string' || Object.hasOwn(item.fields, entry.value)) continue;
    const close = api.suggest(entry.value, names);
    ctx.diagnostics.push(
      api.diagnostic('PIPE4006', {
        message: `no field \`${entry.value}\` on the items of \`batch\`: every item would fail the batch`,
        span: entry.span,
        label: 'unknown field',
        hint: close
          ? `write \`${close}\` instead of \`${entry.value}\``
          : `name fields the items have: ${names.map((n) => `\`${n}\``).join(', ')}`,
      }),
    );
  }
}

/** The dialect when the build can know it: the step's `dialect`, or the scheme of an account url written out. */
function knownDialect(api: CompileApi, params: ObjectValue, ctx: PipelineContext): Dialect | undefined {
  const given = api.entryOf(params, 'dialect');
  if (given && (given.kind === 'string' || given.kind === 'ident')) {
    const name = given.kind === 'string' ? given.value : given.name;
    if (name === 'postgres' || name === 'mysql') return name;
  }
  const account = api.entryOf(params, 'account');
  const accountName = account?.kind === 'ident' ? account.name : account?.kind === 'string' ? account.value : undefined;
  const declared = accountName === undefined ? undefined : ctx.facts.decls.accounts.get(accountName);
  const url = api.entryOf(declared?.config, 'url');
  if (url?.kind !== 'string') return undefined;
  const scheme = /^([a-z0-9+]+):\/\//i.exec(url.value)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') return 'postgres';
  if (scheme === 'mysql' || scheme === 'mariadb') return 'mysql';
  return undefined;
}

/**
 * The values given must be the values the statement takes. Checked when the dialect is known, or
 * when the text uses `$n` (PostgreSQL's: a MySQL statement never has them); a `params` computed by
 * `{{ }}` is left to run time.
 */
function checkValues(
  api: CompileApi,
  ctx: PipelineContext,
  dialect: Dialect | undefined,
  sql: Value,
  params: Value | undefined,
  what: string,
): void {
  if (sql.kind !== 'string') return;
  if (params !== undefined && params.kind !== 'array') return;
  const found = placeholders(sql.value, dialect ?? 'postgres');
  const takes = (dialect ?? 'postgres') === 'mysql' ? found.question : found.dollar;
  if (dialect === undefined && takes === 0) return;
  const given = params?.kind === 'array' ? params.items.length : 0;
  if (takes === given) return;
  const marks = (dialect ?? 'postgres') === 'mysql' ? `${takes} \`?\`` : takes === 1 ? '`$1`' : `\`$1\`…\`$${takes}\``;
  ctx.diagnostics.push(
    api.diagnostic('PIPE3032', {
      message: `the statement takes ${takes} value${takes === 1 ? '' : 's'} (${marks}), and ${what} gives ${given}`,
      span: params?.span ?? sql.span,
      label: params ? `${given} value${given === 1 ? '' : 's'}` : 'no `params`',
      hint:
        takes > given
          ? `give ${takes === 1 ? 'its value' : `its ${takes} values in order`}, ` +
            `e.g. \`params: [{{ message.id }}${takes === 1 ? '' : ', …'}]\``
          : 'remove the values no placeholder takes',
    }),
  );
}

function outputShape(api: CompileApi, row: PipeType, withResults: boolean): PipeType {
  const t = api.types;
  const result = t.closed({ rows: t.arrayOf(row), rowCount: t.INTEGER });
  const fields: Record<string, PipeType> = { rows: t.arrayOf(row), rowCount: t.INTEGER };
  if (withResults) fields['results'] = t.arrayOf(result);
  return t.closed(fields);
}

// ───────────────────────────── placeholders ─────────────────────────────

/**
 * The placeholders of a SQL text, found outside its string literals, quoted identifiers and
 * comments: PostgreSQL's `$1`, `$2`, … (the highest number is how many values it takes) or
 * MySQL's `?` (each one a value). For the build-time check that `params` gives as many values as
 * the statement takes. Pure; no SQL is parsed beyond that.
 *
 * The dialect decides what a string is: PostgreSQL doubles a quote inside '…' (backslashes escape
 * only in E'…'), knows $$ … $$ strings; MySQL also escapes with backslashes, quotes names with
 * backticks and starts comments with #.
 *
 * Example: placeholders("SELECT '$9', id FROM t WHERE a = $1 AND b = $2 -- $3", 'postgres')
 *          → { dollar: 2, question: 0 }
 */
export interface Placeholders {
  /** The highest `$n`. */
  readonly dollar: number;
  /** How many `?`. */
  readonly question: number;
}

export function placeholders(sql: string, dialect: 'postgres' | 'mysql'): Placeholders {
  const mysql = dialect === 'mysql';
  let dollar = 0;
  let question = 0;
  let i = 0;
  const n = sql.length;
  /** Skips to after the closing `quote` (a doubled one is part of the text; `\` escapes when `escapes`). */
  const skipQuoted = (quote: string, escapes: boolean): void => {
    i++;
    while (i < n) {
      const c = sql[i];
      if (c === '\\' && escapes) i += 2;
      else if (c === quote && sql[i + 1] === quote) i += 2;
      else if (c === quote) {
        i++;
        return;
      } else i++;
    }
  };
  while (i < n) {
    const c = sql[i] as string;
    if (c === "'") skipQuoted(c, mysql || /(^|[^A-Za-z0-9_$])[eE]$/.test(sql.slice(Math.max(0, i - 2), i)));
    else if (c === '"') skipQuoted(c, mysql);
    else if (c === '`' && mysql) skipQuoted(c, false);
    else if (c === '-' && sql[i + 1] === '-') i = lineEnd(sql, i);
    else if (c === '#' && mysql) i = lineEnd(sql, i);
    else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === '$' && !mysql) {
      const number = /^\$(\d+)/.exec(sql.slice(i, i + 8));
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 66));
      if (number) {
        dollar = Math.max(dollar, Number(number[1]));
        i += number[0].length;
      } else if (tag) {
        // A dollar-quoted string ($$ … $$, $body$ … $body$): skipped whole.
        const end = sql.indexOf(tag[0], i + tag[0].length);
        i = end < 0 ? n : end + tag[0].length;
      } else i++;
    } else if (c === '?') {
      question++;
      i++;
    } else i++;
  }
  return { dollar, question };
}

function lineEnd(sql: string, from: number): number {
  const end = sql.indexOf('\n', from);
  return end < 0 ? sql.length : end + 1;
}
