/**
 * Every token of the .pipe language, in lexer priority order (`allTokens`).
 *
 * Keywords are contextual: each keyword token also belongs to the `Word` category, so wherever the
 * grammar accepts a name or key (`store: x`, `store reprocess.insert { … }`) a keyword is accepted
 * too, and `longer_alt` keeps identifiers like `storeName` or `trigger-x` whole. Strings, `"""`
 * strings, block comments and bare `{{ … }}` use custom scanners (scan.ts) so an unterminated one
 * still becomes a single token; lexer.ts reports it. Every token has a LABEL used in diagnostics.
 */
import type { TokenType } from 'chevrotain';
import { createToken, Lexer } from './chevrotain.js';
import { scanBlockCommentEnd, scanBracesEnd, scanQuotedEnd, scanTripleEnd } from './scan.js';

// ───────────────────────────── categories ─────────────────────────────

/** Anything usable as a name or key: identifiers and every keyword. */
export const Word = createToken({ name: 'Word', pattern: Lexer.NA, label: 'a name' });
/** Words allowed as connector header args: everything except words that start a step or clause. */
export const ArgWord = createToken({ name: 'ArgWord', pattern: Lexer.NA, label: 'a name' });
/** Words that can name a connector step: not step keywords, nor `pipeline`/`capsule`, so a missing
 *  `}` before the next pipeline is reported where it happens instead of swallowing it as a step. */
export const StepName = createToken({ name: 'StepName', pattern: Lexer.NA, label: 'a step name' });
/** Tokens that can never start a top-level declaration: consumed one by one there and reported. */
export const Stray = createToken({ name: 'Stray', pattern: Lexer.NA, label: 'a token' });

// ───────────────────────────── trivia ─────────────────────────────

export const WhiteSpace = createToken({
  name: 'WhiteSpace',
  pattern: /[ \t\r\n\uFEFF]+/,
  group: Lexer.SKIPPED,
  line_breaks: true,
});
export const LineComment = createToken({ name: 'LineComment', pattern: /\/\/[^\n]*/, group: Lexer.SKIPPED });
/** `# …` is a common slip for `//`: lexed as one token in the `mistakes` group, reported by lexer.ts,
 *  so the words after it do not cascade into parse errors. */
export const HashComment = createToken({ name: 'HashComment', pattern: /#[^\n]*/, group: 'mistakes' });
/** Kept in the `comments` group so lexer.ts can report an unterminated one. */
export const BlockComment = createToken({
  name: 'BlockComment',
  pattern: {
    exec: (text, offset) =>
      text.startsWith('/*', offset) ? [text.slice(offset, scanBlockCommentEnd(text, offset))] : null,
  },
  start_chars_hint: ['/'],
  line_breaks: true,
  group: 'comments',
});

// ───────────────────────────── literals ─────────────────────────────

export const TripleString = createToken({
  name: 'TripleString',
  label: 'a `"""` string',
  pattern: {
    exec: (text, offset) => (text.startsWith('"""', offset) ? [text.slice(offset, scanTripleEnd(text, offset))] : null),
  },
  start_chars_hint: ['"'],
  line_breaks: true,
  categories: [ArgWord, Stray],
});
export const StringLiteral = createToken({
  name: 'StringLiteral',
  label: 'a string',
  pattern: {
    exec: (text, offset) => {
      const c = text.charCodeAt(offset);
      if (c !== 34 && c !== 39) return null;
      return [text.slice(offset, scanQuotedEnd(text, offset))];
    },
  },
  start_chars_hint: ['"', "'"],
  line_breaks: false,
  categories: [ArgWord, Stray],
});
/** A bare `{{ … }}`; the payload says whether it was closed. */
export const Braces = createToken({
  name: 'Braces',
  label: '`{{ … }}`',
  pattern: {
    exec: (text, offset) => {
      if (!text.startsWith('{{', offset)) return null;
      const scan = scanBracesEnd(text, offset + 2);
      const match: [string] & { payload?: unknown } = [text.slice(offset, scan.end)];
      match.payload = { closed: scan.closed };
      return match;
    },
  },
  start_chars_hint: ['{'],
  line_breaks: true,
  categories: [Stray],
});
/** Numbers, durations and sizes: one token (`12`, `-1.5e3`, `0x1F`, `30s`, `10MB`, also bad `5y`). */
export const NumberLiteral = createToken({
  name: 'NumberLiteral',
  label: 'a number',
  pattern: /[-+]?(?:0[xX][0-9A-Fa-f]*|(?:\d+(?:\.\d+)?)(?:[eE][-+]?\d+)?)(?:[A-Za-z_][A-Za-z0-9_]*)?/,
  start_chars_hint: ['-', '+', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
  categories: [Stray],
});

// ───────────────────────────── punctuation ─────────────────────────────

export const LBrace = createToken({ name: 'LBrace', pattern: '{', label: '`{`', categories: [Stray] });
export const RBrace = createToken({ name: 'RBrace', pattern: '}', label: '`}`', categories: [Stray] });
export const LBracket = createToken({ name: 'LBracket', pattern: '[', label: '`[`', categories: [Stray] });
export const RBracket = createToken({ name: 'RBracket', pattern: ']', label: '`]`', categories: [Stray] });
export const LParen = createToken({ name: 'LParen', pattern: '(', label: '`(`', categories: [Stray] });
export const RParen = createToken({ name: 'RParen', pattern: ')', label: '`)`', categories: [Stray] });
export const Colon = createToken({ name: 'Colon', pattern: ':', label: '`:`', categories: [Stray] });
export const Comma = createToken({ name: 'Comma', pattern: ',', label: '`,`', categories: [Stray] });
export const Equals = createToken({ name: 'Equals', pattern: '=', label: '`=`', categories: [Stray] });
export const Arrow = createToken({ name: 'Arrow', pattern: '->', label: '`->`', categories: [Stray] });

// ───────────────────────────── words ─────────────────────────────

const WORD_BODY = '[A-Za-z_$][A-Za-z0-9_$]*(?:-[A-Za-z0-9_$]+)*';
/** `reprocess.find`, `crm.token`: allowed as header args and ident values, never as names. */
export const DottedIdentifier = createToken({
  name: 'DottedIdentifier',
  label: 'a dotted name',
  pattern: new RegExp(`${WORD_BODY}(?:\\.${WORD_BODY})+`),
  categories: [ArgWord, Stray],
});
export const Identifier = createToken({
  name: 'Identifier',
  label: 'a name',
  pattern: new RegExp(WORD_BODY),
  categories: [Word, ArgWord, StepName, Stray],
});

/** Keywords that open a top-level declaration: never `Stray`, so junk recovery stops at them. */
function declKeyword(name: string, text: string, namesSteps = true): TokenType {
  return createToken({
    name,
    pattern: text,
    label: `\`${text}\``,
    longer_alt: [DottedIdentifier, Identifier],
    categories: namesSteps ? [Word, ArgWord, StepName] : [Word, ArgWord],
  });
}
/**
 * Keywords that start a step or clause: neither header args (so `log` + newline + `respond …`
 * splits) nor connector names (so `respond {` is a respond step missing its status, not a connector).
 */
function stepKeyword(name: string, text: string): TokenType {
  return createToken({
    name,
    pattern: text,
    label: `\`${text}\``,
    longer_alt: [DottedIdentifier, Identifier],
    categories: [Word, Stray],
  });
}
function plainKeyword(name: string, text: string): TokenType {
  return createToken({
    name,
    pattern: text,
    label: `\`${text}\``,
    longer_alt: [DottedIdentifier, Identifier],
    categories: [Word, ArgWord, StepName, Stray],
  });
}

export const Import = declKeyword('Import', 'import');
export const Schema = declKeyword('Schema', 'schema');
export const Account = declKeyword('Account', 'account');
export const Global = declKeyword('Global', 'global');
export const Store = declKeyword('Store', 'store');
export const Pipeline = declKeyword('Pipeline', 'pipeline', false);
export const Capsule = declKeyword('Capsule', 'capsule', false);
/** `test "name" { … }`: a pipeline test (read by `pipec test`, ignored by check/build/run). */
export const Test = declKeyword('Test', 'test');

export const Trigger = stepKeyword('Trigger', 'trigger');
export const OnError = stepKeyword('OnError', 'on-error');
export const Branch = stepKeyword('Branch', 'branch');
export const Respond = stepKeyword('Respond', 'respond');
export const Fail = stepKeyword('Fail', 'fail');
export const Choice = stepKeyword('Choice', 'choice');
export const When = stepKeyword('When', 'when');
export const Otherwise = stepKeyword('Otherwise', 'otherwise');
export const Try = stepKeyword('Try', 'try');
export const Catch = stepKeyword('Catch', 'catch');
export const ForEach = stepKeyword('ForEach', 'for-each');

export const As = plainKeyword('As', 'as');
export const Headers = plainKeyword('Headers', 'headers');
export const True = plainKeyword('True', 'true');
export const False = plainKeyword('False', 'false');
export const Null = plainKeyword('Null', 'null');
/** Inside a `test` block only; plain names everywhere else. */
export const Mock = plainKeyword('Mock', 'mock');
export const Expect = plainKeyword('Expect', 'expect');

const keywords: readonly TokenType[] = [
  Import,
  Schema,
  Account,
  Global,
  Store,
  Pipeline,
  Capsule,
  Test,
  Trigger,
  OnError,
  Branch,
  Respond,
  Fail,
  Choice,
  When,
  Otherwise,
  Try,
  Catch,
  ForEach,
  As,
  Headers,
  True,
  False,
  Null,
  Mock,
  Expect,
];

/** Lexer priority order: the first pattern that matches wins (keywords defer to longer words). */
export const allTokens: readonly TokenType[] = [
  WhiteSpace,
  LineComment,
  HashComment,
  BlockComment,
  TripleString,
  StringLiteral,
  Braces,
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  LParen,
  RParen,
  Colon,
  Comma,
  Equals,
  Arrow,
  NumberLiteral,
  ...keywords,
  DottedIdentifier,
  Identifier,
  Word,
  ArgWord,
  StepName,
  Stray,
];
