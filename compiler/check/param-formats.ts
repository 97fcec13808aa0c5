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

export function formatProblems(params: JsonSchema, instance: LiteralInstance, owner: ParamOwner): Diagnostic[] {
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
