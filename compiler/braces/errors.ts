/**
 * One constructor per Double Braces diagnostic: facts in, `Diagnostic` out. Codes and titles come
 * from the catalogue (base/diagnostics/codes/braces.ts); the prose lives here, next to the
 * checker that knows the facts. Labels are one short phrase; a confident suggestion is the label.
 */
import type { SyntaxProblem } from './parser.js';
import { diagnostic, type DiagnosticCode } from '../../base/diagnostics/codes.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { Span } from '../../base/source/span.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import type { FieldType, PipeType, SentBy } from '../types/pipe-type.js';
import { describeType, widen, withoutNull } from '../types/type-ops.js';
import type { ConstantProblem } from './constant-args.js';
import type { FunctionSignature, ParamSpec } from './signatures.js';
import { SIGNATURES } from './signatures.js';

const MAX_CANDIDATES = 12;

/** Sorted candidates, at most 12, as an indented block. */
export function candidateBlock(title: string, candidates: readonly string[]): string[] {
  if (candidates.length === 0) return [];
  const sorted = [...candidates].sort();
  const shown = sorted.slice(0, MAX_CANDIDATES).map((c) => `    ${c}`);
  if (sorted.length > MAX_CANDIDATES) shown.push(`    …and ${sorted.length - MAX_CANDIDATES} more`);
  return [title, shown.join('\n')];
}

export function signatureText(s: FunctionSignature): string {
  const params = s.params.map((p) => (p.rest ? `${p.name}…` : p.optional ? `${p.name}?` : p.name));
  if (s.name === 'SWITCHCASE') return 'SWITCHCASE(default, condition1, result1, condition2, result2, …)';
  return `${s.name}(${params.join(', ')})`;
}

const SYNTAX_CODES: Readonly<Record<SyntaxProblem['reason'], DiagnosticCode>> = {
  empty: 'PIPE4104',
  'too-deep': 'PIPE4103',
  'unterminated-string': 'PIPE4102',
  'unexpected-token': 'PIPE4101',
  'bad-character': 'PIPE4101',
  'bad-number': 'PIPE4101',
  unclosed: 'PIPE4101',
};

export function syntax(problem: SyntaxProblem): Diagnostic {
  return diagnostic(SYNTAX_CODES[problem.reason], {
    message: problem.message,
    span: problem.span,
    label: problem.label,
    ...(problem.hint ? { hint: capitalize(problem.hint) } : {}),
  });
}

function capitalize(text: string): string {
  const out = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.?!]$/.test(out) ? out : `${out}.`;
}

function didYouMean(suggestion: string | undefined): string | undefined {
  return suggestion === undefined ? undefined : `Did you mean \`${suggestion}\`?`;
}

export function itemOutsideTransformer(span: Span): Diagnostic {
  return diagnostic('PIPE4013', {
    message: '`item` is only available inside a JSON Transformer or a for-each',
    span,
    label: 'no item here',
    hint: 'Read the current message with `message.…` instead.',
  });
}

interface NameFacts {
  readonly span: Span;
  readonly name: string;
  readonly candidates: readonly string[];
  readonly suggestion: string | undefined;
}

export function unknownCapsuleParam(facts: {
  readonly span: Span;
  readonly name: string | undefined;
  readonly candidates: readonly string[];
  readonly suggestion?: string | undefined;
}): Diagnostic {
  if (facts.name === undefined) {
    return diagnostic('PIPE4012', {
      message: '`capsule.` parameters exist only inside a capsule',
      span: facts.span,
      label: 'not inside a capsule',
    });
  }
  return diagnostic('PIPE4012', {
    message: `the capsule has no parameter \`${facts.name}\``,
    span: facts.span,
    label: didYouMean(facts.suggestion) ?? 'unknown parameter',
    body: candidateBlock('The capsule declares these parameters:', facts.candidates),
  });
}

export function unknownName(facts: {
  readonly span: Span;
  readonly name: string;
  readonly isFunction: boolean;
  readonly isGlobal: boolean;
  readonly suggestion: string | undefined;
}): Diagnostic {
  const hint = facts.isFunction
    ? `\`${facts.name}\` is a function: call it with parentheses, e.g. \`${facts.name.toUpperCase()}(…)\`.`
    : facts.isGlobal
      ? `Globals are read with their scope: \`global.${facts.name}\`.`
      : facts.suggestion === undefined
        ? 'Start the path with a scope: message, global, account, metadata, step, item or capsule.'
        : undefined;
  return diagnostic('PIPE4008', {
    message: `unknown name \`${facts.name}\``,
    span: facts.span,
    label: didYouMean(facts.suggestion) ?? 'not a scope, literal or function call',
    ...(hint ? { hint } : {}),
  });
}

export function unknownGlobal(facts: NameFacts): Diagnostic {
  return diagnostic('PIPE4009', {
    message: `no global named \`${facts.name}\``,
    span: facts.span,
    label: didYouMean(facts.suggestion) ?? 'unknown global',
    body:
      facts.candidates.length > 0
        ? candidateBlock('These globals are declared:', facts.candidates)
        : ['No globals are declared.'],
    ...(facts.suggestion ? {} : { hint: `Declare it: \`global ${facts.name} = …\`.` }),
  });
}

export function unknownAccount(facts: NameFacts & { readonly account: string | undefined }): Diagnostic {
  if (facts.account !== undefined) {
    return diagnostic('PIPE4010', {
      message: `the account \`${facts.account}\` has no field \`${facts.name}\``,
      span: facts.span,
      label: didYouMean(facts.suggestion) ?? 'unknown field',
      body: candidateBlock(`The account \`${facts.account}\` has these fields:`, facts.candidates),
    });
  }
  return diagnostic('PIPE4010', {
    message: `no account named \`${facts.name}\``,
    span: facts.span,
    label: didYouMean(facts.suggestion) ?? 'unknown account',
    body:
      facts.candidates.length > 0
        ? candidateBlock('These accounts are declared:', facts.candidates)
        : ['No accounts are declared.'],
  });
}

export function unknownStep(facts: NameFacts): Diagnostic {
  return diagnostic('PIPE4011', {
    message: `no earlier step is labelled \`${facts.name}\``,
    span: facts.span,
    label: didYouMean(facts.suggestion) ?? 'unknown step label',
    body:
      facts.candidates.length > 0
        ? candidateBlock('Steps that ran before this one:', facts.candidates)
        : ['No labelled step runs before this one.'],
  });
}

/** Prose for the type of a value found in the wrong place (literal enums widened: "a string"). */
export function describeFound(t: PipeType): string {
  return describeType(widen(t));
}

export function notAnObject(facts: {
  readonly span: Span;
  readonly field: string | undefined;
  readonly owner: string | undefined;
  readonly ownerType: PipeType;
}): Diagnostic {
  const what = withArticle(describeFound(facts.ownerType));
  const owner = facts.owner === undefined ? 'this value' : `\`${facts.owner}\``;
  return diagnostic('PIPE4007', {
    message:
      facts.field === undefined
        ? `${owner} is ${what} and cannot be indexed`
        : `${owner} is ${what}, so it has no field \`${facts.field}\``,
    span: facts.span,
    label: `${owner} is ${what}`,
    hint: 'End the path at the value itself.',
  });
}

/** `inBody`: the path the field may have in the envelope's `body` (`message.body.total`), when it may be there. */
export function unknownField(facts: {
  readonly span: Span;
  readonly field: string;
  readonly owner: string;
  readonly candidates: readonly string[];
  readonly suggestion: string | undefined;
  readonly inBody?: string;
}): Diagnostic {
  return diagnostic('PIPE4006', {
    message: `no field \`${facts.field}\` on \`${facts.owner}\``,
    span: facts.span,
    label: didYouMean(facts.suggestion) ?? (facts.inBody ? 'not in the envelope' : 'unknown field'),
    body: candidateBlock(`The shape of \`${facts.owner}\` is closed; it has these fields:`, facts.candidates),
    ...(facts.inBody ? { hint: `did you mean \`${facts.inBody}\`? The data is under \`body\`` } : {}),
  });
}

/**
 * A read of a field an open shape does not declare, one slip away from one it declares (near-miss.ts):
 * `owner` is the path read (`message.body`) or undefined for a JSONPath.
 */
export function nearMissField(facts: {
  readonly span: Span;
  readonly field: string;
  readonly declared: string;
  readonly owner: string | undefined;
  /** The fields of the open shape. */
  readonly fields: Readonly<Record<string, FieldType>>;
}): Diagnostic {
  const where = facts.owner === undefined ? 'the value this JSONPath reads' : `\`${facts.owner}\``;
  // A long list (the error object and its optional details) shows the fields always there.
  const all = Object.keys(facts.fields);
  const always = all.filter((name) => facts.fields[name]?.required === true);
  const shown = all.length > MAX_CANDIDATES && always.length > 0 ? always : all;
  return diagnostic('PIPE4030', {
    message: `no field \`${facts.field}\` is declared on ${where}; it declares \`${facts.declared}\``,
    span: facts.span,
    label: `did you mean \`${facts.declared}\`?`,
    body: candidateBlock(
      shown === all
        ? `The shape of ${where} is open, and declares these fields:`
        : `The shape of ${where} is open, and declares these fields (and ${all.length - shown.length} optional ones):`,
      shown,
    ),
    hint: `write \`${facts.declared}\`; if the data really holds \`${facts.field}\`, declare it in the schema`,
  });
}

/** A read of a field none of the build's senders sends, on a message they closed (compiler/check/senders.ts). */
export function unsentField(facts: {
  readonly span: Span;
  readonly field: string;
  readonly owner: string;
  readonly candidates: readonly string[];
  readonly suggestion: string | undefined;
  readonly sentBy: SentBy;
}): Diagnostic {
  const where = facts.sentBy.path.length > 0 ? ` under \`${facts.sentBy.path.join('.')}\`` : '';
  const sends = (fields: readonly string[]) =>
    fields.length === 0 ? 'sends an empty object' : `sends ${[...fields].sort().join(', ')}`;
  return diagnostic('PIPE6106', {
    message: `no ${facts.sentBy.who} sends \`${facts.field}\`${where}, and no schema declares it: \`${facts.owner}.${facts.field}\` is never there`,
    span: facts.span,
    label: didYouMean(facts.suggestion) ?? 'no sender sends this field',
    secondary: facts.sentBy.senders
      .slice(0, 3)
      .map((s) => ({ span: s.span, message: `this sender ${sends(s.fields)}` })),
    body: candidateBlock(`\`${facts.owner}\` holds only these fields:`, facts.candidates),
    hint: 'Read a field the senders send, or send this one; if the event also comes from outside this build, set `external: true` on its trigger.',
  });
}

/** `message.body.x` where the message itself has `x` and no `body` (an event's payload read as a request). */
export function bodyOfPayload(facts: {
  readonly span: Span;
  readonly owner: string;
  readonly field: string;
}): Diagnostic {
  return diagnostic('PIPE4006', {
    message: `no field \`body\` on \`${facts.owner}\`: \`${facts.field}\` is a field of \`${facts.owner}\` itself`,
    span: facts.span,
    label: 'not an envelope',
    hint: `write \`${facts.owner}.${facts.field}\`: the data is at the top of \`${facts.owner}\`, not under \`body\``,
  });
}

export function badOperand(facts: {
  readonly span: Span;
  readonly message: string;
  readonly label: string;
  readonly hint?: string | undefined;
}): Diagnostic {
  return diagnostic('PIPE4005', {
    message: facts.message,
    span: facts.span,
    label: facts.label,
    ...(facts.hint ? { hint: capitalize(facts.hint) } : {}),
  });
}

export function unknownFunction(facts: {
  readonly span: Span;
  readonly name: string;
  readonly suggestion: string | undefined;
}): Diagnostic {
  return diagnostic('PIPE4002', {
    message: `unknown function \`${facts.name}\``,
    span: facts.span,
    label: didYouMean(facts.suggestion) ?? 'no such function',
    ...(facts.suggestion ? {} : { hint: 'See docs/double-braces.md for the list of functions.' }),
  });
}

export function wrongArity(facts: {
  readonly span: Span;
  readonly signature: FunctionSignature;
  readonly count: number;
  readonly missingResult: boolean;
}): Diagnostic {
  const s = facts.signature;
  const min = s.params.filter((p) => !p.optional && !p.rest).length;
  const max = s.params.some((p) => p.rest) ? Infinity : s.params.length;
  const expected = facts.missingResult
    ? 'a result after every condition'
    : max === Infinity
      ? `at least ${min} argument${min === 1 ? '' : 's'}`
      : min === max
        ? `${min} argument${min === 1 ? '' : 's'}`
        : `${min} to ${max} arguments`;
  return diagnostic('PIPE4003', {
    message: `${s.name} takes ${expected}, but ${facts.count} ${facts.count === 1 ? 'was' : 'were'} given`,
    span: facts.span,
    label: facts.missingResult
      ? 'the last condition has no result'
      : `${facts.count} argument${facts.count === 1 ? '' : 's'}`,
    body: ['The signature is:', `    ${signatureText(s)}`],
  });
}

export function badArgument(facts: {
  readonly span: Span;
  readonly signature: FunctionSignature;
  readonly param: ParamSpec;
  readonly index: number;
  readonly found: PipeType;
  readonly what: string;
}): Diagnostic {
  const wanted = describeType(facts.param.type);
  const found = describeFound(facts.found);
  const hint =
    facts.found.kind === 'object' || facts.found.kind === 'array'
      ? wanted.includes('string')
        ? 'To pass it as JSON text, wrap it: `TOSTRING(…)`.'
        : wanted.startsWith('array') && facts.found.kind === 'object'
          ? 'To make a one-element array, wrap it: `CARDINALITYMANY(…)`.'
          : undefined
      : facts.found.kind === 'string' && wanted.includes('boolean')
        ? 'To read text such as "true", wrap it: `TOBOOLEAN(…)`.'
        : undefined;
  return diagnostic('PIPE4004', {
    message: `argument ${facts.index + 1} of ${facts.signature.name} (\`${facts.param.name}\`) must be ${wanted}, but ${facts.what} is ${withArticle(found)}`,
    span: facts.span,
    label: `this is ${withArticle(found)}`,
    body: ['The signature is:', `    ${signatureText(facts.signature)}`],
    ...(hint ? { hint } : {}),
  });
}

export function badConstant(facts: {
  readonly span: Span;
  readonly problem: ConstantProblem;
  readonly signature: FunctionSignature;
  readonly index: number;
}): Diagnostic {
  const p = facts.problem;
  return diagnostic(p.code, {
    message: `${p.message} (argument ${facts.index + 1} of ${facts.signature.name})`,
    span: facts.span,
    label: p.label ?? (p.code === 'PIPE4004' ? 'not a number' : 'invalid here'),
    body: p.candidates ? candidateBlock('Accepted values:', p.candidates) : [],
    ...(p.hint ? { hint: capitalize(p.hint) } : {}),
  });
}

/**
 * A string literal compared with a field whose shape allows only other strings (also used for
 * JSONPath filters, compiler/lower/conditions.ts). `operator` as written: `==`, `!=`, `EQUALTO`.
 */
export function literalOutsideEnum(facts: {
  readonly span: Span;
  readonly literal: string;
  readonly field: string;
  readonly operator: string;
  readonly values: readonly string[];
  readonly suggestion?: string;
}): Diagnostic {
  const { literal, field, operator, values, suggestion } = facts;
  const always = operator === '!=' || operator === '!==' ? 'always true' : 'always false';
  const shown = values.length <= MAX_CANDIDATES ? values : values.slice(0, MAX_CANDIDATES);
  const listed = shown.map((v) => JSON.stringify(v)).join(', ') + (values.length > shown.length ? ', …' : '');
  return diagnostic('PIPE4050', {
    message: `\`${field}\` is never ${JSON.stringify(literal)}, so this \`${operator}\` is ${always}`,
    span: facts.span,
    label: suggestion !== undefined ? `did you mean ${JSON.stringify(suggestion)}?` : 'not one of its values',
    body: [`The shape of \`${field}\` allows only: ${listed}.`],
    hint:
      suggestion !== undefined
        ? `write ${JSON.stringify(suggestion)}`
        : "compare with one of the values listed, or add the value to the schema's `enum`",
  });
}

/** A literal compared (strictly) with a field whose shape holds only scalars of other types. */
export function literalOfOtherType(facts: {
  readonly span: Span;
  readonly literal: string | number | boolean;
  readonly field: string;
  readonly operator: string;
  readonly fieldType: PipeType;
}): Diagnostic {
  const { literal, field, operator, fieldType } = facts;
  const always = operator === '!=' ? 'always true' : 'always false';
  const literalType = typeof literal;
  const fieldText = describeType(widen(withoutNull(fieldType)));
  return diagnostic('PIPE4050', {
    message: `\`${field}\` is ${withArticle(fieldText)}, never the ${literalType} ${JSON.stringify(literal)}, so this \`${operator}\` is ${always}`,
    span: facts.span,
    label: `${withArticle(literalType)}, not ${withArticle(fieldText)}`,
    hint: otherTypeHint(literal, fieldType),
  });
}

/** How to write the literal as the field's type, when the text says it (`"200"` → `200`). */
function otherTypeHint(literal: string | number | boolean, fieldType: PipeType): string {
  const kinds = new Set((fieldType.kind === 'union' ? fieldType.members : [fieldType]).map((m) => m.kind));
  if (typeof literal === 'string') {
    const text = literal.trim();
    if (kinds.has('number') && text !== '' && Number.isFinite(Number(text)))
      return `write ${Number(text)}, without quotes`;
    if (kinds.has('boolean') && (text === 'true' || text === 'false')) return `write ${text}, without quotes`;
  } else if (kinds.has('string')) {
    return `write ${JSON.stringify(String(literal))}, in quotes`;
  }
  return "compare with a value of the field's type";
}

export function divisionByZero(facts: { readonly span: Span; readonly operator: string }): Diagnostic {
  const op = /^[A-Z]/.test(facts.operator) ? facts.operator : `\`${facts.operator}\``;
  return diagnostic('PIPE4018', {
    message: `${op} by a literal zero always fails`,
    span: facts.span,
    label: 'this is zero',
  });
}

export function typeMismatch(facts: {
  readonly span: Span;
  readonly expected: PipeType;
  readonly why: string;
  readonly actual: PipeType;
  readonly where: readonly string[];
  readonly hint: string | undefined;
}): Diagnostic {
  const actual = describeType(facts.actual);
  const body = [
    `${capitalizeFirst(facts.why)} expects:`,
    `    ${describeType(facts.expected)}`,
    'But this expression produces:',
    `    ${actual}`,
  ];
  if (facts.where.length > 0)
    body.push(facts.where.map((line, i) => (i === 0 ? `where ${line}` : `  and ${line}`)).join('\n'));
  return diagnostic('PIPE4001', {
    message: `${facts.why} expects ${describeType(facts.expected)}, but this expression is ${withArticle(actual)}`,
    span: facts.span,
    label: `This expression is ${withArticle(actual)}`,
    body,
    ...(facts.hint ? { hint: facts.hint } : {}),
  });
}

function capitalizeFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "a string", "an integer", "null", "an object { … }", `"A" | "B"`. */
export function withArticle(description: string): string {
  if (description === 'null' || description === 'any JSON value' || description.startsWith('"')) return description;
  return /^[aeiou]/i.test(description) ? `an ${description}` : `a ${description}`;
}

/** Names of the functions that take a lambda, for messages ("MAP, FILTER, …"). */
function lambdaFunctions(): string {
  return SIGNATURES.filter((s) => s.params.some((p) => p.lambda))
    .map((s) => s.name)
    .join(', ');
}

/** A lambda that is not the lambda argument of an array function (`where` names the call it sits in, if any). */
export function misplacedLambda(facts: {
  readonly span: Span;
  readonly where: { readonly signature: FunctionSignature; readonly index: number } | undefined;
}): Diagnostic {
  const where = facts.where;
  return diagnostic('PIPE4019', {
    message:
      where === undefined
        ? 'a lambda is only allowed as an argument of an array function'
        : `argument ${where.index + 1} of ${where.signature.name} cannot be a lambda`,
    span: facts.span,
    label: 'lambda not allowed here',
    body:
      where === undefined
        ? [`Functions that take a lambda: ${lambdaFunctions()}.`]
        : ['The signature is:', `    ${signatureText(where.signature)}`],
    hint: 'Pass the lambda to an array function, e.g. `SUM(MAP(message.lines, x => x.price))`.',
  });
}

export function lambdaExpected(facts: {
  readonly span: Span;
  readonly signature: FunctionSignature;
  readonly param: ParamSpec;
  readonly index: number;
  readonly what: string;
}): Diagnostic {
  return diagnostic('PIPE4020', {
    message: `argument ${facts.index + 1} of ${facts.signature.name} must be a lambda \`${facts.param.name}\`, but ${facts.what} is not one`,
    span: facts.span,
    label: 'a lambda is needed here',
    body: ['The signature is:', `    ${signatureText(facts.signature)}`],
    hint: `Compute the value from each element, e.g. \`${facts.signature.example}\`.`,
  });
}

export function lambdaArity(facts: {
  readonly span: Span;
  readonly signature: FunctionSignature;
  readonly param: ParamSpec;
  readonly count: number;
}): Diagnostic {
  const wanted = facts.param.lambda?.params.length ?? 1;
  const plural = (n: number): string => `${n} parameter${n === 1 ? '' : 's'}`;
  return diagnostic('PIPE4021', {
    message: `the lambda of ${facts.signature.name} takes ${plural(wanted)}, but this one declares ${facts.count}`,
    span: facts.span,
    label: `${plural(facts.count)}`,
    body: ['The signature is:', `    ${signatureText(facts.signature)}`],
    hint: `Write it as \`${facts.param.name}\`.`,
  });
}

export type LambdaParamProblem = 'scope' | 'literal' | 'duplicate' | 'outer' | 'reserved';

export function badLambdaParam(facts: {
  readonly span: Span;
  readonly name: string;
  readonly problem: LambdaParamProblem;
}): Diagnostic {
  const why: Record<LambdaParamProblem, string> = {
    scope: `would hide the scope \`${facts.name}\``,
    literal: `is a literal`,
    duplicate: 'is declared twice in this lambda',
    outer: 'is already a parameter of an enclosing lambda',
    reserved: 'is not a plain name',
  };
  return diagnostic('PIPE4022', {
    message: `the lambda parameter \`${facts.name}\` ${why[facts.problem]}`,
    span: facts.span,
    label: 'choose another name',
    hint: 'Use a plain name that is not a scope, e.g. `line` or `x`.',
  });
}

/** The body of a lambda gives a value its function cannot use (FILTER needs a boolean…). */
export function badLambdaResult(facts: {
  readonly span: Span;
  readonly signature: FunctionSignature;
  readonly param: ParamSpec;
  readonly found: PipeType;
}): Diagnostic {
  const wanted = describeType(facts.param.lambda?.returns ?? facts.param.type);
  const found = describeFound(facts.found);
  const hint =
    facts.signature.name === 'SORTBY' || facts.signature.name === 'GROUPBY'
      ? 'Return a field of the element, e.g. `x => x.name`.'
      : 'Return a comparison, e.g. `x => x.price > 10`.';
  return diagnostic('PIPE4004', {
    message: `the lambda of ${facts.signature.name} must give ${withArticle(wanted)}, but its body is ${withArticle(found)}`,
    span: facts.span,
    label: `this is ${withArticle(found)}`,
    body: ['The signature is:', `    ${signatureText(facts.signature)}`],
    hint,
  });
}

/** `SUM(array)` over elements that can never be numbers. */
export function badElements(facts: {
  readonly span: Span;
  readonly signature: FunctionSignature;
  readonly found: PipeType;
  readonly what: string;
}): Diagnostic {
  const found = describeFound(facts.found);
  return diagnostic('PIPE4004', {
    message: `${facts.signature.name} of one array needs numbers, but the elements of ${facts.what} are ${found === 'null' ? 'null' : withArticle(found)}`,
    span: facts.span,
    label: `elements are ${withArticle(found)}`,
    hint: 'Pick the number of each element first: `' + facts.signature.name + '(MAP(…, x => x.amount))`.',
  });
}

// ───────────────────────────── constant arguments (constant-args.ts) ─────────────────────────────
// What is wrong with a literal argument, found by the run time's own code; badConstant above turns
// it into a diagnostic at the argument. `detail` is what that code said.

const BACKTRACKING_HINT =
  'rewrite the pattern without lookaround, backreferences, atomic groups or possessive quantifiers';

export function textNotANumber(value: string): ConstantProblem {
  const message = `the text ${JSON.stringify(value)} is not a number`;
  return { code: 'PIPE4004', message, hint: 'write the number without quotes' };
}

export function regexNeedsBacktracking(value: string, detail: string): ConstantProblem {
  const message = `the regular expression ${JSON.stringify(value)} needs a backtracking engine: ${detail}`;
  return { code: 'PIPE5504', message, hint: BACKTRACKING_HINT };
}

export function invalidRegex(value: string, detail: string): ConstantProblem {
  return { code: 'PIPE4014', message: `invalid regular expression ${JSON.stringify(value)}: ${detail}` };
}

export function badRegexFlags(detail: string): ConstantProblem {
  return { code: 'PIPE4017', message: detail };
}

export function badDatePattern(detail: string): ConstantProblem {
  const hint = 'pattern letters follow Java: yyyy MM dd HH mm ss SSS; write "timestamp" for epoch milliseconds';
  return { code: 'PIPE4015', message: detail, hint };
}

export function badNumberPattern(detail: string): ConstantProblem {
  return {
    code: 'PIPE4016',
    message: detail,
    hint: 'number patterns use # and 0 for digits, `,` for grouping and `.` for decimals, e.g. "#,##0.00"',
  };
}

export function unknownLocale(value: string): ConstantProblem {
  const hint = 'write a language tag such as "en-US", "pt-BR" or "de-DE"';
  return { code: 'PIPE4017', message: `unknown locale ${JSON.stringify(value)}`, hint };
}

/** `suggestion`: the closest known zone (compiler/braces/zones.ts). */
export function unknownZone(value: string, suggestion: string | undefined): ConstantProblem {
  return {
    code: 'PIPE5550',
    message: `unknown time zone ${JSON.stringify(value)}`,
    ...(suggestion !== undefined ? { label: `did you mean ${JSON.stringify(suggestion)}?` } : {}),
    hint:
      suggestion !== undefined
        ? `write ${JSON.stringify(suggestion)}`
        : 'write an IANA zone such as "America/Sao_Paulo", "UTC" or an offset such as "GMT-3"',
  };
}

/** A value that is none of `candidates`: `unknown time unit "x"`, `unsupported charset "x"`. */
export function notOneOfConstants(
  what: string,
  value: string,
  candidates: readonly string[],
  verb = 'unknown',
): ConstantProblem {
  return { code: 'PIPE4017', message: `${verb} ${what} ${JSON.stringify(value)}`, candidates };
}

export function jsonPathWithoutRoot(path: string): ConstantProblem {
  return { code: 'PIPE4017', message: `the JSONPath ${JSON.stringify(path)} must start with \`$\`` };
}

export function invalidConstantJsonPath(path: string, detail: string): ConstantProblem {
  return { code: 'PIPE4017', message: `invalid JSONPath ${JSON.stringify(path)}: ${detail}` };
}

/** A field a JSONPATH path (or a filter chain in it) reads, which the closed shape it reads lacks. */
export const COMPARE_WITH_EQUALS = "compare with `==`: `[?(@.status == 'paid')]`";

export function noSuchJsonPathField(facts: {
  readonly span: Span;
  readonly field: string;
  readonly owner: PipeType;
}): Diagnostic {
  const inside = jsonPathInsideNothing(facts.field, facts.owner);
  if (inside) return diagnostic('PIPE5502', { ...inside, span: facts.span });
  const fields = fieldNames(facts.owner);
  const close = suggest(facts.field, fields);
  return diagnostic('PIPE5502', {
    message: `no field \`${facts.field}\` in the value this JSONPath reads`,
    span: facts.span,
    label: close ? `did you mean \`${close}\`?` : 'no such field',
    ...(fields.length > 0 ? { body: [`Fields here: ${fields.map((f) => `\`${f}\``).join(', ')}.`] } : {}),
    hint: close
      ? `Write \`${close}\` instead of \`${facts.field}\`.`
      : 'Read one of the fields listed, or declare the field in the schema that gives this shape.',
  });
}

function fieldNames(owner: PipeType): string[] {
  if (owner.kind === 'object') return Object.keys(owner.fields);
  if (owner.kind === 'union') return [...new Set(owner.members.flatMap(fieldNames))];
  return [];
}

/** `when {{ x }}` where `x`, when present, is never a boolean (only `true` is true). */
export function conditionNeverTrue(facts: {
  readonly span: Span;
  readonly what: string;
  readonly found: PipeType;
  readonly hint: string;
}): Diagnostic {
  const found = withArticle(describeFound(facts.found));
  return diagnostic('PIPE4023', {
    message: `this condition is never true: ${facts.what} is ${found}, and only \`true\` is true`,
    span: facts.span,
    label: `this is ${found}`,
    hint: capitalize(facts.hint),
  });
}

/** `x == "literal"` (or another scalar) where `x`, when present, is always an object or an array. */
export function structuredComparedToScalar(facts: {
  readonly span: Span;
  readonly what: string;
  readonly found: PipeType;
  readonly operator: string;
  readonly scalar: string;
  readonly hint: string | undefined;
}): Diagnostic {
  const found = withArticle(describeFound(facts.found));
  const always = facts.operator === '!=' ? 'always true' : 'always false';
  return diagnostic('PIPE4024', {
    message: `${facts.what} is ${found}, never equal to ${facts.scalar}, so this \`${facts.operator}\` is ${always}`,
    span: facts.span,
    label: `this is ${found}`,
    ...(facts.hint ? { hint: capitalize(facts.hint) } : {}),
  });
}

/**
 * A JSONPath segment or filter chain that reads into a value without such members: a string,
 * number or boolean (no fields or elements), or a name of an array (only elements). Shared with
 * Choice and for-each paths (compiler/lower/errors.ts).
 */
export function jsonPathInsideNothing(
  segment: string,
  owner: PipeType,
): { message: string; label: string; hint: string } | undefined {
  const kind = owner.kind;
  if (kind !== 'string' && kind !== 'number' && kind !== 'boolean' && kind !== 'array') return undefined;
  const indexed = segment === '*' || /^-?\d+$/u.test(segment);
  const what = indexed ? `\`[${segment}]\`` : segment.startsWith('?(') ? 'the filter' : `\`.${segment}\``;
  if (kind === 'array')
    return {
      message: `${what} reads a field of an array, which has only elements: the path selects nothing`,
      label: 'inside an array',
      hint: `select the elements first: \`[*].${segment}\` (or one of them: \`[0].${segment}\`)`,
    };
  return {
    message: `${what} reads into a ${kind}, which has no fields or elements: the path selects nothing`,
    label: `inside a ${kind}`,
    hint: 'End the path at the value itself, or read the field that holds the object or array.',
  };
}
