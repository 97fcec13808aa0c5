/**
 * Connector `xml`: `xml parse` reads an XML document (a file of the work folder, or text) into
 * JSON; `xml generate` writes JSON as XML (text, or a file of the work folder). Built on
 * fast-xml-parser.
 *
 * Parse: elements become fields, repeated elements lists, attributes fields prefixed with `@`
 * (`attributes: false` drops them), text beside attributes or children `#text`; namespace prefixes
 * are kept (`ns:order`, `@xmlns:ns`) or stripped (`namespaces: strip`). With a declared schema the
 * document is shaped by it before validation — a text where the schema wants an integer, number
 * or boolean is converted, a single element where it wants a list becomes a list of one — and a
 * document that does not fit fails (INVALID_DOCUMENT 422). With `record`, the document is streamed
 * and each element at that path is read, shaped and validated on its own (record-splitter.ts),
 * like csv's rows: kept, handed to `batch-pipeline` in batches, or rejected with line and reason.
 * Safety: a DOCTYPE anywhere is refused (no DTD, no entity of the document's own, so no entity
 * expansion; only XML's five entities and character references are decoded), nesting deeper than
 * `max-depth` is refused, the input (or a record) is at most `max-size` bytes, and element names
 * such as `__proto__` are data, never an object's prototype. Malformed XML is MALFORMED_XML 400
 * with its line and column.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline as pipeStreams } from 'node:stream/promises';
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { PipeError } from '../../errors.js';
import type { CompiledValidator, ConnectorRun, ExecutionContext, Json, JsonObject } from '../../types.js';
import { fileReference, newWorkFilePath, resolveWorkFile } from '../../work-files.js';
import { DOCTYPE_REFUSED, splitRecords } from './record-splitter.js';

export interface XmlParams {
  readonly operation: 'parse' | 'generate';
  readonly file?: Json;
  readonly text?: Json;
  readonly attributes?: boolean;
  readonly 'attribute-prefix'?: string;
  readonly namespaces?: 'keep' | 'strip';
  readonly 'max-depth'?: number;
  readonly 'max-size'?: number;
  /** Stream the document and read each element at this path (`catalog/product`) as a record. */
  readonly record?: string;
  readonly 'on-invalid'?: 'fail' | 'reject';
  readonly 'max-records'?: number;
  readonly 'max-rejected'?: number;
  readonly 'batch-pipeline'?: string;
  readonly 'batch-size'?: number;
  /** The document schema's validator (compile.ts, from `schema`). */
  readonly validator?: CompiledValidator;
  /** The document schema, for shaping the document before validation (compile.ts). */
  readonly shape?: Json;
  readonly document?: Json;
  readonly declaration?: boolean;
  readonly indent?: number;
  readonly 'to-file'?: string;
}

export const DEFAULT_MAX_DEPTH = 64;
export const DEFAULT_MAX_SIZE = 10 * 1024 * 1024;
export const DEFAULT_MAX_RECORDS = 100_000;
export const DEFAULT_MAX_REJECTED = 1000;
export const DEFAULT_BATCH_SIZE = 500;
const BATCH_TIMEOUT = 60_000;
const ATTRIBUTE_PREFIX = '@';
const TEXT_KEY = '#text';
/** Not an XML name character: marks names fast-xml-parser would refuse or rename, restored afterwards. */
const ESCAPE = '\u0001';
/** Names fast-xml-parser refuses (`__proto__`, `constructor`, `prototype`) or renames; here they are data. */
const GUARDED_NAMES = new Set([
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);

export const run: ConnectorRun<XmlParams> = async (params, _message, ctx) => {
  if (params.operation === 'parse') return parseXml(params, ctx);
  if (params.operation === 'generate') return generateXml(params, ctx);
  throw badParams(`unknown operation "${String(params.operation)}" (parse or generate)`);
};

// ─────────────────────────────── parse ───────────────────────────────

async function parseXml(params: XmlParams, ctx: ExecutionContext): Promise<Json> {
  if (params.record !== undefined) return parseRecords(params, ctx);
  const maxSize = params['max-size'] ?? DEFAULT_MAX_SIZE;
  const text = await inputText(params, ctx, maxSize);
  refuseDoctype(text);
  const maxDepth = params['max-depth'] ?? DEFAULT_MAX_DEPTH;
  let document = parseDocument(text, xmlParser(params, maxDepth), maxDepth);
  if (params.shape !== undefined) document = shapeBySchema(document, params.shape, params.shape);
  const validator = params.validator;
  if (validator && !validator(document)) {
    const validation = violations(validator);
    throw new PipeError(`the XML document does not match the schema: ${validation.slice(0, 3).join('; ')}`, {
      code: 422,
      kind: 'INVALID_DOCUMENT',
      details: { validation },
    });
  }
  return document;
}

/** The parser for one step run (fast-xml-parser; entities decoded by XML_ENTITIES). */
function xmlParser(params: XmlParams, maxDepth: number): XMLParser {
  const guard = (name: string): string => (GUARDED_NAMES.has(name) ? ESCAPE + name : name);
  return new XMLParser({
    ignoreAttributes: params.attributes === false,
    attributeNamePrefix: attributePrefix(params['attribute-prefix']),
    textNodeName: TEXT_KEY,
    removeNSPrefix: params.namespaces === 'strip',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    processEntities: true,
    entityDecoder: XML_ENTITIES,
    // fast-xml-parser counts the levels below the root.
    maxNestedTags: Math.max(0, maxDepth - 1),
    transformTagName: guard,
    transformAttributeName: guard,
  });
}

/** `@` by default; `""` makes attributes plain fields (an attribute then hides a child element of its name). */
function attributePrefix(prefix: string | undefined): string {
  if (prefix === undefined) return ATTRIBUTE_PREFIX;
  if (!/^[@_$-]{0,3}$/.test(prefix)) throw badParams('`attribute-prefix` is up to 3 of `@`, `_`, `$`, `-`, or empty');
  return prefix;
}

const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const ENTITY = /&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|amp|lt|gt|quot|apos);/g;

/**
 * XML's five predefined entities and character references (`&#65;`, `&#x263A;`); nothing else —
 * no entity of the document's own (a DOCTYPE is refused before parsing), an unknown one stays text.
 */
export const XML_ENTITIES = {
  reset: (): void => undefined,
  setXmlVersion: (): void => undefined,
  setExternalEntities: (): void => undefined,
  addInputEntities: (): void => undefined,
  decode: (text: string): string => (text.includes('&') ? text.replace(ENTITY, decodeEntity) : text),
};

function decodeEntity(whole: string, name: string): string {
  if (!name.startsWith('#')) return PREDEFINED[name] ?? whole;
  const code = name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
  const valid =
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0x10ffff && code !== 0xfffe && code !== 0xffff);
  return valid ? String.fromCodePoint(code) : whole;
}

const violations = (validator: CompiledValidator): string[] =>
  (validator.errors ?? []).slice(0, 20).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);

/** Well-formedness (line and column of the first fault), then the tree; `firstLine` places a record in its file. */
function parseDocument(text: string, parser: XMLParser, maxDepth: number, firstLine = 1): Json {
  const checked = XMLValidator.validate(text);
  if (checked !== true) {
    const line = checked.err.line + firstLine - 1;
    const { col, msg } = checked.err;
    throw new PipeError(`Malformed XML: line ${line}, column ${col}: ${msg}`, {
      code: 400,
      kind: 'MALFORMED_XML',
      details: { line, column: col },
    });
  }
  let parsed: unknown;
  try {
    parsed = parser.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/nested tags/i.test(message)) {
      throw new PipeError(`XML nested deeper than ${maxDepth} levels`, {
        code: 400,
        kind: 'XML_TOO_DEEP',
        details: { maxDepth },
      });
    }
    throw new PipeError(`Malformed XML: ${message}`, { code: 400, kind: 'MALFORMED_XML' });
  }
  const document = restoreNames(parsed);
  // The `<?xml …?>` declaration is not data.
  if (isObject(document) && Object.hasOwn(document, '?xml')) delete document['?xml'];
  return document;
}

/**
 * Record mode: the document is streamed (record-splitter.ts) and each element at `record` is read on
 * its own — shaped by the schema, validated, then kept (up to max-records), handed to
 * `batch-pipeline` in batches, or, invalid, failed on or set aside with its line and reason.
 */
async function parseRecords(params: XmlParams, ctx: ExecutionContext): Promise<JsonObject> {
  const maxDepth = params['max-depth'] ?? DEFAULT_MAX_DEPTH;
  const path = params.record ?? '';
  if (!/^[^/\s]+(\/[^/\s]+)*$/.test(path)) {
    throw badParams('`record` is a path of element names from the root (`catalog/product`)');
  }
  const chunks = await inputChunks(params, ctx);
  const onInvalid = params['on-invalid'] ?? 'fail';
  const maxRecords = params['max-records'] ?? DEFAULT_MAX_RECORDS;
  const maxRejected = params['max-rejected'] ?? DEFAULT_MAX_REJECTED;
  const batchPipeline = params['batch-pipeline'];
  const batchSize = params['batch-size'] ?? DEFAULT_BATCH_SIZE;
  const records: Json[] = [];
  const rejected: JsonObject[] = [];
  let recordCount = 0;
  let batch: Json[] = [];
  let batchFirstLine = 0;
  let batches = 0;
  const flush = async (): Promise<void> => {
    if (!batchPipeline || batch.length === 0) return;
    const payload: JsonObject = { records: batch, firstLine: batchFirstLine, batch: batches };
    batch = [];
    batches++;
    await ctx.services.execute(batchPipeline, payload, { timeout: BATCH_TIMEOUT, parent: ctx });
  };
  const parser = xmlParser(params, maxDepth);
  const split = splitRecords(chunks.stream, {
    path,
    maxDepth,
    maxRecordSize: params['max-size'] ?? DEFAULT_MAX_SIZE,
    stripPrefixes: params.namespaces === 'strip',
  });
  try {
    for await (const { text, line } of split) {
      ctx.signal.throwIfAborted();
      const parsed = parseDocument(text, parser, maxDepth, line);
      const read = isObject(parsed) ? (Object.values(parsed)[0] ?? null) : parsed;
      const value = params.shape !== undefined ? shapeBySchema(read, params.shape, params.shape) : read;
      const validator = params.validator;
      if (validator && !validator(value)) {
        const reason = violations(validator).slice(0, 5).join('; ');
        if (onInvalid === 'fail') {
          throw new PipeError(`xml parse: the record at line ${line} does not match the schema: ${reason}`, {
            code: 422,
            kind: 'RECORD_INVALID',
            details: { line, reason },
          });
        }
        if (rejected.length >= maxRejected) {
          throw new PipeError(`xml parse: more than ${maxRejected} rejected records (the last at line ${line})`, {
            code: 422,
            kind: 'TOO_MANY_REJECTED',
            details: { line },
          });
        }
        rejected.push({ line, reason, record: read });
        continue;
      }
      recordCount++;
      if (batchPipeline) {
        if (batch.length === 0) batchFirstLine = line;
        batch.push(value);
        if (batch.length >= batchSize) await flush();
        continue;
      }
      if (recordCount > maxRecords) {
        const hint = 'raise max-records or stream them to a batch-pipeline';
        throw new PipeError(`xml parse: more than ${maxRecords} records (at line ${line}); ${hint}`, {
          code: 413,
          kind: 'TOO_MANY_RECORDS',
          details: { line, maxRecords },
        });
      }
      records.push(value);
    }
    await flush();
  } finally {
    chunks.close();
  }
  const out: JsonObject = { records, recordCount, rejected, rejectedCount: rejected.length };
  if (batchPipeline) out['batches'] = batches;
  return out;
}

/** The document as text chunks: a file read as a stream, or the text. */
async function inputChunks(
  params: XmlParams,
  ctx: ExecutionContext,
): Promise<{ stream: AsyncIterable<string>; close: () => void }> {
  if (params.file !== undefined && params.text !== undefined) throw badParams('give `file` or `text`, not both');
  if (params.file !== undefined) {
    const file = await resolveWorkFile(params.file, ctx.workDir, 'xml parse');
    const stream = createReadStream(file.path, { encoding: 'utf8' });
    return { stream: withoutBom(stream), close: () => stream.destroy() };
  }
  if (typeof params.text !== 'string') throw badParams(params.text === undefined ? NO_INPUT : '`text` is XML text');
  return { stream: withoutBom([params.text]), close: () => undefined };
}

async function* withoutBom(chunks: AsyncIterable<string> | Iterable<string>): AsyncGenerator<string> {
  let first = true;
  for await (const chunk of chunks) {
    yield first ? stripBom(chunk) : chunk;
    first = false;
  }
}

async function inputText(params: XmlParams, ctx: ExecutionContext, maxSize: number): Promise<string> {
  if (params.file !== undefined && params.text !== undefined) throw badParams('give `file` or `text`, not both');
  if (params.file !== undefined) {
    const file = await resolveWorkFile(params.file, ctx.workDir, 'xml parse');
    if (file.size > maxSize) throw tooLarge(file.size, maxSize);
    const bytes = await readFile(file.path);
    if (bytes.length > maxSize) throw tooLarge(bytes.length, maxSize);
    return stripBom(bytes.toString('utf8'));
  }
  if (typeof params.text !== 'string') throw badParams(params.text === undefined ? NO_INPUT : '`text` is XML text');
  const size = Buffer.byteLength(params.text);
  if (size > maxSize) throw tooLarge(size, maxSize);
  return stripBom(params.text);
}

const NO_INPUT = '`file` or `text` is required';

const stripBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

function tooLarge(size: number, maxSize: number): PipeError {
  return new PipeError(`the XML document is ${size} bytes; max-size is ${maxSize}`, {
    code: 413,
    kind: 'XML_TOO_LARGE',
    details: { size, maxSize },
  });
}

/**
 * A DOCTYPE (a DTD, with entities of its own) is refused wherever it is, outside comments and CDATA:
 * fast-xml-parser would read its entities and expand them.
 */
export function refuseDoctype(text: string): void {
  const pattern = /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<!DOCTYPE/gi;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (!/^<!DOCTYPE$/i.test(match[0])) continue;
    const before = text.slice(0, match.index);
    const line = before.split('\n').length;
    const column = match.index - before.lastIndexOf('\n');
    throw new PipeError(`${DOCTYPE_REFUSED}: line ${line}, column ${column}`, {
      code: 400,
      kind: 'XML_DOCTYPE_REFUSED',
      details: { line, column },
    });
  }
}

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** An own field, `__proto__` included (as JSON.parse keeps it). */
function setField(obj: JsonObject, key: string, value: Json): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/** Copies the parsed tree, giving guarded names back (`\u0001__proto__` → an own field `__proto__`). */
function restoreNames(value: unknown): Json {
  if (Array.isArray(value)) return value.map(restoreNames);
  if (!isObject(value)) return (value ?? null) as Json;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) setField(out, key.split(ESCAPE).join(''), restoreNames(child));
  return out;
}

type SchemaNode = Readonly<Record<string, unknown>>;

/** A local `$ref` (`#/definitions/x`, `#/$defs/x`) followed to its schema; anything else as it is. */
function deref(schema: unknown, root: unknown, depth = 0): SchemaNode | undefined {
  if (!isObject(schema)) return undefined;
  const ref = schema['$ref'];
  if (typeof ref !== 'string' || !ref.startsWith('#/') || depth > 16) return schema;
  let at: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    at = isObject(at) && Object.hasOwn(at, part) ? at[part] : undefined;
  }
  return deref(at, root, depth + 1);
}

function typesOf(schema: SchemaNode): readonly unknown[] {
  const type = schema['type'];
  return Array.isArray(type) ? type : [type];
}

/**
 * The document shaped by its schema where XML cannot say: texts to the integers, numbers and
 * booleans the schema wants (left as they are when they do not read as one: validation reports
 * them), one element to a list of one where it wants a list, an empty element to an empty object.
 */
export function shapeBySchema(value: Json, schema: unknown, root: unknown): Json {
  const s = deref(schema, root);
  if (!s) return value;
  const types = typesOf(s);
  if (types.includes('array') && !Array.isArray(value) && value !== null && !types.includes(valueType(value))) {
    return shapeBySchema([value], s, root);
  }
  if (Array.isArray(value)) {
    const items = s['items'];
    return isObject(items) ? value.map((item) => shapeBySchema(item, items, root)) : value;
  }
  if (typeof value === 'string') return convertText(value, types);
  if (isObject(value)) {
    const properties = isObject(s['properties']) ? s['properties'] : {};
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      setField(out, key, Object.hasOwn(properties, key) ? shapeBySchema(child, properties[key], root) : child);
    }
    return out;
  }
  return value;
}

function valueType(value: Json): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function convertText(text: string, types: readonly unknown[]): Json {
  if (types.includes('string')) return text;
  const t = text.trim();
  if (types.includes('integer') && /^[+-]?\d+$/.test(t) && Number.isSafeInteger(Number(t))) return Number(t);
  if (types.includes('number') && NUMBER.test(t) && Number.isFinite(Number(t))) return Number(t);
  if (types.includes('boolean') && /^(true|false)$/.test(t)) return t === 'true';
  if (types.includes('object') && t === '') return {};
  if (types.includes('null') && t === '') return null;
  return text;
}

// ─────────────────────────────── generate ───────────────────────────────

async function generateXml(params: XmlParams, ctx: ExecutionContext): Promise<JsonObject> {
  const document = params.document;
  if (!isObject(document) || Object.keys(document).length !== 1) {
    throw badParams('`document` is an object with one field, the root element (`{ order: { … } }`)');
  }
  const indent = params.indent ?? 2;
  const builder = new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: ATTRIBUTE_PREFIX,
    textNodeName: TEXT_KEY,
    format: indent > 0,
    indentBy: ' '.repeat(indent),
    suppressEmptyNode: true,
    suppressBooleanAttributes: false,
    processEntities: true,
  });
  const body = String(builder.build(document)).trimEnd();
  const text = `${params.declaration === false ? '' : '<?xml version="1.0" encoding="UTF-8"?>\n'}${body}\n`;
  // Field names that are no XML names (`a b`, `1st`) would make a document nobody can read.
  const checked = XMLValidator.validate(text);
  if (checked !== true) {
    throw new PipeError(`xml generate: the document cannot be written as XML: ${checked.err.msg}`, {
      code: 400,
      kind: 'BAD_XML_DOCUMENT',
    });
  }
  const toFile = params['to-file'];
  if (toFile === undefined) return { text };
  if (typeof toFile !== 'string' || toFile === '') throw badParams('`to-file` is a file name');
  const target = newWorkFilePath(ctx.workDir, toFile);
  try {
    await pipeStreams(Readable.from([text]), createWriteStream(target.path, { flags: 'wx', mode: 0o600 }));
  } catch (err) {
    throw new PipeError('xml generate: the file could not be written', { code: 503, kind: 'FILE_STORAGE', cause: err });
  }
  return { file: fileReference(target.path, target.fileName, toFile, 'application/xml', Buffer.byteLength(text)) };
}

function badParams(message: string): PipeError {
  return new PipeError(`xml: ${message}`, { code: 400, kind: 'BAD_XML_PARAMS' });
}
