/**
 * Compile-time part of `sql`: the step takes one form — `sql` (with `params` or `batch`) or
 * `statements` — and its output shape follows the form and the declared `row-schema` (rows of
 * that shape; open objects without one). The SQL text refusing `{{ }}` is the schema's fact
 * (`x-pipe-refuses-braces`), the account's type its `x-pipe-account-types`.
 */
import type { CompileApi, ConnectorCompiler, PipeType, Span } from '../../../compiler/connectors/hook-api.js';

export const compile: ConnectorCompiler = {
  step({ step, ctx }, result, api) {
    const sql = api.entryOf(step.params, 'sql');
    const statements = api.entryOf(step.params, 'statements');
    const params = api.entryOf(step.params, 'params');
    const batch = api.entryOf(step.params, 'batch');
    const conflict = (span: Span, message: string, hint: string): void => {
      ctx.diagnostics.push(api.diagnostic('PIPE3003', { message, span, label: 'one form per step', hint }));
    };
    if (sql && statements) {
      conflict(statements.span, 'a `sql` step takes `sql` or `statements`, not both',
        'run one statement with `sql`, or several in one transaction with '
          + '`statements: [{ sql: "…", params: […] }, …]`');
    } else if (!sql && !statements) {
      ctx.diagnostics.push(api.diagnostic('PIPE3002', {
        message: 'missing required parameter `sql` (or `statements`) for connector `sql`',
        span: step.connectorSpan,
        label: 'needs `sql` or `statements`',
        hint: 'add `sql: "SELECT … WHERE id = $1", params: [{{ message.id }}]`',
      }));
    }
    if (params && batch) {
      conflict(batch.span, '`params` and `batch` of a `sql` step do not go together',
        'bind one statement\'s values with `params`, or run the statement once per item with `batch`');
    }
    // The generic reference pass resolved `row-schema` already (and reported a name that does not resolve).
    const rowSchema = result.params['row-schema'];
    const row = rowSchema ? api.schemaToType(JSON.parse(rowSchema.js) as unknown) : api.types.objectOf({}, true);
    result.output = outputShape(api, row, statements !== undefined);
  },
};

function outputShape(api: CompileApi, row: PipeType, withResults: boolean): PipeType {
  const t = api.types;
  const result = t.closed({ rows: t.arrayOf(row), rowCount: t.INTEGER });
  const fields: Record<string, PipeType> = { rows: t.arrayOf(row), rowCount: t.INTEGER };
  if (withResults) fields['results'] = t.arrayOf(result);
  return t.closed(fields);
}
