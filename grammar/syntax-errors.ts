/**
 * The grammar's diagnostics, prose included (PIPE1001–PIPE1020): the input guards of parse.ts, the
 * lexer's unclosed tokens and unknown characters, and Chevrotain recognition errors and stray
 * top-level tokens. For the last two, input: the parser's errors (whose messages are JSON facts,
 * see parser.ts), the token stream and the source text; output: one readable diagnostic per
 * distinct error position.
 */
import type { IRecognitionException, IToken, TokenType } from 'chevrotain';
import type { Diagnostic } from '../base/diagnostics/diagnostic.js';
import { diagnostic } from '../base/diagnostics/codes.js';
import { span, type Span } from '../base/source/span.js';
import { isEndOfInput, type ErrorFacts } from './parser.js';
import * as T from './tokens.js';

/** The end offset of a token (lexer.ts has the same; imported from there it would make a cycle). */
const tokenEnd = (token: IToken): number => token.startOffset + token.image.length;

/** Chevrotain recovery can keep finding trouble in a badly broken file; past this, stop reporting. */
const MAX_PARSE_DIAGNOSTICS = 100;

const CLOSER_OF: ReadonlyMap<TokenType, TokenType> = new Map([
  [T.LBrace, T.RBrace],
  [T.LBracket, T.RBracket],
  [T.LParen, T.RParen],
]);
const CLOSERS: ReadonlySet<TokenType> = new Set([T.RBrace, T.RBracket, T.RParen]);

/** What a rule is, for "expected … in/after …" messages. */
const RULE_PHRASES: Readonly<Record<string, string>> = {
  importDecl: 'the import',
  schemaDecl: 'the schema declaration',
  accountDecl: 'the account declaration',
  globalDecl: 'the global declaration',
  storeDecl: 'the store declaration',
  pipelineDecl: 'the pipeline',
  capsuleDecl: 'the capsule',
  capsuleParam: 'the capsule parameter',
  triggerDecl: 'the trigger',
  onErrorDecl: 'the on-error block',
  branchDecl: 'the branch',
  stepsBlock: 'the block of steps',
  respondStep: 'the respond step',
  failStep: 'the fail step',
  choiceStep: 'the choice',
  whenClause: 'the when clause',
  otherwiseClause: 'the otherwise clause',
  tryStep: 'the try step',
  forEachStep: 'the for-each step',
  connectorStep: 'the step',
  object: 'the object',
  array: 'the array',
  parenEntries: 'the options',
  call: 'the function call',
  entry: 'the entry',
  testDecl: 'the test',
  testItem: 'the test',
  mockDecl: 'the mock',
  expectDecl: 'the expectation',
  expectPart: 'the expectation',
};

// ───────────────────────────── input guards (parse.ts) ─────────────────────────────

export function fileTooLarge(at: Span, chars: number, limit: number): Diagnostic {
  return diagnostic('PIPE1009', {
    message: `file is too large (${chars} characters; the limit is ${limit})`,
    span: at,
    label: 'file starts here',
  });
}

export function notText(at: Span): Diagnostic {
  return diagnostic('PIPE1008', {
    message: 'file is not text: it contains a NUL byte or invalid UTF-8',
    span: at,
    label: 'not a text character',
    hint: 'save the file as UTF-8 text',
  });
}

export function nestedTooDeep(at: Span, limit: number): Diagnostic {
  return diagnostic('PIPE1010', {
    message: `nesting is deeper than ${limit} levels`,
    span: at,
    label: `level ${limit + 1} opens here`,
    hint: 'check for unbalanced brackets, or move deep data to a JSON file and import it',
  });
}

// ───────────────────────────── lexer ─────────────────────────────

export function unclosedComment(at: Span): Diagnostic {
  return diagnostic('PIPE1003', {
    message: 'this block comment is never closed',
    span: at,
    label: 'comment opened here',
    hint: 'close it with `*/`',
  });
}

export function unexpectedCharacters(at: Span, found: string): Diagnostic {
  return diagnostic('PIPE1001', {
    message:
      found.length === 1
        ? `unexpected character \`${printable(found)}\``
        : `unexpected characters \`${printable(found)}\``,
    span: at,
    label: 'not part of the language',
    ...hintForCharacter(found.charAt(0)),
  });
}

function hintForCharacter(char: string): { hint?: string } {
  switch (char) {
    case '#':
      return { hint: 'comments start with `//` (or use `/* … */`)' };
    case ';':
      return { hint: 'steps and entries need no `;`: separate them with a newline or `,`' };
    case '/':
      return { hint: 'comments start with `//`; a path belongs in a string: "/orders"' };
    case '.':
      return { hint: 'numbers are written like `0.5` and dotted names like `crm.token`' };
    default:
      return {};
  }
}

/** Shows control characters as escapes so a message never carries raw bytes. */
function printable(text: string): string {
  const clipped = text.length > 20 ? `${text.slice(0, 20)}…` : text;
  return clipped.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function unclosedString(at: Span, quote: string): Diagnostic {
  return diagnostic('PIPE1002', {
    message: 'this string is never closed',
    span: at,
    label: `missing closing ${quote}`,
    hint: `end the string with ${quote} on the same line; for text over several lines use """ … """`,
  });
}

export function unclosedTripleString(at: Span): Diagnostic {
  return diagnostic('PIPE1002', {
    message: 'this `"""` string is never closed',
    span: at,
    label: 'opened here',
    hint: 'close it with `"""`',
  });
}

export function unclosedBraces(at: Span): Diagnostic {
  return diagnostic('PIPE1004', {
    message: 'this `{{` expression is never closed',
    span: at,
    label: 'opened here',
    hint: 'close the expression with `}}`',
  });
}

// ───────────────────────────── recognition errors ─────────────────────────────

export interface SyntaxErrorContext {
  readonly file: string;
  readonly text: string;
  readonly tokens: readonly IToken[];
}

export function recognitionDiagnostics(
  context: SyntaxErrorContext,
  errors: readonly IRecognitionException[],
): Diagnostic[] {
  const seen = new Set<number>();
  const out: Diagnostic[] = [];
  for (const error of errors) {
    if (out.length >= MAX_PARSE_DIAGNOSTICS) break;
    const at = foundSpan(context, error.token);
    if (seen.has(at.start)) continue;
    seen.add(at.start);
    out.push(recognitionDiagnostic(context, error, at));
  }
  return out;
}

function readFacts(error: IRecognitionException): ErrorFacts | undefined {
  try {
    return JSON.parse(error.message) as ErrorFacts;
  } catch {
    return undefined;
  }
}

function recognitionDiagnostic(context: SyntaxErrorContext, error: IRecognitionException, at: Span): Diagnostic {
  const facts = readFacts(error);
  const found = describeToken(error.token);
  if (!facts) {
    return diagnostic('PIPE1015', { message: `unexpected ${found}`, span: at, label: 'unexpected here' });
  }
  const where = RULE_PHRASES[facts.rule] ?? 'this construct';
  if (facts.kind === 'mismatch') {
    const expected = tokenTypeByName(facts.expected);
    if (expected && CLOSERS.has(expected)) return unclosed(context, error.token, expected, at, found);
    if (expected === T.Colon) {
      return diagnostic('PIPE1013', {
        message: `expected \`:\` in ${where}, found ${found}`,
        span: at,
        label: 'expected `:` before this',
        ...(facts.rule === 'accountDecl' ? { hint: 'accounts are written `account name: type { … }`' } : {}),
      });
    }
    return diagnostic('PIPE1015', {
      message: `expected ${labelOf(facts.expected)} in ${where}, found ${found}`,
      span: at,
      label: `expected ${labelOf(facts.expected)}`,
      ...hintForMismatch(facts.expected, facts.rule, error.token),
    });
  }
  if (facts.kind === 'no-alternative' && facts.rule === 'value') {
    return diagnostic('PIPE1014', { message: `expected a value, found ${found}`, span: at, label: 'expected a value' });
  }
  if (facts.kind === 'no-alternative' && facts.rule === 'condition') {
    return diagnostic('PIPE1015', {
      message: `expected a condition, found ${found}`,
      span: at,
      label: 'expected a JSONPath string or `{{ … }}`',
      hint: 'write `when "$.body[?(@.total > 10)]" { … }` or `when {{ message.total > 10 }} { … }`',
    });
  }
  if (facts.kind === 'no-alternative' || facts.kind === 'early-exit') {
    const expected = facts.expected.map(labelOf);
    return diagnostic('PIPE1015', {
      message: `expected ${oneOf(expected)} in ${where}, found ${found}`,
      span: at,
      label: 'unexpected here',
    });
  }
  return diagnostic('PIPE1020', {
    message: `expected a declaration, found ${found}`,
    span: at,
    label: 'unexpected here',
  });
}

function hintForMismatch(expected: string, rule: string, token: IToken): { hint?: string } {
  if (expected === 'LBrace' && rule === 'stepsBlock')
    return { hint: 'blocks of steps are written `{ … }`, even when empty' };
  if (expected === 'Equals') return { hint: 'globals are written `global name = value`' };
  if (expected === 'Word' && token.tokenType === T.DottedIdentifier) {
    return { hint: 'names cannot contain dots; use dashes, like `order-created`' };
  }
  if (expected === 'NumberLiteral' && rule === 'respondStep')
    return { hint: 'write the HTTP status first: `respond 200 { … }`' };
  return {};
}

/** "expected `}` to close the `{` opened at line 3, found `pipeline`", or a mismatched closer. */
function unclosed(
  context: SyntaxErrorContext,
  found: IToken,
  expected: TokenType,
  at: Span,
  foundText: string,
): Diagnostic {
  const opener = innermostOpener(context.tokens, found, expected);
  const expectedLabel = labelOf(expected.name);
  if (!opener) {
    return diagnostic('PIPE1011', {
      message: `expected ${expectedLabel}, found ${foundText}`,
      span: at,
      label: `expected ${expectedLabel}`,
    });
  }
  const line = lineOf(context.text, opener.startOffset);
  const openerSpan = span(context.file, opener.startOffset, tokenEnd(opener));
  const code = CLOSERS.has(found.tokenType) ? 'PIPE1012' : 'PIPE1011';
  return diagnostic(code, {
    message: `expected ${expectedLabel} to close the ${labelOf(opener.tokenType.name)} opened at line ${line}, found ${foundText}`,
    span: at,
    label: `expected ${expectedLabel} before this`,
    secondary: [{ span: openerSpan, message: 'opened here' }],
    hint: `add ${expectedLabel} where the ${labelOf(opener.tokenType.name)} at line ${line} should end`,
  });
}

/** The innermost still-open bracket of the kind `closer` closes, before `found` in the stream. */
function innermostOpener(tokens: readonly IToken[], found: IToken, closer: TokenType): IToken | undefined {
  const limit = isEndOfInput(found) ? Number.POSITIVE_INFINITY : found.startOffset;
  const stack: IToken[] = [];
  for (const token of tokens) {
    if (token.startOffset >= limit) break;
    if (CLOSER_OF.has(token.tokenType)) stack.push(token);
    else if (CLOSERS.has(token.tokenType)) {
      // Pop the nearest opener this closer matches; an unmatched closer leaves the stack alone.
      for (let k = stack.length - 1; k >= 0; k--) {
        if (CLOSER_OF.get(stack[k]!.tokenType) === token.tokenType) {
          stack.length = k;
          break;
        }
      }
    }
  }
  for (let k = stack.length - 1; k >= 0; k--) {
    const candidate = stack[k]!;
    if (CLOSER_OF.get(candidate.tokenType) === closer) return candidate;
  }
  return undefined;
}

// ───────────────────────────── stray top-level tokens ─────────────────────────────

/** One diagnostic per run of consecutive stray tokens at the top level. */
export function strayDiagnostics(
  context: SyntaxErrorContext,
  strays: readonly IToken[],
  alreadyReported: ReadonlySet<number>,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (strays.length === 0) return out;
  const sorted = [...strays].sort((a, b) => a.startOffset - b.startOffset);
  const position = new Map(context.tokens.map((token, at) => [token, at]));
  const adjacent = (a: IToken, b: IToken): boolean => {
    const at = position.get(a);
    return at !== undefined && position.get(b) === at + 1;
  };
  let index = 0;
  while (index < sorted.length && out.length < MAX_PARSE_DIAGNOSTICS) {
    const first = sorted[index]!;
    let last = first;
    index++;
    while (index < sorted.length && adjacent(last, sorted[index]!)) {
      last = sorted[index]!;
      index++;
    }
    // Recovery often hands the tokens after a parse error to the top level: that error says it all.
    if (!alreadyReported.has(first.startOffset)) out.push(strayDiagnostic(context, first));
  }
  return out;
}

function strayDiagnostic(context: SyntaxErrorContext, token: IToken): Diagnostic {
  const at = span(context.file, token.startOffset, tokenEnd(token));
  if (CLOSERS.has(token.tokenType)) {
    return diagnostic('PIPE1012', {
      message: `unexpected ${labelOf(token.tokenType.name)}: nothing is open here`,
      span: at,
      label: 'nothing to close',
      hint: 'remove it, or look above for a block that was closed too early',
    });
  }
  const found = describeToken(token);
  return diagnostic('PIPE1020', {
    message: `expected a declaration, found ${found}`,
    span: at,
    label: 'not a declaration',
    hint: 'a file holds import, schema, account, global, store, pipeline and capsule declarations; steps go inside a pipeline',
  });
}

// ───────────────────────────── helpers ─────────────────────────────

const TOKEN_BY_NAME: ReadonlyMap<string, TokenType> = new Map(T.allTokens.map((t) => [t.name, t]));

function tokenTypeByName(name: string): TokenType | undefined {
  return TOKEN_BY_NAME.get(name);
}

function labelOf(name: string): string {
  return TOKEN_BY_NAME.get(name)?.LABEL ?? name;
}

function oneOf(labels: readonly string[]): string {
  const unique = [...new Set(labels)];
  if (unique.length <= 1) return unique[0] ?? 'something else';
  return `${unique.slice(0, -1).join(', ')} or ${unique[unique.length - 1]}`;
}

function describeToken(token: IToken): string {
  if (isEndOfInput(token)) return 'the end of the file';
  const image = token.image.length > 24 ? `${token.image.slice(0, 24)}…` : token.image;
  return `\`${image.replace(/\n[\s\S]*/, '…')}\``;
}

function foundSpan(context: SyntaxErrorContext, token: IToken): Span {
  if (isEndOfInput(token) || Number.isNaN(token.startOffset)) {
    return span(context.file, context.text.length, context.text.length);
  }
  return span(context.file, token.startOffset, tokenEnd(token));
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
