/**
 * Value comparison for pipeline tests: deep equality, or `contains` (every field the expectation
 * gives is present with a matching value, recursively; arrays match element by element and must
 * have the same length). In: expected and actual JSON; out: the differences, each with its JSON
 * path, so a report can say exactly where a run went another way. Pure.
 */
import type { Json } from '../types.js';

export type MatchMode = 'equal' | 'contains';

export interface Difference {
  /** `$`, `$.body.total`, `$.items[2]`. */
  readonly path: string;
  /** Absent when the actual value has a field the expectation does not allow. */
  readonly expected?: Json;
  /** Absent when the field is missing from the actual value. */
  readonly actual?: Json;
}

/** Reports are read by people: past this many differences, the rest are left out. */
const MAX_DIFFERENCES = 20;

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** Differences between `expected` and `actual` (empty when they match). */
export function compareJson(expected: Json, actual: Json | undefined, mode: MatchMode): Difference[] {
  const out: Difference[] = [];
  walk(expected, actual, mode, '$', out);
  return out.slice(0, MAX_DIFFERENCES);
}

function walk(expected: Json, actual: Json | undefined, mode: MatchMode, path: string, out: Difference[]): void {
  if (out.length >= MAX_DIFFERENCES) return;
  if (actual === undefined) {
    out.push({ path, expected });
    return;
  }
  if (isObject(expected) && isObject(actual)) {
    for (const key of Object.keys(expected)) {
      const next = childPath(path, key);
      if (!hasOwn(actual, key)) out.push({ path: next, expected: expected[key] as Json });
      else walk(expected[key] as Json, actual[key], mode, next, out);
    }
    if (mode === 'equal') {
      for (const key of Object.keys(actual))
        if (!hasOwn(expected, key)) out.push({ path: childPath(path, key), actual: actual[key] as Json });
    }
    return;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) {
      out.push({ path, expected, actual });
      return;
    }
    expected.forEach((item, i) => walk(item, actual[i], mode, `${path}[${i}]`, out));
    return;
  }
  // Scalars compare strictly (`1` and `1.0` are one JS number); an object against a scalar never matches.
  if (expected !== actual) out.push({ path, expected, actual });
}

/** Whether `actual` matches (no differences). */
export function matches(expected: Json, actual: Json | undefined, mode: MatchMode): boolean {
  return compareJson(expected, actual, mode).length === 0;
}
