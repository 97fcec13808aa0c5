/**
 * The JSLT built-in function library (schibsted/jslt `functions.md`), one implementation per
 * function, plus the arity table the compiler checks calls against.
 * Input: evaluated JsltValue arguments. Output: a JsltValue, or a PipeError whose wording follows
 * the reference implementation (tests match substrings of it).
 * `fallback` is not here: it evaluates its arguments lazily, so the compiler emits `firstValue`.
 */
import { createHash, randomUUID } from 'node:crypto';
import { parseJsonText } from './json-parse.js';
import { mod, parseNumberText } from './operators.js';
import { allMatches, firstMatch } from '../regex/index.js';
import { checkSubject, javaRegex, javaSplit, namedGroups } from './regex.js';
import { PatternError, UnparseableError, formatTime, isKnownZone, parseTime } from './time.js';
import { parseUrl } from './url.js';
import {
  type JsltValue,
  compareValues,
  getKey,
  hasKey,
  isArray,
  isDecimalNumber,
  isIntegral,
  isNumber,
  isObject,
  isTrue,
  jsltEquals,
  jsltError,
  makeDouble,
  newObject,
  numberValue,
  objectKeys,
  objectToEntries,
  setKey,
  toJsonText,
  toText,
} from './values.js';

type Builtin = (...args: JsltValue[]) => JsltValue;

export interface BuiltinSpec {
  readonly min: number;
  readonly max: number;
  /** Index of an argument that is a regular expression (checked at compile time when literal). */
  readonly regexArgument?: number;
  /** Index of an argument that is a time zone (checked at compile time when literal, as `isKnownZone`). */
  readonly zoneArgument?: number;
  readonly call: Builtin;
}

function textOrNull(value: JsltValue): string | null {
  return value === null ? null : toText(value);
}

// ───────────────────────────── numbers ─────────────────────────────

/** `number(x)` converts strictly; `number(x, fallback)` returns the fallback instead of failing. */
function toNumber(value: JsltValue, ...fallbackArg: JsltValue[]): JsltValue {
  const hasFallback = fallbackArg.length > 0;
  const fallback = fallbackArg[0] ?? null;
  if (isNumber(value)) return value;
  if (value === null) return hasFallback ? fallback : null;
  if (typeof value !== 'string') {
    if (hasFallback) return fallback;
    throw jsltError(`Can't convert ${toJsonText(value)} to number`);
  }
  const parsed = parseNumberText(value);
  if (parsed === undefined) {
    if (hasFallback) return fallback;
    throw jsltError(`number(${value}) failed: not a number`);
  }
  return parsed;
}

function rounding(name: string, op: (value: number) => number): Builtin {
  return (value) => {
    if (value === null) return null;
    if (!isNumber(value)) throw jsltError(`${name}() cannot round a non-number: ${toJsonText(value)}`);
    return op(numberValue(value)) + 0;
  };
}

function sum(array: JsltValue): JsltValue {
  if (array === null) return null;
  if (!isArray(array)) throw jsltError(`sum(): argument must be array, was ${toJsonText(array)}`);
  let total = 0;
  let integral = true;
  for (const item of array) {
    if (!isNumber(item)) throw jsltError(`sum(): array must contain numbers, found ${toJsonText(item)}`);
    integral &&= isIntegral(item);
    total += numberValue(item);
  }
  return integral ? total : makeDouble(total);
}

/** Java's String.hashCode over the compact, key-sorted JSON text. */
function hashInt(value: JsltValue): JsltValue {
  if (value === null) return null;
  const text = toJsonText(value, true);
  let hash = 0;
  for (let index = 0; index < text.length; index++) hash = (Math.imul(hash, 31) + text.charCodeAt(index)) | 0;
  return hash;
}

// ───────────────────────────── strings ─────────────────────────────

function test(input: JsltValue, pattern: JsltValue): JsltValue {
  if (input === null) return false;
  if (pattern === null) throw jsltError("test() can't test null regexp");
  return javaRegex(toText(pattern), 'test').test(checkSubject(toText(input), 'test'));
}

function capture(input: JsltValue, pattern: JsltValue): JsltValue {
  if (input === null) return null;
  if (pattern === null) throw jsltError("capture() can't match against null regexp");
  const regex = javaRegex(toText(pattern), 'capture');
  const found = firstMatch(regex, checkSubject(toText(input), 'capture'));
  const result = newObject();
  if (!found) return result;
  for (const name of namedGroups(regex)) {
    const groupValue = found.named?.[name];
    setKey(result, name, groupValue === undefined ? null : groupValue);
  }
  return result;
}

function split(input: JsltValue, pattern: JsltValue): JsltValue {
  if (input === null) return null;
  if (pattern === null) throw jsltError("split() can't split on null");
  return javaSplit(javaRegex(toText(pattern), 'split'), checkSubject(toText(input), 'split'));
}

function join(array: JsltValue, separator: JsltValue): JsltValue {
  if (array === null) return null;
  if (!isArray(array)) throw jsltError(`Cannot convert ${toJsonText(array)} to array`);
  return array.map((item) => toText(item)).join(toText(separator));
}

function replace(input: JsltValue, pattern: JsltValue, replacement: JsltValue): JsltValue {
  const text = textOrNull(input);
  if (text === null) return null;
  const regexText = toText(pattern);
  const out = toText(replacement);
  const regex = javaRegex(regexText, 'replace');
  checkSubject(text, 'replace');
  let result = '';
  let last = 0;
  for (const found of allMatches(regex, text, false)) {
    if (found.end === found.index) {
      throw jsltError(`Regexp ${regexText} in replace() matched empty string in '${toJsonText(input)}'`);
    }
    result += text.slice(last, found.index) + out;
    last = found.end;
  }
  return result + text.slice(last);
}

function sha256Hex(value: JsltValue): JsltValue {
  if (value === null) return null;
  return createHash('sha256').update(toText(value), 'utf8').digest('hex');
}

function fromJson(text: JsltValue, ...fallbackArg: JsltValue[]): JsltValue {
  const json = textOrNull(text);
  if (json === null) return null;
  try {
    return parseJsonText(json);
  } catch (error) {
    if (fallbackArg.length > 0) return fallbackArg[0] ?? null;
    const reason = error instanceof Error ? error.message : String(error);
    throw jsltError(`from-json can't parse ${json}: ${reason}`);
  }
}

/** Java's String.trim: strips characters up to and including U+0020. */
function trim(value: JsltValue): JsltValue {
  const text = textOrNull(value);
  if (text === null) return null;
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
  return text.slice(start, end);
}

// ───────────────────────────── uuid ─────────────────────────────

function toLong(value: JsltValue): bigint {
  if (value === null) return 0n;
  if (!isNumber(value)) throw jsltError(`uuid() arguments must be numbers, not ${toJsonText(value)}`);
  // Java's (long) cast saturates; JS numbers this large have already lost their low digits
  const whole = Math.trunc(numberValue(value));
  if (whole >= 2 ** 63) return 0x7fffffffffffffffn;
  if (whole <= -(2 ** 63)) return 0x8000000000000000n;
  return BigInt.asUintN(64, BigInt(whole));
}

function hexDigits(value: bigint, count: number): string {
  return (value & ((1n << BigInt(count * 4)) - 1n)).toString(16).padStart(count, '0');
}

/**
 * `uuid()` is random (v4). `uuid(msb, lsb)` is deterministic: the version nibble 1 is inserted
 * into the low 16 bits of `msb` (shifting them right by 4) and the IETF variant is set in `lsb`.
 */
function uuid(...args: JsltValue[]): JsltValue {
  if (args.length === 0) return randomUUID();
  if (args.length !== 2) throw jsltError('uuid() takes zero or two arguments');
  const [high = null, low = null] = args;
  if (high === null && low === null) return '00000000-0000-0000-0000-000000000000';
  const msbIn = toLong(high);
  const lsbIn = toLong(low);
  const msb = (msbIn & 0xffffffffffff0000n) | 0x1000n | ((msbIn & 0xffffn) >> 4n);
  const lsb = (lsbIn & 0x3fffffffffffffffn) | 0x8000000000000000n;
  return [
    hexDigits(msb >> 32n, 8),
    hexDigits(msb >> 16n, 4),
    hexDigits(msb, 4),
    hexDigits(lsb >> 48n, 4),
    hexDigits(lsb, 12),
  ].join('-');
}

// ───────────────────────────── objects and arrays ─────────────────────────────

function contains(element: JsltValue, sequence: JsltValue): JsltValue {
  if (sequence === null) return false;
  if (isArray(sequence)) return sequence.some((item) => jsltEquals(item, element));
  if (isObject(sequence)) {
    const key = textOrNull(element);
    return key !== null && hasKey(sequence, key);
  }
  if (typeof sequence === 'string') {
    const part = textOrNull(element);
    return part !== null && sequence.includes(part);
  }
  throw jsltError(`Contains cannot operate on ${toJsonText(sequence)}`);
}

function size(value: JsltValue): JsltValue {
  if (isArray(value) || typeof value === 'string') return value.length;
  if (isObject(value)) return objectKeys(value).length;
  if (value === null) return null;
  throw jsltError(`Function size() cannot work on ${toJsonText(value)}`);
}

function getKeyFn(object: JsltValue, key: JsltValue, ...fallbackArg: JsltValue[]): JsltValue {
  const name = textOrNull(key);
  if (name === null) return null;
  if (isObject(object)) {
    if (hasKey(object, name)) return getKey(object, name);
    return fallbackArg.length > 0 ? (fallbackArg[0] ?? null) : null;
  }
  if (object === null) return null;
  throw jsltError(`get-key: can't look up keys in ${toJsonText(object)}`);
}

function toArray(value: JsltValue): JsltValue {
  if (value === null || isArray(value)) return value;
  if (isObject(value)) return objectToEntries(value);
  throw jsltError(`array() cannot convert ${toJsonText(value)}`);
}

function flatten(value: JsltValue): JsltValue {
  if (value === null) return null;
  if (!isArray(value)) throw jsltError(`flatten() cannot operate on ${toJsonText(value)}`);
  const out: JsltValue[] = [];
  const pending: JsltValue[][] = [value];
  const positions: number[] = [0];
  // iterative, so deeply nested input cannot exhaust the stack
  while (pending.length > 0) {
    const top = pending[pending.length - 1] as JsltValue[];
    const at = positions[positions.length - 1] as number;
    if (at >= top.length) {
      pending.pop();
      positions.pop();
      continue;
    }
    positions[positions.length - 1] = at + 1;
    const item = top[at] ?? null;
    if (isArray(item)) {
      pending.push(item);
      positions.push(0);
    } else out.push(item);
  }
  return out;
}

function allOrAny(name: 'all' | 'any'): Builtin {
  return (value) => {
    if (value === null) return null;
    if (!isArray(value)) throw jsltError(`${name}() requires an array, not ${toJsonText(value)}`);
    return name === 'all' ? value.every(isTrue) : value.some(isTrue);
  };
}

function zip(first: JsltValue, second: JsltValue): JsltValue {
  if (first === null || second === null) return null;
  if (!isArray(first) || !isArray(second)) throw jsltError('zip() requires arrays');
  if (first.length !== second.length) throw jsltError('zip() arrays were of unequal size');
  return first.map((item, index) => [item, second[index] ?? null]);
}

function zipWithIndex(array: JsltValue): JsltValue {
  if (array === null) return null;
  if (!isArray(array)) throw jsltError('zip-with-index() argument must be an array');
  return array.map((value, index) => {
    const entry = newObject();
    setKey(entry, 'index', index);
    setKey(entry, 'value', value);
    return entry;
  });
}

function indexOf(array: JsltValue, value: JsltValue): JsltValue {
  if (array === null) return null;
  if (!isArray(array)) throw jsltError('index-of() first argument must be an array');
  return array.findIndex((item) => jsltEquals(item, value));
}

// ───────────────────────────── time ─────────────────────────────

function parseTimeFn(time: JsltValue, format: JsltValue, ...fallbackArg: JsltValue[]): JsltValue {
  const text = textOrNull(time);
  if (text === null) return null;
  const pattern = toText(format);
  try {
    return makeDouble(parseTime(text, pattern, 'UTC') / 1000);
  } catch (error) {
    if (error instanceof PatternError)
      throw jsltError(`parse-time: Couldn't parse format '${pattern}': ${error.message}`);
    if (error instanceof UnparseableError && fallbackArg.length > 0) return fallbackArg[0] ?? null;
    if (error instanceof UnparseableError) throw jsltError(`parse-time: ${error.message}`);
    throw error;
  }
}

function formatTimeFn(timestamp: JsltValue, format: JsltValue, ...zoneArg: JsltValue[]): JsltValue {
  const seconds = typeof timestamp === 'string' ? toNumber(timestamp) : timestamp;
  if (!isNumber(seconds)) return null;
  const pattern = toText(format);
  let zone = 'UTC';
  if (zoneArg.length > 0) {
    zone = toText(zoneArg[0] ?? null);
    if (!isKnownZone(zone)) throw jsltError(`format-time: Unknown timezone ${zone}`);
  }
  try {
    return formatTime(Math.round(numberValue(seconds) * 1000), pattern, zone);
  } catch (error) {
    if (error instanceof PatternError)
      throw jsltError(`format-time: Couldn't parse format '${pattern}': ${error.message}`);
    throw error;
  }
}

// ───────────────────────────── the table ─────────────────────────────

function spec(min: number, max: number, call: Builtin, regexArgument?: number): BuiltinSpec {
  return regexArgument === undefined ? { min, max, call } : { min, max, call, regexArgument };
}

/** Every built-in function by its JSLT name (a Map, so names like `constructor` are just misses). */
export const BUILTINS: ReadonlyMap<string, BuiltinSpec> = new Map<string, BuiltinSpec>([
  // general
  ['contains', spec(2, 2, contains)],
  ['size', spec(1, 1, size)],
  [
    'error',
    spec(1, 1, (message) => {
      throw jsltError(`error: ${toText(message)}`);
    }),
  ],
  ['min', spec(2, 2, (a, b) => (compareValues(a, b) < 0 ? a : b))],
  ['max', spec(2, 2, (a, b) => (a === null || b === null ? null : compareValues(a, b) > 0 ? a : b))],
  // numeric
  ['is-number', spec(1, 1, (value) => isNumber(value))],
  ['is-integer', spec(1, 1, (value) => isIntegral(value))],
  ['is-decimal', spec(1, 1, (value) => isDecimalNumber(value))],
  ['number', spec(1, 2, toNumber)],
  ['round', spec(1, 1, rounding('round', Math.round))],
  ['floor', spec(1, 1, rounding('floor', Math.floor))],
  ['ceiling', spec(1, 1, rounding('ceiling', Math.ceil))],
  ['random', spec(0, 0, () => Math.random())],
  ['sum', spec(1, 1, sum)],
  ['mod', spec(2, 2, mod)],
  ['hash-int', spec(1, 1, hashInt)],
  // string
  ['is-string', spec(1, 1, (value) => typeof value === 'string')],
  ['string', spec(1, 1, (value) => toText(value))],
  ['test', spec(2, 2, test, 1)],
  ['capture', spec(2, 2, capture, 1)],
  ['split', spec(2, 2, split, 1)],
  ['join', spec(2, 2, join)],
  ['lowercase', spec(1, 1, (value) => (value === null ? null : toText(value).toLowerCase()))],
  ['uppercase', spec(1, 1, (value) => (value === null ? null : toText(value).toUpperCase()))],
  ['sha256-hex', spec(1, 1, sha256Hex)],
  ['starts-with', spec(2, 2, (text, prefix) => toText(text).startsWith(toText(prefix)))],
  ['ends-with', spec(2, 2, (text, suffix) => toText(text).endsWith(toText(suffix)))],
  ['from-json', spec(1, 2, fromJson)],
  ['to-json', spec(1, 1, (value) => toJsonText(value))],
  ['replace', spec(3, 3, replace, 1)],
  ['trim', spec(1, 1, trim)],
  ['uuid', spec(0, 2, uuid)],
  // boolean
  ['boolean', spec(1, 1, (value) => isTrue(value))],
  ['not', spec(1, 1, (value) => !isTrue(value))],
  ['is-boolean', spec(1, 1, (value) => typeof value === 'boolean')],
  // object
  ['is-object', spec(1, 1, (value) => isObject(value))],
  ['get-key', spec(2, 3, getKeyFn)],
  // array
  ['array', spec(1, 1, toArray)],
  ['is-array', spec(1, 1, (value) => isArray(value))],
  ['flatten', spec(1, 1, flatten)],
  ['all', spec(1, 1, allOrAny('all'))],
  ['any', spec(1, 1, allOrAny('any'))],
  ['zip', spec(2, 2, zip)],
  ['zip-with-index', spec(1, 1, zipWithIndex)],
  ['index-of', spec(2, 2, indexOf)],
  // time
  ['now', spec(0, 0, () => makeDouble(Date.now() / 1000))],
  ['parse-time', spec(2, 3, parseTimeFn)],
  ['format-time', { ...spec(2, 3, formatTimeFn), zoneArgument: 2 }],
  // misc
  ['parse-url', spec(1, 1, (url) => (url === null ? null : parseUrl(toText(url))))],
]);

/** Built-in functions as a null-prototype record, for compiled code: `L.fn["is-number"](x)`. */
export const fn: Readonly<Record<string, Builtin>> = Object.freeze(
  Object.assign(
    Object.create(null) as Record<string, Builtin>,
    Object.fromEntries([...BUILTINS].map(([name, s]) => [name, s.call])),
  ),
);
