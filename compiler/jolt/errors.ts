/**
 * One constructor per problem a JOLT spec can have (PIPE5001–PIPE5020, and PIPE5504/5505 for a
 * `=split` separator): facts in, a `JoltProblem` (code, message, hint) out, the prose here. The
 * compiler reports a problem at the spec's key or value with `Program.error` / `Program.warning`
 * (emit.ts), or throws it from deep inside key parsing as a `SpecError` (keys.ts). Codes and titles
 * come from the catalogue (base/diagnostics/codes/transform.ts).
 */
import type { DiagnosticCode } from '../../base/diagnostics/codes.js';

export interface JoltProblem {
  readonly code: DiagnosticCode;
  readonly message: string;
  readonly hint?: string;
}

const problem = (code: DiagnosticCode, message: string, hint?: string): JoltProblem =>
  hint === undefined ? { code, message } : { code, message, hint };

/** `&…`, `@…` and `[…]` references (PIPE5008). */
const reference = (message: string): JoltProblem => problem('PIPE5008', message);
/** Keys that do not parse (PIPE5007). */
const malformed = (message: string): JoltProblem => problem('PIPE5007', message);

// ───────────────────────────── the chain (index.ts) ─────────────────────────────

/** `found` describes what was written instead (`an object`, `a string`). */
export function chainNotAList(found: string): JoltProblem {
  return problem(
    'PIPE5001',
    `a JOLT chain must be a list of operations, found ${found}`,
    'Wrap the operation in a list: [ { "operation": "shift", "spec": { … } } ].',
  );
}

export function emptyChain(): JoltProblem {
  return problem('PIPE5002', 'the JOLT chain has no operations');
}

/** `index` counts from 0. */
export function operationNotAnObject(index: number, found: string): JoltProblem {
  const what = `operation ${index + 1} of the chain`;
  return problem('PIPE5003', `${what} must be an object with \`operation\` and \`spec\`, found ${found}`);
}

export function operationWithoutName(index: number, found: string): JoltProblem {
  const what = `operation ${index + 1} of the chain`;
  return problem('PIPE5003', `${what} needs an \`operation\` name (a string), found ${found}`);
}

/** `candidates` are the operations to suggest. */
export function unknownOperation(name: string, candidates: readonly string[]): JoltProblem {
  return problem('PIPE5004', `unknown JOLT operation \`${name}\``, `Use one of: ${candidates.join(', ')}.`);
}

export function operationWithoutSpec(name: string): JoltProblem {
  return problem('PIPE5005', `the \`${name}\` operation needs a \`spec\``);
}

// ───────────────────────────── every operation ─────────────────────────────

export function specNotAnObject(operation: 'shift' | 'default' | 'remove' | 'cardinality' | 'modify'): JoltProblem {
  if (operation === 'shift') return problem('PIPE5006', 'the spec of a `shift` must be an object of input keys');
  if (operation === 'modify') return problem('PIPE5006', 'the spec of a modify operation must be an object');
  return problem('PIPE5006', `the spec of a \`${operation}\` must be an object`);
}

export function nestedTooDeep(limit: number): JoltProblem {
  return problem('PIPE5019', `the spec is nested deeper than ${limit} levels`);
}

/** `canonical`: the key both spellings stand for, when it differs from what was written. */
export function sameKeyTwice(key: string, canonical?: string): JoltProblem {
  const same = canonical === undefined ? '' : ` (\`${canonical}\`)`;
  return problem('PIPE5011', `the key \`${key}\` is the same as another key of this object${same}`);
}

// ───────────────────────────── shift (shift.ts) ─────────────────────────────

export function leafKeyWithChildren(key: string): JoltProblem {
  return malformed(`the key \`${key}\` cannot have children: \`@\` and \`$\` keys are leaves`);
}

export function emptyObjectValue(key: string): JoltProblem {
  return problem('PIPE5012', `the key \`${key}\` has an empty object as its value`);
}

export function badShiftValue(key: string): JoltProblem {
  return problem('PIPE5010', `the value of \`${key}\` must be an output path, a list of paths, null or an object`);
}

export function outputPathsNotStrings(key: string): JoltProblem {
  return problem('PIPE5010', `the output paths of \`${key}\` must be strings`);
}

// ───────────────────────────── default, remove, cardinality ─────────────────────────────

export function badDefaultStar(key: string): JoltProblem {
  return problem('PIPE5013', `the default key \`${key}\` is invalid: a \`*\` key must be exactly \`*\``);
}

export function defaultKeyNotAnIndex(key: string): JoltProblem {
  return problem('PIPE5020', `\`${key}\` is under a \`[]\` key, so it must be a list index (a number)`);
}

export function badRemoveValue(key: string): JoltProblem {
  return problem('PIPE5014', `the value of \`${key}\` must be "" (remove it) or an object (descend into it)`);
}

/** `found` is the value as JSON. */
export function badCardinality(found: string): JoltProblem {
  return problem('PIPE5015', `cardinality must be "ONE" or "MANY", found ${found}`);
}

export function emptyCardinalityObject(): JoltProblem {
  return problem('PIPE5012', 'a cardinality key cannot have an empty object as its value');
}

export function cardinalityAtWithChildren(): JoltProblem {
  return malformed('an `@` cardinality key cannot have children');
}

// ───────────────────────────── modify (modify.ts) ─────────────────────────────

export function badModifyKey(key: string): JoltProblem {
  return malformed(`\`${key}\`: modify keys must be names, \`*\` patterns or \`[index]\``);
}

export function modifyIndexNotExplicit(key: string): JoltProblem {
  return malformed(`\`${key}\`: modify supports only explicit list indexes like \`[2]\``);
}

/** `index` and `key` are one key of each kind, as written canonically. */
export function listAndMapKeysMixed(index: string, key: string): JoltProblem {
  return problem(
    'PIPE5017',
    `this object mixes list indexes (\`${index}\`) with map keys (\`${key}\`)`,
    'Split the spec: one object for the list indexes, another for the map keys.',
  );
}

export function unparsableFunctionCall(written: string): JoltProblem {
  return problem('PIPE5018', `cannot parse the function call \`${written}\``);
}

/** `separator` is JSON; `detail` what the regex translator said. */
export function splitNeedsBacktracking(separator: string, detail: string): JoltProblem {
  return problem('PIPE5504', `the =split separator ${separator} needs a backtracking engine: ${detail}`);
}

export function splitNotARegex(separator: string, detail: string): JoltProblem {
  return problem('PIPE5505', `the =split separator ${separator} is not a valid regular expression: ${detail}`);
}

/** `near` are stock functions spelled alike; `inFallbacks`: Jolt skips it and tries the next. */
export function unknownFunction(name: string, near: readonly string[], inFallbacks: boolean): JoltProblem {
  const suggestion =
    near.length > 0
      ? ` (did you mean ${near
          .slice(0, 3)
          .map((n) => `\`${n}\``)
          .join(', ')}?)`
      : '';
  const skipped = inFallbacks ? '; it never yields a value, so the next alternative is used' : '';
  return problem('PIPE5016', `unknown modify function \`${name}\`${suggestion}${skipped}`);
}

export function notOneTranspose(arg: string): JoltProblem {
  return reference(`\`${arg}\` must be a single \`@(…)\` reference`);
}

// ───────────────────────────── keys and references (keys.ts, walk.ts) ─────────────────────────────

/** `token` is `&`, `$` or `#`; `whole` the reference as written. */
export function unparsableReference(token: string, whole: string): JoltProblem {
  return reference(`cannot parse the \`${token}\` reference \`${whole}\``);
}

export function negativeReference(whole: string): JoltProblem {
  return reference(`the reference \`${whole}\` cannot be negative`);
}

export function referenceOutOfRange(whole: string): JoltProblem {
  return reference(`the reference \`${whole}\` is out of range`);
}

export function referenceWithoutToken(text: string, token: string): JoltProblem {
  return reference(`the reference \`${text}\` must start with \`${token}\``);
}

export function referenceWithThreeNumbers(text: string): JoltProblem {
  return reference(`the reference \`${text}\` has more than two numbers`);
}

/** `&x`: `written` is the two characters, `next` the letter after `&`. */
export function ampersandBeforeLetter(written: string, next: string): JoltProblem {
  return reference(
    `\`${written}\` is not a reference: after \`&\` comes a level number or \`(level,group)\`; ` +
      `write \`&(0)${next}\` for the matched key followed by text, or \`\\&\` for a literal ampersand`,
  );
}

export function notAnArrayKey(key: string): JoltProblem {
  return malformed(`\`${key}\` is not a valid array key: expected \`[…]\``);
}

export function badArrayIndex(index: string, key: string): JoltProblem {
  return malformed(`bad explicit array index \`${index}\` in \`${key}\``);
}

export function notAnAtReference(key: string): JoltProblem {
  return reference(`\`${key}\` is not a valid \`@\` reference`);
}

export function atInsideAt(key: string): JoltProblem {
  return reference(`\`${key}\`: an \`@\` reference cannot contain another \`@\``);
}

export function starInAt(key: string): JoltProblem {
  return reference(`\`${key}\`: an \`@\` reference cannot contain \`*\` or \`[]\``);
}

export function atUnclosed(key: string): JoltProblem {
  return reference(`\`${key}\`: \`@(\` needs a matching \`)\``);
}

export function atLevelNotANumber(key: string): JoltProblem {
  return reference(`\`${key}\`: the level of an \`@\` reference must be a number`);
}

export function tooManyBrackets(key: string): JoltProblem {
  return malformed(`\`${key}\` has too many \`[]\``);
}

/** `@`, `$` or `#` written elsewhere than at the front of a key. */
export function notAtFront(key: string, token: '@' | '$' | '#'): JoltProblem {
  return malformed(`\`${key}\`: \`${token}\` is only allowed at the front of a key`);
}

export function starWithAmpersand(key: string): JoltProblem {
  return malformed(`\`${key}\` cannot mix \`*\` with \`&\``);
}

export function hashUnclosed(key: string): JoltProblem {
  return malformed(`\`${key}\`: \`#(\` needs a matching \`)\``);
}

export function badAtInPath(whole: string): JoltProblem {
  return reference(`invalid \`@\` reference in \`${whole}\``);
}

export function tooManyParentheses(whole: string): JoltProblem {
  return reference(`too many \`(\` in \`${whole}\``);
}

export function unclosedAtInPath(whole: string): JoltProblem {
  return reference(`unclosed \`@(\` in \`${whole}\``);
}

export function atStepInOutputPath(path: string): JoltProblem {
  return problem('PIPE5009', `\`.@.\` is not allowed in the path \`${path}\``);
}

export function wildcardInOutputPath(path: string): JoltProblem {
  return problem('PIPE5009', `the output path \`${path}\` cannot contain \`*\` or \`$\``);
}

export function notInOutputPath(element: string, path: string): JoltProblem {
  return problem('PIPE5009', `\`${element}\` is not allowed in the output path \`${path}\``);
}

/** `what` names the reference (`` `&(3,0)` ``). */
export function aboveTheTop(what: string, up: number): JoltProblem {
  return reference(`${what} goes ${up} levels up, above the top of the spec`);
}

/** `has` says how many groups the key has (`no \`*\` groups`, `2 groups`). */
export function noSuchGroup(what: string, group: number, has: string): JoltProblem {
  return reference(`${what} asks for \`*\` group ${group}, but the key it refers to has ${has}`);
}

export function badLookupPath(): JoltProblem {
  return problem('PIPE5009', 'an `@(…)` lookup path may contain only names, `&` references, `[index]` and `@(…)`');
}

export function notEvaluable(): JoltProblem {
  return problem('PIPE5009', 'this key cannot be evaluated');
}

// ───────────────────────────── shapes (infer-shape.ts) ─────────────────────────────

/** A `shift` key the input never has: `fields` are those of the closed object there, `near` the closest. */
export function keyNeverMatches(key: string, fields: readonly string[], near: string | undefined): JoltProblem {
  const has = fields.length === 0 ? 'no fields' : `only ${fields.map((f) => `\`${f}\``).join(', ')}`;
  return problem(
    'PIPE5021',
    `the shift key \`${key}\` never matches: the input there is a closed object with ${has}`,
    near !== undefined
      ? `Did you mean \`${near}\`? Keys of a shift spec mirror the input.`
      : 'Keys of a shift spec mirror the input: check the nesting, or widen the schema of the message.',
  );
}
