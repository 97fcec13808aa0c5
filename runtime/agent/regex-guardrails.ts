/**
 * Regex guardrails on the model's reply. In: the reply body (the schema-valid object, or
 * `{ text }`) and rules `{ field: "a.b", pattern, message? }`; out: nothing, or a PipeError
 * (422, kind AGENT_GUARDRAIL) naming the first failing field. Patterns run on RE2 (runtime/regex), which
 * is linear-time, because the checked text comes from a model and patterns from configuration.
 */
import { compileRegex, type Re2Pattern } from '../regex/index.js';
import { PipeError } from '../errors.js';
import type { Json, JsonObject } from '../types.js';

export interface RegexRule {
  /** Dotted path into the reply body; numeric segments index arrays. */
  readonly field: string;
  readonly pattern: string;
  /** Shown instead of the default message when the rule fails. */
  readonly message?: string;
}

export interface GuardrailViolation {
  readonly field: string;
  readonly problem: string;
}

/** Throws PipeError AGENT_GUARDRAIL (422) when a rule fails; a bad pattern is a 500 config error. */
export function enforceRegexRules(body: Json, rules: readonly RegexRule[]): void {
  const violations = rules.flatMap((rule) => checkRule(body, rule));
  const first = violations[0];
  if (!first) return;
  const details: JsonObject = {
    kind: 'AGENT_GUARDRAIL',
    violations: violations.map((v) => ({ field: v.field, problem: v.problem })),
  };
  throw new PipeError(`Guardrail failed for field "${first.field}": ${first.problem}`, {
    code: 422,
    kind: 'AGENT_GUARDRAIL',
    details,
  });
}

export function checkRule(body: Json, rule: RegexRule): GuardrailViolation[] {
  const regex = compilePattern(rule);
  const value = valueAt(body, rule.field);
  const failed = (problem: string): GuardrailViolation[] => [{ field: rule.field, problem: rule.message ?? problem }];
  if (value === undefined || value === null) return failed('the field is missing');
  const texts = Array.isArray(value) ? value : [value];
  for (const item of texts) {
    if (typeof item === 'object' && item !== null) return failed('the field is not a text value');
    if (!regex.test(String(item))) return failed(`the value does not match the pattern ${rule.pattern}`);
  }
  return [];
}

function compilePattern(rule: RegexRule): Re2Pattern {
  try {
    return compileRegex(rule.pattern, 'ecmascript');
  } catch (err) {
    throw new PipeError(
      `Guardrail pattern for field "${rule.field}" is not a supported regular expression: ${(err as Error).message}`,
      {
        code: 500,
        kind: 'AGENT_GUARDRAIL_CONFIG',
        cause: err,
      },
    );
  }
}

/** The value at a dotted path, reading own properties only (so `__proto__` is just a missing key). */
export function valueAt(root: Json, path: string): Json | undefined {
  let node: Json | undefined = root;
  for (const segment of path.split('.')) {
    if (node === undefined || node === null || typeof node !== 'object') return undefined;
    if (Array.isArray(node)) {
      const index = /^\d+$/.test(segment) ? Number(segment) : Number.NaN;
      node = Number.isInteger(index) ? node[index] : undefined;
    } else {
      node = Object.hasOwn(node, segment) ? node[segment] : undefined;
    }
  }
  return node;
}
