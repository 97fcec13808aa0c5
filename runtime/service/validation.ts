/**
 * Validation of incoming messages against a compiled schema (each trigger's run-time part says
 * what it checks: the HTTP body, an event payload, tool arguments). Violations are plain data
 * `{ path, message }` (JSON Pointer paths) and become a 422 error object.
 */
import { PipeError } from '../errors.js';
import type { CompiledValidator, Json, JsonObject, ValidationErrorLike } from '../types.js';

export interface Violation {
  readonly path: string;
  readonly message: string;
}

/** Enough to explain a bad request without echoing a huge error list. */
const MAX_VIOLATIONS = 50;

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Where the problem is: ajv points `required`/`additionalProperties` errors at the parent. */
function violationPath(e: ValidationErrorLike): string {
  const base = e.instancePath;
  const missing = e.params['missingProperty'];
  const extra = e.params['additionalProperty'];
  if (e.keyword === 'required' && typeof missing === 'string') return `${base}/${escapePointer(missing)}`;
  if (e.keyword === 'additionalProperties' && typeof extra === 'string') return `${base}/${escapePointer(extra)}`;
  return base === '' ? '/' : base;
}

/** What the rule wants: ajv's words, with the allowed values where ajv only says there are some. */
function violationMessage(e: ValidationErrorLike): string {
  const extra = e.params['additionalProperty'];
  if (e.keyword === 'additionalProperties' && typeof extra === 'string') return `must not have property '${extra}'`;
  const allowed = e.params['allowedValues'];
  if (e.keyword === 'enum' && Array.isArray(allowed))
    return `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
  if (e.keyword === 'const' && 'allowedValue' in e.params) return `must be ${JSON.stringify(e.params['allowedValue'])}`;
  return e.message ?? `fails the '${e.keyword}' rule`;
}

/** Runs `validate`; returns null when `data` is valid, otherwise the violations. */
export function collectViolations(validate: CompiledValidator, data: unknown): Violation[] | null {
  if (validate(data)) return null;
  const errors = validate.errors ?? [];
  if (errors.length === 0) return [{ path: '/', message: 'does not match the schema' }];
  return errors.slice(0, MAX_VIOLATIONS).map((e) => ({ path: violationPath(e), message: violationMessage(e) }));
}

/** The error an invalid message fails with (422, violations in the error object). */
export function invalidMessageError(violations: readonly Violation[], what = 'Request body'): PipeError {
  const list: Json[] = violations.map((v): JsonObject => ({ path: v.path, message: v.message }));
  return new PipeError(`${what} does not match the schema`, {
    code: 422,
    kind: 'VALIDATION',
    details: { violations: list },
  });
}
