/**
 * A strict JSON parser that keeps JSLT's integer/decimal distinction (`1.0` parses to a boxed
 * decimal, `1` to an integer). Used by `from-json` and by tests that feed JSON text to programs.
 * Input: JSON text. Output: a JsltValue, or a thrown PipeError with the position of the problem.
 * Nesting is limited so hostile input cannot exhaust the stack.
 */
import { type JsltValue, jsltError, makeDouble, newObject, setKey } from './values.js';

const MAX_DEPTH = 512;

/** Parses JSON text. Empty (or all-whitespace) text is `null`, as Jackson's readTree reads it. */
export function parseJsonText(text: string): JsltValue {
  const parser = new JsonReader(text);
  parser.skipSpace();
  if (parser.atEnd()) return null;
  const value = parser.readValue(0);
  parser.skipSpace();
  if (!parser.atEnd()) parser.fail('unexpected text after the JSON value');
  return value;
}

class JsonReader {
  private pos = 0;
  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  fail(what: string): never {
    throw jsltError(`JSON parse error at offset ${this.pos}: ${what}`);
  }

  skipSpace(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.text[this.pos] as string)) this.pos++;
  }

  readValue(depth: number): JsltValue {
    if (depth > MAX_DEPTH) this.fail('nested too deeply');
    this.skipSpace();
    const char = this.text[this.pos];
    if (char === '{') return this.readObject(depth);
    if (char === '[') return this.readArray(depth);
    if (char === '"') return this.readString();
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return this.readNumber();
    for (const [word, value] of LITERALS) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    return this.fail(char === undefined ? 'unexpected end of input' : `unexpected character '${char}'`);
  }

  private readObject(depth: number): JsltValue {
    const object = newObject();
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return object;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') this.fail('expected a string key');
      const key = this.readString();
      this.skipSpace();
      if (this.text[this.pos] !== ':') this.fail("expected ':'");
      this.pos++;
      setKey(object, key, this.readValue(depth + 1));
      this.skipSpace();
      const next = this.text[this.pos++];
      if (next === '}') return object;
      if (next !== ',') this.fail("expected ',' or '}'");
    }
  }

  private readArray(depth: number): JsltValue {
    const array: JsltValue[] = [];
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return array;
    }
    for (;;) {
      array.push(this.readValue(depth + 1));
      this.skipSpace();
      const next = this.text[this.pos++];
      if (next === ']') return array;
      if (next !== ',') this.fail("expected ',' or ']'");
    }
  }

  private readString(): string {
    this.pos++;
    let out = '';
    for (;;) {
      const char = this.text[this.pos++];
      if (char === undefined) this.fail('unterminated string');
      if (char === '"') return out;
      if (char < ' ') this.fail('control character in string');
      if (char !== '\\') {
        out += char;
        continue;
      }
      const escape = this.text[this.pos++];
      const simple = escape === undefined ? undefined : SIMPLE_ESCAPES[escape];
      if (simple !== undefined) out += simple;
      else if (escape === 'u') {
        const hex = this.text.slice(this.pos, this.pos + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape');
        out += String.fromCharCode(parseInt(hex, 16));
        this.pos += 4;
      } else this.fail(`bad escape \\${escape ?? ''}`);
    }
  }

  private readNumber(): JsltValue {
    const match = NUMBER_PATTERN.exec(this.text.slice(this.pos));
    if (!match) return this.fail('bad number');
    const literal = match[0];
    this.pos += literal.length;
    return numberFromLiteral(literal);
  }
}

const NUMBER_PATTERN = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/;
const LITERALS: ReadonlyArray<readonly [string, JsltValue]> = [
  ['true', true],
  ['false', false],
  ['null', null],
];
const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** An integer literal stays an integer; anything with `.` or an exponent is a decimal. */
export function numberFromLiteral(literal: string): JsltValue {
  const value = Number(literal);
  return /[.eE]/.test(literal) ? makeDouble(value) : value;
}
