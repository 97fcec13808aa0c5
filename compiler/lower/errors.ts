/**
 * One constructor per diagnostic of lowering (conditions.ts: `when` conditions, `for-each`
 * collections and the JSONPath in them): facts in, `Diagnostic` out, the prose here. Lowering runs
 * inside the check walk (compiler/README.md); check/errors.ts holds the rest of that phase's prose.
 */
import { diagnostic } from '../../base/diagnostics/codes.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { Span } from '../../base/source/span.js';
import type { PipeType } from '../types/pipe-type.js';
import { jsonPathInsideNothing } from '../braces/errors.js';

export function notACondition(at: Span): Diagnostic {
  return diagnostic('PIPE5501', {
    message: 'a condition is a JSONPath string starting with `$`, or a `{{ }}` expression',
    span: at,
    label: 'not a condition',
    hint: 'write for example `when "$.body[?(@.total < 500)]"` or `when {{ message.body.total < 500 }}`',
  });
}

export function notACollection(at: Span): Diagnostic {
  return diagnostic('PIPE5501', {
    message: '`for-each` iterates over a JSONPath string starting with `$`, or a `{{ }}` expression giving an array',
    span: at,
    label: 'not a collection',
    hint: 'write for example `for-each "$.data[*]" { … }`',
  });
}

/** A definite JSONPath that selects one list: the body runs once, on the whole list. */
export function forEachOverList(at: Span, path: string): Diagnostic {
  return diagnostic('PIPE5506', {
    message: `\`${path}\` selects the list itself: this \`for-each\` runs once, with the whole list as its message`,
    span: at,
    label: 'one node, a list',
    hint: `add \`[*]\` to iterate over its elements: \`${path}[*]\``,
  });
}

/** A `{{ }}` collection known to give one number, string or boolean: the body runs once, on it. */
export function forEachOverScalar(at: Span, kind: string): Diagnostic {
  return diagnostic('PIPE5506', {
    message: `this \`for-each\` iterates over a ${kind}: its body runs once, with the ${kind} as its message`,
    span: at,
    label: `a ${kind}, not an array`,
    hint: 'give the expression that holds the array (for example `{{ step.parsed.rows }}`, not its count)',
  });
}

/** `problem` is the JSONPath parser's complaint. */
export function invalidJsonPath(problem: string, at: Span): Diagnostic {
  return diagnostic('PIPE5501', {
    message: `invalid JSONPath: ${problem}`,
    span: at,
    label: problem,
    hint: "paths start with `$`; filters look like `[?(@.field == 'value')]`",
  });
}

/** `fields` are those the message's shape has at this step. */
export function noSuchPathField(
  field: string,
  at: Span,
  fields: readonly string[],
  suggestion: string | undefined,
): Diagnostic {
  return diagnostic('PIPE5502', {
    message: `no field \`${field}\` in the message at this step`,
    span: at,
    label: suggestion ? `did you mean \`${suggestion}\`?` : 'no such field',
    ...(fields.length > 0 ? { body: [`Fields here: ${fields.map((f) => `\`${f}\``).join(', ')}.`] } : {}),
    hint: pathFieldHint(field, suggestion),
  });
}

/**
 * A path segment or filter chain that reads into a value without such members: `$.total[*]`,
 * `@.total.amount`, `$.body.trackingId[*]` (a string), `$.body.items.sku` (a field of an array).
 */
export function pathIntoScalar(segment: string, at: Span, owner: PipeType): Diagnostic | undefined {
  const inside = jsonPathInsideNothing(segment, owner);
  return inside && diagnostic('PIPE5502', { ...inside, span: at });
}

/** Double Braces' JSONPATH says the same (compiler/braces/errors.ts). */
function pathFieldHint(field: string, suggestion: string | undefined): string {
  return suggestion
    ? `write \`${suggestion}\` instead of \`${field}\``
    : 'read one of the fields listed, or declare the field in the schema that gives this shape';
}

/** A `=` (or `+=`…) in a filter, where a comparison `==` was meant. */
export function assignmentInJsonPath(problem: string, at: Span): Diagnostic {
  return diagnostic('PIPE5501', {
    message: `invalid JSONPath: ${problem}`,
    span: at,
    label: 'this assigns',
    hint: "compare with `==`: `[?(@.status == 'paid')]`",
  });
}
