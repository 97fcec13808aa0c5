/**
 * Double Braces UTILITIES (reference §1.4.9): Base64 (standard, padded) and Base64-URL (no
 * padding) with a charset, form URL encoding (Java URLEncoder), UUID, TOBOOLEAN and SIZE.
 */
import { randomUUID } from 'node:crypto';
import type { Json } from '../types.js';
import { describeValue, fail, isAbsent, isPlainObject, toStr } from './values.js';

const CHARSETS: Readonly<Record<string, BufferEncoding>> = {
  'UTF-8': 'utf8',
  UTF8: 'utf8',
  'ISO-8859-1': 'latin1',
  LATIN1: 'latin1',
  'US-ASCII': 'ascii',
  ASCII: 'ascii',
  'UTF-16LE': 'utf16le',
};
export const CHARSET_NAMES = ['UTF-8', 'ISO-8859-1', 'US-ASCII', 'UTF-16LE'];

export function charsetOf(name: string): BufferEncoding | undefined {
  return CHARSETS[name.trim().toUpperCase()];
}

function charsetArg(fn: string, charset: Json | undefined): BufferEncoding {
  if (isAbsent(charset)) return 'utf8';
  const name = toStr(fn, 2, charset);
  return (
    charsetOf(name) ?? fail(fn, `unsupported charset ${JSON.stringify(name)} (expected ${CHARSET_NAMES.join(', ')})`)
  );
}

/** @example BASEENCODE("xpto") // "eHB0bw==" */
export function BASEENCODE(value: Json, charset?: Json): Json {
  if (isAbsent(value)) return null;
  return Buffer.from(toStr('BASEENCODE', 1, value), charsetArg('BASEENCODE', charset)).toString('base64');
}

/** @example BASEDECODE("eHB0bw==") // "xpto" */
export function BASEDECODE(value: Json, charset?: Json): Json {
  if (isAbsent(value)) return null;
  const text = toStr('BASEDECODE', 1, value).trim();
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) fail('BASEDECODE', 'the value is not Base64 text');
  return Buffer.from(text, 'base64').toString(charsetArg('BASEDECODE', charset));
}

/** URL-safe alphabet, no padding. @example BASEURLENCODE("xpto") // "eHB0bw" */
export function BASEURLENCODE(value: Json, charset?: Json): Json {
  if (isAbsent(value)) return null;
  return Buffer.from(toStr('BASEURLENCODE', 1, value), charsetArg('BASEURLENCODE', charset)).toString('base64url');
}

/** @example BASEURLDECODE("eHB0bw") // "xpto" */
export function BASEURLDECODE(value: Json, charset?: Json): Json {
  if (isAbsent(value)) return null;
  const text = toStr('BASEURLDECODE', 1, value).trim();
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text) || text.replace(/=+$/, '').length % 4 === 1)
    fail('BASEURLDECODE', 'the value is not Base64-URL text');
  return Buffer.from(text, 'base64url').toString(charsetArg('BASEURLDECODE', charset));
}

/** Form encoding (Java URLEncoder): space → `+`, `A-Za-z0-9.-*_` kept. @example URIENCODE("http://localhost:8080") // "http%3A%2F%2Flocalhost%3A8080" */
export function URIENCODE(value: Json, charset?: Json): Json {
  if (isAbsent(value)) return null;
  const bytes = Buffer.from(toStr('URIENCODE', 1, value), charsetArg('URIENCODE', charset));
  let out = '';
  for (const byte of bytes) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9.\-*_]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** @example URIDECODE("a+b%21") // "a b!" */
export function URIDECODE(value: Json, charset?: Json): Json {
  if (isAbsent(value)) return null;
  const text = toStr('URIDECODE', 1, value);
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '+') bytes.push(0x20);
    else if (c === '%') {
      const hex = text.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) fail('URIDECODE', `invalid escape at index ${i}`);
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString(charsetArg('URIDECODE', charset));
}

/**
 * The value itself: at build time it marks an account value as fit to leave the service (a
 * response, a log line, an event…), which is otherwise error PIPE4201; at run time nothing changes.
 * @example DECLASSIFY("client-42") // "client-42"
 */
export function DECLASSIFY(value: Json): Json {
  return value;
}

/** @example UUID() // "4caad555-09b5-479c-98b4-ac72ffbb486c" */
export function UUID(): string {
  return randomUUID();
}

/** "true" (any case) and true are true; everything else (numbers, null, objects) is false. @example TOBOOLEAN("TRUE") // true */
export function TOBOOLEAN(value: Json): boolean {
  if (typeof value === 'boolean') return value;
  return typeof value === 'string' && value.trim().toLowerCase() === 'true';
}

/**
 * Length of a string, element count of an array, key count of an object; other types fail, or
 * give null when the flag is false.
 * @example SIZE([1, 2, 3]) // 3
 */
export function SIZE(value: Json, throwOnUnexpectedType?: Json): Json {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.length;
  if (isPlainObject(value)) return Object.keys(value).length;
  if (throwOnUnexpectedType === false) return null;
  return fail('SIZE', `needs a string, array or object, got ${describeValue(value)}`);
}
