/**
 * Value helpers shared by the Double Braces function library and by generated code:
 * own-property-safe path reads, JSON type tests, deep equality, text conversion and the
 * error every library function throws (a PipeError whose `kind` names the function).
 * In: JSON values (and, for `get`, any context object). Out: JSON values or a thrown PipeError.
 */
import { PipeError } from '../errors.js';
import type { Json, JsonObject } from '../types.js';

/** A path segment: a field name or an array index (any other value reads null). */
export type PathSegment = Json | undefined;

/**
 * Reads a path from a value. A missing field, an index out of range, a step into a non-object,
 * or a name that is not an OWN property (`__proto__`, `constructor`, `toString`…) reads null.
 * @example get({ a: [{ b: 1 }] }, 'a', 0, 'b') // 1
 */
export function get(root: unknown, ...path: readonly PathSegment[]): Json {
  let current: unknown = root;
  for (const segment of path) {
    current = step(current, segment);
    if (current === undefined || current === null) return null;
  }
  return current === undefined ? null : (current as Json);
}

/**
 * One field of an object, as `get(root, key)` reads it (own properties only; missing → null), for
 * the usual `message.a.b` path: generated code nests it per field.
 */
export function field(root: unknown, key: string): Json {
  if (root !== null && typeof root === 'object' && !Array.isArray(root)) {
    const value = Object.hasOwn(root, key) ? (root as Record<string, unknown>)[key] : undefined;
    return value === undefined ? null : (value as Json);
  }
  return get(root, key);
}

const NO_FIELDS: JsonObject = Object.freeze(Object.create(null) as JsonObject);

/**
 * `value` when it is a JSON object, else an empty record. Generated code reads field `k` of `x` as
 * `(B.fields(x).k ?? null)`: the property load sits in the generated code, where it sees the few
 * object shapes of that one place, rather than in a helper shared by every read (which sees all
 * shapes and falls back to V8's slowest, megamorphic loads). The compiler does this only for names
 * that are no property of Object.prototype and no array index, for which it reads exactly what
 * `field` reads: the object's own field, else null.
 */
export function fields(value: unknown): JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : NO_FIELDS;
}

function step(value: unknown, segment: PathSegment): unknown {
  // The usual read first: a field name of an object (generated code reads these on every request).
  if (typeof segment === 'string' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
  }
  if (typeof segment !== 'string' && typeof segment !== 'number') return undefined;
  if (Array.isArray(value)) {
    const index = typeof segment === 'number' ? segment : /^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : NaN;
    return Number.isInteger(index) && index >= 0 && index < value.length ? value[index] : undefined;
  }
  if (value !== null && typeof value === 'object') {
    const key = String(segment);
    return Object.prototype.hasOwnProperty.call(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  }
  return undefined;
}

export type JsonTypeName = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

export function typeName(value: Json | undefined): JsonTypeName {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value as 'boolean' | 'number' | 'string' | 'object';
}

export function isPlainObject(value: Json | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Deep structural equality of JSON values (key order does not matter). */
export function deepEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i] as Json));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keysA = Object.keys(a);
    if (keysA.length !== Object.keys(b).length) return false;
    return keysA.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k] as Json, b[k] as Json));
  }
  return false;
}

/**
 * Text of a value as interpolated into strings: strings as they are, null as "", numbers and
 * booleans as JSON, objects and arrays as compact JSON text.
 */
export function toText(value: Json | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** A JSON object without a prototype, so any key (including `__proto__`) is plain data. */
export function newObject(): JsonObject {
  return Object.create(null) as JsonObject;
}

/** Sets a key as an own data property, whatever its name. */
export function setOwn(target: JsonObject, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Builds an object from literal entries (emitted for `{ a: 1 }` in expressions). */
export function obj(...entries: readonly (readonly [string, Json])[]): JsonObject {
  const out = newObject();
  for (const [key, value] of entries) setOwn(out, key, value);
  return out;
}

/** The error every library function throws: `kind` is the function (or operator) name. */
export function fail(fn: string, message: string, cause?: unknown): never {
  throw new PipeError(`${fn}: ${message}`, { code: 500, kind: fn, ...(cause === undefined ? {} : { cause }) });
}

/** The number an element of a folded array stands for (SUM, AVG, MIN, MAX); anything else fails `fn`. */
export function elementNumber(fn: string, index: number, value: Json): number {
  return numericValue(value) ?? fail(fn, `the element at index ${index} must be a number, got ${describeValue(value)}`);
}

/** Short description of a value for error messages (never the whole value: it may be large or secret). */
export function describeValue(value: Json | undefined): string {
  const name = typeName(value);
  if (name === 'string') {
    const s = value as string;
    return s.length > 40 ? `a string of ${s.length} characters` : `the string ${JSON.stringify(s)}`;
  }
  if (name === 'number' || name === 'boolean') return `${name} ${String(value)}`;
  return name === 'null' ? 'null' : `an ${name}`;
}

const NUMERIC_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/**
 * A number argument: numbers pass, numeric text is converted (data read from untyped input is
 * often text), anything else fails naming the function and argument.
 */
export function toNum(fn: string, argument: number, value: Json | undefined): number {
  return numericValue(value) ?? fail(fn, `argument ${argument} must be a number, got ${describeValue(value)}`);
}

/** A number, or numeric text converted; undefined for anything else. */
export function numericValue(value: Json | undefined): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && NUMERIC_TEXT.test(value)) return Number(value);
  return undefined;
}

/** An integer argument (indexes, lengths): truncated toward zero. */
export function toInt(fn: string, argument: number, value: Json | undefined): number {
  const n = toNum(fn, argument, value);
  if (!Number.isFinite(n)) fail(fn, `argument ${argument} must be a finite number`);
  return Math.trunc(n);
}

/** A string argument: strings pass, scalars become their JSON text, objects and arrays fail. */
export function toStr(fn: string, argument: number, value: Json | undefined): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return fail(fn, `argument ${argument} must be a string, got ${describeValue(value)}`);
}

/** An array argument. */
export function toArr(fn: string, argument: number, value: Json | undefined): Json[] {
  if (Array.isArray(value)) return value;
  return fail(fn, `argument ${argument} must be an array, got ${describeValue(value)}`);
}

/** Optional argument: undefined and null both mean "use the default". */
export function isAbsent(value: Json | undefined): value is null | undefined {
  return value === null || value === undefined;
}

/** Largest string any library function builds (guards RIGHTPAD(x, 1e12) and friends). */
export const MAX_STRING_LENGTH = 16 * 1024 * 1024;

export function checkLength(fn: string, length: number): void {
  if (length > MAX_STRING_LENGTH) fail(fn, `the result would exceed ${MAX_STRING_LENGTH} characters`);
}
