/**
 * JOLT key language, parsed at build time: left-hand keys (`rating-*`, `&(1,2)`, `@(1,a.b)`, `$1`,
 * `#yes`, `[&1]`, escapes with `\`) and right-hand dot paths (`a.b[&1].@(2,x)`), following the
 * classification order of bazaarvoice/jolt's PathElementBuilder. Input: key text; output: a
 * PathElement description, or a thrown SpecError carrying the diagnostic code and message.
 */
import { starN } from '../../runtime/jolt/index.js';
import { compareUtf16 } from '../../runtime/jolt/java.js';
import * as E from './errors.js';
import type { JoltProblem } from './errors.js';

/** A spec problem found while parsing one key or path; the caller attaches the location. */
export class SpecError extends Error {
  constructor(readonly problem: JoltProblem) {
    super(problem.message);
  }
}

/** `&(pathIndex,keyGroup)`: how many levels up, and which part of the matched key. */
export interface Ref {
  readonly pathIndex: number;
  readonly keyGroup: number;
}

export type ArrayIndex =
  | { readonly type: 'auto' }
  | { readonly type: 'explicit'; readonly index: number }
  | { readonly type: 'ref'; readonly ref: Ref }
  | { readonly type: 'hash'; readonly pathIndex: number }
  | { readonly type: 'transpose'; readonly transpose: Transpose };

export interface Transpose {
  readonly upLevel: number;
  /** The path read below that level; null reads the level's data itself. */
  readonly sub: readonly PathElement[] | null;
}

export type PathElement =
  | { readonly kind: 'literal'; readonly key: string }
  | { readonly kind: 'star-all' }
  | { readonly kind: 'star-single'; readonly raw: string; readonly prefix: string; readonly suffix: string }
  | {
      readonly kind: 'star-double';
      readonly raw: string;
      readonly prefix: string;
      readonly mid: string;
      readonly suffix: string;
    }
  | { readonly kind: 'star-regex'; readonly raw: string; readonly parts: readonly string[]; readonly groups: number }
  | { readonly kind: 'amp'; readonly tokens: readonly (string | Ref)[]; readonly canonical: string }
  | { readonly kind: 'array'; readonly index: ArrayIndex; readonly canonical: string }
  | { readonly kind: 'at' }
  | { readonly kind: 'transpose'; readonly transpose: Transpose; readonly canonical: string }
  | { readonly kind: 'dollar'; readonly ref: Ref }
  | { readonly kind: 'hash'; readonly value: string };

export type StarElement = Extract<PathElement, { kind: 'star-all' | 'star-single' | 'star-double' | 'star-regex' }>;

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

/** `\x` removed entirely: what the key is classified by. */
function removeEscapedValues(key: string): string {
  let out = '';
  let escaped = false;
  for (const c of key) {
    if (c === '\\') escaped = !escaped;
    else {
      if (!escaped) out += c;
      escaped = false;
    }
  }
  return out;
}

/** `\x` becomes `x`: the literal text the key stands for. */
export function removeEscapeChars(key: string): string {
  let out = '';
  let escaped = false;
  for (const c of key) {
    if (c === '\\' && !escaped) escaped = true;
    else {
      out += c;
      escaped = false;
    }
  }
  return out;
}

function parseNonNegative(text: string, token: string, whole: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new SpecError(E.unparsableReference(token, whole));
  const n = Number(text);
  if (n < 0) throw new SpecError(E.negativeReference(whole));
  if (n > 2147483647) throw new SpecError(E.referenceOutOfRange(whole));
  return n;
}

/** `&`, `&2`, `&(2)`, `&(2,1)` (and the same with `$`). */
export function parsePathAndGroupRef(text: string, token: '&' | '$'): Ref {
  if (!text.startsWith(token)) throw new SpecError(E.referenceWithoutToken(text, token));
  const meat = text.slice(1);
  if (meat === '') return { pathIndex: 0, keyGroup: 0 };
  if (meat.length >= 3 && meat.startsWith('(') && meat.endsWith(')')) {
    const parts = meat.slice(1, -1).split(',');
    if (parts.length > 2) throw new SpecError(E.referenceWithThreeNumbers(text));
    return {
      pathIndex: parseNonNegative(parts[0] ?? '', token, text),
      keyGroup: parts.length === 2 ? parseNonNegative(parts[1] ?? '', token, text) : 0,
    };
  }
  return { pathIndex: parseNonNegative(meat, token, text), keyGroup: 0 };
}

function refCanonical(token: string, ref: Ref): string {
  return `${token}(${ref.pathIndex},${ref.keyGroup})`;
}

function parseAmp(key: string): PathElement {
  const tokens: (string | Ref)[] = [];
  let canonical = '';
  let literal = '';
  let i = 0;
  while (i < key.length) {
    const c = key.charAt(i);
    if (c === '&') {
      if (literal !== '') {
        tokens.push(literal);
        canonical += literal;
        literal = '';
      }
      let end = i + 1;
      // Jolt would read `&x` as the matched key followed by "x"; that is almost always a typo for a
      // reference, so it is rejected with the unambiguous spellings in the message.
      if (/[A-Za-z_]/.test(key.charAt(end))) {
        throw new SpecError(E.ampersandBeforeLetter(key.slice(i, i + 2), key.charAt(end)));
      }
      while (end < key.length && /[0-9(),]/.test(key.charAt(end))) end++;
      const ref = parsePathAndGroupRef(key.slice(i, end), '&');
      tokens.push(ref);
      canonical += refCanonical('&', ref);
      i = end;
    } else {
      literal += c;
      i++;
    }
  }
  if (literal !== '') {
    tokens.push(literal);
    canonical += literal;
  }
  return { kind: 'amp', tokens, canonical };
}

function parseArray(key: string): PathElement {
  if (!key.startsWith('[') || !key.endsWith(']')) throw new SpecError(E.notAnArrayKey(key));
  if (key.length === 2) return { kind: 'array', index: { type: 'auto' }, canonical: '[]' };
  const meat = key.slice(1, -1);
  const first = meat.charAt(0);
  if (first === '&') {
    const ref = parsePathAndGroupRef(meat, '&');
    return { kind: 'array', index: { type: 'ref', ref }, canonical: `[${refCanonical('&', ref)}]` };
  }
  if (first === '#') {
    const rest = meat.slice(1);
    const pathIndex = rest === '' ? 0 : parseNonNegative(rest, '#', meat);
    return { kind: 'array', index: { type: 'hash', pathIndex }, canonical: `[#${pathIndex}]` };
  }
  if (first === '@') {
    const t = parseTranspose(meat);
    return { kind: 'array', index: { type: 'transpose', transpose: t.transpose }, canonical: `[${t.canonical}]` };
  }
  if (/^\d+$/.test(meat) && Number(meat) <= 2147483647) {
    return { kind: 'array', index: { type: 'explicit', index: Number(meat) }, canonical: `[${Number(meat)}]` };
  }
  throw new SpecError(E.badArrayIndex(meat, key));
}

/** `@2`, `@(2)`, `@a`, `@(a.b)`, `@(2,a.&1)`. */
export function parseTranspose(key: string): { transpose: Transpose; canonical: string } {
  if (key.length < 2 || !key.startsWith('@')) throw new SpecError(E.notAnAtReference(key));
  let meat = key.slice(1);
  if (meat.includes('@')) throw new SpecError(E.atInsideAt(key));
  if (meat.includes('*') || meat.includes('[]')) throw new SpecError(E.starInAt(key));
  if (meat.startsWith('(')) {
    if (!meat.endsWith(')')) throw new SpecError(E.atUnclosed(key));
    meat = meat.slice(1, -1);
  }
  let upLevel = 0;
  let subPath: string | null = meat;
  const digits = /^(\d+)(,|$)/.exec(meat);
  if (digits) {
    upLevel = parseNonNegative(digits[1] ?? '', '@', key);
    subPath = digits[2] === ',' ? meat.slice((digits[1] ?? '').length + 1) : null;
  } else if (/^\d/.test(meat)) {
    throw new SpecError(E.atLevelNotANumber(key));
  }
  if (subPath === null || subPath === '') return { transpose: { upLevel, sub: null }, canonical: `@(${upLevel},)` };
  const sub = parseDotPath(subPath);
  return { transpose: { upLevel, sub }, canonical: `@(${upLevel},${sub.map(canonicalOf).join('.')})` };
}

function parseStar(key: string, inspect: string): PathElement {
  if (inspect === '*') return { kind: 'star-all' };
  const stars = count(key, '*');
  if (stars === 1) {
    const at = key.indexOf('*');
    return { kind: 'star-single', raw: key, prefix: key.slice(0, at), suffix: key.slice(at + 1) };
  }
  if (stars === 2) {
    const parts = key.split('*');
    return { kind: 'star-double', raw: key, prefix: parts[0] ?? '', mid: parts[1] ?? '', suffix: parts[2] ?? '' };
  }
  return { kind: 'star-regex', raw: key, parts: key.split('*'), groups: stars };
}

/** Classifies one left-hand key (also one segment of a right-hand path). */
export function parseKey(origKey: string): PathElement {
  const hasEscape = origKey.includes('\\');
  const inspect = hasEscape ? removeEscapedValues(origKey) : origKey;
  const key = hasEscape ? removeEscapeChars(origKey) : origKey;
  if (inspect === '@') return { kind: 'at' };
  if (inspect === '*') return { kind: 'star-all' };
  if (inspect.startsWith('[')) {
    if (count(inspect, '[') !== 1 || count(inspect, ']') !== 1) throw new SpecError(E.tooManyBrackets(origKey));
    return parseArray(key);
  }
  if (inspect.startsWith('@') || inspect.includes('@(')) {
    const t = parseTranspose(origKey);
    return { kind: 'transpose', transpose: t.transpose, canonical: t.canonical };
  }
  if (inspect.includes('@')) throw new SpecError(E.notAtFront(origKey, '@'));
  if (inspect.includes('$')) {
    if (!key.startsWith('$')) throw new SpecError(E.notAtFront(origKey, '$'));
    return { kind: 'dollar', ref: parsePathAndGroupRef(key, '$') };
  }
  if (inspect.includes('[')) {
    if (count(inspect, '[') !== 1 || count(inspect, ']') !== 1) throw new SpecError(E.tooManyBrackets(origKey));
    return parseArray(key);
  }
  if (inspect.includes('&')) {
    if (inspect.includes('*')) throw new SpecError(E.starWithAmpersand(origKey));
    return parseAmp(key);
  }
  if (inspect.includes('*')) return parseStar(key, inspect);
  if (inspect.includes('#')) {
    if (!key.startsWith('#') || key.length <= 1) throw new SpecError(E.notAtFront(origKey, '#'));
    if (key.charAt(1) === '(') {
      if (!key.endsWith(')')) throw new SpecError(E.hashUnclosed(origKey));
      return { kind: 'hash', value: key.slice(2, -1) };
    }
    return { kind: 'hash', value: key.slice(1) };
  }
  return { kind: 'literal', key };
}

export function canonicalOf(pe: PathElement): string {
  switch (pe.kind) {
    case 'literal':
      return pe.key;
    case 'star-all':
      return '*';
    case 'star-single':
    case 'star-double':
    case 'star-regex':
      return pe.raw;
    case 'amp':
    case 'array':
    case 'transpose':
      return pe.canonical;
    case 'at':
      return '@';
    case 'dollar':
      return refCanonical('$', pe.ref);
    case 'hash':
      return `#(${pe.value})`;
  }
}

/** StarPathElement.stringMatch, used at build time to pick the matching strategy. */
export function starMatches(star: StarElement, text: string): boolean {
  switch (star.kind) {
    case 'star-all':
      return true;
    case 'star-single':
      return (
        text.length > star.prefix.length + star.suffix.length &&
        text.startsWith(star.prefix) &&
        text.endsWith(star.suffix)
      );
    case 'star-double': {
      if (!text.startsWith(star.prefix) || !text.endsWith(star.suffix)) return false;
      const from = star.prefix.length + 1;
      const to = text.length - star.suffix.length - 1;
      return from < to && text.substring(from, to).indexOf(star.mid) >= 0;
    }
    case 'star-regex':
      return starN(text, star.parts) !== null;
  }
}

export function isStar(pe: PathElement): pe is StarElement {
  return pe.kind === 'star-all' || pe.kind === 'star-single' || pe.kind === 'star-double' || pe.kind === 'star-regex';
}

/** Splits a dot path into segment texts, honouring `\.` escapes and `@(…)` groups. */
function splitDotPath(path: string): string[] {
  // sugar: "a[1]" means "a.[1]"
  let fixed = path.charAt(0);
  for (let i = 1; i < path.length; i++) {
    const c = path.charAt(i);
    const prev = path.charAt(i - 1);
    if (c === '[' && prev !== '\\' && prev !== '@' && prev !== '.') fixed += '.';
    fixed += c;
  }
  const segments: string[] = [];
  let current = '';
  let prevEscape = false;
  for (let i = 0; i < fixed.length; i++) {
    const c = fixed.charAt(i);
    const isEscape: boolean = c === '\\' && !prevEscape;
    if (prevEscape && c !== '.' && c !== '\\') current += `\\${c}`;
    else if (c === '@') {
      const [group, next] = readAtGroup(fixed, i + 1, path);
      current += `@${group}`;
      i = next - 1;
      if (!(current.includes('[') && !current.includes(']'))) {
        segments.push(current);
        current = '';
      }
    } else if (c === '.') {
      if (prevEscape) current += '.';
      else if (current !== '') {
        segments.push(current);
        current = '';
      }
    } else if (!isEscape) current += c;
    prevEscape = isEscape;
  }
  if (current !== '') segments.push(current);
  return segments;
}

/** After an `@`: `(…)` up to the matching paren, or a name up to the next `.` (returned as `(name)`). */
function readAtGroup(text: string, from: number, whole: string): [string, number] {
  if (from >= text.length) return ['', from];
  if (text.charAt(from) === '.') throw new SpecError(E.badAtInPath(whole));
  if (text.charAt(from) === '(') {
    let depth = 0;
    for (let i = from; i < text.length; i++) {
      const c = text.charAt(i);
      if (c === '(') {
        if (depth > 0) throw new SpecError(E.tooManyParentheses(whole));
        depth++;
      } else if (c === ')') {
        depth--;
        if (depth === 0) return [text.slice(from, i + 1), i + 1];
      }
    }
    throw new SpecError(E.unclosedAtInPath(whole));
  }
  const dot = text.indexOf('.', from);
  if (dot < 0) return [text.slice(from), text.length];
  return [`(${text.slice(from, dot)})`, dot + 1];
}

/** A right-hand (output or lookup) dot path as path elements. */
export function parseDotPath(path: string): PathElement[] {
  return splitDotPath(path).map((segment) => {
    const pe = parseKey(segment);
    if (pe.kind === 'at') throw new SpecError(E.atStepInOutputPath(path));
    return pe;
  });
}

/** Output paths of shift: `*` and `$` are not allowed (unless escaped), every segment must be evaluatable. */
export function parseOutputPath(path: string): PathElement[] {
  if ((path.includes('*') && !path.includes('\\*')) || (path.includes('$') && !path.includes('\\$'))) {
    throw new SpecError(E.wildcardInOutputPath(path));
  }
  if (path.trim() === '') return [];
  const elements = parseDotPath(path);
  for (const pe of elements) {
    if (pe.kind !== 'literal' && pe.kind !== 'amp' && pe.kind !== 'array' && pe.kind !== 'transpose') {
      throw new SpecError(E.notInOutputPath(canonicalOf(pe), path));
    }
  }
  return elements;
}

/** The order shift tries computed keys in: `&` and `[…]` keys, then the most specific patterns. */
const COMPUTED_ORDER: Readonly<Record<string, number>> = {
  amp: 1,
  array: 1,
  'star-regex': 2,
  'star-double': 3,
  'star-single': 4,
  'star-all': 5,
};

/**
 * Sorts a shift's computed keys as the run time tries them (the compiled shift and its shape
 * inference both follow it): by kind, then longer canonical forms first, then by UTF-16 order.
 */
export function compareComputedKeys(a: PathElement, b: PathElement): number {
  const oa = COMPUTED_ORDER[a.kind] ?? 9;
  const ob = COMPUTED_ORDER[b.kind] ?? 9;
  if (oa !== ob) return oa - ob;
  const ca = canonicalOf(a);
  const cb = canonicalOf(b);
  if (ca.length !== cb.length) return cb.length - ca.length;
  return compareUtf16(ca, cb);
}
