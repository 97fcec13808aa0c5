/**
 * Rows made to fit the row shape the author declared (`row-schema`): a column declared number or
 * integer that arrived as text (DECIMAL, NUMERIC, COUNT(*) on PostgreSQL is a BIGINT) becomes a
 * number when the text is one, a column declared boolean that arrived as 0/1 (MySQL's TINYINT(1))
 * becomes true/false. Nothing else changes: the schema types the steps after, it is no validator.
 *
 * Example: coerceRows({ rows: [{ total: "12.50" }], rowCount: 1 },
 *                     { properties: { total: { type: "number" } } }) → rows [{ total: 12.5 }]
 */
import type { Json, JsonObject } from '../../types.js';

type Conversion = 'number' | 'integer' | 'boolean';

/** Column → conversion, from the schema's top-level `properties`. */
function conversions(schema: Json | undefined): Map<string, Conversion> {
  const out = new Map<string, Conversion>();
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return out;
  const properties = schema['properties'];
  if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) return out;
  for (const [column, property] of Object.entries(properties)) {
    if (property === null || typeof property !== 'object' || Array.isArray(property)) continue;
    const type = property['type'];
    const types = Array.isArray(type) ? type : [type];
    if (types.includes('boolean')) out.set(column, 'boolean');
    else if (types.includes('integer')) out.set(column, 'integer');
    else if (types.includes('number')) out.set(column, 'number');
  }
  return out;
}

function convert(value: Json | undefined, to: Conversion): Json | undefined {
  if (to === 'boolean') return value === 0 || value === 1 ? value === 1 : value;
  if (typeof value !== 'string' || !/^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(value)) return value;
  const n = Number(value);
  if (!Number.isFinite(n)) return value;
  return to === 'integer' && !Number.isSafeInteger(n) ? value : n;
}

function coerceRow(row: Json, table: ReadonlyMap<string, Conversion>): Json {
  if (row === null || typeof row !== 'object' || Array.isArray(row)) return row;
  for (const [column, to] of table) {
    if (Object.hasOwn(row, column)) row[column] = convert(row[column], to) as Json;
  }
  return row;
}

/** The connector's output with its rows (and each result's rows) converted in place. */
export function coerceRows(output: JsonObject, schema: Json | undefined): JsonObject {
  const table = conversions(schema);
  if (table.size === 0) return output;
  const fix = (rows: Json | undefined): void => {
    if (Array.isArray(rows)) rows.forEach((row) => coerceRow(row, table));
  };
  fix(output['rows']);
  const results = output['results'];
  if (!Array.isArray(results)) return output;
  for (const r of results) if (r && typeof r === 'object' && !Array.isArray(r)) fix(r['rows']);
  return output;
}
