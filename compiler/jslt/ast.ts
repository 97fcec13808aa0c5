/**
 * The JSLT syntax tree: what the parser produces and the code generator consumes.
 * Every node keeps `start`/`end`, 0-based offsets into the JSLT source (not the host file).
 */

export interface Range {
  readonly start: number;
  readonly end: number;
}

export interface LetBinding extends Range {
  readonly name: string;
  readonly value: Expr;
}

export interface FunctionDecl extends Range {
  readonly name: string;
  readonly nameRange: Range;
  readonly params: readonly string[];
  readonly lets: readonly LetBinding[];
  readonly body: Expr;
}

export interface ImportDecl extends Range {
  readonly path: string;
  readonly prefix: string;
}

/** A whole program (or an imported module, whose body is optional). */
export interface Program {
  readonly imports: readonly ImportDecl[];
  readonly lets: readonly LetBinding[];
  readonly functions: readonly FunctionDecl[];
  readonly body: Expr | undefined;
}

export type BinaryOperator = '|' | 'or' | 'and' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/' | '%';

export interface ObjectPair extends Range {
  readonly key: Expr;
  readonly value: Expr;
}

export interface ObjectMatcher extends Range {
  readonly minus: readonly string[];
  readonly value: Expr;
}

export type Expr =
  | (Range & { readonly kind: 'literal'; readonly value: null | boolean | string })
  | (Range & { readonly kind: 'number'; readonly text: string; readonly decimal: boolean })
  | (Range & { readonly kind: 'dot' })
  | (Range & { readonly kind: 'key'; readonly target: Expr | undefined; readonly key: string })
  | (Range & { readonly kind: 'index'; readonly target: Expr | undefined; readonly index: Expr })
  | (Range & {
      readonly kind: 'slice';
      readonly target: Expr | undefined;
      readonly from: Expr | undefined;
      readonly to: Expr | undefined;
    })
  | (Range & { readonly kind: 'variable'; readonly name: string })
  | (Range & {
      readonly kind: 'call';
      readonly name: string;
      readonly nameRange: Range;
      readonly args: readonly Expr[];
    })
  | (Range & { readonly kind: 'binary'; readonly op: BinaryOperator; readonly left: Expr; readonly right: Expr })
  | (Range & {
      readonly kind: 'if';
      readonly condition: Expr;
      readonly thenLets: readonly LetBinding[];
      readonly then: Expr;
      readonly elseLets: readonly LetBinding[];
      readonly else: Expr | undefined;
    })
  | (Range & { readonly kind: 'array'; readonly items: readonly Expr[] })
  | (Range & {
      readonly kind: 'arrayFor';
      readonly sequence: Expr;
      readonly lets: readonly LetBinding[];
      readonly body: Expr;
      readonly filter: Expr | undefined;
    })
  | (Range & {
      readonly kind: 'object';
      readonly lets: readonly LetBinding[];
      readonly pairs: readonly ObjectPair[];
      readonly matcher: ObjectMatcher | undefined;
    })
  | (Range & {
      readonly kind: 'objectFor';
      readonly sequence: Expr;
      readonly lets: readonly LetBinding[];
      readonly key: Expr;
      readonly value: Expr;
      readonly filter: Expr | undefined;
    });
