/**
 * Per-operation parameter rules, read from a connector schema's `x-pipe-operations` fact: which
 * parameters an operation takes, needs, and which groups it takes exactly one of. The operation
 * is the value of the fact's `parameter` (a header word, `csv parse`, or a literal parameter);
 * when it is not known at build time, or names no rule, nothing is checked here (the parameter's
 * own `enum` reports an unknown operation).
 *
 * Example: csv's schema says `"generate": { "accepts": ["rows", …], "required": ["rows"] }` and
 * `"parse": { "accepts": ["file", "text", …], "one-of": [["file", "text"]] }`, so
 * `csv generate { file: … }` is PIPE3015 on `file` and PIPE3002 (needs `rows`) on `csv`.
 */
import type { ObjectEntry } from '../ast/ast.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { missingOperationParameter, moreThanOneOf, notAnOperationParameter, operationNeedsOneOf } from './errors.js';
import type { Span } from '../../base/source/span.js';
import type { OperationFacts } from '../connectors/connector-registry.js';
import type { StepHookInput } from '../connectors/hook-api.js';

export function checkOperationRules({ step, schema, extra, extraSpans }: StepHookInput): Diagnostic[] {
  const facts: OperationFacts | undefined = schema['x-pipe-operations'];
  if (!facts) return [];
  const operation = operationOf(facts.parameter, step.params.entries, extra);
  if (operation === undefined || !Object.hasOwn(facts.rules, operation)) return [];
  const rule = facts.rules[operation] ?? {};
  const given = new Map<string, Span>();
  for (const entry of step.params.entries) given.set(entry.key, entry.keySpan);
  for (const [key, span] of Object.entries(extraSpans)) given.set(key, span);
  const named = `${schema.name} ${operation}`;
  const out: Diagnostic[] = [];

  const accepted = new Set(rule.accepts ?? []);
  const specific = new Set(Object.values(facts.rules).flatMap((r) => r.accepts ?? []));
  for (const [key, span] of given) {
    if (!specific.has(key) || accepted.has(key)) continue;
    const takers = Object.entries(facts.rules)
      .filter(([, r]) => (r.accepts ?? []).includes(key))
      .map(([op]) => `\`${schema.name} ${op}\``);
    out.push(notAnOperationParameter(key, named, span, takers, [...accepted]));
  }
  for (const key of rule.required ?? []) {
    if (given.has(key) || extra[key] !== undefined) continue;
    out.push(missingOperationParameter(key, named, step.connectorSpan));
  }
  for (const group of rule['one-of'] ?? []) {
    const present = group.filter((key) => given.has(key));
    if (present.length === 0) {
      out.push(operationNeedsOneOf(named, group, step.connectorSpan));
    }
    for (const key of present.slice(1)) {
      out.push(moreThanOneOf(named, group, key, present[0] ?? key, given.get(key) ?? step.connectorSpan));
    }
  }
  return out;
}

/** The operation as written: a header word, or a literal string/word parameter. */
function operationOf(
  parameter: string,
  entries: readonly { kind: string; key: string }[],
  extra: Readonly<Record<string, unknown>>,
): string | undefined {
  const word = extra[parameter];
  if (typeof word === 'string') return word;
  const entry = entries.find((e): e is ObjectEntry => e.kind === 'entry' && e.key === parameter);
  if (entry?.value.kind === 'string') return entry.value.value;
  if (entry?.value.kind === 'ident') return entry.value.name;
  return undefined;
}
