/**
 * The HTTP trigger's message (the Digibee envelope) and request body handling:
 * `{ body, headers, queryAndPath, method, path, contentType }`. Bodies are read with a byte limit
 * (Content-Length and the streamed length), JSON is parsed with a nesting limit, forms become
 * objects of fields and text stays text. Keys from the request are kept as plain data.
 */
import { TextDecoder } from 'node:util';
import { PipeError } from '../errors.js';
import type { Json, JsonObject } from '../types.js';

export const DEFAULT_MAX_BODY_SIZE = 5 * 1024 * 1024;
export const MAX_JSON_DEPTH = 512;

export function tooLargeError(limit: number): PipeError {
  return new PipeError('Request size limit exceeded', { code: 413, kind: 'PAYLOAD_TOO_LARGE', details: { limit } });
}

function badRequest(message: string): PipeError {
  return new PipeError(message, { code: 400, kind: 'BAD_REQUEST' });
}

/** A record safe for untrusted keys (`__proto__` is an ordinary key here). */
export function dataRecord(): Record<string, Json> {
  return Object.create(null) as Record<string, Json>;
}

/** Adds `value` under `key`; a repeated key turns the entry into an array of values. */
function addValue(record: Record<string, Json>, key: string, value: string): void {
  const existing = Object.hasOwn(record, key) ? record[key] : undefined;
  if (existing === undefined) record[key] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else record[key] = [existing, value];
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
      if (ch === 0x5c) i++; // backslash: skip the escaped character
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

export function parseJsonText(text: string, maxDepth = MAX_JSON_DEPTH): Json {
  if (text.trim() === '') return null;
  // Nesting deeper than maxDepth needs more than maxDepth opening brackets: most bodies are
  // ruled out by a cheap count, and only the rest get the exact (character by character) scan.
  const deepAt = openingBracketsUpTo(text, maxDepth) > maxDepth ? excessiveDepthAt(text, maxDepth) : -1;
  if (deepAt >= 0) throw badRequest(`Malformed JSON body: nesting deeper than ${maxDepth} levels at position ${deepAt}`);
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
  const decoder = decoderFor(charset, fatal);
  try {
    return decoder.decode(bytes);
  } catch {
    throw badRequest(`Request body is not valid ${charset ?? 'utf-8'} text`);
  }
}

/** Form fields as an object; repeated fields become arrays. */
export function parseFormFields(text: string): JsonObject {
  const fields = dataRecord();
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
  const out = dataRecord();
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/** Query parameters and path parameters in one object; path parameters win on a clash. */
export function queryAndPathRecord(url: URL | URLSearchParams | null, pathParams: Readonly<Record<string, string>>): JsonObject {
  const out = dataRecord();
  const query = url instanceof URL ? url.searchParams : url;
  if (query) for (const [k, v] of query) addValue(out, k, v);
  for (const [k, v] of Object.entries(pathParams)) out[k] = v;
  return out;
}

export interface EnvelopeInput {
  readonly request: Request;
  readonly pathParams: Readonly<Record<string, string>>;
  readonly body: Json;
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

export function buildEnvelope({ request, pathParams, body, principal }: EnvelopeInput): JsonObject {
  const { path, query } = pathAndQuery(request.url);
  return {
    body,
    headers: headersRecord(request.headers),
    queryAndPath: queryAndPathRecord(query, pathParams),
    method: request.method.toUpperCase(),
    path,
    contentType: request.headers.get('content-type'),
    ...(principal ? { principal } : {}),
  };
}
