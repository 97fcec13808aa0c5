/**
 * Pattern syntax → RE2 syntax, in one pass over the pattern. Two dialects reach RE2 here:
 *   - `java`: `java.util.regex.Pattern`, as written for Double Braces, JSLT and JOLT (their
 *     reference implementations are Java);
 *   - `ecmascript`: ECMA-262 with the `u` flag, as JSON Schema `pattern` and `patternProperties`.
 * What RE2 writes differently is rewritten (`\uFFFF`, `\p{Alpha}`, `\h`, `\s`, `(?x)` comments,
 * `[^]`, …). What needs a backtracking engine (backreferences, lookaround, atomic groups,
 * possessive quantifiers) is refused with `needsBacktracking`, and so is what RE2 would read
 * differently without saying so (Java's nested classes `[a[b]]` and intersections `[a&&b]`).
 * Plain syntax errors are left to RE2, which reports them when the result is compiled.
 * Pure: no engine is loaded here.
 */

export type RegexDialect = 'java' | 'ecmascript';

/** Why a pattern cannot run. `needsBacktracking`: valid syntax that only a backtracking engine runs. */
export class RegexSyntaxError extends Error {
  constructor(
    message: string,
    readonly needsBacktracking = false,
  ) {
    super(message);
    this.name = 'RegexSyntaxError';
  }
}

/** Java Pattern flag names (STRINGMATCHES takes them as text joined by `|` or `,`). */
export const JAVA_FLAGS = [
  'CANON_EQ',
  'CASE_INSENSITIVE',
  'COMMENTS',
  'DOTALL',
  'LITERAL',
  'MULTILINE',
  'UNICODE_CASE',
  'UNICODE_CHARACTER_CLASS',
  'UNIX_LINES',
] as const;

/** Longest pattern accepted: RE2's compile time and memory grow with the pattern. */
export const MAX_PATTERN_LENGTH = 4_000;

const BACKTRACKING = 'patterns run on a linear-time engine (RE2), which has no backtracking';

/** Java's `\s` ([ \t\n\x0B\f\r]) as class contents: RE2's `\s` leaves out \x0B. */
const JAVA_SPACE = '\\t-\\r ';
const JAVA_NON_SPACE = '\\x00-\\x08\\x0E-\\x1F!-\\x{10FFFF}';
/** ECMAScript's `\s`: WhiteSpace and LineTerminator. */
const ECMA_SPACE = '\\t-\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
const ECMA_NON_SPACE =
  '\\x00-\\x08\\x0E-\\x1F!-\\x{9F}\\x{A1}-\\x{167F}\\x{1681}-\\x{1FFF}\\x{200B}-\\x{2027}\\x{202A}-\\x{202E}' +
  '\\x{2030}-\\x{205E}\\x{2060}-\\x{2FFF}\\x{3001}-\\x{FEFE}\\x{FF00}-\\x{10FFFF}';
const HORIZONTAL_SPACE = ' \\t\\x{A0}\\x{1680}\\x{180E}\\x{2000}-\\x{200A}\\x{202F}\\x{205F}\\x{3000}';
const VERTICAL_SPACE = '\\n-\\r\\x{85}\\x{2028}\\x{2029}';

/** Java's POSIX classes (US-ASCII), by their `\p{…}` names. */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  Lower: 'lower',
  Upper: 'upper',
  ASCII: 'ascii',
  Alpha: 'alpha',
  Digit: 'digit',
  Alnum: 'alnum',
  Punct: 'punct',
  Graph: 'graph',
  Print: 'print',
  Blank: 'blank',
  Cntrl: 'cntrl',
  XDigit: 'xdigit',
  Space: 'space',
};

/** Java's `java.lang.Character` classes and binary properties, as Unicode categories RE2 knows. */
const CATEGORY_ALIASES: Readonly<Record<string, string>> = {
  javaLowerCase: 'Ll',
  javaUpperCase: 'Lu',
  javaTitleCase: 'Lt',
  javaDigit: 'Nd',
  javaLetter: 'L',
  javaAlphabetic: 'L',
  Alphabetic: 'L',
  Letter: 'L',
  Lowercase: 'Ll',
  Lowercase_Letter: 'Ll',
  Uppercase: 'Lu',
  Uppercase_Letter: 'Lu',
  Titlecase_Letter: 'Lt',
  Digit: 'Nd',
  Decimal_Number: 'Nd',
  Number: 'N',
  Punctuation: 'P',
  Symbol: 'S',
  Mark: 'M',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Control: 'Cc',
  Other: 'C',
};

export interface Translated {
  /** RE2 syntax, with any flags as a leading `(?ims)` group. */
  readonly source: string;
}

/** Parses a flag list such as "CASE_INSENSITIVE|MULTILINE" into Java flag names. */
export function parseJavaFlags(text: string): string[] {
  const names = text
    .split(/[|,\s]+/)
    .map((f) => f.trim().toUpperCase())
    .filter((f) => f !== '');
  for (const name of names) {
    if (!(JAVA_FLAGS as readonly string[]).includes(name)) {
      throw new RegexSyntaxError(`unknown pattern flag \`${name}\` (expected one of ${JAVA_FLAGS.join(', ')})`);
    }
  }
  return names;
}

/** A pattern as RE2 syntax; throws RegexSyntaxError for what RE2 cannot run or would misread. */
export function toRe2Syntax(pattern: string, dialect: RegexDialect, javaFlags: readonly string[] = []): Translated {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new RegexSyntaxError(`the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  }
  let prefix = '';
  if (javaFlags.includes('CASE_INSENSITIVE')) prefix += 'i';
  if (javaFlags.includes('MULTILINE')) prefix += 'm';
  if (javaFlags.includes('DOTALL')) prefix += 's';
  const flagGroup = prefix === '' ? '' : `(?${prefix})`;
  if (javaFlags.includes('LITERAL'))
    return { source: (javaFlags.includes('CASE_INSENSITIVE') ? '(?i)' : '') + quoteLiteral(pattern) };
  const body = new Translator(pattern, dialect, javaFlags.includes('COMMENTS'), javaFlags.includes('DOTALL')).run();
  return { source: flagGroup + body };
}

/** Text as an RE2 pattern that matches exactly it. */
export function quoteLiteral(text: string): string {
  let out = '';
  for (const c of text) out += /[\\^$.|?*+()[\]{}]/.test(c) ? `\\${c}` : c;
  return out;
}

function hex(codePoint: number): string {
  return `\\x{${codePoint.toString(16).toUpperCase()}}`;
}

class Translator {
  private pos = 0;
  private out = '';
  /** Inside `[…]`; `classStart` is where its first member may begin (after `[` or `[^`). */
  private inClass = false;
  private classStart = -1;
  /** The last thing written outside a class could take a quantifier's `+` as possessive. */
  private afterQuantifier = false;

  constructor(
    private readonly src: string,
    private readonly dialect: RegexDialect,
    private comments: boolean,
    private readonly dotAll: boolean,
  ) {}

  run(): string {
    while (this.pos < this.src.length) {
      const c = this.src[this.pos] as string;
      if (this.inClass) this.classChar(c);
      else this.topChar(c);
    }
    return this.out;
  }

  private emit(text: string, quantifier = false): void {
    this.out += text;
    this.afterQuantifier = quantifier;
  }

  private topChar(c: string): void {
    if (this.comments && this.dialect === 'java') {
      if (/\s/.test(c)) {
        this.pos++;
        return;
      }
      if (c === '#') {
        while (this.pos < this.src.length && this.src[this.pos] !== '\n') this.pos++;
        return;
      }
    }
    switch (c) {
      case '\\':
        this.escape(false);
        return;
      case '[':
        this.openClass();
        return;
      case '(':
        this.group();
        return;
      case '*':
      case '?':
        this.pos++;
        this.quantifier(c);
        return;
      case '+':
        this.pos++;
        if (this.afterQuantifier) this.refuse('possessive quantifiers (`*+`, `++`, `?+`) are not supported');
        this.quantifier(c);
        return;
      case '{': {
        const repeat = /^\{\d+(?:,\d*)?\}/.exec(this.src.slice(this.pos));
        if (repeat) {
          this.pos += repeat[0].length;
          this.quantifier(repeat[0]);
        } else {
          // Both Java and ECMAScript (`u` mode) refuse a `{` that starts no repetition.
          throw new RegexSyntaxError('`{` starts no repetition such as `{2}` or `{1,3}`; write `\\{` for a brace');
        }
        return;
      }
      case '.':
        this.pos++;
        // ECMAScript's `.` stops at every line terminator, RE2's only at \n.
        this.emit(this.dialect === 'ecmascript' && !this.dotAll ? '[^\\n\\r\\x{2028}\\x{2029}]' : '.');
        return;
      default:
        this.pos++;
        this.emit(c);
    }
  }

  /** A quantifier just read; a lazy `?` may follow (kept), a possessive `+` is refused by the caller. */
  private quantifier(text: string): void {
    let written = text;
    if (this.src[this.pos] === '?') {
      written += '?';
      this.pos++;
    }
    this.emit(written, written === text);
  }

  private group(): void {
    const rest = this.src.slice(this.pos);
    if (/^\(\?<?[=!]/.test(rest))
      this.refuse('lookahead and lookbehind (`(?=…)`, `(?!…)`, `(?<=…)`, `(?<!…)`) are not supported');
    if (rest.startsWith('(?>')) this.refuse('atomic groups `(?>…)` are not supported');
    if (rest.startsWith('(?:')) {
      this.pos += 3;
      this.emit('(?:');
      return;
    }
    const named = /^\(\?P?<([A-Za-z][A-Za-z0-9_]*)>/.exec(rest);
    if (named) {
      this.pos += named[0].length;
      this.emit(`(?P<${named[1] as string}>`);
      return;
    }
    const flags = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])/.exec(rest);
    if (flags && this.dialect === 'java' && (flags[1] !== '' || flags[2] !== undefined)) {
      this.pos += flags[0].length;
      this.emit(this.inlineFlags(flags[1] as string, flags[2] ?? '', flags[3] as string));
      return;
    }
    this.pos++;
    this.emit('(');
  }

  /** Java inline flags: RE2 knows i, m, s; x (comments) is applied here; u, d, U have no RE2 meaning. */
  private inlineFlags(on: string, off: string, end: string): string {
    for (const letter of on + off) {
      if (!'idmsuxU'.includes(letter)) throw new RegexSyntaxError(`unknown inline flag \`${letter}\``);
    }
    if (on.includes('x')) this.comments = true;
    if (off.includes('x')) this.comments = false;
    const keep = (letters: string): string => [...letters].filter((l) => 'ims'.includes(l)).join('');
    const kept = keep(on) + (keep(off) === '' ? '' : `-${keep(off)}`);
    if (end === ':') return kept === '' ? '(?:' : `(?${kept}:`;
    return kept === '' ? '' : `(?${kept})`;
  }

  private openClass(): void {
    this.pos++;
    let text = '[';
    if (this.src[this.pos] === '^') {
      text += '^';
      this.pos++;
    }
    if (this.dialect === 'ecmascript' && this.src[this.pos] === ']') {
      // ECMAScript: `[]` matches nothing, `[^]` any character.
      this.pos++;
      this.emit(text === '[' ? '[^\\x00-\\x{10FFFF}]' : '[\\x00-\\x{10FFFF}]');
      return;
    }
    if (this.dialect === 'java' && this.src[this.pos] === ']') {
      // Java: a `]` right after `[` or `[^` is a member.
      text += '\\]';
      this.pos++;
    }
    this.inClass = true;
    this.classStart = this.pos;
    this.emit(text);
  }

  private classChar(c: string): void {
    if (c === '\\') {
      this.escape(true);
      return;
    }
    if (c === ']') {
      this.pos++;
      this.inClass = false;
      this.emit(']');
      return;
    }
    if (c === '[') {
      const posix = /^\[:\^?[a-z]+:\]/.exec(this.src.slice(this.pos));
      if (posix && this.dialect === 'java') {
        this.pos += posix[0].length;
        this.emit(posix[0]);
        return;
      }
      if (this.dialect === 'java')
        this.refuse(
          'nested character classes such as `[a-c[x-z]]` are not supported; list the members in one class',
          false,
        );
      this.pos++;
      this.emit('\\[');
      return;
    }
    if (c === '&' && this.src[this.pos + 1] === '&' && this.dialect === 'java') {
      this.refuse('character class intersections such as `[a-z&&[^aeiou]]` are not supported', false);
    }
    this.pos++;
    this.emit(c);
  }

  /** A backslash sequence, in or out of a class. */
  private escape(inClass: boolean): void {
    const next = this.src[this.pos + 1];
    if (next === undefined) throw new RegexSyntaxError('the pattern ends with a lone `\\`');
    const rest = this.src.slice(this.pos);
    this.pos += 2;
    switch (next) {
      case 'u': {
        const braced = this.dialect === 'ecmascript' ? /^\\u\{([0-9a-fA-F]{1,6})\}/.exec(rest) : null;
        if (braced) {
          this.pos += braced[0].length - 2;
          return this.emit(hex(parseInt(braced[1] as string, 16)));
        }
        const four = /^\\u([0-9a-fA-F]{4})(?:\\u([dD][c-fC-F][0-9a-fA-F]{2}))?/.exec(rest);
        if (!four) throw new RegexSyntaxError('`\\u` must be followed by four hexadecimal digits');
        const high = parseInt(four[1] as string, 16);
        const low = four[2] === undefined ? undefined : parseInt(four[2], 16);
        this.pos += four[0].length - 2;
        // A surrogate pair written as two escapes is one code point.
        if (low !== undefined && high >= 0xd800 && high <= 0xdbff)
          return this.emit(hex((high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000));
        return this.emit(hex(high));
      }
      case 'x': {
        const two = /^\\x([0-9a-fA-F]{2})/.exec(rest);
        const braced = /^\\x\{([0-9a-fA-F]{1,6})\}/.exec(rest);
        const match = braced ?? two;
        if (!match) throw new RegexSyntaxError('`\\x` must be followed by two hexadecimal digits or `{…}`');
        this.pos += match[0].length - 2;
        return this.emit(hex(parseInt(match[1] as string, 16)));
      }
      case '0': {
        if (this.dialect === 'ecmascript') return this.emit('\\x{0}');
        const octal = /^\\0([0-3]?[0-7]{1,2}|[0-7])/.exec(rest);
        if (!octal) throw new RegexSyntaxError('`\\0` must be followed by an octal number');
        this.pos += octal[0].length - 2;
        return this.emit(hex(parseInt(octal[1] as string, 8)));
      }
      case 'c': {
        const letter = this.src[this.pos];
        if (letter === undefined || !/[A-Za-z@-_?]/.test(letter))
          throw new RegexSyntaxError('`\\c` must be followed by a control letter');
        this.pos++;
        return this.emit(hex(letter.charCodeAt(0) ^ 64));
      }
      case 'e':
        return this.emit(hex(0x1b));
      case 'a':
        return this.emit(hex(0x07));
      case 'k':
        if (this.src[this.pos] === '<') this.refuse('named backreferences (`\\k<name>`) are not supported');
        throw new RegexSyntaxError('`\\k` must be followed by `<name>`');
      case 's':
        return this.emitClass(this.dialect === 'java' ? JAVA_SPACE : ECMA_SPACE, inClass, false);
      case 'S':
        return this.emitClass(this.dialect === 'java' ? JAVA_NON_SPACE : ECMA_NON_SPACE, inClass, false);
      case 'h':
      case 'H':
      case 'v':
      case 'V':
        if (this.dialect === 'ecmascript' && next === 'v') return this.emit(hex(0x0b));
        if (this.dialect === 'ecmascript') break;
        return this.emitClass(
          next.toLowerCase() === 'h' ? HORIZONTAL_SPACE : VERTICAL_SPACE,
          inClass,
          next === next.toUpperCase(),
        );
      case 'R':
        if (this.dialect === 'ecmascript') break;
        if (inClass) throw new RegexSyntaxError('`\\R` cannot be used inside a character class');
        return this.emit(`(?:\\r\\n|[${VERTICAL_SPACE}])`);
      case 'Z':
        if (this.dialect === 'ecmascript') break;
        // End of input, or before a final line terminator: RE2 has no lookahead, so the terminator is matched.
        return this.emit('(?:\\n?\\z)');
      case 'G':
        if (this.dialect === 'ecmascript') break;
        throw new RegexSyntaxError('`\\G` (end of the previous match) is not supported');
      case 'Q': {
        if (this.dialect === 'ecmascript') break;
        const end = this.src.indexOf('\\E', this.pos);
        const literal = this.src.slice(this.pos, end === -1 ? this.src.length : end);
        this.pos = end === -1 ? this.src.length : end + 2;
        return this.emit(
          inClass ? [...literal].map((ch) => (/[\\\]\[^-]/.test(ch) ? `\\${ch}` : ch)).join('') : quoteLiteral(literal),
        );
      }
      case 'p':
      case 'P':
        return this.property(next === 'P', inClass);
      default:
        break;
    }
    if (/[1-9]/.test(next)) {
      if (inClass && this.dialect === 'ecmascript')
        throw new RegexSyntaxError(`\`\\${next}\` is not valid inside a character class`);
      this.refuse(`backreferences (\`\\${next}\`) are not supported`);
    }
    if (this.dialect === 'ecmascript' && next === '/') return this.emit('/');
    if (this.dialect === 'ecmascript' && next === 'b' && inClass) return this.emit(hex(0x08));
    if (this.dialect === 'ecmascript' && next === 'A')
      throw new RegexSyntaxError('`\\A` is not valid in a JSON Schema (ECMAScript) pattern; write `^`');
    if (this.dialect === 'ecmascript' && (next === 'z' || next === 'Z')) {
      throw new RegexSyntaxError(`\`\\${next}\` is not valid in a JSON Schema (ECMAScript) pattern; write \`$\``);
    }
    if (/[A-Za-z]/.test(next) && !'dDwWbBAztnrfvQE'.includes(next)) {
      throw new RegexSyntaxError(`unknown escape \`\\${next}\``);
    }
    this.emit(`\\${next}`);
  }

  /** Class contents written as a class of their own outside one, or spliced into the enclosing one. */
  private emitClass(contents: string, inClass: boolean, negated: boolean): void {
    if (inClass) {
      if (negated)
        throw new RegexSyntaxError('a negated class such as `\\H` or `\\V` cannot be used inside a character class');
      this.emit(contents);
    } else {
      this.emit(`[${negated ? '^' : ''}${contents}]`);
    }
  }

  /** `\p{…}`, `\P{…}`, `\pL`. */
  private property(negated: boolean, inClass: boolean): void {
    let name: string;
    const braced = /^\{([A-Za-z_=0-9^]+)\}/.exec(this.src.slice(this.pos));
    if (braced) {
      name = braced[1] as string;
      this.pos += braced[0].length;
    } else if (/[A-Za-z]/.test(this.src[this.pos] ?? '')) {
      name = this.src[this.pos] as string;
      this.pos++;
    } else {
      throw new RegexSyntaxError('`\\p` must be followed by a property name such as `{L}` or `{Alpha}`');
    }
    const posix = this.dialect === 'java' ? POSIX_CLASSES[name.replace(/^Is/, '')] : undefined;
    if (posix !== undefined) {
      this.emit(inClass ? `[:${negated ? '^' : ''}${posix}:]` : `[${negated ? '^' : ''}[:${posix}:]]`);
      return;
    }
    if (/^In[A-Z]/.test(name) && this.dialect === 'java') {
      throw new RegexSyntaxError(
        `Unicode blocks such as \`\\p{${name}}\` are not supported; use a script such as \`\\p{Greek}\``,
      );
    }
    // `Is` (Java) and `Script=` / `General_Category=` / `gc=` / `sc=` (ECMAScript) prefixes name the same thing.
    const bare = name.replace(/^(?:Is|Script=|sc=|Script_Extensions=|scx=|General_Category=|gc=)/, '');
    const category = CATEGORY_ALIASES[bare] ?? bare;
    this.emit(`\\${negated ? 'P' : 'p'}{${category}}`);
  }

  private refuse(what: string, backtracking = true): never {
    throw new RegexSyntaxError(backtracking ? `${what}: ${BACKTRACKING}` : what, backtracking);
  }
}
