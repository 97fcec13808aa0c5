/**
 * Compile-time part of `csv`. `csv parse` with a row `schema`: the schema becomes a compiled
 * validator module (nothing is compiled at run time), its scalar property types travel as `types`
 * (cells are converted to them before validation), and the output's `rows` have the schema's shape,
 * so a field read after the step is checked like any other. Without a schema, rows are objects of
 * texts: closed over `columns` when they are written, open otherwise (the header decides), or lists
 * of texts with `header: false` and no columns. `csv generate` answers `{ text }` or, with `to-file`,
 * `{ file }`. Which parameters each operation takes is said by the schema (`if`/`then` per operation).
 */
import type {
  CompileApi,
  ConnectorCompiler,
  PipeType,
  ShapeKit,
  StepHookInput,
  StepHookResult,
} from '../../../compiler/connectors/hook-api.js';

const SCALARS = ['integer', 'number', 'boolean', 'string'] as const;

export const compile: ConnectorCompiler = {
  step(input, result, api) {
    const operation = input.extra['operation'];
    if (operation === 'parse') compileParse(input, result, api);
    else if (operation === 'generate') {
      checkColumns(input, api);
      result.output = generateOutput(api.entryOf(input.step.params, 'to-file') !== undefined, api.types);
    }
  },
};

/**
 * `csv generate`: a column whose field the rows, closed objects, can never have is a column of empty
 * cells (error PIPE4006 at the name). A dotted name (`record.id`) is read as the run time does: the
 * row's own field of that name, else the path into nested objects; it is reported only where a
 * closed object on the way lacks the next part. Open rows, unions and unknown rows stay quiet.
 */
function checkColumns({ step, ctx, message }: StepHookInput, api: CompileApi): void {
  const rows = api.entryOf(step.params, 'rows');
  const columns = api.entryOf(step.params, 'columns');
  if (!rows || columns?.kind !== 'array') return;
  const rowsType = api.valueType(rows, message, ctx);
  if (rowsType.kind !== 'array' || rowsType.items.kind !== 'object' || rowsType.items.open) return;
  const row = rowsType.items;
  for (const column of columns.items) {
    const name = column.kind === 'object' ? api.entryOf(column, 'field') : column;
    if (name?.kind !== 'string' || Object.hasOwn(row.fields, name.value)) continue;
    let at: PipeType = row;
    for (const part of name.value.split('.')) {
      if (at.kind !== 'object' || at.open) break;
      const fields: Readonly<Record<string, { readonly type: PipeType }>> = at.fields;
      const field = Object.hasOwn(fields, part) ? fields[part] : undefined;
      if (!field) {
        const names = Object.keys(fields);
        const close = api.suggest(part, names);
        ctx.diagnostics.push(
          api.diagnostic('PIPE4006', {
            message: `no field \`${part}\` on the rows: the column \`${name.value}\` would be empty on every line`,
            span: name.span,
            label: 'unknown field',
            hint: close
              ? `write \`${close}\` instead of \`${part}\``
              : `name fields the rows have: ${names.map((n) => `\`${n}\``).join(', ')}`,
          }),
        );
        break;
      }
      at = field.type;
    }
  }
}

function compileParse({ step, ctx, label }: StepHookInput, result: StepHookResult, api: CompileApi): void {
  const t = api.types;
  const schemaValue = api.entryOf(step.params, 'schema');
  const columnsValue = api.entryOf(step.params, 'columns');
  const columns = columnsValue ? api.staticJson(columnsValue) : undefined;
  const names =
    Array.isArray(columns) && columns.every((c) => typeof c === 'string') ? (columns as string[]) : undefined;
  const headerValue = api.entryOf(step.params, 'header');
  const header = headerValue ? api.staticJson(headerValue) !== false : true;
  let row: PipeType;
  if (schemaValue) {
    const compiled = api.compileSchemaParam(schemaValue, ctx, label ?? 'csv-row');
    if (compiled.schema === undefined) return;
    result.replaced.add('schema');
    delete result.params['schema'];
    if (compiled.validator) result.params['validator'] = { js: compiled.validator, constant: true };
    const types = cellTypes(compiled.schema);
    result.params['types'] = { js: JSON.stringify(types), constant: true };
    // Without a header or columns, the schema's properties name the columns, in the order written.
    if (!header && !names) {
      result.replaced.add('columns');
      result.params['columns'] = { js: JSON.stringify(Object.keys(propertiesOf(compiled.schema))), constant: true };
    }
    row = compiled.type;
  } else if (names) {
    row = t.objectOf(Object.fromEntries(names.map((n) => [n, t.STRING])), false);
  } else {
    row = header ? t.objectOf({}, true) : t.arrayOf(t.STRING);
  }
  const batched = api.entryOf(step.params, 'batch-pipeline') !== undefined;
  result.output = parseOutput(row, batched, t);
}

function parseOutput(row: PipeType, batched: boolean, t: ShapeKit): PipeType {
  const rejected = t.closed({ line: t.INTEGER, reason: t.STRING, record: t.UNKNOWN });
  const fields: Record<string, PipeType> = {
    rows: t.arrayOf(row),
    rowCount: t.INTEGER,
    rejected: t.arrayOf(rejected),
    rejectedCount: t.INTEGER,
  };
  if (batched) fields['batches'] = t.INTEGER;
  return t.closed(fields);
}

function generateOutput(toFile: boolean, t: ShapeKit): PipeType {
  if (!toFile) return t.closed({ text: t.STRING, rowCount: t.INTEGER });
  const file = t.closed({
    fileName: t.STRING,
    originalFileName: t.STRING,
    param: t.STRING,
    contentType: t.STRING,
    size: t.INTEGER,
    path: t.STRING,
  });
  return t.closed({ file, rowCount: t.INTEGER });
}

function propertiesOf(schema: unknown): Record<string, unknown> {
  const properties = schema && typeof schema === 'object' ? (schema as { properties?: unknown }).properties : undefined;
  const isRecord = properties && typeof properties === 'object' && !Array.isArray(properties);
  return isRecord ? (properties as Record<string, unknown>) : {};
}

/**
 * The scalar type each top-level property declares (integer before number before boolean before
 * string in a type list), for converting cells; pairs, so a `__proto__` column stays data in the
 * generated code.
 */
function cellTypes(schema: unknown): [string, string][] {
  const out: [string, string][] = [];
  for (const [key, property] of Object.entries(propertiesOf(schema))) {
    const declared = property && typeof property === 'object' ? (property as { type?: unknown }).type : undefined;
    const list = Array.isArray(declared) ? declared : [declared];
    const scalar = SCALARS.find((s) => list.includes(s));
    if (scalar) out.push([key, scalar]);
  }
  return out;
}
