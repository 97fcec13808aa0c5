/**
 * One constructor per diagnostic of the check phase (with lowering, which runs in the same walk):
 * facts in, `Diagnostic` out, the prose here. Parameters against their schema (check-params.ts),
 * steps and control flow (check-steps.ts), pipelines, accounts, routes and cycles
 * (check-program.ts), triggers, schemas and capsules (lower/errors.ts has lowering's). Codes and
 * titles come from the catalogue (base/diagnostics/codes/). A connector's own checks are raised
 * from its folder with `api.diagnostic` (runtime/connectors/README.md).
 */
import { diagnostic, type DiagnosticCode } from '../../base/diagnostics/codes.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { Span } from '../../base/source/span.js';
import { suggest } from '../../base/diagnostics/suggest.js';

/** `a`, `b` and `c` as a list of code spans. */
function names(list: readonly string[]): string {
  return list.map((n) => `\`${n}\``).join(', ');
}

const didYouMean = (suggestion: string | undefined, otherwise: string): string =>
  suggestion ? `did you mean \`${suggestion}\`?` : otherwise;

// ───────────────────────────── parameters against a schema (check-params.ts) ─────────────────────────────

/** What the parameters belong to: `connector \`http\``, `trigger \`event\``. */
export interface ParamOwner {
  readonly what: string;
  readonly name: string;
}

/** `where` is empty for the top level, else `\`a.b\` of ` (a path inside the parameters). */
export function unknownParameter(facts: {
  readonly key: string;
  readonly at: Span;
  readonly owner: ParamOwner;
  readonly inside: string | undefined;
  readonly accepted: readonly string[];
  readonly suggestion: string | undefined;
}): Diagnostic {
  const { key, owner, suggestion } = facts;
  const whose =
    facts.inside === undefined
      ? `${owner.what} \`${owner.name}\``
      : `\`${facts.inside}\` of ${owner.what} \`${owner.name}\``;
  return diagnostic('PIPE3001', {
    message: `unknown parameter \`${key}\` for ${whose}`,
    span: facts.at,
    label: didYouMean(suggestion, 'unknown parameter'),
    body:
      facts.accepted.length > 0
        ? [`${capitalize(owner.what)} \`${owner.name}\` accepts: ${firstNames(facts.accepted)}.`]
        : [],
    ...(suggestion ? { hint: `rename \`${key}\` to \`${suggestion}\`` } : {}),
  });
}

/** `where` is `` (top level) or ` \`a.b\`` (inside); `description` the schema's, if any. */
export function missingParameter(
  missing: string,
  where: string,
  owner: ParamOwner,
  at: Span,
  description: string | undefined,
): Diagnostic {
  return diagnostic('PIPE3002', {
    message: `missing required parameter \`${missing}\`${where === '' ? '' : ` in${where}`} for ${owner.what} \`${owner.name}\``,
    span: at,
    label: `needs \`${missing}\``,
    hint: `add \`${missing}: …\`${description ? ` (${description})` : ''}`,
  });
}

/** A parameter the schema rules out (`properties: { x: false }`). */
export function parameterNotApplicable(key: string, owner: ParamOwner, at: Span): Diagnostic {
  return diagnostic('PIPE3001', {
    message: `parameter \`${key}\` does not apply to ${owner.what} \`${owner.name}\``,
    span: at,
    label: 'not used here',
    hint: `remove \`${key}\``,
  });
}

/** A value that is none of the schema's alternatives (an enum, or an anyOf of constants). */
export function notOneOf(
  where: string,
  owner: ParamOwner,
  at: Span,
  alternatives: readonly unknown[],
  suggestion: string | undefined,
): Diagnostic {
  return diagnostic('PIPE3003', {
    message: `invalid value for${where} of ${owner.what} \`${owner.name}\`: expected one of ${names(alternatives.map(String))}`,
    span: at,
    label: didYouMean(suggestion, 'not an allowed value'),
    ...(suggestion ? { hint: `write \`${suggestion}\`` } : {}),
  });
}

/** Any other way a value breaks its schema; `problem` says how (ajv's message or better). */
export function invalidParameter(facts: {
  readonly where: string;
  readonly owner: ParamOwner;
  readonly at: Span;
  readonly problem: string;
  readonly allowed: readonly unknown[] | undefined;
  readonly suggestion: string | undefined;
}): Diagnostic {
  const { owner, problem, allowed } = facts;
  return diagnostic('PIPE3003', {
    message: `invalid value for${facts.where || ' the parameters'} of ${owner.what} \`${owner.name}\`: ${problem}`,
    span: facts.at,
    label: didYouMean(facts.suggestion, problem),
    ...(allowed ? { body: [`Allowed values: ${names(allowed.map(String))}.`] } : {}),
  });
}

/** A parameter whose schema says `"format": "timezone"` given a zone the run time does not know. */
export function unknownTimeZone(
  zone: string,
  path: string,
  owner: ParamOwner,
  at: Span,
  suggestion: string | undefined,
): Diagnostic {
  return diagnostic('PIPE5550', {
    message: `unknown time zone ${JSON.stringify(zone)} for \`${path}\` of ${owner.what} \`${owner.name}\``,
    span: at,
    label: suggestion !== undefined ? `did you mean ${JSON.stringify(suggestion)}?` : 'not an IANA time zone',
    hint:
      suggestion !== undefined
        ? `write ${JSON.stringify(suggestion)}`
        : 'write an IANA zone name such as "America/Sao_Paulo", "Europe/Berlin" or "UTC"',
  });
}

/** `path` is the parameter as written (`retry.delay`). */
export function expressionInFixedParameter(path: string, owner: ParamOwner, at: Span): Diagnostic {
  return diagnostic('PIPE3004', {
    message: `\`${path}\` of ${owner.what} \`${owner.name}\` is fixed at build time and does not accept expressions`,
    span: at,
    label: 'expression not allowed here',
    hint: 'write a literal value here',
  });
}

/** A `{{ }}` in text a server parses (`x-pipe-refuses-braces`: SQL); `hint` is the schema's, how to pass a value instead. */
export function expressionInQueryText(path: string, owner: ParamOwner, at: Span, hint: string): Diagnostic {
  return diagnostic('PIPE3030', {
    message: `\`${path}\` of ${owner.what} \`${owner.name}\` is query text and takes no \`{{ }}\``,
    span: at,
    label: 'a value spliced into the query',
    hint,
  });
}

/** An account whose type the parameter does not take (`x-pipe-account-types`); `declaredAt` its type word. */
export function accountOfWrongType(facts: {
  readonly name: string;
  readonly type: string;
  readonly accepted: readonly string[];
  readonly parameter: string;
  readonly at: Span;
  readonly declaredAt: Span;
}): Diagnostic {
  const { name, type, accepted } = facts;
  return diagnostic('PIPE3031', {
    message: `${facts.parameter} takes ${accepted.map((t) => `\`${t}\``).join(' or ')} accounts; \`${name}\` is a \`${type}\` account`,
    span: facts.at,
    label: `a \`${type}\` account`,
    secondary: [{ span: facts.declaredAt, message: `\`${name}\` is declared here as \`${type}\`` }],
    hint: `declare \`account ${name}: ${accepted[0] ?? 'connection'} { … }\`, or name an account of that type`,
  });
}

/**
 * PIPE4201: a value holding a secret (an account's value) reaches a place outside the service.
 * `sink` names the place ("the body of `respond`"), `from` the account field (`account.crm.token`),
 * `carried` the path of the message field that brought it when the value does not read the account.
 */
export function secretLeaves(facts: {
  readonly at: Span;
  readonly sink: string;
  readonly from: string;
  readonly declaredAt: Span | undefined;
  readonly carried: string | undefined;
  readonly expression: string | undefined;
}): Diagnostic {
  const { from, sink } = facts;
  const wrapped = `{{ DECLASSIFY(${facts.expression ?? '…'}) }}`;
  return diagnostic('PIPE4201', {
    message: `a secret (\`${from}\`) would leave the service through ${sink}`,
    span: facts.at,
    label: facts.carried ? `\`${facts.carried}\` holds \`${from}\`` : `holds \`${from}\``,
    secondary: facts.declaredAt ? [{ span: facts.declaredAt, message: `the secret: a value of an account` }] : [],
    body: [
      facts.carried
        ? `An earlier step wrote \`${from}\` into \`${facts.carried}\`; the values of accounts stay secrets wherever steps copy them.`
        : 'The values of accounts are secrets, and so is everything computed from one.',
    ],
    hint: `send it without the account's value; wrap it in \`${wrapped}\` if it is meant to leave`,
  });
}

/** Like `names`, at most 12 shown. */
function firstNames(list: readonly string[]): string {
  const shown = list.slice(0, 12).map((n) => `\`${n}\``);
  return list.length > 12 ? `${shown.join(', ')} …and ${list.length - 12} more` : shown.join(', ');
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// ───────────────────────────── rules between parameters (param-rules.ts) ─────────────────────────────
// `owner` names where the rule applies, already in code spans: `\`csv generate\``, or
// `connector \`agent\` when the model is not \`mock:…\``, or `\`auth\` of trigger \`http\` when \`type\` is \`bearer\``.

/** A parameter a case rules out. `only` says which cases take it; `takes` what this case takes, when known. */
export function notTakenParameter(
  key: string,
  owner: string,
  at: Span,
  only: string | undefined,
  takes: readonly string[] | undefined,
): Diagnostic {
  return diagnostic('PIPE3015', {
    message: `\`${key}\` is not a parameter of ${owner}`,
    span: at,
    label: only ?? 'not used here',
    ...(takes ? { body: [`${capitalize(owner)} takes: ${names(takes) || 'no parameters of its own'}.`] } : {}),
    hint: `remove \`${key}\``,
  });
}

/** A parameter a case needs (`description` is the parameter's, for the hint). */
export function missingCaseParameter(
  key: string,
  owner: string,
  at: Span,
  description: string | undefined,
): Diagnostic {
  return diagnostic('PIPE3002', {
    message: `missing required parameter \`${key}\` for ${owner}`,
    span: at,
    label: `needs \`${key}\``,
    hint: `add \`${key}: …\`${description ? ` (${description})` : ''}`,
  });
}

/** None of a group of which exactly one (or at least one) is given. */
export function needsOneOf(owner: string, group: readonly string[], at: Span): Diagnostic {
  const list = group.map((k) => `\`${k}\``).join(' or ');
  return diagnostic('PIPE3002', {
    message: `${owner} needs ${list}`,
    span: at,
    label: `needs ${list}`,
    hint: `add one of ${list}`,
  });
}

/** `key` is a second parameter of `group` given; `first` the one given before it. */
export function moreThanOneOf(
  owner: string,
  group: readonly string[],
  key: string,
  first: string,
  at: Span,
): Diagnostic {
  const list = group.map((k) => `\`${k}\``).join(' or ');
  return diagnostic('PIPE3015', {
    message: `${owner} takes one of ${list}, not both`,
    span: at,
    label: `\`${first}\` is already given`,
    hint: `remove \`${key}\``,
  });
}

/** `given` is written and needs `missing` beside it (`dependentRequired`). */
export function dependentParameterMissing(
  given: string,
  missing: string,
  owner: string,
  at: Span,
  description: string | undefined,
): Diagnostic {
  return diagnostic('PIPE3002', {
    message: `\`${given}\` of ${owner} needs \`${missing}\``,
    span: at,
    label: `needs \`${missing}\``,
    hint: `add \`${missing}: …\`${description ? ` (${description})` : ''}, or remove \`${given}\``,
  });
}

// ───────────────────────────── steps (check-steps.ts) ─────────────────────────────

export function unreachableStep(at: Span): Diagnostic {
  return diagnostic('PIPE6001', {
    message: 'this step can never run: the execution has already ended',
    span: at,
    label: 'unreachable',
    hint: 'remove it, or move it before the `respond`/`fail` that ends the execution',
  });
}

export function respondNotAllowed(where: 'for-each' | 'capsule', at: Span): Diagnostic {
  const inLoop = where === 'for-each';
  return diagnostic('PIPE6004', {
    message: `\`respond\` cannot be used inside ${inLoop ? '`for-each`' : 'a capsule'}`,
    span: at,
    label: inLoop ? 'not allowed in a loop body' : 'not allowed in a capsule',
    hint: inLoop
      ? 'collect the results and respond after the loop'
      : 'let the capsule end with its output; the pipeline that uses it responds',
  });
}

// ───────────────────────────── respond (http-answers.ts) ─────────────────────────────

export function bodyOnBodilessStatus(status: number, at: Span): Diagnostic {
  const informational = status < 200;
  return diagnostic('PIPE3052', {
    message: `an HTTP ${status} answer carries no body, so this one would never reach the client`,
    span: at,
    label: 'never sent',
    hint: informational
      ? `answer with a final status that carries the body (\`respond 200 …\`)`
      : `remove the body (\`respond ${status}\`), or answer \`respond 200 …\` to send it`,
  });
}

export function informationalStatus(status: number, at: Span): Diagnostic {
  return diagnostic('PIPE3052', {
    message: `\`respond ${status}\` cannot end an execution: an informational (1xx) status is no final answer, and the service sends 500 instead`,
    span: at,
    label: 'not a final status',
    hint: 'answer with a status from 200 to 599',
  });
}

export function redirectWithoutLocation(status: number, at: Span): Diagnostic {
  return diagnostic('PIPE3053', {
    message: `a ${status} redirect without a \`Location\` header leaves the client nowhere to go`,
    span: at,
    label: 'no `Location` header',
    hint: `add the target: \`respond ${status} headers { Location: "/path" }\``,
  });
}

/** `known` lists the connectors and capsules. */
export function unknownConnector(
  name: string,
  at: Span,
  known: readonly string[],
  suggestion: string | undefined,
): Diagnostic {
  return diagnostic('PIPE2001', {
    message: `unknown connector \`${name}\``,
    span: at,
    label: didYouMean(suggestion, 'unknown connector'),
    body: [`Connectors: ${names(known)}.`],
    ...(suggestion ? { hint: `write \`${suggestion}\`` } : {}),
  });
}

/** A header word holding `{{ }}`; `param` is the parameter the word fills, if any. */
export function expressionInHeaderWord(
  connector: string,
  word: string,
  at: Span,
  param: string | undefined,
): Diagnostic {
  return diagnostic('PIPE3004', {
    message: `the words after \`${connector}\` are fixed at build time and cannot hold \`{{ }}\``,
    span: at,
    label: 'expression in a header word',
    hint: param ? `move it into the block: \`${connector} { ${param}: "${word}" … }\`` : 'move it into the block',
  });
}

/** `positional` lists the parameters the connector's header words fill. */
export function tooManyHeaderWords(connector: string, at: Span, positional: readonly string[]): Diagnostic {
  return diagnostic('PIPE3005', {
    message: `too many words after \`${connector}\``,
    span: at,
    label: 'unexpected here',
    body: [
      positional.length > 0
        ? `\`${connector}\` takes ${names(positional)} and then an optional label.`
        : `\`${connector}\` takes only an optional label before its \`{\`.`,
    ],
  });
}

export function labelUsedTwice(label: string, pipeline: string, at: Span, first: Span): Diagnostic {
  return diagnostic('PIPE2009', {
    message: `the step label \`${label}\` is used twice in pipeline \`${pipeline}\``,
    span: at,
    label: 'used again here',
    secondary: [{ span: first, message: 'first used here' }],
  });
}

/** A boolean set against its default where the schema's `x-pipe-opt-out` says what that loses. */
export function optedOut(connector: string, key: string, value: boolean, consequence: string, at: Span): Diagnostic {
  return diagnostic('PIPE3011', {
    message: `\`${key}: ${String(value)}\` on \`${connector}\`: ${consequence}`,
    span: at,
    label: `${key} turned ${value ? 'on' : 'off'}`,
    hint: `remove \`${key}: ${String(value)}\`, or handle \`{ success: false }\` right after this step`,
  });
}

export function unreachableBranch(at: Span, alwaysMatching: Span): Diagnostic {
  return diagnostic('PIPE6005', {
    message: 'this branch can never be taken: an earlier condition always matches',
    span: at,
    label: 'unreachable branch',
    secondary: [{ span: alwaysMatching, message: 'this condition always matches' }],
  });
}

export function choiceWithoutOtherwise(at: Span): Diagnostic {
  return diagnostic('PIPE6002', {
    message: 'this choice has no `otherwise`: a message that matches no `when` passes on unchanged',
    span: at,
    label: 'no otherwise',
    hint: 'add `otherwise { … }`',
  });
}

export function unknownBranch(pipeline: string, name: string, at: Span, suggestion: string | undefined): Diagnostic {
  return diagnostic('PIPE2010', {
    message: `pipeline \`${pipeline}\` has no branch \`${name}\``,
    span: at,
    label: didYouMean(suggestion, 'unknown branch'),
    hint: suggestion ? `write \`-> ${suggestion}\`` : `declare it in the pipeline: \`branch ${name} { … }\``,
  });
}

export function unknownForEachOption(key: string, at: Span, suggestion: string | undefined): Diagnostic {
  return diagnostic('PIPE3001', {
    message: `unknown option \`${key}\` for \`for-each\``,
    span: at,
    label: didYouMean(suggestion, 'unknown option'),
    body: ['`for-each` accepts: `parallel` (1 to 10, default 1), `fail-on-error` (default false).'],
  });
}

export function badParallel(at: Span): Diagnostic {
  return diagnostic('PIPE3003', {
    message: '`parallel` of `for-each` must be an integer from 1 to 10',
    span: at,
    label: 'expected 1 to 10',
  });
}

// ───────────────────────────── the service (check-program.ts) ─────────────────────────────

export function expressionInGlobal(global: string, at: Span): Diagnostic {
  return diagnostic('PIPE3004', {
    message: `the global \`${global}\` is fixed when the service starts and cannot contain \`{{ }}\``,
    span: at,
    label: 'expression in a global',
    hint: 'write a literal value (env("NAME") is allowed)',
  });
}

export function unusedBranch(name: string, at: Span): Diagnostic {
  return diagnostic('PIPE6006', {
    message: `branch \`${name}\` is never used`,
    span: at,
    label: 'unused branch',
    hint: `route to it with \`when … -> ${name}\` or remove it`,
  });
}

const PIPELINE_OPTION_VALUES = {
  concurrency: { label: 'expected an integer from 1 to 1000', hint: 'write for example `concurrency: 4`' },
  queue: { label: 'expected an integer from 0 to 100000', hint: 'write for example `queue: 100`' },
  timeout: { label: 'expected a duration such as 30s', hint: 'write for example `timeout: 30s`' },
} as const;

export function badPipelineOption(option: keyof typeof PIPELINE_OPTION_VALUES, at: Span): Diagnostic {
  return diagnostic('PIPE3007', {
    message: `invalid value for pipeline option \`${option}\``,
    span: at,
    ...PIPELINE_OPTION_VALUES[option],
  });
}

export function unknownPipelineOption(key: string, at: Span, suggestion: string | undefined): Diagnostic {
  return diagnostic('PIPE3007', {
    message: `unknown pipeline option \`${key}\``,
    span: at,
    label: didYouMean(suggestion, 'unknown option'),
    body: [
      'Pipeline options: `concurrency` (default 10), `queue` (executions that may wait for a slot, default 1000; beyond it 503), `timeout` (default 30s).',
    ],
  });
}

export function unknownAccountType(
  type: string,
  at: Span,
  known: readonly string[],
  suggestion: string | undefined,
): Diagnostic {
  return diagnostic('PIPE3009', {
    message: `unknown account type \`${type}\``,
    span: at,
    label: didYouMean(suggestion, 'unknown type'),
    body: [`Account types: ${names(known)}.`],
  });
}

export function unknownAccountField(
  type: string,
  field: string,
  at: Span,
  fields: readonly string[],
  suggestion: string | undefined,
): Diagnostic {
  return diagnostic('PIPE3009', {
    message: `accounts of type \`${type}\` have no field \`${field}\``,
    span: at,
    label: didYouMean(suggestion, 'unknown field'),
    body: [`Fields of \`${type}\`: ${names(fields)}.`],
  });
}

/** `route` is `METHOD /path` as written. */
export function duplicateRoute(route: string, pipeline: string, at: Span, first: Span): Diagnostic {
  return diagnostic('PIPE3008', {
    message: `\`${route}\` is already served by pipeline \`${pipeline}\``,
    span: at,
    label: 'duplicate route',
    secondary: [{ span: first, message: 'first route here' }],
    hint: 'change the path or the method of one of the two triggers',
  });
}

export function capsuleNamedLikeConnector(capsule: string, at: Span): Diagnostic {
  return diagnostic('PIPE2003', {
    message: `the capsule \`${capsule}\` has the name of a connector`,
    span: at,
    label: 'clashes with a connector',
    hint: 'give the capsule another name',
  });
}

/** `cycle` is the pipelines in order (`a → b → a`); `closing` where the last execution starts. */
export function selfExecutionWithoutRoom(
  pipeline: string,
  cycle: string,
  concurrency: number,
  at: Span,
  closing: Span,
): Diagnostic {
  return diagnostic('PIPE6003', {
    message: `pipeline \`${pipeline}\` executes itself (${cycle}) but allows only ${concurrency} simultaneous execution`,
    span: at,
    label: 'needs concurrency of at least 2',
    secondary: [{ span: closing, message: 'the execution that closes the cycle starts here' }],
    hint: `declare \`pipeline ${pipeline} (concurrency: 2)\` or more`,
  });
}

// ───────────────────────────── triggers, schemas, capsules ─────────────────────────────

export function unknownTrigger(
  kind: string,
  at: Span,
  known: readonly string[],
  suggestion: string | undefined,
): Diagnostic {
  return diagnostic('PIPE2002', {
    message: `unknown trigger \`${kind}\``,
    span: at,
    label: didYouMean(suggestion, 'unknown trigger'),
    body: [`Triggers: ${names(known)}.`],
    ...(suggestion ? { hint: `write \`trigger ${suggestion} { … }\`` } : {}),
  });
}

export function expressionInSchema(schema: string, at: Span): Diagnostic {
  return diagnostic('PIPE3004', {
    message: `the schema \`${schema}\` is compiled at build time and cannot contain \`{{ }}\` or env()`,
    span: at,
    label: 'expression inside a schema',
    hint: 'write the schema as literal JSON; check values that vary with an `assert` or a later `validate` step',
  });
}

export function unknownCapsuleParamType(type: string, capsule: string, at: Span, known: readonly string[]): Diagnostic {
  return diagnostic('PIPE3003', {
    message: `unknown parameter type \`${type}\` in capsule \`${capsule}\``,
    span: at,
    label: 'unknown type',
    body: [`Parameter types: ${names(known)}.`],
  });
}

/** A schema that breaks its draft's meta-schema; `problem` is the most specific complaint. */
export function invalidSchema(draft: string, problem: string, at: Span): Diagnostic {
  return diagnostic('PIPE3006', {
    message: `invalid JSON Schema (${draft}): ${problem}`,
    span: at,
    label: 'invalid schema',
    hint: 'fix the schema keyword named above',
  });
}

/** A pattern or format problem of a schema (below; json-schema.ts passes them on), at its value. */
export function schemaKeywordDiagnostic(
  problem: { readonly code: DiagnosticCode; readonly message: string; readonly label: string; readonly hint?: string },
  at: Span,
): Diagnostic {
  const { code, message, label, hint } = problem;
  return diagnostic(code, { message, span: at, label, ...(hint ? { hint } : {}) });
}

// ───────────────────────────── regular expressions in parameters (check-params.ts) ─────────────────────────────

/**
 * A parameter the schema marks `format: regex` whose literal pattern the runtime's engine (RE2, ECMAScript
 * syntax) cannot run: `detail` is the engine's own message.
 */
export function regexParameterProblem(
  path: string,
  owner: ParamOwner,
  pattern: string,
  detail: string,
  needsBacktracking: boolean,
  at: Span,
): Diagnostic {
  return diagnostic(needsBacktracking ? 'PIPE5504' : 'PIPE5505', {
    message: needsBacktracking
      ? `the pattern ${JSON.stringify(pattern)} of \`${path}\` needs a backtracking engine: ${detail}`
      : `the pattern ${JSON.stringify(pattern)} of \`${path}\` is not a valid regular expression: ${detail}`,
    span: at,
    label: needsBacktracking ? 'needs backtracking' : 'invalid pattern',
    hint: needsBacktracking
      ? 'rewrite it without lookaround or backreferences: it runs on RE2, which is linear-time'
      : `\`${path}\` of ${owner.what} \`${owner.name}\` is an ECMAScript regular expression, run on RE2`,
  });
}

// ───────────────────────────── schema keywords (schema-keywords.ts) ─────────────────────────────
// Problems of a schema's `pattern` and `format` values, at their JSON pointer; context.ts turns
// them into diagnostics where the schema is written.

/** A schema keyword's problem at `pointer` inside the schema. */
export interface SchemaKeywordProblem {
  readonly code: 'PIPE5504' | 'PIPE5505' | 'PIPE3010';
  readonly pointer: string;
  readonly message: string;
  readonly label: string;
  readonly hint?: string;
}

/** `known` are the formats the validators check. */
export function unknownFormat(
  format: string,
  pointer: string,
  known: readonly string[],
  suggestion: string | undefined,
): SchemaKeywordProblem {
  return {
    code: 'PIPE3010',
    pointer,
    message: `unknown JSON Schema format ${JSON.stringify(format)}: no validator would check it`,
    label: suggestion ? `did you mean "${suggestion}"?` : 'unknown format',
    hint: suggestion
      ? `write "${suggestion}"`
      : `known formats: ${known.join(', ')}; or check the value with \`pattern\``,
  };
}

/** `detail` is what the regex translator said of the pattern. */
export function patternNeedsBacktracking(pattern: string, pointer: string, detail: string): SchemaKeywordProblem {
  return {
    code: 'PIPE5504',
    pointer,
    message: `the pattern ${JSON.stringify(pattern)} needs a backtracking engine: ${detail}`,
    label: 'needs backtracking',
    hint: 'rewrite it without lookaround or backreferences (for an exclusion, add `not: { pattern: … }`)',
  };
}

export function invalidPattern(pattern: string, pointer: string, detail: string): SchemaKeywordProblem {
  return {
    code: 'PIPE5505',
    pointer,
    message: `the pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${detail}`,
    label: 'invalid pattern',
    hint: 'JSON Schema patterns are ECMAScript regular expressions',
  };
}

// ──────────────────────── schema contradictions (schema-satisfiable.ts) ────────────────────────
// A schema no document satisfies (PIPE3050, at the keyword that makes it so) and a key that is a
// misspelled keyword (PIPE3051, at the key). context.ts places them like the problems above.

export interface SchemaContradiction {
  readonly code: 'PIPE3050' | 'PIPE3051';
  readonly pointer: string;
  /** True when the span is the key at `pointer` (a misspelled keyword), not its value. */
  readonly onKey?: boolean;
  readonly message: string;
  readonly label: string;
  readonly hint?: string;
}

/** A JSON pointer inside a schema as prose: `at \`allOf.1.additionalProperties\``, or `at the top`. */
function atPointer(pointer: string): string {
  const path = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  return path === '' ? 'at the top of the schema' : `at \`${path}\``;
}

function listed(values: readonly unknown[]): string {
  return values.map((v) => (typeof v === 'string' ? `\`${v}\`` : JSON.stringify(v))).join(', ');
}

export function unknownSchemaKeyword(key: string, keyword: string, pointer: string): SchemaContradiction {
  return {
    code: 'PIPE3051',
    pointer,
    onKey: true,
    message: `\`${key}\` is not a JSON Schema keyword, so the schema ignores it`,
    label: `did you mean \`${keyword}\`?`,
    hint: `write \`${keyword}\``,
  };
}

export function requiredButForbidden(
  name: string,
  allowed: readonly string[],
  pointer: string,
  closedAt: string,
): SchemaContradiction {
  // One- and two-letter names are all within one edit of each other: no guess for them.
  const suggestion = name.length > 2 ? suggest(name, allowed) : undefined;
  return {
    code: 'PIPE3050',
    pointer,
    message: `\`${name}\` is required, but \`additionalProperties: false\` (${atPointer(closedAt.replace(/\/additionalProperties$/, ''))}) forbids it: no object satisfies this schema`,
    label: suggestion ? `did you mean \`${suggestion}\`?` : 'required but not allowed',
    hint: suggestion
      ? `require \`${suggestion}\`, or list \`${name}\` under \`properties\``
      : `list \`${name}\` under \`properties\`${allowed.length > 0 ? ` (it has ${listed(allowed)})` : ''}, or drop it from \`required\``,
  };
}

export function boundsCross(
  lowerKeyword: string,
  lower: number,
  upperKeyword: string,
  upper: number,
  pointer: string,
  integers = false,
): SchemaContradiction {
  return {
    code: 'PIPE3050',
    pointer,
    message: `\`${lowerKeyword}: ${lower}\` and \`${upperKeyword}: ${upper}\` leave no ${integers ? 'integer' : 'value'} between them: no document satisfies this schema`,
    label: `not below \`${upperKeyword}\``,
    hint: `make \`${lowerKeyword}\` at most \`${upperKeyword}\` (were they swapped?)`,
  };
}

export function emptyEnum(pointer: string): SchemaContradiction {
  return {
    code: 'PIPE3050',
    pointer,
    message: 'an empty `enum` allows no value: no document satisfies this schema',
    label: 'no value allowed',
    hint: 'list the allowed values, or remove `enum`',
  };
}

export function constOutsideType(value: unknown, types: readonly string[], pointer: string): SchemaContradiction {
  return {
    code: 'PIPE3050',
    pointer,
    message: `\`const: ${JSON.stringify(value)}\` is not of the schema's \`type\` (${listed(types)}): no document satisfies this schema`,
    label: 'not of the declared type',
    hint:
      typeof value === 'number' && types.includes('string')
        ? `write the constant as text: \`const: "${String(value)}"\``
        : 'make `const` a value of the declared `type`, or change the `type`',
  };
}

export function enumOutsideType(types: readonly string[], pointer: string): SchemaContradiction {
  return {
    code: 'PIPE3050',
    pointer,
    message: `no value of this \`enum\` is of the schema's \`type\` (${listed(types)}): no document satisfies this schema`,
    label: 'none of the declared type',
    hint: 'write the values as the declared `type` (numbers unquoted, text quoted), or change the `type`',
  };
}

export function typesExclude(
  first: readonly string[],
  second: readonly string[],
  firstAt: string,
  pointer: string,
): SchemaContradiction {
  return {
    code: 'PIPE3050',
    pointer,
    message: `\`type\` ${listed(second)} shares no type with ${listed(first)} (${atPointer(firstAt)}), and \`allOf\` needs both: no document satisfies this schema`,
    label: 'no type in common',
    hint: 'give the parts of `allOf` a type in common, or use `anyOf` for alternatives',
  };
}

// ───────────────────────────── failure policies (check-policies.ts) ─────────────────────────────

/** `kinds`: what the connector lists, already as text (`\`JOLT\` (500)`). */
export function retryCannotHelp(connector: string, kinds: string, at: Span): Diagnostic {
  return diagnostic('PIPE3012', {
    message: `\`${connector}\` cannot fail in a way that passes on another attempt, so \`retry\` cannot help`,
    span: at,
    label: 'nothing to retry',
    body: [`The failures \`${connector}\` lists: ${kinds}.`],
    hint: 'remove `retry`; route its failures with `on-fail`, `try`/`catch` or a `choice` on `message.kind`',
  });
}

export function unknownRetryOption(
  key: string,
  at: Span,
  accepted: readonly string[],
  suggestion: string | undefined,
): Diagnostic {
  return diagnostic('PIPE3013', {
    message: `unknown retry option \`${key}\``,
    span: at,
    label: didYouMean(suggestion, 'unknown option'),
    body: [`\`retry\` takes: ${names(accepted)}.`],
  });
}

/** `problem`: what is wrong with the value, e.g. "`attempts` is an integer from 1 to 20". */
export function badRetryOption(problem: string, at: Span): Diagnostic {
  return diagnostic('PIPE3013', { message: `invalid retry option: ${problem}`, span: at, label: 'invalid value' });
}

/** `how`: the connector's advice (its schema's `x-pipe-retry.unsafe.how`). */
export function retriedNotIdempotent(connector: string, how: string, at: Span): Diagnostic {
  return diagnostic('PIPE3014', {
    message: `this \`${connector}\` call is not idempotent: a retry may do its work twice`,
    span: at,
    label: 'retried, but not idempotent',
    hint: how,
  });
}

/** The connector's own retry parameter (`retries`) beside the step option `retry`. */
export function retriesMultiply(
  connector: string,
  param: string,
  attempts: number,
  at: Span,
  retryAt: Span,
): Diagnostic {
  return diagnostic('PIPE3016', {
    message: `\`${param}\` and \`retry\` both retry this \`${connector}\` call: their attempts multiply (each of the ${attempts} attempts of \`retry\` retries again)`,
    span: at,
    label: "the connector's own retries",
    secondary: [{ span: retryAt, message: 'the step option `retry`' }],
    hint: `remove \`${param}\` and let \`retry\` say how often and on which errors`,
  });
}

/** `what`: the steps in question (`\`rest\``, `the steps of this \`try\``); `known`: the kinds they can produce. */
export function kindNeverProduced(
  what: string,
  kind: string,
  at: Span,
  known: readonly string[],
  suggestion: string | undefined,
): Diagnostic {
  return diagnostic('PIPE6007', {
    message: `${what} cannot fail with the error kind \`${kind}\``,
    span: at,
    label: didYouMean(suggestion, 'never produced here'),
    body: [`The kinds it can produce: ${names(known)}.`],
  });
}

// ───────────────────────────── contracts between pipelines (contracts.ts) ─────────────────────────────

/** What a payload problem says, and what to write instead (shared by execute and publish). */
function contractProse(
  problem: ContractProblemFacts,
  wrapsBody: boolean,
): { what: string; label: string; hint: string } {
  const field = problem.path.join('.');
  switch (problem.kind) {
    case 'missing':
      if (wrapsBody && field === 'body') {
        return {
          what: 'the payload has no `body`: the called pipeline has an HTTP trigger and reads the request under `body`',
          label: 'no `body` here',
          hint: 'wrap the request: `payload: { body: { … } }`',
        };
      }
      return {
        what: `the payload has no \`${field}\` (${problem.expected ?? 'a value'}), which is required`,
        label: `\`${field}\` missing`,
        hint: `add \`${problem.path.at(-1) ?? field}: …\` to the payload`,
      };
    case 'unknown':
      return {
        what: `the payload has a field \`${field}\` that the schema does not allow`,
        label: 'not in the schema',
        hint: didYouMean(problem.suggestion, `remove \`${problem.path.at(-1) ?? field}\`, or declare it in the schema`),
      };
    case 'type':
      return {
        what: `${field === '' ? 'the payload' : `\`${field}\``} is ${problem.actual ?? 'another type'}, but the schema expects ${problem.expected ?? 'another type'}`,
        label: `expected ${problem.expected ?? 'another type'}`,
        hint: `give ${field === '' ? 'the payload' : `\`${field}\``} a value of type ${problem.expected ?? 'the declared type'}`,
      };
  }
}

/** The facts of a ContractProblem (contracts.ts) the prose needs. */
export interface ContractProblemFacts {
  readonly kind: 'missing' | 'unknown' | 'type';
  readonly path: readonly string[];
  readonly expected?: string;
  readonly actual?: string;
  readonly suggestion?: string;
}

export function executePayloadMismatch(
  pipeline: string,
  problem: ContractProblemFacts,
  at: Span,
  trigger: Span,
  wrapsBody: boolean,
): Diagnostic {
  const prose = contractProse(problem, wrapsBody);
  return diagnostic('PIPE6101', {
    message: `payload does not fit pipeline \`${pipeline}\`: ${prose.what}`,
    span: at,
    label: prose.label,
    secondary: [{ span: trigger, message: `the trigger of \`${pipeline}\`` }],
    hint: prose.hint,
  });
}

export function publishPayloadMismatch(
  event: string,
  subscriber: string,
  problem: ContractProblemFacts,
  at: Span,
  trigger: Span,
): Diagnostic {
  const prose = contractProse(problem, false);
  return diagnostic('PIPE6102', {
    message: `payload of event \`${event}\` does not fit its subscriber \`${subscriber}\`: ${prose.what}`,
    span: at,
    label: prose.label,
    secondary: [{ span: trigger, message: `\`${subscriber}\` subscribes here` }],
    hint: prose.hint,
  });
}

export function eventNeverConsumed(event: string, at: Span, suggestion: string | undefined): Diagnostic {
  return diagnostic('PIPE6103', {
    message: `event \`${event}\` is published, but no pipeline of this build subscribes to it`,
    span: at,
    label: 'nobody receives this event',
    hint: `${suggestion ? `did you mean \`${suggestion}\` (a pipeline subscribes to it)? Otherwise, ` : ''}if a subscriber in another service receives it, write \`external: true\` on this step`,
  });
}

/** PIPE6105 at one side of a pair: `event` is this side's name, `other` the near name on the other side. */
export function eventNameTypo(side: 'publish' | 'subscribe', event: string, other: string, at: Span): Diagnostic {
  return side === 'publish'
    ? diagnostic('PIPE6105', {
        message: `event \`${event}\` has no subscriber, and \`${other}\` has a subscriber but no publisher: one of the names is misspelt`,
        span: at,
        label: `nobody subscribes to this name; did you mean \`${other}\`?`,
        hint: `write the same event name here and in the subscribing trigger (\`${other}\`)`,
      })
    : diagnostic('PIPE6105', {
        message: `event \`${event}\` is never published, and \`${other}\` is published with no subscriber: one of the names is misspelt`,
        span: at,
        label: `nothing publishes this name; did you mean \`${other}\`?`,
        hint: `write the same event name here and in the publishing step (\`${other}\`)`,
      });
}

export function eventNeverPublished(event: string, at: Span, suggestion: string | undefined): Diagnostic {
  return diagnostic('PIPE6104', {
    message: `pipeline subscribes to event \`${event}\`, but no step of this build publishes it`,
    span: at,
    label: 'never published here',
    hint: `${suggestion ? `did you mean \`${suggestion}\` (a step publishes it)? Otherwise, ` : ''}if another service publishes it, write \`external: true\` in this trigger`,
  });
}
