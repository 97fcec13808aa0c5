/**
 * Java DecimalFormat-style number patterns for FORMATNUMBER and TONUMBER: `#` and `0` digits,
 * `,` grouping, `.` decimal point, `%` / `‰`, quoted literals (`'R$ '`), `''` for a quote, and a
 * `positive;negative` sub-pattern pair. Rounding is HALF_EVEN on the exact binary value, as in
 * Java. Separators come from the locale (Intl data: en-US, pt-BR, de-DE, fr-FR, es-ES, …).
 * In: pattern text, locale tag. Out: a `NumberPattern` (compile once, memoised) and format/parse.
 */

export interface Affixes {
  readonly prefix: string;
  readonly suffix: string;
}

export interface NumberPattern {
  readonly positive: Affixes;
  /** Absent: the negative form is `-` + positive prefix. */
  readonly negative: Affixes | undefined;
  readonly minInt: number;
  readonly minFrac: number;
  readonly maxFrac: number;
  /** 0 when the pattern has no grouping separator. */
  readonly groupSize: number;
  readonly multiplier: number;
}

export class NumberPatternError extends Error {}

const SPECIALS = new Set(['#', '0', ',', '.']);

interface SubPattern {
  readonly affixes: Affixes;
  readonly body: string;
  readonly multiplier: number;
}

/** Splits one sub-pattern into prefix, numeric body and suffix, decoding quoted literals. */
function splitSubPattern(text: string, pattern: string): SubPattern {
  let prefix = '';
  let suffix = '';
  let body = '';
  let multiplier = 1;
  let phase: 'prefix' | 'body' | 'suffix' = 'prefix';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close === i + 1) {
        const lit = "'";
        if (phase === 'body') phase = 'suffix';
        if (phase === 'prefix') prefix += lit;
        else suffix += lit;
        i = close;
        continue;
      }
      if (close < 0) throw new NumberPatternError(`unterminated quote in number pattern ${JSON.stringify(pattern)}`);
      const lit = text.slice(i + 1, close).replace(/''/g, "'");
      if (phase === 'body') phase = 'suffix';
      if (phase === 'prefix') prefix += lit;
      else suffix += lit;
      i = close;
      continue;
    }
    if (SPECIALS.has(c)) {
      if (phase === 'suffix')
        throw new NumberPatternError(
          `unexpected \`${c}\` after the suffix in number pattern ${JSON.stringify(pattern)}`,
        );
      phase = 'body';
      body += c;
      continue;
    }
    if (c === 'E')
      throw new NumberPatternError(
        `scientific notation (\`E\`) is not supported in number pattern ${JSON.stringify(pattern)}`,
      );
    if (c === '%') multiplier = 100;
    if (c === '\u2030') multiplier = 1000;
    if (c === '¤')
      throw new NumberPatternError(
        `the currency sign \`¤\` is not supported; quote the symbol instead, e.g. "'R$ '#,##0.00"`,
      );
    if (phase === 'body') phase = 'suffix';
    if (phase === 'prefix') prefix += c;
    else suffix += c;
  }
  if (body === '') throw new NumberPatternError(`number pattern ${JSON.stringify(pattern)} has no digits (# or 0)`);
  return { affixes: { prefix, suffix }, body, multiplier };
}

/** Splits on the first `;` outside quotes. */
function splitOnSemicolon(pattern: string): [string, string | undefined] {
  let quoted = false;
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === "'") quoted = !quoted;
    else if (pattern[i] === ';' && !quoted) return [pattern.slice(0, i), pattern.slice(i + 1)];
  }
  return [pattern, undefined];
}

export function compileNumberPattern(pattern: string): NumberPattern {
  const [posText, negText] = splitOnSemicolon(pattern);
  const pos = splitSubPattern(posText, pattern);
  const neg = negText === undefined || negText === '' ? undefined : splitSubPattern(negText, pattern);
  const body = pos.body;
  const point = body.indexOf('.');
  if (point >= 0 && body.indexOf('.', point + 1) >= 0)
    throw new NumberPatternError(`number pattern ${JSON.stringify(pattern)} has two decimal points`);
  const intPart = point >= 0 ? body.slice(0, point) : body;
  const fracPart = point >= 0 ? body.slice(point + 1) : '';
  if (fracPart.includes(','))
    throw new NumberPatternError(
      `grouping separator after the decimal point in number pattern ${JSON.stringify(pattern)}`,
    );
  if (/0#/.test(intPart.replace(/,/g, '')))
    throw new NumberPatternError(`\`#\` after \`0\` in the integer part of number pattern ${JSON.stringify(pattern)}`);
  if (/#0/.test(fracPart))
    throw new NumberPatternError(`\`0\` after \`#\` in the fraction part of number pattern ${JSON.stringify(pattern)}`);
  const lastComma = intPart.lastIndexOf(',');
  return {
    positive: pos.affixes,
    negative: neg?.affixes,
    minInt: (intPart.match(/0/g) ?? []).length,
    minFrac: (fracPart.match(/0/g) ?? []).length,
    maxFrac: fracPart.length,
    groupSize: lastComma >= 0 ? intPart.length - lastComma - 1 : 0,
    multiplier: pos.multiplier,
  };
}

export interface LocaleSymbols {
  readonly decimal: string;
  readonly group: string;
  readonly minus: string;
}

/** Decimal and grouping separators of a locale (BCP 47 tag, case-insensitive, `_` accepted). */
export function localeSymbols(locale: string): LocaleSymbols {
  const tag = normalizeLocale(locale);
  const parts = new Intl.NumberFormat(tag).formatToParts(-12345.6);
  return {
    decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
    group: parts.find((p) => p.type === 'group')?.value ?? ',',
    minus: '-',
  };
}

/** `pt-br` / `pt_BR` → `pt-BR`; throws RangeError for tags Intl rejects. */
export function normalizeLocale(locale: string): string {
  const tag = locale.replace(/_/g, '-');
  const canonical = Intl.getCanonicalLocales(tag)[0];
  if (canonical === undefined) throw new RangeError(`invalid locale ${JSON.stringify(locale)}`);
  return canonical;
}

/** Exact decimal digits of |value| rounded HALF_EVEN to `maxFrac` places: [integer digits, fraction digits]. */
function roundHalfEven(value: number, maxFrac: number): [string, string] {
  const abs = Math.abs(value);
  if (abs >= 1e21) return [BigInt(Math.round(abs)).toString(), ''.padEnd(maxFrac, '0')];
  // toFixed works on the exact binary value, so 25 extra digits decide ties the way Java does.
  const extra = Math.min(100, maxFrac + 25);
  const exact = abs.toFixed(extra);
  const [intDigits = '0', fracDigits = ''] = exact.split('.');
  const kept = fracDigits.slice(0, maxFrac);
  const rest = fracDigits.slice(maxFrac);
  const lastKept = maxFrac > 0 ? Number(kept[maxFrac - 1]) : Number(intDigits[intDigits.length - 1]);
  const roundUp =
    rest[0] !== undefined &&
    (rest[0] > '5' || (rest[0] === '5' && (/[1-9]/.test(rest.slice(1)) || lastKept % 2 === 1)));
  if (!roundUp) return [intDigits, kept];
  const digits = (intDigits + kept).split('').map(Number);
  let i = digits.length - 1;
  while (i >= 0) {
    if ((digits[i] as number) < 9) {
      digits[i] = (digits[i] as number) + 1;
      break;
    }
    digits[i] = 0;
    i--;
  }
  const joined = (i < 0 ? '1' : '') + digits.join('');
  const intLen = joined.length - maxFrac;
  return [joined.slice(0, intLen), joined.slice(intLen)];
}

function group(digits: string, size: number, separator: string): string {
  if (size <= 0 || digits.length <= size) return digits;
  const out: string[] = [];
  for (let end = digits.length; end > 0; end -= size) out.unshift(digits.slice(Math.max(0, end - size), end));
  return out.join(separator);
}

/** Formats like Java DecimalFormat. @example formatNumber(compileNumberPattern("#,##0.00"), 1234.5, "pt-BR") // "1.234,50" */
export function formatNumber(p: NumberPattern, value: number, locale: string): string {
  if (Number.isNaN(value)) return 'NaN';
  const sym = localeSymbols(locale);
  const negative = value < 0;
  const scaled = Math.abs(value) * p.multiplier;
  let body: string;
  if (!Number.isFinite(scaled)) body = '∞';
  else {
    const [intRaw, fracRaw] = roundHalfEven(scaled, p.maxFrac);
    let intDigits = intRaw.replace(/^0+/, '');
    if (intDigits.length < p.minInt) intDigits = intDigits.padStart(p.minInt, '0');
    let frac = fracRaw;
    while (frac.length > p.minFrac && frac.endsWith('0')) frac = frac.slice(0, -1);
    // Java prints "0" rather than an empty string when nothing else would be shown.
    if (intDigits === '' && frac === '') intDigits = '0';
    body = group(intDigits, p.groupSize, sym.group) + (frac !== '' ? sym.decimal + frac : '');
  }
  // Like Java, a negative value that rounds to zero keeps its sign ("-0").
  if (negative) {
    const affixes = p.negative ?? { prefix: sym.minus + p.positive.prefix, suffix: p.positive.suffix };
    return affixes.prefix + body + affixes.suffix;
  }
  return p.positive.prefix + body + p.positive.suffix;
}

/**
 * Parses text written with the pattern and locale. Returns undefined when the text does not fit.
 * The result is rounded (HALF_EVEN) to the pattern's fraction digits, as Digibee documents
 * (`TONUMBER("123.456", "###.#")` → 123.5).
 */
export function parseNumber(p: NumberPattern, text: string, locale: string): number | undefined {
  const sym = localeSymbols(locale);
  const trimmed = text.trim();
  const negAffixes = p.negative ?? { prefix: sym.minus + p.positive.prefix, suffix: p.positive.suffix };
  const candidates: [Affixes, number][] = [
    [negAffixes, -1],
    [p.positive, 1],
    [{ prefix: '', suffix: '' }, 1],
  ];
  for (const [affixes, sign] of candidates) {
    if (!trimmed.startsWith(affixes.prefix) || !trimmed.endsWith(affixes.suffix)) continue;
    const inner = trimmed.slice(affixes.prefix.length, trimmed.length - affixes.suffix.length);
    const parsed = parseDigits(inner, sym);
    if (parsed === undefined) continue;
    // A quoted "-" prefix written as a literal still means a negative number (Digibee: TONUMBER("-300", "'-'###") → -300).
    const literalMinus = sign === 1 && affixes.prefix.trim() === sym.minus ? -1 : 1;
    const value = (sign * literalMinus * parsed) / p.multiplier;
    const [i, f] = roundHalfEven(value, p.maxFrac);
    const rounded = Number(`${i}${f === '' ? '' : '.' + f}`);
    return value < 0 ? -rounded : rounded;
  }
  return undefined;
}

function parseDigits(inner: string, sym: LocaleSymbols): number | undefined {
  let normalized = '';
  let seenPoint = false;
  const groupChars = new Set([
    sym.group,
    sym.group === '\u202f' || sym.group === '\u00a0' ? ' ' : sym.group,
    '\u00a0',
    '\u202f',
  ]);
  let sign = '';
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i] as string;
    if (i === 0 && (c === '-' || c === '+')) sign = c;
    else if (c >= '0' && c <= '9') normalized += c;
    else if (c === sym.decimal && !seenPoint) {
      seenPoint = true;
      normalized += '.';
    } else if (groupChars.has(c) && !seenPoint) continue;
    else return undefined;
  }
  if (!/\d/.test(normalized)) return undefined;
  return Number(sign + normalized);
}
