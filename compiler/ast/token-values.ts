/**
 * Literal decoding: string, `"""` string, `{{ }}` and number token images → AST values with exact
 * host-file spans, plus the diagnostics their contents deserve (bad escapes, unterminated `{{`
 * inside a string, unknown units). Pure; used by compiler/ast/cst-to-ast.ts.
 *
 * Strings are decoded into per-character host offsets (`starts`/`ends`) so every template part and
 * every `{{ }}` keeps exact positions even after escapes and `"""` dedent removed characters.
 */
import type {
  BracesValue,
  DurationValue,
  NumberValue,
  SizeValue,
  StringValue,
  TemplateText,
  TemplateValue,
} from './ast.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import {
  badEscape,
  invalidNumber,
  pathInText,
  strayTemplateBrace,
  unclosedInnerBraces,
  unknownUnit,
} from './errors.js';
import { span } from '../../base/source/span.js';
import { scanBracesEnd } from '../../grammar/scan.js';

export interface Decoded<T> {
  readonly value: T;
  readonly diagnostics: readonly Diagnostic[];
}

/** A decoded string: character i came from host offsets [starts[i], ends[i]). */
interface DecodedChars {
  readonly chars: string[];
  readonly starts: number[];
  readonly ends: number[];
  /** True where the character came from `\{`, so it never opens a `{{`. */
  readonly literal: boolean[];
}

function emptyChars(): DecodedChars {
  return { chars: [], starts: [], ends: [], literal: [] };
}

function pushChar(into: DecodedChars, char: string, start: number, end: number, literal = false): void {
  into.chars.push(char);
  into.starts.push(start);
  into.ends.push(end);
  into.literal.push(literal);
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  '{': '{',
};

// ───────────────────────────── "…" and '…' strings ─────────────────────────────

/** Decodes a `"…"`/`'…'` token (possibly unterminated; lexer.ts reported that) into a value. */
export function decodeQuotedString(file: string, image: string, start: number): Decoded<StringValue | TemplateValue> {
  const diagnostics: Diagnostic[] = [];
  const quote = image.charAt(0);
  const closed = image.length >= 2 && image.endsWith(quote) && !endsInsideEscape(image);
  const contentEnd = closed ? image.length - 1 : image.length;
  const out = emptyChars();
  let i = 1;
  while (i < contentEnd) {
    const c = image.charAt(i);
    const at = start + i;
    if (c !== '\\') {
      pushChar(out, c, at, at + 1);
      i++;
      continue;
    }
    const next = image.charAt(i + 1);
    if (next === 'u') {
      const hex = image.slice(i + 2, i + 6);
      if (/^[0-9A-Fa-f]{4}$/.test(hex)) {
        pushChar(out, String.fromCharCode(parseInt(hex, 16)), at, at + 6);
        i += 6;
        continue;
      }
      diagnostics.push(
        badEscapeAt(
          file,
          at,
          Math.min(at + 2 + countHex(hex), start + contentEnd),
          '\\u needs four hex digits, like `\\u00e9`',
        ),
      );
      i += 2;
      continue;
    }
    const simple = next === '' ? undefined : SIMPLE_ESCAPES[next];
    if (simple === undefined || !Object.prototype.hasOwnProperty.call(SIMPLE_ESCAPES, next)) {
      diagnostics.push(badEscapeAt(file, at, at + (next === '' ? 1 : 2), hintForEscape(next)));
      if (next !== '') pushChar(out, next, at, at + 2);
      i += 2;
      continue;
    }
    const isLiteralBrace = next === '{';
    pushChar(out, simple, at, at + 2, isLiteralBrace);
    // `\{{` is a literal `{{`: the second brace must not start an expression either.
    if (isLiteralBrace && image.charAt(i + 2) === '{' && i + 2 < contentEnd) {
      pushChar(out, '{', at + 2, at + 3, true);
      i += 3;
      continue;
    }
    i += 2;
  }
  const whole = span(file, start, start + image.length);
  const template = splitTemplate(file, out, whole, false);
  return { value: template.value, diagnostics: [...diagnostics, ...template.diagnostics] };
}

function endsInsideEscape(image: string): boolean {
  let backslashes = 0;
  for (let i = image.length - 2; i > 0 && image.charAt(i) === '\\'; i--) backslashes++;
  return backslashes % 2 === 1;
}

function countHex(text: string): number {
  const match = /^[0-9A-Fa-f]*/.exec(text);
  return match ? match[0].length : 0;
}

function hintForEscape(next: string): string {
  if (/[dDwWsS.^$()[\]|+*?]/.test(next)) {
    return `in a regular expression write the backslash twice: \`\\\\${next}\``;
  }
  return 'valid escapes are \\" \\\' \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX and \\{';
}

function badEscapeAt(file: string, start: number, end: number, hint: string): Diagnostic {
  return badEscape(span(file, start, end), hint);
}

// ───────────────────────────── """ strings ─────────────────────────────

/**
 * Decodes a `"""` token: raw text (only `\{{` is special), first line break after the opening and
 * last before the closing dropped, then dedented by the common indentation of non-blank lines.
 */
export function decodeTripleString(file: string, image: string, start: number): Decoded<StringValue | TemplateValue> {
  const closed = image.length >= 6 && image.endsWith('"""');
  const contentEnd = closed ? image.length - 3 : image.length;
  const raw = emptyChars();
  let i = 3;
  while (i < contentEnd) {
    const at = start + i;
    const c = image.charAt(i);
    if (c === '\r' && image.charAt(i + 1) === '\n') {
      i++;
      continue;
    }
    if (c === '\\' && image.startsWith('{{', i + 1) && i + 2 < contentEnd) {
      pushChar(raw, '{', at, at + 2, true);
      pushChar(raw, '{', at + 2, at + 3, true);
      i += 3;
      continue;
    }
    pushChar(raw, c, at, at + 1);
    i++;
  }
  const whole = span(file, start, start + image.length);
  return splitTemplate(file, dedent(raw), whole, true);
}

function isBlank(line: DecodedChars, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = line.chars[k];
    if (c !== ' ' && c !== '\t') return false;
  }
  return true;
}

/** Splits decoded characters into lines as [start, end) index ranges (line breaks excluded). */
function lineRanges(chars: readonly string[]): [number, number][] {
  const ranges: [number, number][] = [];
  let lineStart = 0;
  for (let k = 0; k < chars.length; k++) {
    if (chars[k] === '\n') {
      ranges.push([lineStart, k]);
      lineStart = k + 1;
    }
  }
  ranges.push([lineStart, chars.length]);
  return ranges;
}

function dedent(raw: DecodedChars): DecodedChars {
  const lines = lineRanges(raw.chars);
  // Drop a blank first line (the break after `"""`) and a blank last line (before the closing `"""`).
  const first = lines[0];
  if (lines.length > 1 && first && isBlank(raw, first[0], first[1])) lines.shift();
  const last = lines[lines.length - 1];
  if (lines.length > 1 && last && isBlank(raw, last[0], last[1])) lines.pop();
  let indent = Number.POSITIVE_INFINITY;
  for (const [from, to] of lines) {
    if (isBlank(raw, from, to)) continue;
    let k = from;
    while (k < to && (raw.chars[k] === ' ' || raw.chars[k] === '\t')) k++;
    indent = Math.min(indent, k - from);
  }
  if (!Number.isFinite(indent)) indent = 0;
  const out = emptyChars();
  lines.forEach(([from, to], index) => {
    if (index > 0) {
      const breakAt = from - 1; // the '\n' that ended the previous kept line
      pushChar(out, '\n', raw.starts[breakAt] ?? 0, raw.ends[breakAt] ?? 0);
    }
    const skip = Math.min(indent, to - from);
    for (let k = from + skip; k < to; k++) {
      pushChar(out, raw.chars[k] ?? '', raw.starts[k] ?? 0, raw.ends[k] ?? 0, raw.literal[k] ?? false);
    }
  });
  return out;
}

// ───────────────────────────── templates ─────────────────────────────

function opensBraces(chars: DecodedChars, k: number): boolean {
  return chars.chars[k] === '{' && chars.chars[k + 1] === '{' && !chars.literal[k] && !chars.literal[k + 1];
}

/** Turns decoded characters into a StringValue, or a TemplateValue when they contain `{{ }}`. */
function splitTemplate(
  file: string,
  chars: DecodedChars,
  whole: ReturnType<typeof span>,
  multiline: boolean,
): Decoded<StringValue | TemplateValue> {
  const text = chars.chars.join('');
  const diagnostics: Diagnostic[] = [];
  const parts: (TemplateText | BracesValue)[] = [];
  /** Where each `{{ … }}` starts and ends in `chars` (for the stray-brace check). */
  const expressions: [number, number][] = [];
  let textFrom = 0;
  let k = 0;
  const flushText = (to: number): void => {
    if (to > textFrom) {
      parts.push({
        kind: 'text',
        value: text.slice(textFrom, to),
        span: span(file, chars.starts[textFrom] ?? whole.start, chars.ends[to - 1] ?? whole.end),
      });
    }
  };
  while (k < chars.chars.length - 1) {
    if (!opensBraces(chars, k)) {
      k++;
      continue;
    }
    const scan = scanBracesEnd(text, k + 2);
    if (!scan.closed) {
      diagnostics.push(unclosedInnerBraces(span(file, chars.starts[k] ?? whole.start, chars.ends[k + 1] ?? whole.end)));
      if (scan.end === chars.chars.length) break;
    }
    flushText(k);
    parts.push(bracesFromChars(file, chars, text, k, scan.end, scan.textEnd));
    expressions.push([k, scan.end]);
    k = scan.end;
    textFrom = k;
  }
  if (diagnostics.length === 0) {
    for (const path of textPaths(chars, text, expressions)) {
      const at = span(file, chars.starts[path.start] ?? whole.start, chars.ends[path.end - 1] ?? whole.end);
      diagnostics.push(pathInText(at, path.path, path.written));
    }
  }
  if (parts.length === 0) {
    return { value: { kind: 'string', value: text, span: whole, multiline }, diagnostics };
  }
  flushText(chars.chars.length);
  if (diagnostics.length === 0) {
    for (const at of strayBraces(chars, expressions))
      diagnostics.push(
        strayTemplateBrace(
          span(file, chars.starts[at] ?? whole.start, chars.ends[at] ?? whole.end),
          chars.chars[at] === '{' ? '{' : '}',
        ),
      );
  }
  return { value: { kind: 'template', parts, span: whole, multiline }, diagnostics };
}

/**
 * `{message.id}`, `{ step.order.total }`, `${global.x}`, `message.id }}` in the text: a path between
 * single braces, or before a `}}` whose `{{` is missing.
 */
const TEXT_PATH =
  /(\$?\{)?[ \t]*((?:message|step|global|account|metadata)(?:\.[A-Za-z_][A-Za-z0-9_-]*|\[(?:\d+|"[^"{}]*"|'[^'{}]*')\])+)[ \t]*(\}\}?)/g;

/**
 * Paths of the Double Braces scopes written in the text of a string (outside its `{{ }}`
 * expressions) between braces that are no expression's: `"{message.id}"`, `"${message.id}"`, or
 * `"message.id }}"` (the `{{` forgotten) is that text, not the value. An escaped brace (`\{`) is
 * text on purpose; a path that continues a longer word (`x.message.id}}`) is not reported.
 */
function textPaths(
  chars: DecodedChars,
  text: string,
  expressions: readonly (readonly [number, number])[],
): { start: number; end: number; path: string; written: string }[] {
  const found: { start: number; end: number; path: string; written: string }[] = [];
  let depths: number[] | undefined;
  for (const match of text.matchAll(TEXT_PATH)) {
    const opener = match[1];
    const start = opener === undefined ? match.index + match[0].length - match[0].trimStart().length : match.index;
    const end = match.index + match[0].length;
    if (expressions.some(([from, to]) => start < to && end > from)) continue;
    if (opener !== undefined) {
      if (!chars.literal[start + opener.length - 1])
        found.push({ start, end, path: match[2] ?? '', written: text.slice(start, end) });
      continue;
    }
    // `x }}` without `{`: only when the `}}` closes nothing of the text and the path starts a word.
    if (match[3] !== '}}' || /[\w.$\-[\]'"{]/.test(text.charAt(start - 1))) continue;
    depths ??= braceDepths(text, expressions);
    if ((depths[start] ?? 0) === 0) found.push({ start, end, path: match[2] ?? '', written: text.slice(start, end) });
  }
  return found;
}

/** How many `{` of the text (outside expressions) are open before each index. */
function braceDepths(text: string, expressions: readonly (readonly [number, number])[]): number[] {
  const depths = new Array<number>(text.length + 1).fill(0);
  let depth = 0;
  let next = 0;
  for (let k = 0; k < text.length; k++) {
    depths[k] = depth;
    const expression = expressions[next];
    if (expression !== undefined && k === expression[0]) {
      for (let i = k; i < expression[1]; i++) depths[i] = depth;
      k = expression[1] - 1;
      next++;
      continue;
    }
    if (text.charAt(k) === '{') depth++;
    else if (text.charAt(k) === '}' && depth > 0) depth--;
  }
  depths[text.length] = depth;
  return depths;
}

/**
 * Braces in the text around a template's expressions that no brace of that text matches and that
 * touch an expression, spaces aside: a `}` after an expression's `}}` (`"{{ a }}}"`,
 * `"{{ a }} }"`) or a `{` before its `{{` (`"{ {{ a }}"`). Braces the text balances (JSON built by
 * hand, `"{\"a\": {{ x }}}"`) are never reported. (`"{{{ a }}"` opens the expression at its
 * first brace and leaves it open: PIPE1004.)
 */
function strayBraces(chars: DecodedChars, expressions: readonly (readonly [number, number])[]): number[] {
  const opens: number[] = [];
  const closes: number[] = [];
  const inExpression = new Array<boolean>(chars.chars.length).fill(false);
  for (const [from, to] of expressions) for (let k = from; k < to; k++) inExpression[k] = true;
  for (let k = 0; k < chars.chars.length; k++) {
    if (inExpression[k]) continue;
    if (chars.chars[k] === '{') opens.push(k);
    else if (chars.chars[k] === '}') {
      if (opens.length > 0) opens.pop();
      else closes.push(k);
    }
  }
  const blank = (c: string | undefined): boolean => c === ' ' || c === '\t';
  const afterExpression = (k: number): boolean => {
    let i = k - 1;
    while (i >= 0 && !inExpression[i] && blank(chars.chars[i])) i--;
    return i >= 0 && inExpression[i] === true;
  };
  const beforeExpression = (k: number): boolean => {
    let i = k + 1;
    while (i < chars.chars.length && !inExpression[i] && blank(chars.chars[i])) i++;
    return i < chars.chars.length && inExpression[i] === true;
  };
  return [...closes.filter(afterExpression), ...opens.filter(beforeExpression)]
    .filter((k) => !chars.literal[k])
    .sort((a, b) => a - b);
}

/** The BracesValue for decoded characters [open, close): `{{`, expression up to textEnd, closer. */
function bracesFromChars(
  file: string,
  chars: DecodedChars,
  text: string,
  open: number,
  close: number,
  textEnd: number,
): BracesValue {
  const from = open + 2;
  const to = textEnd;
  const textStart = chars.starts[from] ?? 0;
  const offsets: number[] = [];
  let contiguous = true;
  for (let k = from; k < to; k++) {
    const at = chars.starts[k] ?? 0;
    if (at !== textStart + (k - from)) contiguous = false;
    offsets.push(at);
  }
  const endAt = chars.starts[to] ?? 0; // the first `}` of the closing `}}`
  if (endAt !== textStart + (to - from)) contiguous = false;
  offsets.push(endAt);
  return {
    kind: 'braces',
    text: text.slice(from, to),
    textStart,
    ...(contiguous ? {} : { offsets }),
    span: span(file, chars.starts[open] ?? 0, chars.ends[close - 1] ?? 0),
  };
}

/** A bare `{{ … }}` token (possibly unterminated; lexer.ts reported that). */
export function bracesFromToken(file: string, image: string, start: number): BracesValue {
  const scan = scanBracesEnd(image, 2);
  return {
    kind: 'braces',
    text: image.slice(2, scan.textEnd),
    textStart: start + 2,
    span: span(file, start, start + image.length),
  };
}

// ───────────────────────────── numbers, durations, sizes ─────────────────────────────

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const SIZE_UNITS: Readonly<Record<string, number>> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

const NUMBER_SHAPE = /^([-+]?)(0[xX][0-9A-Fa-f]*|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(.*)$/;

/** Classifies a NumberLiteral token image; an unusable literal becomes a diagnostic and a 0 value. */
export function decodeNumber(
  file: string,
  raw: string,
  start: number,
): Decoded<NumberValue | DurationValue | SizeValue> {
  const where = span(file, start, start + raw.length);
  const fallback: NumberValue = { kind: 'number', value: 0, raw, span: where };
  const match = NUMBER_SHAPE.exec(raw);
  const sign = match?.[1] ?? '';
  const digits = match?.[2] ?? '';
  const unit = match?.[3] ?? '';
  const invalid = (why: string, hint?: string): Decoded<NumberValue> => ({
    value: fallback,
    diagnostics: [invalidNumber(where, raw, why, hint)],
  });
  if (!match) return invalid('not a number');
  const isHex = /^0[xX]/.test(digits);
  if (isHex && digits.length === 2) return invalid('no hex digits after `0x`');
  if (!isHex && /^0\d/.test(digits))
    return invalid('leading zeros are not allowed', `write \`${sign}${digits.replace(/^0+(?=\d)/, '')}\``);
  const magnitude = isHex ? parseInt(digits.slice(2), 16) : Number(digits);
  if (!Number.isFinite(magnitude)) return invalid('too large');
  if (unit === '') {
    if (Number.isInteger(magnitude) && !Number.isSafeInteger(magnitude) && !/[.eE]/.test(digits)) {
      return invalid('too large to be exact', 'integers must be at most 9007199254740991; use a string for large ids');
    }
    return {
      value: { kind: 'number', value: sign === '-' ? -magnitude : magnitude, raw, span: where },
      diagnostics: [],
    };
  }
  const unitStart = start + raw.length - unit.length;
  const durationFactor = Object.prototype.hasOwnProperty.call(DURATION_UNITS, unit) ? DURATION_UNITS[unit] : undefined;
  const sizeFactor = Object.prototype.hasOwnProperty.call(SIZE_UNITS, unit) ? SIZE_UNITS[unit] : undefined;
  if (durationFactor === undefined && sizeFactor === undefined) {
    return {
      value: fallback,
      diagnostics: [unknownUnit(span(file, unitStart, start + raw.length), raw, unit, unitHint(unit))],
    };
  }
  if (isHex) return invalid('a duration or size must be decimal');
  if (sign !== '') return invalid('a duration or size has no sign');
  const factor = durationFactor ?? sizeFactor ?? 1;
  const amount = magnitude * factor;
  if (!Number.isSafeInteger(Math.round(amount)) || Math.abs(amount - Math.round(amount)) > 1e-6) {
    return invalid(durationFactor !== undefined ? 'not a whole number of milliseconds' : 'not a whole number of bytes');
  }
  const whole = Math.round(amount);
  if (durationFactor !== undefined) {
    return { value: { kind: 'duration', ms: whole, raw, span: where }, diagnostics: [] };
  }
  return { value: { kind: 'size', bytes: whole, raw, span: where }, diagnostics: [] };
}

function unitHint(unit: string): string {
  const known = [...Object.keys(DURATION_UNITS), ...Object.keys(SIZE_UNITS)];
  const sameLetters = known.find((k) => k.toLowerCase() === unit.toLowerCase());
  if (sameLetters) return `units are case-sensitive: did you mean \`${sameLetters}\`?`;
  const spelled: Readonly<Record<string, string>> = {
    sec: 's',
    secs: 's',
    second: 's',
    seconds: 's',
    min: 'm',
    mins: 'm',
    minute: 'm',
    minutes: 'm',
    hour: 'h',
    hours: 'h',
    hr: 'h',
    day: 'd',
    days: 'd',
    millis: 'ms',
    msec: 'ms',
    kb: 'KB',
    mb: 'MB',
    gb: 'GB',
  };
  const suggestion = Object.prototype.hasOwnProperty.call(spelled, unit.toLowerCase())
    ? spelled[unit.toLowerCase()]
    : undefined;
  if (suggestion) return `write the unit as \`${suggestion}\``;
  return 'durations use ms, s, m, h, d (`30s`); sizes use B, KB, MB, GB (`10MB`)';
}
