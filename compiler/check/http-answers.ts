/**
 * `respond` steps HTTP cannot deliver as written: a body on a status that carries none (1xx, 204,
 * 205, 304: the service drops it, runtime/service/result-mapping.ts), an informational status
 * (1xx is no final answer: the service sends 500 instead), and a redirect without the `Location`
 * its client needs (a warning). Statuses outside 100–599 are refused by the parser already.
 * In: a respond step. Out: diagnostics (worded by errors.ts).
 */
import type { RespondStep, Value } from '../ast/ast.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { bodyOnBodilessStatus, informationalStatus, redirectWithoutLocation } from './errors.js';

/** Statuses whose answer has no body (RFC 9110 §6.4.1). */
const BODILESS = new Set([204, 205, 304]);
/** Redirects that send the client to their `Location` (300 lists choices, 304 is a cache answer). */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export function respondProblems(step: RespondStep): Diagnostic[] {
  const out: Diagnostic[] = [];
  const { status } = step;
  if (status < 200) out.push(informationalStatus(status, step.statusSpan));
  if ((status < 200 || BODILESS.has(status)) && step.body !== undefined && !isEmpty(step.body))
    out.push(bodyOnBodilessStatus(status, step.body.span));
  if (REDIRECTS.has(status) && !hasLocation(step)) out.push(redirectWithoutLocation(status, step.statusSpan));
  return out;
}

/** `{}`, `null` and `""` say "no body" (the service sends none either way). */
function isEmpty(body: Value): boolean {
  if (body.kind === 'null') return true;
  if (body.kind === 'object') return body.entries.length === 0;
  return body.kind === 'string' && body.value === '';
}

/** A `Location` header in any case (header names are case-insensitive). */
function hasLocation(step: RespondStep): boolean {
  return step.headers?.entries.some((e) => e.key.toLowerCase() === 'location') ?? false;
}
