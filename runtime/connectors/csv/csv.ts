/**
 * Connector `csv`: `csv parse` reads CSV (a file of the work folder, streamed, or text) into rows;
 * `csv generate` writes rows as CSV (text, or a file of the work folder). Built on csv-parse and
 * csv-stringify.
 *
 * Parse: the first record names the columns (`header`, default true) unless `columns` does; each
 * record becomes an object keyed by column (a `__proto__` column is a field like any other). With a
 * declared row schema, cells are converted to the schema's scalar types (compile.ts passes them as
 * `types`) and each row is validated: an invalid row, or one with the wrong number of fields, fails
 * the step (`on-invalid: fail`, ROW_INVALID 422) or is set aside with its line and reason
 * (`on-invalid: reject`). Malformed CSV (a quote not closed, a stray quote) is MALFORMED_CSV 400 with
 * its line and field. A file is read as a stream: rows are kept up to `max-rows`, or handed in
 * batches to `batch-pipeline` as they come, so a file of any size is read in bounded memory.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline as pipeStreams } from 'node:stream/promises';
import { CsvError, parse, type Info, type Options as ParseOptions } from 'csv-parse';
import { stringify, type Options as StringifyOptions } from 'csv-stringify';
import { PipeError } from '../../errors.js';
import type { CompiledValidator, ConnectorRun, ExecutionContext, Json, JsonObject } from '../../types.js';
import { fileReference, newWorkFilePath, resolveWorkFile } from '../../work-files.js';

/** A scalar type a cell is converted to before validation (from the row schema). */
export type CellType = 'integer' | 'number' | 'boolean' | 'string';

export interface CsvParams {
  readonly operation: 'parse' | 'generate';
  readonly file?: Json;
  readonly text?: Json;
  readonly header?: boolean;
  readonly columns?: Json;
  readonly delimiter?: string;
  readonly quote?: string;
  readonly escape?: string;
  readonly comment?: string;
  readonly encoding?: 'utf-8' | 'latin1' | 'utf-16le';
  readonly 'skip-empty-lines'?: boolean;
  readonly trim?: boolean;
  readonly 'on-invalid'?: 'fail' | 'reject';
  readonly 'max-rows'?: number;
  readonly 'max-rejected'?: number;
  readonly 'max-record-size'?: number;
  readonly 'batch-pipeline'?: string;
  readonly 'batch-size'?: number;
  /** The row schema's validator (compile.ts, from `schema`). */
  readonly validator?: CompiledValidator;
  /** [column, scalar type] pairs, from the row schema (compile.ts). */
  readonly types?: readonly (readonly [string, CellType])[];
  readonly rows?: Json;
  readonly 'to-file'?: string;
  readonly 'record-delimiter'?: 'lf' | 'crlf';
  readonly 'quote-all'?: boolean;
  readonly 'escape-formulas'?: boolean;
}

export const DEFAULT_MAX_ROWS = 100_000;
export const DEFAULT_MAX_REJECTED = 1000;
export const DEFAULT_BATCH_SIZE = 500;
const DEFAULT_MAX_RECORD_SIZE = 1024 * 1024;
const BATCH_TIMEOUT = 60_000;

export const run: ConnectorRun<CsvParams> = async (params, _message, ctx) => {
  if (params.operation === 'parse') return parseCsv(params, ctx);
  if (params.operation === 'generate') return generateCsv(params, ctx);
  throw badParams(`unknown operation "${String(params.operation)}" (parse or generate)`);
};

// ─────────────────────────────── parse ───────────────────────────────

interface Rejected {
  readonly line: number;
  readonly reason: string;
  readonly record: Json;
}

async function parseCsv(params: CsvParams, ctx: ExecutionContext): Promise<JsonObject> {
  const source = await inputStream(params, ctx);
  // Text is already decoded: `encoding` is the file's.
  const parser = parse(parseOptions(params, params.file === undefined ? 'utf-8' : params.encoding));
  source.on('error', (err) => parser.destroy(err));
  source.pipe(parser);

  const onInvalid = params['on-invalid'] ?? 'fail';
  const maxRows = params['max-rows'] ?? DEFAULT_MAX_ROWS;
  const maxRejected = params['max-rejected'] ?? DEFAULT_MAX_REJECTED;
  const batchPipeline = params['batch-pipeline'];
  const batchSize = params['batch-size'] ?? DEFAULT_BATCH_SIZE;
  let columns = namedColumns(params.columns);
  const needsHeader = params.header !== false;
  const rows: Json[] = [];
  const rejected: Rejected[] = [];
  let rowCount = 0;
  let batch: Json[] = [];
  let batchFirstLine = 0;
  let batches = 0;
  const lines = new LineCounter();
  const types = new Map(params.types ?? []);

  const flush = async (): Promise<void> => {
    if (!batchPipeline || batch.length === 0) return;
    const payload: JsonObject = { rows: batch, firstLine: batchFirstLine, batch: batches };
    batch = [];
    batches++;
    await ctx.services.execute(batchPipeline, payload, { timeout: BATCH_TIMEOUT, parent: ctx });
  };

  try {
    let headerSeen = !needsHeader;
    for await (const entry of parser as AsyncIterable<{ record: string[]; info: Info }>) {
      ctx.signal.throwIfAborted();
      const line = lines.startOf(entry.info);
      if (!headerSeen) {
        headerSeen = true;
        const header = checkHeader(entry.record, line);
        columns ??= header;
        continue;
      }
      const outcome = toRow(entry.record, columns, types, params.validator);
      if ('reason' in outcome) {
        if (onInvalid === 'fail') {
          throw new PipeError(`csv parse: line ${line}: ${outcome.reason}`, {
            code: 422,
            kind: 'ROW_INVALID',
            details: { line, reason: outcome.reason },
          });
        }
        if (rejected.length >= maxRejected) {
          throw new PipeError(`csv parse: more than ${maxRejected} rejected rows (the last at line ${line})`, {
            code: 422,
            kind: 'TOO_MANY_REJECTED',
            details: { line, rejected: rejected.slice(0, 10) as unknown as Json },
          });
        }
        rejected.push({ line, reason: outcome.reason, record: rawRecord(entry.record, columns) });
        continue;
      }
      rowCount++;
      if (batchPipeline) {
        if (batch.length === 0) batchFirstLine = line;
        batch.push(outcome.row);
        if (batch.length >= batchSize) await flush();
        continue;
      }
      if (rowCount > maxRows) {
        const hint = 'raise max-rows or stream them to a batch-pipeline';
        throw new PipeError(`csv parse: more than ${maxRows} rows (at line ${line}); ${hint}`, {
          code: 413,
          kind: 'TOO_MANY_ROWS',
          details: { line, maxRows },
        });
      }
      rows.push(outcome.row);
    }
    await flush();
  } catch (err) {
    throw asParseError(err);
  } finally {
    source.destroy();
  }
  const out: JsonObject = {
    rows,
    rowCount,
    rejected: rejected as unknown as Json,
    rejectedCount: rejected.length,
  };
  if (batchPipeline) out['batches'] = batches;
  return out;
}

async function inputStream(params: CsvParams, ctx: ExecutionContext): Promise<Readable> {
  if (params.file !== undefined && params.text !== undefined) throw badParams('give `file` or `text`, not both');
  if (params.file !== undefined) {
    const file = await resolveWorkFile(params.file, ctx.workDir, 'csv parse');
    return createReadStream(file.path);
  }
  if (typeof params.text === 'string') return Readable.from([params.text]);
  if (params.text === undefined || params.text === null) throw badParams('`file` or `text` is required');
  throw badParams(`\`text\` is CSV text, not ${Array.isArray(params.text) ? 'an array' : typeof params.text}`);
}

function parseOptions(params: CsvParams, encoding: CsvParams['encoding']): ParseOptions {
  const single = (name: string, value: string | undefined, fallback: string): string => {
    const v = value ?? fallback;
    if (v.length === 0 || v.length > 4 || /[\r\n]/.test(v)) {
      throw badParams(`\`${name}\` is 1 to 4 characters, no line break`);
    }
    return v;
  };
  return {
    delimiter: single('delimiter', params.delimiter, ','),
    quote: single('quote', params.quote, '"'),
    escape: single('escape', params.escape, '"'),
    ...(params.comment !== undefined ? { comment: single('comment', params.comment, '#') } : {}),
    bom: true,
    encoding: ENCODINGS[encoding ?? 'utf-8'] ?? badEncoding(encoding),
    info: true,
    relax_column_count: true,
    skip_empty_lines: params['skip-empty-lines'] ?? true,
    trim: params.trim ?? false,
    max_record_size: params['max-record-size'] ?? DEFAULT_MAX_RECORD_SIZE,
  };
}

const ENCODINGS: Readonly<Record<string, BufferEncoding>> = {
  'utf-8': 'utf8',
  latin1: 'latin1',
  'utf-16le': 'utf16le',
};

function badEncoding(encoding: unknown): never {
  throw badParams(`unknown encoding "${String(encoding)}" (utf-8, latin1, utf-16le)`);
}

/** Where each record starts: csv-parse counts the line a record ends on, and the empty and comment lines so far. */
class LineCounter {
  private end = 0;
  private skipped = 0;
  startOf(info: Info): number {
    const skipped = info.empty_lines + info.comment_lines;
    const start = this.end + 1 + (skipped - this.skipped);
    this.end = info.lines;
    this.skipped = skipped;
    return start;
  }
}

function namedColumns(columns: Json | undefined): string[] | undefined {
  if (columns === undefined || columns === null) return undefined;
  if (!Array.isArray(columns) || columns.some((c) => typeof c !== 'string')) {
    throw badParams('`columns` is a list of column names');
  }
  return checkHeader(columns as string[], 0);
}

function checkHeader(names: readonly string[], line: number): string[] {
  const seen = new Set<string>();
  names.forEach((name, i) => {
    const where = line > 0 ? `line ${line}, field ${i + 1}` : `columns[${i}]`;
    if (name === '') throw malformed(`${where}: a column has no name`, line, i + 1);
    if (seen.has(name)) throw malformed(`${where}: the column "${name}" is named twice`, line, i + 1);
    seen.add(name);
  });
  return [...names];
}

/** An object's own field, `__proto__` included (JSON.parse keeps such keys as data too). */
function setField(obj: JsonObject, key: string, value: Json): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

function rawRecord(record: readonly string[], columns: readonly string[] | undefined): Json {
  if (!columns || record.length !== columns.length) return [...record];
  const obj: JsonObject = {};
  columns.forEach((c, i) => setField(obj, c, record[i] ?? ''));
  return obj;
}

function toRow(
  record: readonly string[],
  columns: readonly string[] | undefined,
  types: ReadonlyMap<string, CellType>,
  validator: CompiledValidator | undefined,
): { row: Json } | { reason: string } {
  if (columns && record.length !== columns.length) {
    return { reason: `expected ${columns.length} fields, found ${record.length}` };
  }
  let row: Json;
  if (columns) {
    const obj: JsonObject = {};
    columns.forEach((column, i) => {
      const cell = record[i] ?? '';
      const type = types.get(column);
      if (type === undefined || type === 'string') setField(obj, column, cell);
      else if (cell !== '') setField(obj, column, convert(cell, type));
    });
    row = obj;
  } else {
    row = [...record];
  }
  if (validator && !validator(row)) return { reason: describeErrors(validator) };
  return { row };
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A cell as the schema's type when it reads as one; otherwise the text, which validation then reports. */
export function convert(cell: string, type: CellType): Json {
  const text = cell.trim();
  switch (type) {
    case 'integer':
      return /^[+-]?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : cell;
    case 'number':
      return NUMBER.test(text) && Number.isFinite(Number(text)) ? Number(text) : cell;
    case 'boolean':
      return /^true$/i.test(text) ? true : /^false$/i.test(text) ? false : cell;
    default:
      return cell;
  }
}

function describeErrors(validator: CompiledValidator): string {
  return (validator.errors ?? [])
    .slice(0, 5)
    .map((e) => {
      const path = e.instancePath
        .split('/')
        .slice(1)
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
        .join('.');
      const missing = e.keyword === 'required' ? String(e.params['missingProperty']) : undefined;
      if (missing !== undefined) return `${path ? `${path}.` : ''}${missing}: is missing`;
      const values = e.params['allowedValues'];
      const allowed = Array.isArray(values) ? ` (${values.map((v: unknown) => JSON.stringify(v)).join(', ')})` : '';
      return `${path || 'the row'}: ${e.message ?? e.keyword}${allowed}`;
    })
    .join('; ');
}

/** csv-parse's errors become MALFORMED_CSV with line and field (refused options BAD_CSV_PARAMS); ours pass through. */
function asParseError(err: unknown): unknown {
  if (!(err instanceof CsvError)) return err;
  const line = typeof err['lines'] === 'number' ? err['lines'] : 0;
  const column = typeof err['index'] === 'number' ? err['index'] + 1 : 0;
  if (err.code === 'CSV_MAX_RECORD_SIZE') {
    return new PipeError(`csv parse: line ${line}: a record is larger than max-record-size`, {
      code: 413,
      kind: 'RECORD_TOO_LARGE',
      details: { line },
    });
  }
  if (err.code.startsWith('CSV_INVALID_OPTION') || err.code === 'CSV_INVALID_ARGUMENT') return badParams(err.message);
  const text = err.message.replace(/ at line \d+/, '');
  return malformed(`line ${line}${column > 0 ? `, field ${column}` : ''}: ${text}`, line, column);
}

function malformed(what: string, line: number, column: number): PipeError {
  return new PipeError(`Malformed CSV: ${what}`, { code: 400, kind: 'MALFORMED_CSV', details: { line, column } });
}

function badParams(message: string): PipeError {
  return new PipeError(`csv: ${message}`, { code: 400, kind: 'BAD_CSV_PARAMS' });
}

// ─────────────────────────────── generate ───────────────────────────────

async function generateCsv(params: CsvParams, ctx: ExecutionContext): Promise<JsonObject> {
  const rows = params.rows;
  if (!Array.isArray(rows)) throw badParams('`rows` is a list of rows (objects or arrays)');
  const columns = outputColumns(params.columns, rows);
  const records = (function* (): Generator<Json[]> {
    if (columns && params.header !== false) yield columns.map((c) => c.header);
    for (const row of rows) yield cellsOf(row, columns);
  })();
  const options = stringifyOptions(params);
  const toFile = params['to-file'];
  if (toFile === undefined) {
    const chunks: string[] = [];
    const stringifier = stringify(options);
    stringifier.on('data', (chunk: Buffer | string) => chunks.push(String(chunk)));
    await pipeStreams(Readable.from(records, { objectMode: true }), stringifier);
    return { text: chunks.join(''), rowCount: rows.length };
  }
  if (typeof toFile !== 'string' || toFile === '') throw badParams('`to-file` is a file name');
  const target = newWorkFilePath(ctx.workDir, toFile);
  let size = 0;
  const stringifier = stringify(options);
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      done(null, chunk);
    },
  });
  try {
    const out = createWriteStream(target.path, { flags: 'wx', mode: 0o600 });
    await pipeStreams(Readable.from(records, { objectMode: true }), stringifier, count, out);
  } catch (err) {
    throw new PipeError('csv generate: the file could not be written', { code: 503, kind: 'FILE_STORAGE', cause: err });
  }
  return { file: fileReference(target.path, target.fileName, toFile, 'text/csv', size), rowCount: rows.length };
}

interface OutputColumn {
  /** A field of the row; `a.b` reaches into a nested object when the row has no field `a.b`. */
  readonly field: string;
  readonly header: string;
}

/** The columns: `columns` as given (names, or `{ field, header }`), else every key of the object rows in order. */
function outputColumns(given: Json | undefined, rows: readonly Json[]): OutputColumn[] | undefined {
  if (given !== undefined && given !== null) {
    if (!Array.isArray(given)) throw badParams('`columns` is a list of field names or { field, header }');
    return given.map((c) => {
      if (typeof c === 'string') return { field: c, header: c };
      if (c && typeof c === 'object' && !Array.isArray(c) && typeof c['field'] === 'string') {
        const header = Object.hasOwn(c, 'header') && typeof c['header'] === 'string' ? c['header'] : c['field'];
        return { field: c['field'], header };
      }
      throw badParams('`columns` is a list of field names or { field, header }');
    });
  }
  if (!rows.some(isObject)) return undefined;
  const keys = new Set<string>();
  for (const r of rows) if (isObject(r)) for (const k of Object.keys(r)) keys.add(k);
  return [...keys].map((k) => ({ field: k, header: k }));
}

function stringifyOptions(params: CsvParams): StringifyOptions {
  const delimiter = params.delimiter ?? ',';
  if (delimiter.length === 0 || /[\r\n]/.test(delimiter)) {
    throw badParams('`delimiter` is one or more characters, no line break');
  }
  return {
    delimiter,
    quote: params.quote ?? '"',
    escape: params.escape ?? '"',
    record_delimiter: params['record-delimiter'] === 'crlf' ? 'windows' : 'unix',
    quoted: params['quote-all'] ?? false,
    escape_formulas: params['escape-formulas'] ?? false,
    header: false,
  };
}

const isObject = (v: Json | undefined): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One row's cells: objects read by column (own fields only), arrays as they are, scalars alone. */
function cellsOf(row: Json, columns: readonly OutputColumn[] | undefined): Json[] {
  const cells = isObject(row) ? (columns ?? []).map((c) => fieldOf(row, c.field)) : Array.isArray(row) ? row : [row];
  return cells.map(cellText);
}

function fieldOf(row: JsonObject, field: string): Json | undefined {
  if (Object.hasOwn(row, field)) return row[field];
  let at: Json | undefined = row;
  for (const part of field.split('.')) at = isObject(at) && Object.hasOwn(at, part) ? at[part] : undefined;
  return at;
}

function cellText(value: Json | undefined): Json {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return typeof value === 'boolean' ? String(value) : value;
}
