/**
 * Recursive-descent parser for JSLT, following the reference grammar (jslt.jjt):
 *   program  := import* (let | def)* expr            (modules: the expr is optional)
 *   expr     := or ('|' or)*          or := and ('or' or)?        and := cmp ('and' and)?
 *   cmp      := add (('=='|'!='|'<'|'<='|'>'|'>=') add)?        add := mul (('+'|'-') mul)*
 *   mul      := base (('*'|'/'|'%') base)*
 *   base     := literal | chain | '(' expr ')' | if | array | object | object-for
 *   chain    := (call | $var | '.' (ident|string)?) ('.' (ident|string) | '[' slice ']')*
 * Input: JSLT source. Output: a Program, or the first syntax error (message + source range).
 * Nesting depth and operator-chain length are bounded so hostile queries cannot overflow the stack.
 */
import type {
  BinaryOperator,
  Expr,
  FunctionDecl,
  ImportDecl,
  LetBinding,
  ObjectMatcher,
  ObjectPair,
  Program,
  Range,
} from './ast.js';
import { type Token, type TokenKind, tokenize } from './lexer.js';

export const MAX_NESTING = 150;
export const MAX_CHAIN = 500;

export type SyntaxProblem = 'syntax' | 'escape' | 'nesting';

export interface ParseError {
  readonly problem: SyntaxProblem;
  readonly message: string;
  readonly start: number;
  readonly end: number;
}

export type ParseResult =
  | { readonly program: Program; readonly error?: undefined }
  | { readonly program?: undefined; readonly error: ParseError };

class ParseFailure extends Error {
  constructor(readonly details: ParseError) {
    super(details.message);
  }
}

const COMPARATORS: ReadonlySet<TokenKind> = new Set(['==', '!=', '<', '<=', '>', '>=']);

function describe(token: Token): string {
  return token.kind === 'eof' ? 'end of query' : `\`${token.text}\``;
}

/** Decodes a string token's escapes (JSON escapes; anything else is an error, as in the reference). */
export function decodeStringToken(token: Token): string {
  const raw = token.text.slice(1, -1);
  let out = '';
  for (let pos = 0; pos < raw.length; pos++) {
    const char = raw[pos] as string;
    if (char !== '\\') {
      out += char;
      continue;
    }
    const escape = raw[++pos];
    const offset = token.start + 1 + pos - 1;
    const simple = escape === undefined ? undefined : SIMPLE_ESCAPES[escape];
    if (simple !== undefined) {
      out += simple;
    } else if (escape === 'u') {
      const hex = raw.slice(pos + 1, pos + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
        throw new ParseFailure({
          problem: 'escape',
          message: 'Parse error: unfinished Unicode escape sequence',
          start: offset,
          end: offset + 2 + hex.length,
        });
      }
      out += String.fromCharCode(parseInt(hex, 16));
      pos += 4;
    } else {
      throw new ParseFailure({
        problem: 'escape',
        message: `Parse error: unknown escape sequence \`\\${escape ?? ''}\``,
        start: offset,
        end: offset + 2,
      });
    }
  }
  return out;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\',
  '"': '"',
  n: '\n',
  b: '\b',
  f: '\f',
  r: '\r',
  t: '\t',
  '/': '/',
};

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  private get current(): Token {
    return this.tokens[this.pos] as Token;
  }

  private peek(offset = 1): Token {
    return (this.tokens[this.pos + offset] ?? this.tokens[this.tokens.length - 1]) as Token;
  }

  private at(kind: TokenKind): boolean {
    return this.current.kind === kind;
  }

  private fail(expected: string, token: Token = this.current): never {
    throw new ParseFailure({
      problem: 'syntax',
      message: `Parse error: expected ${expected} but found ${describe(token)}`,
      start: token.start,
      end: Math.max(token.end, token.start + 1),
    });
  }

  private tooLong(what: string): never {
    throw new ParseFailure({
      problem: 'nesting',
      message: `Parse error: more than ${MAX_CHAIN} ${what}`,
      start: this.current.start,
      end: Math.max(this.current.end, this.current.start + 1),
    });
  }

  private advance(): Token {
    const token = this.current;
    if (token.kind !== 'eof') this.pos++;
    return token;
  }

  private expect(kind: TokenKind, what = `\`${kind}\``): Token {
    if (!this.at(kind)) this.fail(what);
    return this.advance();
  }

  private accept(kind: TokenKind): Token | undefined {
    return this.at(kind) ? this.advance() : undefined;
  }

  // ───────────────────────────── program level ─────────────────────────────

  parseProgram(bodyRequired: boolean): Program {
    const imports: ImportDecl[] = [];
    while (this.at('import')) imports.push(this.parseImport());
    const lets: LetBinding[] = [];
    const functions: FunctionDecl[] = [];
    for (;;) {
      if (this.at('let')) lets.push(this.parseLet());
      else if (this.at('def')) functions.push(this.parseFunction());
      else break;
    }
    let body: Expr | undefined;
    if (bodyRequired || !this.at('eof')) body = this.parseExpr();
    if (!this.at('eof')) this.fail('end of query or an operator');
    return { imports, lets, functions, body };
  }

  private parseImport(): ImportDecl {
    const start = this.advance().start;
    const path = decodeStringToken(this.expect('string', 'a module path string'));
    this.expect('as');
    const prefix = this.expect('ident', 'a module prefix');
    return { path, prefix: prefix.text, start, end: prefix.end };
  }

  private parseLets(): LetBinding[] {
    const lets: LetBinding[] = [];
    while (this.at('let')) lets.push(this.parseLet());
    return lets;
  }

  private parseLet(): LetBinding {
    const start = this.advance().start;
    const name = this.expect('ident', 'a variable name').text;
    this.expect('=');
    const value = this.parseExpr();
    return { name, value, start, end: value.end };
  }

  private parseFunction(): FunctionDecl {
    const start = this.advance().start;
    const nameToken = this.expect('ident', 'a function name');
    this.expect('(');
    const params: string[] = [];
    if (!this.at(')')) {
      params.push(this.expect('ident', 'a parameter name').text);
      while (this.accept(',')) params.push(this.expect('ident', 'a parameter name').text);
    }
    this.expect(')');
    const lets = this.parseLets();
    const body = this.parseExpr();
    return {
      name: nameToken.text,
      nameRange: { start: nameToken.start, end: nameToken.end },
      params,
      lets,
      body,
      start,
      end: body.end,
    };
  }

  // ───────────────────────────── operators ─────────────────────────────

  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_NESTING) {
      throw new ParseFailure({
        problem: 'nesting',
        message: `Parse error: query nested more than ${MAX_NESTING} levels deep`,
        start: this.current.start,
        end: this.current.end,
      });
    }
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  parseExpr(): Expr {
    return this.nested(() => this.leftChain(['|'], () => this.parseOr()));
  }

  private binary(op: BinaryOperator, left: Expr, right: Expr): Expr {
    return { kind: 'binary', op, left, right, start: left.start, end: right.end };
  }

  private leftChain(operators: readonly TokenKind[], operand: () => Expr): Expr {
    let left = operand();
    let length = 1;
    while (operators.includes(this.current.kind)) {
      if (++length > MAX_CHAIN) this.tooLong('operands in one operator chain');
      const op = this.advance().kind as BinaryOperator;
      left = this.binary(op, left, operand());
    }
    return left;
  }

  /** `or` and `and` associate to the right in the reference grammar; built without recursion. */
  private rightChain(operator: 'or' | 'and', operand: () => Expr): Expr {
    const operands = [operand()];
    while (this.accept(operator)) {
      if (operands.length >= MAX_CHAIN) this.tooLong('operands in one operator chain');
      operands.push(operand());
    }
    let result = operands.pop() as Expr;
    while (operands.length > 0) result = this.binary(operator, operands.pop() as Expr, result);
    return result;
  }

  private parseOr(): Expr {
    return this.rightChain('or', () => this.parseAnd());
  }

  private parseAnd(): Expr {
    return this.rightChain('and', () => this.parseComparison());
  }

  private parseComparison(): Expr {
    const left = this.parseAdditive();
    if (!COMPARATORS.has(this.current.kind)) return left;
    const op = this.advance().kind as BinaryOperator;
    return this.binary(op, left, this.parseAdditive());
  }

  private parseAdditive(): Expr {
    return this.leftChain(['+', '-'], () => this.parseMultiplicative());
  }

  private parseMultiplicative(): Expr {
    return this.leftChain(['*', '/', '%'], () => this.parseBase());
  }

  // ───────────────────────────── base expressions ─────────────────────────────

  private parseBase(): Expr {
    const token = this.current;
    switch (token.kind) {
      case 'null':
        this.advance();
        return { kind: 'literal', value: null, start: token.start, end: token.end };
      case 'true':
      case 'false':
        this.advance();
        return { kind: 'literal', value: token.kind === 'true', start: token.start, end: token.end };
      case 'integer':
      case 'decimal':
        this.advance();
        return {
          kind: 'number',
          text: token.text,
          decimal: token.kind === 'decimal',
          start: token.start,
          end: token.end,
        };
      case 'string':
        this.advance();
        return { kind: 'literal', value: decodeStringToken(token), start: token.start, end: token.end };
      case '(': {
        this.advance();
        const inner = this.parseExpr();
        const close = this.expect(')');
        return { ...inner, start: token.start, end: close.end };
      }
      case 'if':
        return this.parseIf();
      case '[':
        return this.nested(() => (this.peek().kind === 'for' ? this.parseArrayFor() : this.parseArray()));
      case '{':
        return this.nested(() => (this.peek().kind === 'for' ? this.parseObjectFor() : this.parseObject()));
      case '.':
      case 'variable':
      case 'ident':
      case 'pident':
        return this.parseChain();
      default:
        return this.fail('an expression');
    }
  }

  private parseChain(): Expr {
    const token = this.advance();
    let expr: Expr;
    if (token.kind === 'variable') {
      expr = { kind: 'variable', name: token.text.slice(1), start: token.start, end: token.end };
    } else if (token.kind === 'ident' || token.kind === 'pident') {
      expr = this.parseCall(token);
    } else if (this.at('ident') || this.at('string')) {
      const keyToken = this.advance();
      const key = keyToken.kind === 'string' ? decodeStringToken(keyToken) : keyToken.text;
      expr = { kind: 'key', target: undefined, key, start: token.start, end: keyToken.end };
    } else {
      expr = { kind: 'dot', start: token.start, end: token.end };
    }
    let links = 0;
    for (;;) {
      if (this.at('.')) {
        this.advance();
        if (!this.at('ident') && !this.at('string')) this.fail('a key name after `.`');
        const keyToken = this.advance();
        const key = keyToken.kind === 'string' ? decodeStringToken(keyToken) : keyToken.text;
        expr = {
          kind: 'key',
          target: expr.kind === 'dot' ? undefined : expr,
          key,
          start: expr.start,
          end: keyToken.end,
        };
      } else if (this.at('[')) {
        expr = this.parseSlice(expr);
      } else {
        return expr;
      }
      if (++links > MAX_CHAIN) this.tooLong('links in one path');
    }
  }

  private parseCall(nameToken: Token): Expr {
    if (!this.at('(')) this.fail(`\`(\` after the function name \`${nameToken.text}\``);
    return this.nested(() => {
      this.advance();
      const args: Expr[] = [];
      if (!this.at(')')) {
        args.push(this.parseExpr());
        while (this.accept(',')) args.push(this.parseExpr());
      }
      const close = this.expect(')', '`,` or `)`');
      return {
        kind: 'call',
        name: nameToken.text,
        nameRange: { start: nameToken.start, end: nameToken.end },
        args,
        start: nameToken.start,
        end: close.end,
      } as const;
    });
  }

  private parseSlice(target: Expr): Expr {
    return this.nested(() => {
      this.advance();
      const base = target.kind === 'dot' ? undefined : target;
      let from: Expr | undefined;
      if (!this.at(':')) from = this.parseExpr();
      if (this.accept(':')) {
        let to: Expr | undefined;
        if (!this.at(']')) to = this.parseExpr();
        else if (from === undefined) this.fail('an index expression');
        const close = this.expect(']');
        return { kind: 'slice', target: base, from, to, start: target.start, end: close.end } as const;
      }
      const close = this.expect(']', '`:` or `]`');
      return { kind: 'index', target: base, index: from as Expr, start: target.start, end: close.end } as const;
    });
  }

  private parseIf(): Expr {
    const start = this.advance().start;
    this.expect('(');
    const condition = this.parseExpr();
    this.expect(')');
    const thenLets = this.parseLets();
    const then = this.parseExpr();
    let elseLets: LetBinding[] = [];
    let otherwise: Expr | undefined;
    if (this.accept('else')) {
      elseLets = this.parseLets();
      otherwise = this.parseExpr();
    }
    return { kind: 'if', condition, thenLets, then, elseLets, else: otherwise, start, end: (otherwise ?? then).end };
  }

  private parseLoopHead(): Expr {
    this.advance(); // `for`
    this.expect('(');
    const sequence = this.parseExpr();
    this.expect(')');
    return sequence;
  }

  private parseFilter(): Expr | undefined {
    if (!this.accept('if')) return undefined;
    this.expect('(');
    const filter = this.parseExpr();
    this.expect(')');
    return filter;
  }

  private parseArrayFor(): Expr {
    const start = this.advance().start;
    const sequence = this.parseLoopHead();
    const lets = this.parseLets();
    const body = this.parseExpr();
    const filter = this.parseFilter();
    const close = this.expect(']', '`if` or `]`');
    return { kind: 'arrayFor', sequence, lets, body, filter, start, end: close.end };
  }

  private parseArray(): Expr {
    const start = this.advance().start;
    const items: Expr[] = [];
    while (!this.at(']')) {
      items.push(this.parseExpr());
      if (!this.accept(',')) break;
    }
    const close = this.expect(']', '`,` or `]`');
    return { kind: 'array', items, start, end: close.end };
  }

  private parseObjectFor(): Expr {
    const start = this.advance().start;
    const sequence = this.parseLoopHead();
    const lets = this.parseLets();
    const key = this.parseExpr();
    this.expect(':');
    const value = this.parseExpr();
    const filter = this.parseFilter();
    const close = this.expect('}', '`if` or `}`');
    return { kind: 'objectFor', sequence, lets, key, value, filter, start, end: close.end };
  }

  private parseObject(): Expr {
    const start = this.advance().start;
    const lets = this.parseLets();
    const pairs: ObjectPair[] = [];
    let matcher: ObjectMatcher | undefined;
    while (!this.at('}')) {
      if (this.at('*')) {
        matcher = this.parseMatcher();
        this.accept(',');
        break;
      }
      const key = this.parseExpr();
      this.expect(':');
      const value = this.parseExpr();
      pairs.push({ key, value, start: key.start, end: value.end });
      if (!this.accept(',')) break;
    }
    const close = this.expect('}', '`,` or `}`');
    return { kind: 'object', lets, pairs, matcher, start, end: close.end };
  }

  private parseMatcher(): ObjectMatcher {
    const start = this.advance().start;
    const minus: string[] = [];
    if (this.accept('-')) {
      do {
        if (!this.at('ident') && !this.at('string')) this.fail('a key name to leave out');
        const token = this.advance();
        minus.push(token.kind === 'string' ? decodeStringToken(token) : token.text);
      } while (this.accept(','));
    }
    this.expect(':');
    const value = this.parseExpr();
    return { minus, value, start, end: value.end };
  }
}

function toParseError(error: unknown): ParseError {
  if (error instanceof ParseFailure) return error.details;
  throw error;
}

/** Parses a JSLT program; `module` allows a missing body (imported files may only declare). */
export function parseJslt(source: string, options: { module?: boolean } = {}): ParseResult {
  const { tokens, error } = tokenize(source);
  if (error)
    return {
      error: { problem: 'syntax', message: `Parse error: ${error.message}`, start: error.start, end: error.end },
    };
  try {
    return { program: new Parser(tokens).parseProgram(!options.module) };
  } catch (failure) {
    return { error: toParseError(failure) };
  }
}

export type { Range };
