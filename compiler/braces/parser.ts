/**
 * Parser of Double Braces expressions: a hand-written precedence-climbing parser over the
 * tokens of lexer.ts. Precedence follows JavaScript, lowest first:
 *   x => …  ·  ??  ·  ||  ·  &&  ·  == !=  ·  < <= > >=  ·  + -  ·  * / %  ·  unary ! -  ·  .x [i] f(…)
 * A lambda (`x => body`, `(acc, x) => body`) is recognised by looking ahead for `=>` wherever a
 * whole expression starts; its body extends as far right as possible, as in JavaScript.
 * Nesting is limited (MAX_DEPTH) so hostile input cannot overflow the stack here or in the
 * later tree walks. The parser stops at the first problem (one expression is small; a precise
 * first error is worth more than a cascade).
 * In: expression text + host offset map. Out: an `Expr`, or a `SyntaxProblem` with its span.
 */
import { joinSpans, type Span } from '../../base/source/span.js';
import type { BinaryOperator, Expr, LambdaParam, ObjectEntryExpr } from './expr-ast.js';
import { hostSpan, tokenize, type OffsetMap, type Token } from './lexer.js';

/** Deepest nesting of the tree (parentheses, calls, operators, literals) accepted. */
export const MAX_DEPTH = 200;

export interface SyntaxProblem {
  readonly reason:
    'empty' | 'unexpected-token' | 'unterminated-string' | 'bad-character' | 'bad-number' | 'too-deep' | 'unclosed';
  readonly message: string;
  readonly span: Span;
  readonly label: string;
  readonly hint?: string;
}

export type ParseResult =
  | { readonly expr: Expr; readonly problem?: undefined }
  | { readonly expr?: undefined; readonly problem: SyntaxProblem };

/** Scope roots after which member names may contain dashes (`global.read-timeout`). */
const DASHED_ROOTS = new Set(['global', 'step', 'capsule']);

const BINARY_LEVELS: readonly (readonly BinaryOperator[])[] = [
  ['??'],
  ['||'],
  ['&&'],
  ['==', '!='],
  ['<', '<=', '>', '>='],
  ['+', '-'],
  ['*', '/', '%'],
];

class Stop extends Error {
  constructor(readonly problem: SyntaxProblem) {
    super(problem.message);
  }
}

function describeToken(token: Token): string {
  if (token.kind === 'eof') return 'the end of the expression';
  if (token.kind === 'string') return 'a string';
  if (token.kind === 'number') return `the number \`${token.text}\``;
  return `\`${token.text}\``;
}

class ExprParser {
  private pos = 0;
  private depth = 0;
  /** Tree depth of every node built, computed bottom-up without recursion. */
  private readonly heights = new Map<Expr, number>();

  constructor(
    private readonly tokens: readonly Token[],
    private readonly map: OffsetMap,
    private readonly text: string,
  ) {}

  parseAll(): Expr {
    if (this.peek().kind === 'eof') {
      throw new Stop({
        reason: 'empty',
        message: 'empty {{ }} expression',
        span: hostSpan(this.map, 0, this.text.length),
        label: 'nothing to evaluate',
        hint: 'write an expression, e.g. `{{ message.id }}`, or remove the braces',
      });
    }
    const expr = this.expression(0);
    const next = this.peek();
    if (next.kind !== 'eof') {
      const hint = next.kind === 'punct' && next.text === ')' ? 'this `)` has no matching `(`' : undefined;
      this.unexpected(next, 'an operator or the end of the expression', hint);
    }
    return expr;
  }

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)] as Token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.pos++;
    return token;
  }

  private isPunct(text: string, token = this.peek()): boolean {
    return token.kind === 'punct' && token.text === text;
  }

  private expect(text: string, opening?: Token): Token {
    const token = this.peek();
    if (this.isPunct(text)) return this.next();
    if (opening && token.kind === 'eof') {
      throw new Stop({
        reason: 'unclosed',
        message: `\`${opening.text}\` is never closed`,
        span: opening.span,
        label: `expected \`${text}\` to close this`,
        hint: `add \`${text}\``,
      });
    }
    return this.unexpected(token, `\`${text}\``);
  }

  private unexpected(token: Token, expected: string, hint?: string): never {
    const arrowHint = this.isPunct('=>', token)
      ? 'a lambda starts with its parameters: `x => x.price` or `(acc, x) => acc + x`, as an argument of MAP, FILTER, REDUCE…'
      : undefined;
    hint ??= arrowHint;
    throw new Stop({
      reason: 'unexpected-token',
      message: `expected ${expected}, found ${describeToken(token)}`,
      span: token.kind === 'eof' ? hostSpan(this.map, this.text.length, this.text.length) : token.span,
      label: `expected ${expected}`,
      ...(hint ? { hint } : {}),
    });
  }

  private enter(token: Token): void {
    this.depth++;
    if (this.depth > MAX_DEPTH) {
      throw new Stop({
        reason: 'too-deep',
        message: `expression nested more than ${MAX_DEPTH} levels deep`,
        span: token.span,
        label: 'nesting limit reached here',
        hint: 'split the computation over several steps or simplify it',
      });
    }
  }

  private leave(): void {
    this.depth--;
  }

  /** Registers a node's height from its children and enforces MAX_DEPTH on left-deep chains too. */
  private built<T extends Expr>(node: T, children: readonly Expr[], at: Token): T {
    let tallest = 0;
    for (const child of children) tallest = Math.max(tallest, this.heights.get(child) ?? 1);
    const height = 1 + tallest;
    if (height > MAX_DEPTH) {
      throw new Stop({
        reason: 'too-deep',
        message: `expression nested more than ${MAX_DEPTH} levels deep`,
        span: at.span,
        label: 'nesting limit reached here',
        hint: 'split the computation over several steps or simplify it',
      });
    }
    this.heights.set(node, height);
    return node;
  }

  private expression(level: number): Expr {
    if (level === 0 && this.lambdaAhead()) return this.lambda();
    if (level >= BINARY_LEVELS.length) return this.unary();
    const ops = BINARY_LEVELS[level] as readonly BinaryOperator[];
    let left = this.expression(level + 1);
    for (;;) {
      const token = this.peek();
      if (token.kind !== 'punct' || !(ops as readonly string[]).includes(token.text)) return left;
      this.next();
      const right = this.expression(level + 1);
      left = this.built(
        {
          kind: 'binary',
          op: token.text as BinaryOperator,
          left,
          right,
          opSpan: token.span,
          span: joinSpans(left.span, right.span),
        },
        [left, right],
        token,
      );
    }
  }

  /** `x =>`, `() =>`, `(a) =>` or `(a, b, …) =>` starts here (tokens are only looked at). */
  private lambdaAhead(): boolean {
    if (this.peek().kind === 'ident' && this.isPunct('=>', this.peek(1))) return true;
    if (!this.isPunct('(')) return false;
    let offset = 1;
    if (!this.isPunct(')', this.peek(offset))) {
      for (;;) {
        if (this.peek(offset).kind !== 'ident') return false;
        offset++;
        if (!this.isPunct(',', this.peek(offset))) break;
        offset++;
      }
      if (!this.isPunct(')', this.peek(offset))) return false;
    }
    return this.isPunct('=>', this.peek(offset + 1));
  }

  private lambda(): Expr {
    const first = this.peek();
    const params: LambdaParam[] = [];
    if (first.kind === 'ident') {
      this.next();
      params.push({ name: first.text, span: first.span });
    } else {
      this.next();
      while (!this.isPunct(')')) {
        const name = this.next();
        params.push({ name: name.text, span: name.span });
        if (this.isPunct(',')) this.next();
      }
      this.next();
    }
    const arrow = this.next();
    this.enter(arrow);
    const body = this.expression(0);
    this.leave();
    return this.built(
      { kind: 'lambda', params, body, arrowSpan: arrow.span, span: joinSpans(first.span, body.span) },
      [body],
      arrow,
    );
  }

  private unary(): Expr {
    const token = this.peek();
    if (this.isPunct('!') || this.isPunct('-')) {
      this.next();
      this.enter(token);
      const operand = this.unary();
      this.leave();
      return this.built(
        { kind: 'unary', op: token.text as '!' | '-', operand, span: joinSpans(token.span, operand.span) },
        [operand],
        token,
      );
    }
    return this.postfix(this.primary());
  }

  private postfix(start: Expr): Expr {
    let expr = start;
    for (;;) {
      const token = this.peek();
      if (this.isPunct('.')) {
        this.next();
        const name = this.memberName(expr);
        expr = this.built(
          {
            kind: 'member',
            object: expr,
            property: name.text,
            propertySpan: name.span,
            span: joinSpans(expr.span, name.span),
          },
          [expr],
          token,
        );
      } else if (this.isPunct('[')) {
        this.next();
        this.enter(token);
        const index = this.expression(0);
        this.leave();
        const close = this.expect(']', token);
        expr = this.built(
          { kind: 'index', object: expr, index, span: joinSpans(expr.span, close.span) },
          [expr, index],
          token,
        );
      } else if (this.isPunct('(')) {
        return this.unexpected(token, 'an operator', 'only functions can be called, e.g. `UPPERCASE(message.name)`');
      } else {
        return expr;
      }
    }
  }

  /** The name after `.`: an identifier, `$`, a number-like word; dashed after global./account./step. */
  private memberName(object: Expr): { text: string; span: Span } {
    const first = this.peek();
    if (first.kind !== 'ident' && first.kind !== 'number')
      return this.unexpected(
        first,
        'a field name after `.`',
        'for names with other characters write `message["field-name"]`',
      );
    this.next();
    let text = first.text;
    let last = first;
    if (allowsDashes(object)) {
      // Glue `read` `-` `timeout` into one name when written without spaces.
      while (
        this.isPunct('-') &&
        this.peek().start === last.end &&
        (this.peek(1).kind === 'ident' || this.peek(1).kind === 'number') &&
        this.peek(1).start === this.peek().end
      ) {
        this.next();
        last = this.next();
        text += `-${last.text}`;
      }
    }
    return { text, span: joinSpans(first.span, last.span) };
  }

  private primary(): Expr {
    const token = this.next();
    switch (token.kind) {
      case 'number': {
        const value = Number(token.text);
        if (!Number.isFinite(value))
          throw new Stop({
            reason: 'bad-number',
            message: `the number \`${token.text}\` is too large`,
            span: token.span,
            label: 'out of range',
          });
        return this.built({ kind: 'literal', value, span: token.span }, [], token);
      }
      case 'string':
        return this.built({ kind: 'literal', value: token.text, span: token.span }, [], token);
      case 'ident':
        return this.identifier(token);
      case 'punct':
        return this.punctuation(token);
      case 'eof':
        return this.unexpected(token, 'a value');
    }
  }

  private identifier(token: Token): Expr {
    if (token.text === 'true' || token.text === 'false')
      return this.built({ kind: 'literal', value: token.text === 'true', span: token.span }, [], token);
    if (token.text === 'null') return this.built({ kind: 'literal', value: null, span: token.span }, [], token);
    if (this.isPunct('(')) {
      const open = this.next();
      this.enter(open);
      const args: Expr[] = [];
      while (!this.isPunct(')')) {
        args.push(this.expression(0));
        if (!this.isPunct(',')) break;
        this.next();
      }
      this.leave();
      const close = this.expect(')', open);
      return this.built(
        { kind: 'call', name: token.text, nameSpan: token.span, args, span: joinSpans(token.span, close.span) },
        args,
        token,
      );
    }
    return this.built({ kind: 'name', name: token.text, span: token.span }, [], token);
  }

  private punctuation(token: Token): Expr {
    if (token.text === '(') {
      this.enter(token);
      const inner = this.expression(0);
      this.leave();
      this.expect(')', token);
      return inner;
    }
    if (token.text === '[') {
      this.enter(token);
      const items: Expr[] = [];
      while (!this.isPunct(']')) {
        items.push(this.expression(0));
        if (!this.isPunct(',')) break;
        this.next();
      }
      this.leave();
      const close = this.expect(']', token);
      return this.built({ kind: 'array', items, span: joinSpans(token.span, close.span) }, items, token);
    }
    if (token.text === '{') {
      this.enter(token);
      const entries: ObjectEntryExpr[] = [];
      while (!this.isPunct('}')) {
        const key = this.next();
        if (key.kind !== 'ident' && key.kind !== 'string') return this.unexpected(key, 'a field name');
        this.expect(':');
        entries.push({ key: key.text, keySpan: key.span, value: this.expression(0) });
        if (!this.isPunct(',')) break;
        this.next();
      }
      this.leave();
      const close = this.expect('}', token);
      return this.built(
        { kind: 'object', entries, span: joinSpans(token.span, close.span) },
        entries.map((e) => e.value),
        token,
      );
    }
    return this.unexpected(token, 'a value');
  }
}

function allowsDashes(object: Expr): boolean {
  if (object.kind === 'name') return DASHED_ROOTS.has(object.name) || object.name === 'account';
  // `account.<label>.<field>`: the field may be dashed too (`header-value`).
  return object.kind === 'member' && object.object.kind === 'name' && object.object.name === 'account';
}

/**
 * Parses one expression.
 * @example parseExpression("SUM(1, 2)", { file: "a.pipe", textStart: 10 })
 */
export function parseExpression(text: string, map: OffsetMap): ParseResult {
  const lexed = tokenize(text, map);
  if (lexed.error) {
    const e = lexed.error;
    return {
      problem: {
        reason: e.reason,
        message: e.message,
        span: e.span,
        label: e.reason === 'unterminated-string' ? 'string starts here' : 'not allowed here',
      },
    };
  }
  try {
    return { expr: new ExprParser(lexed.tokens, map, text).parseAll() };
  } catch (err) {
    if (err instanceof Stop) return { problem: err.problem };
    throw err;
  }
}
