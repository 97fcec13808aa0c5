/**
 * Formats of parameter values that ajv cannot know, checked where the schema says so: a parameter
 * whose schema has `"format": "timezone"` (the scheduler's `timezone`, any connector's zone) must
 * be a zone the platform's time-zone data knows, as the run time's croner and luxon read zones.
 * The schema marks the data; nothing here names a connector or a parameter.
 * In: the parameter schema and the literal parameters. Out: diagnostics at the offending values.
 */
import type { JsonSchema } from '../connectors/connector-registry.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { DYNAMIC, escapePointer, type LiteralInstance } from '../ast/literal.js';
import { closestZone, isPlatformZone } from '../braces/zones.js';
import { unknownTimeZone, type ParamOwner } from './errors.js';
import { pointerToPath, schemaAt } from './check-params.js';

/** Deeper than this the walk stops (parameters are shallow; the bound is for hostile input). */
const MAX_DEPTH = 64;

/** The `format` values anywhere in a parameter schema, found once per schema (most have none). */
const formatsBySchema = new WeakMap<object, ReadonlySet<string>>();

export function formatsIn(params: JsonSchema): ReadonlySet<string> {
  const known = formatsBySchema.get(params);
  if (known) return known;
  const found = new Set<string>();
  const visit = (node: unknown, depth: number): void => {
    if (depth > MAX_DEPTH || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child, depth + 1);
      return;
    }
    const format = (node as Record<string, unknown>)['format'];
    if (typeof format === 'string') found.add(format);
    for (const child of Object.values(node)) visit(child, depth + 1);
  };
  visit(params, 0);
  formatsBySchema.set(params, found);
  return found;
}

export function formatProblems(params: JsonSchema, instance: LiteralInstance, owner: ParamOwner): Diagnostic[] {
  if (!formatsIn(params).has('timezone')) return [];
  const out: Diagnostic[] = [];
  const visit = (value: unknown, pointer: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (typeof value === 'string') {
      if (value === DYNAMIC || schemaAt(params, pointer)?.['format'] !== 'timezone' || isPlatformZone(value)) return;
      const span = instance.spans.get(pointer);
      if (span) out.push(unknownTimeZone(value, pointerToPath(pointer), owner, span, closestZone(value)));
      return;
    }
    if (value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) visit(child, `${pointer}/${escapePointer(key)}`, depth + 1);
  };
  visit(instance.json, '', 0);
  return out;
}
