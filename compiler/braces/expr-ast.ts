/**
 * The syntax tree of one Double Braces expression (the text between `{{` and `}}`).
 * Every node has a `span` in HOST-file offsets, so diagnostics point into the .pipe file.
 *
 * Example: `CONCAT(message.name, "!")` is
 *   { kind: 'call', name: 'CONCAT', args: [
 *       { kind: 'member', object: { kind: 'name', name: 'message' }, property: 'name' },
 *       { kind: 'literal', value: '!' } ] }
 */
import type { Span } from '../../base/source/span.js';

export type Expr =
  | LiteralExpr
  | NameExpr
  | MemberExpr
  | IndexExpr
  | CallExpr
  | UnaryExpr
  | BinaryExpr
  | ArrayExpr
  | ObjectExpr
  | LambdaExpr;

export interface LiteralExpr {
  readonly kind: 'literal';
  readonly value: null | boolean | number | string;
  readonly span: Span;
}

/** A bare word: a scope root (`message`, `global`, `account`, `metadata`, `item`, `step`, `capsule`), a lambda parameter or an unknown name. */
export interface NameExpr {
  readonly kind: 'name';
  readonly name: string;
  readonly span: Span;
}

/** `object.property`; `property` may be `$` (`message.$`) or dashed after `global.`/`account.`/`step.`. */
export interface MemberExpr {
  readonly kind: 'member';
  readonly object: Expr;
  readonly property: string;
  readonly propertySpan: Span;
  readonly span: Span;
}

/** `object[index]`. */
export interface IndexExpr {
  readonly kind: 'index';
  readonly object: Expr;
  readonly index: Expr;
  readonly span: Span;
}

/** `NAME(args)`; `name` as written (function names are case-insensitive). */
export interface CallExpr {
  readonly kind: 'call';
  readonly name: string;
  readonly nameSpan: Span;
  readonly args: readonly Expr[];
  readonly span: Span;
}

export type UnaryOperator = '-' | '!';

export interface UnaryExpr {
  readonly kind: 'unary';
  readonly op: UnaryOperator;
  readonly operand: Expr;
  readonly span: Span;
}

export type BinaryOperator = '+' | '-' | '*' | '/' | '%' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '&&' | '||' | '??';

export interface BinaryExpr {
  readonly kind: 'binary';
  readonly op: BinaryOperator;
  readonly left: Expr;
  readonly right: Expr;
  readonly opSpan: Span;
  readonly span: Span;
}

export interface ArrayExpr {
  readonly kind: 'array';
  readonly items: readonly Expr[];
  readonly span: Span;
}

export interface ObjectEntryExpr {
  readonly key: string;
  readonly keySpan: Span;
  readonly value: Expr;
}

export interface ObjectExpr {
  readonly kind: 'object';
  readonly entries: readonly ObjectEntryExpr[];
  readonly span: Span;
}

export interface LambdaParam {
  readonly name: string;
  readonly span: Span;
}

/**
 * `x => body` or `(acc, x) => body` (beyond Digibee). The parser accepts it wherever an expression
 * may start; the checker allows it only as the lambda argument of an array function (MAP, FILTER…).
 */
export interface LambdaExpr {
  readonly kind: 'lambda';
  readonly params: readonly LambdaParam[];
  readonly body: Expr;
  readonly arrowSpan: Span;
  readonly span: Span;
}
