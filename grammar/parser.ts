/**
 * The .pipe parser: tokens → CST (Chevrotain CstParser, recovery on). Rules only; no semantics.
 *
 * The grammar is deliberately lenient where people often slip (a step without `{ }`, a missing `:`,
 * a missing value, `trigger` in the wrong place, `try` without `catch`): those shapes parse, and
 * compiler/ast/cst-to-ast.ts reports them with a precise message instead of a recovery cascade.
 * Each rule names its section in grammar/README.md. Error messages are produced as JSON facts
 * (see `errorFacts`) and turned into diagnostics by grammar/syntax-errors.ts.
 */
import type { IParserErrorMessageProvider, IToken, TokenType } from 'chevrotain';
import { CstParser, EOF } from './chevrotain.js';
import * as T from './tokens.js';

/** Structured facts smuggled through Chevrotain's string-only error messages. */
export type ErrorFacts =
  | { readonly kind: 'mismatch'; readonly expected: string; readonly rule: string }
  | { readonly kind: 'no-alternative'; readonly expected: readonly string[]; readonly rule: string }
  | { readonly kind: 'early-exit'; readonly expected: readonly string[]; readonly rule: string }
  | { readonly kind: 'not-all-input'; readonly rule: string };

function firstTokenNames(paths: readonly (readonly TokenType[])[]): string[] {
  const names = new Set<string>();
  for (const path of paths) {
    const first = path[0];
    if (first) names.add(first.name);
  }
  return [...names];
}

const errorFacts: IParserErrorMessageProvider = {
  buildMismatchTokenMessage: ({ expected, ruleName }) =>
    JSON.stringify({ kind: 'mismatch', expected: expected.name, rule: ruleName }),
  buildNotAllInputParsedMessage: ({ ruleName }) => JSON.stringify({ kind: 'not-all-input', rule: ruleName }),
  buildNoViableAltMessage: ({ expectedPathsPerAlt, ruleName }) =>
    JSON.stringify({ kind: 'no-alternative', expected: firstTokenNames(expectedPathsPerAlt.flat()), rule: ruleName }),
  buildEarlyExitMessage: ({ expectedIterationPaths, ruleName }) =>
    JSON.stringify({ kind: 'early-exit', expected: firstTokenNames(expectedIterationPaths), rule: ruleName }),
};

/** Tokens that can start a value in a position where a following step or entry could also start. */
const VALUE_START: ReadonlySet<TokenType> = new Set([
  T.LBrace,
  T.LBracket,
  T.StringLiteral,
  T.TripleString,
  T.NumberLiteral,
  T.Braces,
  T.True,
  T.False,
  T.Null,
  T.Identifier,
  T.DottedIdentifier,
]);
/** Values allowed after `respond STATUS` and `fail`: no bare words, so the next step is never eaten. */
const BODY_START: ReadonlySet<TokenType> = new Set([
  T.LBrace,
  T.LBracket,
  T.StringLiteral,
  T.TripleString,
  T.NumberLiteral,
  T.Braces,
  T.True,
  T.False,
  T.Null,
]);

function isWordLike(type: TokenType): boolean {
  return type === T.Identifier || (type.CATEGORIES ?? []).includes(T.Word);
}

export interface PipeParserOptions {
  /**
   * Run Chevrotain's grammar validations (ambiguities, left recursion, …). They take about a fifth
   * of the parser's construction, which every `pipec` start pays, and they can only fail when the
   * grammar itself changes: so production skips them and grammar/parser.test.ts builds the parser
   * with them on.
   */
  readonly validateGrammar?: boolean;
}

export class PipeParser extends CstParser {
  constructor(options: PipeParserOptions = {}) {
    super([...T.allTokens], {
      recoveryEnabled: true,
      nodeLocationTracking: 'onlyOffset',
      errorMessageProvider: errorFacts,
      maxLookahead: 3,
      skipValidations: options.validateGrammar !== true,
    });
    this.performSelfAnalysis();
  }

  // ───────────────────────────── file (README: File) ─────────────────────────────

  public file = this.RULE('file', () => {
    this.MANY(() => {
      this.OR([
        { ALT: () => this.SUBRULE(this.importDecl) },
        { ALT: () => this.SUBRULE(this.schemaDecl) },
        { ALT: () => this.SUBRULE(this.accountDecl) },
        { ALT: () => this.SUBRULE(this.globalDecl) },
        { ALT: () => this.SUBRULE(this.storeDecl) },
        { ALT: () => this.SUBRULE(this.pipelineDecl) },
        { ALT: () => this.SUBRULE(this.capsuleDecl) },
        { ALT: () => this.SUBRULE(this.testDecl) },
        // Anything else is consumed one token at a time and reported once per run of junk.
        { ALT: () => this.CONSUME(T.Stray, { LABEL: 'stray' }) },
      ]);
    });
  });

  // ───────────────────────────── declarations (README: Declarations) ─────────────────────────────

  private importDecl = this.RULE('importDecl', () => {
    this.CONSUME(T.Import);
    this.CONSUME(T.StringLiteral, { LABEL: 'path' });
    this.OPTION(() => {
      this.CONSUME(T.As);
      this.CONSUME(T.Word, { LABEL: 'alias' });
    });
  });

  private schemaDecl = this.RULE('schemaDecl', () => {
    this.CONSUME(T.Schema);
    this.CONSUME(T.Word, { LABEL: 'name' });
    this.SUBRULE(this.value);
  });

  private accountDecl = this.RULE('accountDecl', () => {
    this.CONSUME(T.Account);
    this.CONSUME(T.Word, { LABEL: 'name' });
    this.CONSUME(T.Colon);
    this.CONSUME2(T.Word, { LABEL: 'accountType' });
    this.SUBRULE(this.object);
  });

  private globalDecl = this.RULE('globalDecl', () => {
    this.CONSUME(T.Global);
    this.CONSUME(T.Word, { LABEL: 'name' });
    this.CONSUME(T.Equals);
    this.SUBRULE(this.value);
  });

  private storeDecl = this.RULE('storeDecl', () => {
    this.CONSUME(T.Store);
    this.CONSUME(T.Word, { LABEL: 'name' });
    this.OPTION(() => this.SUBRULE(this.object));
  });

  // ───────────────────────────── pipeline (README: Pipeline) ─────────────────────────────

  private pipelineDecl = this.RULE('pipelineDecl', () => {
    this.CONSUME(T.Pipeline);
    this.CONSUME(T.Word, { LABEL: 'name' });
    this.OPTION(() => this.SUBRULE(this.parenEntries));
    this.CONSUME(T.LBrace);
    this.MANY(() => this.SUBRULE(this.pipelineItem));
    this.CONSUME(T.RBrace);
  });

  /** Order is checked in cst-to-ast (trigger first, once), so the parser accepts any order. */
  private pipelineItem = this.RULE('pipelineItem', () => {
    this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        { ALT: () => this.SUBRULE(this.triggerDecl) },
        { ALT: () => this.SUBRULE(this.onErrorDecl) },
        { ALT: () => this.SUBRULE(this.branchDecl) },
        { ALT: () => this.SUBRULE(this.step) },
      ],
    });
  });

  private triggerDecl = this.RULE('triggerDecl', () => {
    this.CONSUME(T.Trigger);
    this.CONSUME(T.Word, { LABEL: 'triggerKind' });
    this.OPTION(() => this.SUBRULE(this.object));
  });

  private onErrorDecl = this.RULE('onErrorDecl', () => {
    this.CONSUME(T.OnError);
    this.SUBRULE(this.stepsBlock);
  });

  private branchDecl = this.RULE('branchDecl', () => {
    this.CONSUME(T.Branch);
    this.CONSUME(T.Word, { LABEL: 'name' });
    this.SUBRULE(this.stepsBlock);
  });

  // ───────────────────────────── capsule (README: Capsule) ─────────────────────────────

  private capsuleDecl = this.RULE('capsuleDecl', () => {
    this.CONSUME(T.Capsule);
    this.CONSUME(T.Word, { LABEL: 'name' });
    this.CONSUME(T.LParen);
    this.MANY(() => {
      this.SUBRULE(this.capsuleParam);
      this.OPTION(() => this.CONSUME(T.Comma));
    });
    this.CONSUME(T.RParen);
    this.OPTION2(() => {
      this.CONSUME(T.Arrow);
      this.SUBRULE(this.capsuleOutput);
    });
    this.SUBRULE(this.stepsBlock);
  });

  private capsuleParam = this.RULE('capsuleParam', () => {
    this.CONSUME(T.Word, { LABEL: 'name' });
    this.OPTION(() => {
      this.CONSUME(T.Colon);
      this.CONSUME2(T.Word, { LABEL: 'type' });
    });
  });

  /** A schema reference or an inline schema; never a tagged value (the `{` after is the body). */
  private capsuleOutput = this.RULE('capsuleOutput', () => {
    this.OR([
      { ALT: () => this.CONSUME(T.Word, { LABEL: 'ref' }) },
      { ALT: () => this.CONSUME(T.DottedIdentifier, { LABEL: 'ref' }) },
      { ALT: () => this.CONSUME(T.StringLiteral, { LABEL: 'ref' }) },
      { ALT: () => this.SUBRULE(this.object) },
    ]);
  });

  // ───────────────────────────── tests (README: Tests) ─────────────────────────────

  private testDecl = this.RULE('testDecl', () => {
    this.CONSUME(T.Test);
    this.CONSUME(T.StringLiteral, { LABEL: 'name' });
    this.CONSUME(T.LBrace);
    this.MANY(() => this.SUBRULE(this.testItem));
    this.CONSUME(T.RBrace);
  });

  /** `mock …`, `expect …` or a `key: value` setting (`pipeline:`, `input:`). */
  private testItem = this.RULE('testItem', () => {
    this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        { ALT: () => this.SUBRULE(this.mockDecl) },
        { ALT: () => this.SUBRULE(this.expectDecl) },
        { ALT: () => this.SUBRULE(this.entry) },
      ],
    });
  });

  /** `mock CONNECTOR LABEL [fails] { output }`; the block is optional so a missing one is reported precisely. */
  private mockDecl = this.RULE('mockDecl', () => {
    this.CONSUME(T.Mock);
    this.CONSUME(T.Word, { LABEL: 'connector' });
    this.MANY({ GATE: () => !this.testItemFollows(), DEF: () => this.CONSUME(T.ArgWord, { LABEL: 'arg' }) });
    this.OPTION(() => this.SUBRULE(this.object));
  });

  /** `expect WHAT part*`: the parts (words, numbers, strings, objects, arrays) are read by cst-to-ast. */
  private expectDecl = this.RULE('expectDecl', () => {
    this.CONSUME(T.Expect);
    this.CONSUME(T.Word, { LABEL: 'what' });
    this.MANY({ GATE: () => !this.testItemFollows(), DEF: () => this.SUBRULE(this.expectPart) });
  });

  private expectPart = this.RULE('expectPart', () => {
    this.OR([
      { ALT: () => this.CONSUME(T.Word, { LABEL: 'word' }) },
      { ALT: () => this.CONSUME(T.DottedIdentifier, { LABEL: 'word' }) },
      { ALT: () => this.CONSUME(T.NumberLiteral, { LABEL: 'number' }) },
      { ALT: () => this.CONSUME(T.StringLiteral, { LABEL: 'text' }) },
      { ALT: () => this.CONSUME(T.TripleString, { LABEL: 'text' }) },
      { ALT: () => this.CONSUME(T.Braces, { LABEL: 'braces' }) },
      { ALT: () => this.SUBRULE(this.object) },
      { ALT: () => this.SUBRULE(this.array) },
    ]);
  });

  /** The next token starts another test item (or ends the block): `mock`, `expect`, `key:`, `}`. */
  private testItemFollows(): boolean {
    const next = this.LA(1).tokenType;
    if (next === T.Mock || next === T.Expect || next === T.RBrace) return true;
    return (isWordLike(next) || next === T.StringLiteral) && this.LA(2).tokenType === T.Colon;
  }

  // ───────────────────────────── steps (README: Steps) ─────────────────────────────

  private stepsBlock = this.RULE('stepsBlock', () => {
    this.CONSUME(T.LBrace);
    this.MANY(() => this.SUBRULE(this.step));
    this.CONSUME(T.RBrace);
  });

  private step = this.RULE('step', () => {
    this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        { ALT: () => this.SUBRULE(this.respondStep) },
        { ALT: () => this.SUBRULE(this.failStep) },
        { ALT: () => this.SUBRULE(this.choiceStep) },
        { ALT: () => this.SUBRULE(this.tryStep) },
        { ALT: () => this.SUBRULE(this.forEachStep) },
        { ALT: () => this.SUBRULE(this.connectorStep) },
      ],
    });
  });

  private respondStep = this.RULE('respondStep', () => {
    this.CONSUME(T.Respond);
    this.CONSUME(T.NumberLiteral, { LABEL: 'status' });
    this.OPTION({ GATE: () => BODY_START.has(this.LA(1).tokenType), DEF: () => this.SUBRULE(this.value) });
    this.OPTION2(() => {
      this.CONSUME(T.Headers);
      this.SUBRULE(this.object);
    });
  });

  private failStep = this.RULE('failStep', () => {
    this.CONSUME(T.Fail);
    // `fail 404 "x"`: a number followed by a message is the status; `fail 500` alone is a message.
    this.OPTION({
      GATE: () => this.LA(1).tokenType === T.NumberLiteral && BODY_START.has(this.LA(2).tokenType),
      DEF: () => this.CONSUME(T.NumberLiteral, { LABEL: 'status' }),
    });
    this.SUBRULE(this.value);
  });

  private choiceStep = this.RULE('choiceStep', () => {
    this.CONSUME(T.Choice);
    this.OPTION(() => this.CONSUME(T.Word, { LABEL: 'label' }));
    this.CONSUME(T.LBrace);
    this.MANY(() => this.SUBRULE(this.whenClause));
    this.OPTION2(() => this.SUBRULE(this.otherwiseClause));
    this.CONSUME(T.RBrace);
  });

  private whenClause = this.RULE('whenClause', () => {
    this.CONSUME(T.When);
    this.SUBRULE(this.condition);
    this.SUBRULE(this.branchBody);
  });

  private otherwiseClause = this.RULE('otherwiseClause', () => {
    this.CONSUME(T.Otherwise);
    this.SUBRULE(this.branchBody);
  });

  private condition = this.RULE('condition', () => {
    this.OR([
      { ALT: () => this.CONSUME(T.StringLiteral) },
      { ALT: () => this.CONSUME(T.TripleString) },
      { ALT: () => this.CONSUME(T.Braces) },
    ]);
  });

  private branchBody = this.RULE('branchBody', () => {
    this.OR([
      { ALT: () => this.SUBRULE(this.stepsBlock) },
      {
        ALT: () => {
          this.CONSUME(T.Arrow);
          this.CONSUME(T.Word, { LABEL: 'target' });
        },
      },
    ]);
  });

  private tryStep = this.RULE('tryStep', () => {
    this.CONSUME(T.Try);
    this.SUBRULE(this.stepsBlock, { LABEL: 'body' });
    this.OPTION(() => {
      this.CONSUME(T.Catch);
      this.SUBRULE2(this.stepsBlock, { LABEL: 'catchBody' });
    });
  });

  private forEachStep = this.RULE('forEachStep', () => {
    this.CONSUME(T.ForEach);
    this.OPTION(() => this.CONSUME(T.Word, { LABEL: 'label' }));
    this.SUBRULE(this.condition, { LABEL: 'over' });
    this.OPTION2(() => this.SUBRULE(this.parenEntries));
    this.SUBRULE(this.stepsBlock);
  });

  /** `KIND arg* { params }`; the block is optional here so a missing one is reported precisely. */
  private connectorStep = this.RULE('connectorStep', () => {
    this.CONSUME(T.StepName, { LABEL: 'connector' });
    this.MANY(() => this.CONSUME(T.ArgWord, { LABEL: 'arg' }));
    this.OPTION(() => this.SUBRULE(this.object));
  });

  // ───────────────────────────── values (README: Values) ─────────────────────────────

  public value = this.RULE('value', () => {
    this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        { ALT: () => this.SUBRULE(this.object) },
        { ALT: () => this.SUBRULE(this.array) },
        { ALT: () => this.CONSUME(T.StringLiteral) },
        { ALT: () => this.CONSUME(T.TripleString) },
        { ALT: () => this.CONSUME(T.NumberLiteral) },
        { ALT: () => this.CONSUME(T.Braces) },
        { ALT: () => this.CONSUME(T.True) },
        { ALT: () => this.CONSUME(T.False) },
        { ALT: () => this.CONSUME(T.Null) },
        { ALT: () => this.SUBRULE(this.call) },
        { ALT: () => this.SUBRULE(this.tagged) },
        { ALT: () => this.CONSUME(T.Word, { LABEL: 'ident' }) },
        { ALT: () => this.CONSUME(T.DottedIdentifier, { LABEL: 'ident' }) },
      ],
    });
  });

  /** `env("NAME", "default")`; cst-to-ast checks the function name and arguments. */
  private call = this.RULE('call', () => {
    this.CONSUME(T.Word, { LABEL: 'callee' });
    this.CONSUME(T.LParen);
    this.MANY(() => {
      this.SUBRULE(this.value, { LABEL: 'arg' });
      this.OPTION(() => this.CONSUME(T.Comma));
    });
    this.CONSUME(T.RParen);
  });

  private tagged = this.RULE('tagged', () => {
    this.CONSUME(T.Word, { LABEL: 'tag' });
    this.SUBRULE(this.object);
  });

  private array = this.RULE('array', () => {
    this.CONSUME(T.LBracket);
    this.MANY(() => {
      this.SUBRULE(this.value);
      this.OPTION(() => this.CONSUME(T.Comma));
    });
    this.CONSUME(T.RBracket);
  });

  public object = this.RULE('object', () => {
    this.CONSUME(T.LBrace);
    this.MANY(() => {
      this.SUBRULE(this.entry);
      this.OPTION(() => this.CONSUME(T.Comma));
    });
    this.CONSUME(T.RBrace);
  });

  /** `(k: v, …)`: pipeline and for-each options, an object without braces. */
  private parenEntries = this.RULE('parenEntries', () => {
    this.CONSUME(T.LParen);
    this.MANY(() => {
      this.SUBRULE(this.entry);
      this.OPTION(() => this.CONSUME(T.Comma));
    });
    this.CONSUME(T.RParen);
  });

  /**
   * `key: value`, `key { steps }`, and two recoverable mistakes: `key value` (no colon) and a key
   * with no value at all. A `{` after a key opens steps unless it reads like `{ word: …`, which is
   * an object with a forgotten colon.
   */
  private entry = this.RULE('entry', () => {
    this.OR([
      { ALT: () => this.CONSUME(T.Word, { LABEL: 'key' }) },
      { ALT: () => this.CONSUME(T.StringLiteral, { LABEL: 'key' }) },
    ]);
    this.OR2({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        {
          ALT: () => {
            this.CONSUME(T.Colon);
            this.OPTION({ GATE: () => this.valueFollows(), DEF: () => this.SUBRULE(this.value) });
          },
        },
        { GATE: () => !this.objectFollows(), ALT: () => this.SUBRULE(this.stepsBlock) },
        { GATE: () => this.valueFollows(), ALT: () => this.SUBRULE2(this.value, { LABEL: 'valueWithoutColon' }) },
        { ALT: () => undefined },
      ],
    });
  });

  /** A value starts here, and it is not the next entry's `key:`. */
  private valueFollows(): boolean {
    const next = this.LA(1).tokenType;
    if (!VALUE_START.has(next) && !isWordLike(next)) return false;
    const after = this.LA(2).tokenType;
    const startsEntry = (isWordLike(next) || next === T.StringLiteral) && after === T.Colon;
    return !startsEntry;
  }

  /** `{ key: …` or `{ "key": …`: an object, not a block of steps. */
  private objectFollows(): boolean {
    if (this.LA(1).tokenType !== T.LBrace) return true;
    const key = this.LA(2).tokenType;
    return (isWordLike(key) || key === T.StringLiteral) && this.LA(3).tokenType === T.Colon;
  }
}

/** True for the artificial end-of-input token Chevrotain returns past the last token. */
export function isEndOfInput(token: IToken): boolean {
  return token.tokenType === EOF;
}
