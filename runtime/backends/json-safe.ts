/**
 * Prototype-safe access to JSON documents and input checks shared by every backend.
 * Keys such as `__proto__`, `constructor` and `prototype` are plain data here: reads use own-property
 * checks and writes use `Object.defineProperty`, so no document or query can reach `Object.prototype`.
 */
import type { Json, JsonObject } from '../types.js';
import { PipeError } from '../errors.js';

/** Default maximum serialized document size (1 MB); env PIPEC_STORE_MAX_DOC overrides. */
export const DEFAULT_MAX_DOCUMENT_BYTES = 1024 * 1024;
/** Nesting limit for documents, queries and event payloads (deeper input is rejected, never recursed). */
export const MAX_JSON_DEPTH = 64;

const STORE_NAME = /^[a-z][a-z0-9_-]{0,62}$/;
const PATH_SEGMENT = /^[A-Za-z0-9_$-]+$/;
const EVENT_NAME = /^(?=.{1,200}$)[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

export function isPlainObject(value: unknown): value is JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

export function getOwn(obj: JsonObject, key: string): Json | undefined {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

/** Sets an own, enumerable data property even for `__proto__`. */
export function setOwn(obj: JsonObject, key: string, value: Json): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Reads a dotted path; numeric segments index arrays. Undefined when any step is missing. */
export function getPath(doc: Json, path: readonly string[]): Json | undefined {
  let current: Json | undefined = doc;
  for (const segment of path) {
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else if (isPlainObject(current)) {
      current = getOwn(current, segment);
    } else {
      return undefined;
    }
    if (current === undefined) return undefined;
  }
  return current;
}

/** Field path `a.b.c` → segments; PipeError 400 BAD_QUERY when it could smuggle syntax. */
export function parseFieldPath(path: string): string[] {
  const segments = path.split('.');
  if (path.length > 512 || segments.length > 32 || !segments.every((s) => PATH_SEGMENT.test(s))) {
    throw badQuery(
      `invalid field path ${JSON.stringify(path.slice(0, 80))}: use letters, digits, _ $ - separated by dots`,
    );
  }
  return segments;
}

export function validateStoreName(store: string): void {
  if (typeof store !== 'string' || !STORE_NAME.test(store)) {
    throw new PipeError(
      `invalid store name ${JSON.stringify(String(store).slice(0, 80))}: expected ${STORE_NAME.source}`,
      {
        code: 400,
        kind: 'BAD_STORE_NAME',
      },
    );
  }
}

export function validateEventName(name: string): void {
  if (typeof name !== 'string' || !EVENT_NAME.test(name)) {
    throw new PipeError(
      `invalid event name ${JSON.stringify(String(name).slice(0, 80))}: expected ${EVENT_NAME.source}`,
      {
        code: 400,
        kind: 'BAD_EVENT_NAME',
      },
    );
  }
}

export function badQuery(message: string): PipeError {
  return new PipeError(message, { code: 400, kind: 'BAD_QUERY' });
}

/** How deep and what a JSON value may hold; `maxDepth` defaults to MAX_JSON_DEPTH. */
export interface JsonRules {
  readonly maxDepth?: number;
}

/**
 * Throws PipeError unless `value` is strict JSON that every backend stores alike: plain
 * objects/arrays, finite numbers, strings, booleans, null (else 400 `kind`: no undefined,
 * functions, class instances or cycles); nested at most `maxDepth` levels and with no text that
 * PostgreSQL refuses — U+0000 or a lone UTF-16 surrogate in a string or a key (else 422
 * `UNSTORABLE_JSON`). SQLite would keep such text, PostgreSQL would not: one rule for both.
 */
export function assertJson(
  value: unknown,
  what: string,
  kind = 'NOT_JSON',
  rules: JsonRules = {},
): asserts value is Json {
  const problem = findJsonProblem(value, 0, rules.maxDepth ?? MAX_JSON_DEPTH);
  if (problem === null) return;
  if (problem.storable) throw new PipeError(`${what} is not JSON-serializable: ${problem.text}`, { code: 400, kind });
  throw new PipeError(`${what} cannot be stored: ${problem.text}`, { code: 422, kind: 'UNSTORABLE_JSON' });
}

/** `storable: false`: valid JSON that a backend would refuse (depth, text). */
type JsonProblem = { readonly text: string; readonly storable: boolean };

function findJsonProblem(value: unknown, depth: number, maxDepth: number): JsonProblem | null {
  if (depth > maxDepth) return { text: `nested deeper than ${maxDepth} levels`, storable: false };
  if (value === null || typeof value === 'boolean') return null;
  if (typeof value === 'string') return textProblem(value, 'a string');
  if (typeof value === 'number')
    return Number.isFinite(value) ? null : { text: `number ${String(value)}`, storable: true };
  if (Array.isArray(value)) {
    for (const item of value) {
      const p = findJsonProblem(item, depth + 1, maxDepth);
      if (p !== null) return p;
    }
    return null;
  }
  if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      const p = textProblem(key, 'a key') ?? findJsonProblem(value[key], depth + 1, maxDepth);
      if (p !== null) return p;
    }
    return null;
  }
  const type = value === undefined ? 'undefined' : typeof value === 'object' ? 'object (not plain)' : typeof value;
  return { text: `a value of type ${type}`, storable: true };
}

/** Checks for what no backend must be asked to keep: NUL and unpaired surrogates. */
const SUSPECT_TEXT = /[\u0000\uD800-\uDFFF]/;

function textProblem(text: string, what: string): JsonProblem | null {
  if (!SUSPECT_TEXT.test(text)) return null;
  if (text.includes('\u0000')) return { text: `${what} holds U+0000 (NUL)`, storable: false };
  if (!(text as string & { isWellFormed(): boolean }).isWellFormed())
    return { text: `${what} holds a lone UTF-16 surrogate`, storable: false };
  return null;
}

/** Serializes a stored document, enforcing the size limit (PipeError 413, nothing written). */
export function serializeDocument(doc: JsonObject, maxBytes: number): string {
  assertJson(doc, 'document');
  return withinSizeLimit(JSON.stringify(doc), maxBytes);
}

/** `text`, a stored document's JSON, unless it is over the size limit (PipeError 413). */
export function withinSizeLimit(text: string, maxBytes: number): string {
  // A UTF-16 code unit is at most 3 bytes of UTF-8 (a surrogate pair, 2 units, is 4): a text that short
  // is within the limit without counting its bytes.
  if (text.length * 3 <= maxBytes) return text;
  const size = Buffer.byteLength(text, 'utf8');
  if (size > maxBytes) throw documentTooLarge(size, maxBytes);
  return text;
}

/** 413: a document of `size` bytes (as JSON text) over the limit; nothing is written. */
export function documentTooLarge(size: number, maxBytes: number): PipeError {
  return new PipeError(`document of ${size} bytes exceeds the limit of ${maxBytes} bytes`, {
    code: 413,
    kind: 'DOCUMENT_TOO_LARGE',
  });
}

export function maxDocumentBytes(env: NodeJS.ProcessEnv): number {
  const raw = env['PIPEC_STORE_MAX_DOC'];
  const parsed = raw === undefined ? NaN : Number(raw);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : DEFAULT_MAX_DOCUMENT_BYTES;
}

/** Deep copy through JSON, keeping `__proto__` keys as own data (JSON.parse does). */
export function cloneJson<T extends Json>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export function duplicateKey(detail: string, cause?: unknown): PipeError {
  return new PipeError(`duplicate key: ${detail}`, { code: 409, kind: 'DUPLICATE_KEY', cause });
}
