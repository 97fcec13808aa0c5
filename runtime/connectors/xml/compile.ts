/**
 * Compile-time part of `xml`. `xml parse` with a `schema`: the schema becomes a compiled validator
 * module, travels as `shape` (the document is shaped by it — texts to the declared scalars, single
 * elements to lists — before validation), and the output has the schema's shape, so a field read
 * after the step is checked like any other. Without a schema the document is an open object. With
 * `record` the output is the records read (each of the schema's shape) and those set aside.
 * `xml generate` answers `{ text }` or, with `to-file`, `{ file }`. Which parameters each operation
 * takes is said by the schema (`if`/`then` per operation).
 */
import type { ConnectorCompiler, ShapeKit, PipeType } from '../../../compiler/connectors/hook-api.js';

export const compile: ConnectorCompiler = {
  step({ step, ctx, label, extra }, result, api) {
    const t = api.types;
    if (extra['operation'] === 'generate') {
      result.output = generateOutput(api.entryOf(step.params, 'to-file') !== undefined, t);
      return;
    }
    if (extra['operation'] !== 'parse') return;
    const records = api.entryOf(step.params, 'record') !== undefined;
    const batched = api.entryOf(step.params, 'batch-pipeline') !== undefined;
    const schemaValue = api.entryOf(step.params, 'schema');
    if (!schemaValue) {
      result.output = records ? recordsOutput(t.UNKNOWN, batched, t) : t.objectOf({}, true);
      return;
    }
    const compiled = api.compileSchemaParam(schemaValue, ctx, label ?? 'xml-document');
    if (compiled.schema === undefined) return;
    result.replaced.add('schema');
    delete result.params['schema'];
    if (compiled.validator) result.params['validator'] = { js: compiled.validator, constant: true };
    // Parsed from its JSON text: a property named `__proto__` stays a property.
    const json = `JSON.parse(${JSON.stringify(JSON.stringify(compiled.schema))})`;
    const shape = ctx.hoist(`xml-shape-${label ?? 'document'}`, json, 'the document schema, for shaping');
    result.params['shape'] = { js: shape, constant: true };
    result.output = records ? recordsOutput(compiled.type, batched, t) : compiled.type;
  },
};

/** Record mode (`record`): the records read, and those set aside. */
function recordsOutput(record: PipeType, batched: boolean, t: ShapeKit): PipeType {
  const rejected = t.closed({ line: t.INTEGER, reason: t.STRING, record: t.UNKNOWN });
  const fields: Record<string, PipeType> = {
    records: t.arrayOf(record),
    recordCount: t.INTEGER,
    rejected: t.arrayOf(rejected),
    rejectedCount: t.INTEGER,
  };
  if (batched) fields['batches'] = t.INTEGER;
  return t.closed(fields);
}

function generateOutput(toFile: boolean, t: ShapeKit): PipeType {
  if (!toFile) return t.closed({ text: t.STRING });
  const file = t.closed({
    fileName: t.STRING,
    originalFileName: t.STRING,
    param: t.STRING,
    contentType: t.STRING,
    size: t.INTEGER,
    path: t.STRING,
  });
  return t.closed({ file });
}
