/**
 * The HTTP trigger's message (the Digibee envelope) and request body handling:
 * `{ body, headers, queryAndPath, method, path, contentType }`. Bodies are read with a byte limit
 * (Content-Length and the streamed length), JSON is parsed with a nesting limit, forms become
 * objects of fields and text stays text. Keys from the request are kept as plain data.
 */
import type { IncomingMessage } from 'node:http';
import { TextDecoder } from 'node:util';
import { PipeError } from '../errors.js';
import { MAX_MESSAGE_DEPTH } from '../limits.js';
import type { Json, JsonObject } from '../types.js';

export const DEFAULT_MAX_BODY_SIZE = 5 * 1024 * 1024;
/** The one message depth limit (runtime/limits.ts), also what an event may carry. */
export const MAX_JSON_DEPTH = MAX_MESSAGE_DEPTH;

export function tooLargeError(limit: number): PipeError {
  return new PipeError('Request size limit exceeded', { code: 413, kind: 'PAYLOAD_TOO_LARGE', details: { limit } });
}

function badRequest(message: string): PipeError {
  return new PipeError(message, { code: 400, kind: 'BAD_REQUEST' });
}

/**
 * Sets an own data property on a plain object, `__proto__` included (an assignment would set the
 * prototype instead). Every record made from a request (headers, query, form and multipart
 * fields) is a plain object like the ones JSON.parse makes, written only through here: V8 keeps
 * those in fast mode, while a null-prototype record is a hash table from its first key.
 */
function setData(record: JsonObject, key: string, value: Json): void {
  if (key === '__proto__')
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}

/** Adds `value` under `key`; a repeated key turns the entry into an array of values. */
export function addValue(record: JsonObject, key: string, value: string): void {
  const existing = Object.hasOwn(record, key) ? record[key] : undefined;
  if (existing === undefined) setData(record, key, value);
  else if (Array.isArray(existing)) existing.push(value);
  else setData(record, key, [existing, value]);
}

/** The declared Content-Length when it is a plain decimal number, else null. */
function declaredLength(headers: Headers): number | null {
  const declared = headers.get('content-length');
  return declared !== null && /^\d+$/.test(declared.trim()) ? Number(declared) : null;
}

/** Rejects before reading when the declared Content-Length is over the limit. */
export function checkDeclaredLength(headers: Headers, limit: number): void {
  const declared = declaredLength(headers);
  if (declared !== null && declared > limit) throw tooLargeError(limit);
}

/** Reads the whole body, failing with 413 as soon as more than `limit` bytes arrived. */
export async function readBodyLimited(request: Request, limit: number): Promise<Uint8Array> {
  const declared = declaredLength(request.headers);
  if (declared !== null && declared > limit) throw tooLargeError(limit);
  // With a Content-Length within the limit the HTTP parser delivers exactly that many bytes, so
  // the body can be read whole. arrayBuffer() lets @hono/node-server read the socket directly
  // instead of building a web ReadableStream per request (the hot path of every HTTP trigger).
  if (declared !== null) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > limit) throw tooLargeError(limit);
    return bytes;
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLargeError(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  return bytes;
}

/**
 * Finds where `text` nests deeper than `maxDepth` (outside strings); -1 when it does not.
 * Checked before JSON.parse so deeply nested input cannot exhaust the stack later on.
 */
export function excessiveDepthAt(text: string, maxDepth: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      depth++;
      if (depth > maxDepth) return i;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return -1;
}

/** Parses JSON text; a syntax error becomes a 400 naming what is wrong and where. */
/** How many `{` and `[` the text holds, counting no further than `limit` (native scans). */
function openingBracketsUpTo(text: string, limit: number): number {
  let count = 0;
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i >= 0 && count <= limit; i = text.indexOf(bracket, i + 1)) count++;
  }
  return count;
}

/** `text.trim() === ''`, without trimming (copying) the usual body that starts with a visible character. */
function isBlank(text: string): boolean {
  const first = text.charCodeAt(0);
  if (first > 0x20 && first < 0x7f) return false;
  return text.trim() === '';
}

export function parseJsonText(text: string, maxDepth = MAX_JSON_DEPTH): Json {
  if (isBlank(text)) return null;
  // Nesting deeper than maxDepth needs more than maxDepth opening brackets: most bodies are
  // ruled out by a cheap count, and only the rest get the exact (character by character) scan.
  const deepAt = openingBracketsUpTo(text, maxDepth) > maxDepth ? excessiveDepthAt(text, maxDepth) : -1;
  if (deepAt >= 0)
    throw badRequest(`Malformed JSON body: nesting deeper than ${maxDepth} levels at position ${deepAt}`);
  try {
    return JSON.parse(text) as Json;
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw badRequest(`Malformed JSON body: ${detail}`);
  }
}

interface MediaType {
  readonly type: string;
  readonly charset: string | undefined;
}

const PLAIN_JSON: MediaType = Object.freeze({ type: 'application/json', charset: undefined });

export function parseMediaType(contentType: string | null): MediaType {
  if (!contentType) return { type: '', charset: undefined };
  if (contentType === 'application/json') return PLAIN_JSON;
  const [type = '', ...params] = contentType.split(';');
  let charset: string | undefined;
  for (const p of params) {
    const [k, v] = p.split('=');
    if (k?.trim().toLowerCase() === 'charset' && v) charset = v.trim().replace(/^"|"$/g, '').toLowerCase();
  }
  return { type: type.trim().toLowerCase(), charset };
}

export function isJsonType(type: string): boolean {
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** Decoders are stateless between whole-buffer decode() calls: the common two are shared. */
const UTF8_STRICT = new TextDecoder('utf-8', { fatal: true });
const UTF8_LENIENT = new TextDecoder('utf-8', { fatal: false });

function decoderFor(charset: string | undefined, fatal: boolean): TextDecoder {
  if (charset === undefined || charset === 'utf-8' || charset === 'utf8') return fatal ? UTF8_STRICT : UTF8_LENIENT;
  try {
    return new TextDecoder(charset, { fatal });
  } catch {
    return fatal ? UTF8_STRICT : UTF8_LENIENT;
  }
}

function decodeText(bytes: Uint8Array, charset: string | undefined, fatal: boolean): string {
  if (fatal && isUtf8(charset)) return decodeUtf8Strictly(bytes);
  const decoder = decoderFor(charset, fatal);
  try {
    return decoder.decode(bytes);
  } catch {
    throw badRequest(`Request body is not valid ${charset ?? 'utf-8'} text`);
  }
}

function isUtf8(charset: string | undefined): boolean {
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

/**
 * UTF-8 that must be valid, as `new TextDecoder('utf-8', { fatal: true })` decodes it (a leading
 * BOM dropped), in one pass for the usual body: V8's decoder turns every invalid sequence into
 * U+FFFD, so only text that holds one (never an ASCII or Latin-1 body, where the search ends at
 * once) is decoded again strictly, which tells a real U+FFFD from broken bytes.
 */
export function decodeUtf8Strictly(bytes: Uint8Array): string {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buffer.toString();
  if (text.includes('\uFFFD')) {
    try {
      return UTF8_STRICT.decode(bytes);
    } catch {
      throw badRequest('Request body is not valid utf-8 text');
    }
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Form fields as an object; repeated fields become arrays. */
export function parseFormFields(text: string): JsonObject {
  const fields: JsonObject = {};
  for (const [k, v] of new URLSearchParams(text)) addValue(fields, k, v);
  return fields;
}

/** The envelope's `body`: JSON parsed, forms as objects, anything else as text; empty → null. */
export function parseRequestBody(bytes: Uint8Array, contentType: string | null): Json {
  if (bytes.byteLength === 0) return null;
  const { type, charset } = parseMediaType(contentType);
  if (isJsonType(type)) return parseJsonText(decodeText(bytes, charset, true));
  if (type === 'application/x-www-form-urlencoded') return parseFormFields(decodeText(bytes, charset, true));
  return decodeText(bytes, charset, false);
}

/** Header names are lower-case (Headers already folds them); repeated headers arrive joined. */
export function headersRecord(headers: Headers): JsonObject {
  const out: JsonObject = {};
  headers.forEach((value, name) => setData(out, name, value));
  return out;
}

/** HTTP whitespace, which `Headers` strips from both ends of a value. */
function isHttpWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function trimHttpWhitespace(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isHttpWhitespace(value.charCodeAt(start))) start++;
  while (end > start && isHttpWhitespace(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/**
 * The same record as `headersRecord(new Headers(raw))`, built straight from Node's raw header
 * list (name, value, name, value, …) without materialising a web `Headers` per request: names
 * lower-cased and sorted, values trimmed, repeats joined with ", " ("; " for cookie), the last
 * set-cookie kept (Headers lists those one by one), HTTP/2 pseudo-headers left out.
 */
export function headersRecordFromRaw(rawHeaders: readonly string[]): JsonObject {
  const joined = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const rawName = rawHeaders[i] as string;
    if (rawName.startsWith(':')) continue;
    const name = rawName.toLowerCase();
    const value = trimHttpWhitespace(rawHeaders[i + 1] as string);
    const existing = joined.get(name);
    if (existing === undefined) joined.set(name, value);
    else joined.set(name, name === 'set-cookie' ? value : existing + (name === 'cookie' ? '; ' : ', ') + value);
  }
  const names = [...joined.keys()];
  sortNames(names);
  const out: JsonObject = {};
  for (const name of names) setData(out, name, joined.get(name) as string);
  return out;
}

/**
 * The same record as `headersRecordFromRaw(incoming.rawHeaders)`, from the header object Node
 * parsed already (the server reads it for the Host header on every request) when no name repeats:
 * Node's names are lower-case already, and for the usual headers the same strings every time. A
 * repeated name (Node joins or drops repeats by rules of its own), a set-cookie (an array in Node)
 * or a `__proto__` header (missing from Node's object) sends it to the raw list instead.
 */
export function headersRecordOf(incoming: Pick<IncomingMessage, 'headers' | 'rawHeaders'>): JsonObject {
  const parsed = incoming.headers;
  const names = Object.keys(parsed);
  if (names.length * 2 !== incoming.rawHeaders.length) return headersRecordFromRaw(incoming.rawHeaders);
  sortNames(names);
  const out: JsonObject = {};
  for (const name of names) {
    const value = parsed[name];
    if (typeof value !== 'string') return headersRecordFromRaw(incoming.rawHeaders);
    setData(out, name, trimHttpWhitespace(value));
  }
  return out;
}

/** Sorts in code-unit order, as `Array#sort` does; a request's few header names by insertion. */
function sortNames(names: string[]): void {
  if (names.length > 16) {
    names.sort();
    return;
  }
  for (let i = 1; i < names.length; i++) {
    const name = names[i] as string;
    let j = i - 1;
    for (; j >= 0 && (names[j] as string) > name; j--) names[j + 1] = names[j] as string;
    names[j + 1] = name;
  }
}

/**
 * The Node request behind a Hono context served by @hono/node-server (`c.env.incoming`), when it
 * is one whose body nobody has started to read; undefined elsewhere (tests calling app.request()).
 */
export function unreadIncoming(env: unknown): IncomingMessage | undefined {
  if (env === null || typeof env !== 'object' || !('incoming' in env)) return undefined;
  const incoming = (env as { readonly incoming: unknown }).incoming;
  if (incoming === null || typeof incoming !== 'object') return undefined;
  const candidate = incoming as IncomingMessage;
  if (!Array.isArray(candidate.rawHeaders) || typeof candidate.on !== 'function') return undefined;
  if (candidate.readableDidRead || candidate.readableEnded || candidate.destroyed || candidate.httpVersionMajor !== 1)
    return undefined;
  return candidate;
}

/**
 * A Content-Length (digits only) above `limit`. One with fewer digits than the limit is below it,
 * which spares the usual request a string-to-number conversion (a call into the runtime, since
 * the header's text is new each time).
 */
export function declaresMoreThan(declared: string, limit: number): boolean {
  return declared.length >= digitCount(limit) && Number(declared) > limit;
}

/** Digits of a non-negative integer. */
function digitCount(n: number): number {
  let digits = 1;
  for (let rest = Math.floor(n / 10); rest >= 1; rest = Math.floor(rest / 10)) digits++;
  return digits;
}

/**
 * Reads a Node request's whole body, failing with 413 as soon as more than `limit` bytes arrived
 * (or at once when Content-Length says so). One chunk — the common case — is returned as it is,
 * without the copies the web Request path makes. What is left unread is drained by the server.
 */
export function readIncomingLimited(incoming: IncomingMessage, limit: number): Promise<Uint8Array> {
  // Node's parser has checked Content-Length already (digits only, or the request was refused),
  // so the number needs no second check here; the streamed count below enforces the limit anyway.
  const declared = incoming.headers['content-length'];
  if (declared !== undefined && declaresMoreThan(declared, limit)) return Promise.reject(tooLargeError(limit));
  return new Promise<Uint8Array>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const stop = (): void => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onFailure);
      incoming.off('close', onFailure);
    };
    const onData = (chunk: Buffer | string): void => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += bytes.byteLength;
      if (total > limit) {
        stop();
        incoming.pause();
        reject(tooLargeError(limit));
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = (): void => {
      stop();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total));
    };
    // 'close' before 'end': the client went away mid-body.
    const onFailure = (): void => {
      stop();
      reject(badRequest('Request body was not received completely'));
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onFailure);
    incoming.on('close', onFailure);
  });
}

/** Query parameters and path parameters in one object; path parameters win on a clash. */
export function queryAndPathRecord(
  url: URL | URLSearchParams | null,
  pathParams: Readonly<Record<string, string>>,
): JsonObject {
  const out: JsonObject = {};
  const query = url instanceof URL ? url.searchParams : url;
  if (query) for (const [k, v] of query) addValue(out, k, v);
  for (const k in pathParams) if (Object.hasOwn(pathParams, k)) setData(out, k, pathParams[k] as string);
  return out;
}

/**
 * The envelope fields besides `body` (always there) that a trigger builds. The compiler lists the
 * ones a pipeline can read (`envelope` in its trigger spec; compiler/check/envelope-demand.ts), so
 * a pipeline that reads only the body gets no header record or query record made per request.
 */
export interface EnvelopeFields {
  readonly headers: boolean;
  readonly queryAndPath: boolean;
  readonly method: boolean;
  readonly path: boolean;
  readonly contentType: boolean;
  readonly principal: boolean;
}

export const ALL_ENVELOPE_FIELDS: EnvelopeFields = Object.freeze({
  headers: true,
  queryAndPath: true,
  method: true,
  path: true,
  contentType: true,
  principal: true,
});

/** The fields a trigger spec's `envelope` list names; every field when there is no list. */
export function envelopeFields(listed: readonly string[] | undefined): EnvelopeFields {
  if (listed === undefined) return ALL_ENVELOPE_FIELDS;
  const has = new Set(listed);
  return Object.freeze({
    headers: has.has('headers'),
    queryAndPath: has.has('queryAndPath'),
    method: has.has('method'),
    path: has.has('path'),
    contentType: has.has('contentType'),
    principal: has.has('principal'),
  });
}

/** No field besides the body: the message is `{ body }`. */
export function onlyBody(fields: EnvelopeFields): boolean {
  return !(
    fields.headers ||
    fields.queryAndPath ||
    fields.method ||
    fields.path ||
    fields.contentType ||
    fields.principal
  );
}

export interface EnvelopeInput {
  readonly request: Request;
  /** The request's headers as a record, when the caller built it already (headersRecordFromRaw). */
  readonly headers?: JsonObject | undefined;
  /** The path parameters (read only when `queryAndPath` is built). */
  readonly pathParams: Readonly<Record<string, string>>;
  readonly body: Json;
  /** The request's Content-Type, when the caller read it already. */
  readonly contentType?: string | null;
  /** Who the trigger's `auth` authenticated (claims of a bearer token, api-key account, …). */
  readonly principal?: JsonObject | null;
}

/**
 * The path and query of an absolute request URL as the server built it (already normalised, so
 * no full URL parse is needed on every request); anything unusual goes through `new URL`.
 */
export function pathAndQuery(url: string): { readonly path: string; readonly query: URLSearchParams | null } {
  const authority = url.indexOf('://');
  const pathStart = authority > 0 ? url.indexOf('/', authority + 3) : -1;
  if (pathStart < 0 || url.includes('#')) {
    const parsed = new URL(url);
    return { path: parsed.pathname, query: parsed.search === '' ? null : parsed.searchParams };
  }
  const queryStart = url.indexOf('?', pathStart);
  if (queryStart < 0) return { path: url.slice(pathStart), query: null };
  return { path: url.slice(pathStart, queryStart), query: new URLSearchParams(url.slice(queryStart + 1)) };
}

/** The message of an HTTP trigger: the body and the other `fields` (in this order, for one object shape per trigger). */
export function buildEnvelope(
  { request, headers, pathParams, body, contentType, principal }: EnvelopeInput,
  fields = ALL_ENVELOPE_FIELDS,
): JsonObject {
  const message: JsonObject = { body };
  const target = fields.path || fields.queryAndPath ? pathAndQuery(request.url) : undefined;
  if (fields.headers) message['headers'] = headers ?? headersRecord(request.headers);
  if (target && fields.queryAndPath) message['queryAndPath'] = queryAndPathRecord(target.query, pathParams);
  if (fields.method) message['method'] = request.method.toUpperCase();
  if (target && fields.path) message['path'] = target.path;
  if (fields.contentType) {
    const type =
      contentType !== undefined ? contentType : headers ? headers['content-type'] : request.headers.get('content-type');
    message['contentType'] = typeof type === 'string' ? type : null;
  }
  if (principal && fields.principal) message['principal'] = principal;
  return message;
}
