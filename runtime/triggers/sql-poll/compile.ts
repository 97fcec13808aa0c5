/**
 * Compile-time part of the `sql-poll` trigger: its parameters become the SqlPollTriggerSpec (the
 * identifiers were checked by the schema's patterns, the SQL is put together at run time for the
 * account's dialect), and the first message is a row — of `row-schema`'s shape when one is given —
 * or, with `each: batch`, `{ rows: [...] }`.
 */
import type { TriggerCompiler } from '../../../compiler/connectors/hook-api.js';

export const compile: TriggerCompiler = {
  trigger({ trigger, ctx }, api) {
    const read = api.reader(trigger.config);
    const json = (key: string): unknown => {
      const value = api.entryOf(trigger.config, key);
      return value === undefined ? undefined : api.staticJson(value);
    };
    const declared = api.entryOf(trigger.config, 'row-schema');
    const rowSchema = declared ? api.resolveSchema(declared, ctx) : undefined;
    const row = rowSchema === undefined ? api.types.objectOf({}, true) : api.schemaToType(rowSchema);
    const each = read.str('each', 'row') === 'batch' ? 'batch' : 'row';
    const startAfter = json('start-after');
    const optional = (key: string, value: unknown): Record<string, string> =>
      value === undefined ? {} : { [key]: JSON.stringify(value) };
    return {
      spec: {
        account: JSON.stringify(read.str('account', '')),
        ...optional('dialect', json('dialect')),
        table: JSON.stringify(read.str('table', '')),
        watermark: JSON.stringify(read.str('watermark', '')),
        ...optional('columns', json('columns')),
        ...optional('where', json('where')),
        intervalMs: String(read.num('interval', 5000)),
        batchSize: String(read.num('batch-size', 100)),
        each: JSON.stringify(each),
        ...optional('startAfter', startAfter === undefined ? undefined : String(startAfter)),
        ...optional('rowSchema', rowSchema),
        timeoutMs: String(read.num('timeout', 30000)),
      },
      message: each === 'batch' ? api.types.closed({ rows: api.types.arrayOf(row) }) : row,
    };
  },
};
