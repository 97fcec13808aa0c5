/**
 * One constructor per diagnostic of the AST phase: facts in, `Diagnostic` out, the prose here.
 * The literal decoding of token-values.ts (PIPE1004–PIPE1007), the structural checks of the CST →
 * AST walk (PIPE1013–PIPE1027) and the shape of `test` blocks (PIPE7001–PIPE7005). Codes and
 * titles come from the catalogue (base/diagnostics/codes/syntax.ts, testing.ts).
 */
import { diagnostic } from '../../base/diagnostics/codes.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { Span } from '../../base/source/span.js';

// ───────────────────────────── literals (token-values.ts) ─────────────────────────────

export function badEscape(at: Span, hint: string): Diagnostic {
  return diagnostic('PIPE1005', {
    message: 'invalid escape sequence in string',
    span: at,
    label: 'not a valid escape',
    hint,
  });
}

export function unclosedInnerBraces(at: Span): Diagnostic {
  return diagnostic('PIPE1004', {
    message: 'this `{{` expression inside the string is never closed',
    span: at,
    label: 'opened here',
    hint: 'close it with `}}`; inside a "…" string write inner double quotes as \\" or use \'…\'',
  });
}

/** A `}` after the `}}` that closes a template's expression, or a `{` before its `{{`, matched by no brace of the text. */
export function strayTemplateBrace(at: Span, brace: '{' | '}'): Diagnostic {
  const where = brace === '}' ? 'after the `}}` that closes' : 'before the `{{` that opens';
  return diagnostic('PIPE1028', {
    message: `stray \`${brace}\` ${where} the expression: it is copied into the text of every value`,
    span: at,
    label: `no \`${brace === '}' ? '{' : '}'}\` of the text matches it`,
    hint: 'delete it: an expression takes two braces on each side, `{{ … }}`; braces the text needs are written as a pair',
  });
}

/** `"{message.id}"`, `"${message.id}"` or `"message.id }}"`: a path in braces that are text, not its value. */
export function pathInText(at: Span, path: string, written: string): Diagnostic {
  const shown = written.replace(/\s+/g, ' ');
  return diagnostic('PIPE1029', {
    message: `\`${shown}\` is text, not the value of \`${path}\`: an expression takes two braces on each side`,
    span: at,
    label: 'copied into the text as written',
    hint: `write \`{{ ${path} }}\``,
  });
}

/** `why` is a short reason (`leading zeros are not allowed`), also the label. */
export function invalidNumber(at: Span, raw: string, why: string, hint?: string): Diagnostic {
  return diagnostic('PIPE1007', {
    message: `invalid number \`${raw}\`: ${why}`,
    span: at,
    label: why,
    ...(hint ? { hint } : {}),
  });
}

export function unknownUnit(at: Span, raw: string, unit: string, hint: string): Diagnostic {
  return diagnostic('PIPE1006', {
    message: `unknown unit \`${unit}\` in \`${raw}\``,
    span: at,
    label: 'not a duration or size unit',
    hint,
  });
}

// ───────────────────────────── declarations ─────────────────────────────

export function invalidName(at: Span, name: string): Diagnostic {
  return diagnostic('PIPE1025', {
    message: `\`${name}\` is not a valid name`,
    span: at,
    label: 'names use letters, digits, `_` and inner `-`',
  });
}

export function secondTrigger(pipeline: string, at: Span, first: Span): Diagnostic {
  return diagnostic('PIPE1017', {
    message: `pipeline \`${pipeline}\` has a second trigger`,
    span: at,
    label: 'second trigger',
    secondary: [{ span: first, message: 'first trigger' }],
    hint: 'a pipeline has one trigger; start the same steps from another source with a second pipeline',
  });
}

export function triggerAfterSteps(pipeline: string, at: Span, firstStep: Span): Diagnostic {
  return diagnostic('PIPE1018', {
    message: `the trigger of pipeline \`${pipeline}\` must come before its steps`,
    span: at,
    label: 'trigger after steps',
    secondary: [{ span: firstStep, message: 'first step' }],
    hint: 'move the trigger to the top of the pipeline',
  });
}

export function secondOnError(pipeline: string, at: Span, first: Span | undefined): Diagnostic {
  return diagnostic('PIPE1024', {
    message: `pipeline \`${pipeline}\` has a second \`on-error\` block`,
    span: at,
    label: 'second on-error',
    secondary: first ? [{ span: first, message: 'first on-error' }] : [],
    hint: 'merge the steps into one `on-error { … }` block',
  });
}

export function noTrigger(pipeline: string, at: Span): Diagnostic {
  return diagnostic('PIPE1016', {
    message: `pipeline \`${pipeline}\` has no trigger`,
    span: at,
    label: 'no trigger',
    hint: 'start the pipeline with a trigger, e.g. `trigger http { method: POST, path: "/orders" }`',
  });
}

/** A trigger or step written without its `{ … }`; `name` is what was written before it. */
export function missingBlock(what: 'trigger' | 'step', name: string, at: Span): Diagnostic {
  return diagnostic('PIPE1019', {
    message: `${what} \`${name}\` needs a parameter block \`{ … }\``,
    span: at,
    label: 'no `{ … }` after this',
    hint: `write \`${what === 'trigger' ? 'trigger ' : ''}${name} { }\`, even when there is nothing to set`,
  });
}

// ───────────────────────────── steps ─────────────────────────────

export function badStatus(at: Span, written: string): Diagnostic {
  return diagnostic('PIPE1021', {
    message: `\`${written}\` is not an HTTP status code`,
    span: at,
    label: 'expected an integer from 100 to 599',
  });
}

export function tryWithoutCatch(at: Span): Diagnostic {
  return diagnostic('PIPE1027', {
    message: '`try` block without `catch`',
    span: at,
    label: 'no `catch { … }` follows',
    hint: 'add `catch { … }` after the try block (an empty `catch { }` ignores the error)',
  });
}

// ───────────────────────────── values ─────────────────────────────

export function unknownValueFunction(at: Span, callee: string): Diagnostic {
  return diagnostic('PIPE1022', {
    message: `\`${callee}(…)\` is not allowed here; the only value function is \`env\``,
    span: at,
    label: 'unknown function',
    hint: `to compute a value, use Double Braces: \`{{ ${callee}(…) }}\``,
  });
}

export function badEnvArguments(at: Span): Diagnostic {
  return diagnostic('PIPE1023', {
    message: '`env` takes a variable name and an optional default, both plain strings',
    span: at,
    label: 'expected env("NAME") or env("NAME", "default")',
  });
}

export function duplicateKey(key: string, at: Span, first: Span): Diagnostic {
  return diagnostic('PIPE1026', {
    message: `key \`${key}\` appears twice in this object`,
    span: at,
    label: 'duplicate key',
    secondary: [{ span: first, message: 'first used here' }],
    hint: 'remove one of the two entries',
  });
}

/** `written` is the key as written (quotes kept), for the hint. */
export function missingColon(key: string, written: string, at: Span): Diagnostic {
  return diagnostic('PIPE1013', {
    message: `missing \`:\` after key \`${key}\``,
    span: at,
    label: 'add `:` after this key',
    hint: `write \`${written}: …\``,
  });
}

/** `at` is the colon when there is one (`afterColon`), else the key. */
export function missingValue(key: string, written: string, at: Span, afterColon: boolean): Diagnostic {
  return diagnostic('PIPE1014', {
    message: `key \`${key}\` has no value`,
    span: at,
    label: afterColon ? 'expected a value after this' : 'expected `: value` after this key',
    hint: `write \`${written}: <value>\`, or remove the entry`,
  });
}

// ───────────────────────────── tests (`pipec test`) ─────────────────────────────

export function unknownTestSetting(key: string, at: Span, suggestion: string | undefined): Diagnostic {
  return diagnostic('PIPE7001', {
    message: `\`${key}\` is not a test setting`,
    span: at,
    label: suggestion ? `did you mean \`${suggestion}\`?` : 'unknown setting',
    body: ['A test takes `pipeline: NAME` and `input: VALUE`, then `mock …` and `expect …` lines.'],
  });
}

export function testPipelineNotAName(at: Span): Diagnostic {
  return diagnostic('PIPE7001', {
    message: '`pipeline` names the pipeline the test runs',
    span: at,
    label: 'expected a pipeline name',
    hint: 'write `pipeline: order-flow`',
  });
}

export function testSettingTwice(key: string, at: Span, first: Span): Diagnostic {
  return diagnostic('PIPE7005', {
    message: `this test sets \`${key}\` twice`,
    span: at,
    label: 'second time',
    secondary: [{ span: first, message: 'first set here' }],
  });
}

export function badFileInput(at: Span): Diagnostic {
  return diagnostic('PIPE7004', {
    message: '`file` takes one path, as a plain string',
    span: at,
    label: 'expected file("path.json")',
  });
}

/** What is wrong with a `mock` line. */
export type MockProblem =
  | { readonly kind: 'no-label' }
  | { readonly kind: 'unexpected'; readonly word: string; readonly expected: string }
  | { readonly kind: 'no-block'; readonly label: string };

export function badMock(problem: MockProblem, at: Span, connector: string, label: string | undefined): Diagnostic {
  const [message, caret] =
    problem.kind === 'no-label'
      ? ['a mock names the label of the step it replaces', 'expected a step label']
      : problem.kind === 'unexpected'
        ? [`unexpected \`${problem.word}\` in a mock`, problem.expected]
        : [`the mock of \`${problem.label}\` needs a block \`{ … }\``, 'no `{ … }` after this'];
  return diagnostic('PIPE7003', {
    message,
    span: at,
    label: caret,
    hint: `write \`mock ${connector} ${label ?? 'LABEL'} { …output… }\` or \`… fails { code: 503, message: "…" }\``,
  });
}

/**
 * An `expect` line that is not an expectation (`form` undefined: `known` lists them) or does not
 * follow its form (`problem` says how).
 */
export function badExpectation(facts: {
  readonly what: string;
  readonly at: Span;
  readonly form: string | undefined;
  readonly problem: string;
  readonly known: readonly string[];
  readonly suggestion: string | undefined;
}): Diagnostic {
  const { what, form } = facts;
  return diagnostic('PIPE7002', {
    message: form ? `malformed \`expect ${what}\`` : `\`expect ${what}\` is not an expectation`,
    span: facts.at,
    label: form ? facts.problem : facts.suggestion ? `did you mean \`${facts.suggestion}\`?` : 'unknown expectation',
    body: [form ? `The form is \`${form}\`.` : `Expectations: ${facts.known.map((k) => `\`${k}\``).join(', ')}.`],
  });
}
