/**
 * Reading the typed CST (grammar/generated/cst.ts) while building the AST: the walk's context
 * (file, diagnostics) and the few helpers every part of the walk needs. A CST from error recovery
 * may lack any child, even one the grammar requires, and may hold tokens recovery invented (no
 * text, NaN offsets): these helpers treat both as absent, so a builder never guesses.
 */
import type { CstElement, CstNode, IToken } from 'chevrotain';
import type { Diagnostic } from '../../../base/diagnostics/diagnostic.js';
import { joinSpans, type Span } from '../../../base/source/span.js';
import { locationSpan, tokenSpan } from '../../../grammar/lexer.js';

/** The state of one file's walk: its path and the diagnostics reported so far. */
export class AstContext {
  readonly diagnostics: Diagnostic[] = [];

  constructor(readonly path: string) {}

  report(diagnostic: Diagnostic): void {
    this.diagnostics.push(diagnostic);
  }

  tokenSpan(token: IToken): Span {
    return tokenSpan(this.path, token);
  }

  /** A node's span; from its location, or from its tokens when recovery left no location. */
  nodeSpan(node: CstNode): Span | undefined {
    const located = locationSpan(this.path, node.location);
    if (located) return located;
    let result: Span | undefined;
    for (const children of Object.values(node.children)) {
      for (const child of children) {
        const part = isToken(child) ? (isReal(child) ? this.tokenSpan(child) : undefined) : this.nodeSpan(child);
        if (part) result = result ? joinSpans(result, part) : part;
      }
    }
    return result;
  }
}

function isToken(element: CstElement): element is IToken {
  return 'image' in element;
}

/** False for a token invented by error recovery (it carries no text). */
function isReal(token: IToken): boolean {
  return !token.isInsertedInRecovery && !Number.isNaN(token.startOffset);
}

/** The real tokens of a child list (`node.children.arg`). */
export function tokens(list: readonly IToken[] | undefined): IToken[] {
  return (list ?? []).filter(isReal);
}

/** The first real token of a child list (`token(node.children.name)`). */
export function token(list: readonly IToken[] | undefined): IToken | undefined {
  return list?.find(isReal);
}

/** The first node of a child list (`first(node.children.object)`). */
export function first<T extends CstNode>(list: readonly T[] | undefined): T | undefined {
  return list?.[0];
}

function startOf(node: CstNode): number {
  const start = node.location?.startOffset;
  return start === undefined || Number.isNaN(start) ? Number.POSITIVE_INFINITY : start;
}

/** Nodes of several child lists in source order (Chevrotain groups children by name). */
export function inSourceOrder<T extends CstNode>(...lists: readonly (readonly T[] | undefined)[]): T[] {
  return lists.flatMap((list) => list ?? []).sort((a, b) => startOf(a) - startOf(b));
}
