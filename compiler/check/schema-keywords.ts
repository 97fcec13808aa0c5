/**
 * The keywords of a JSON Schema that ajv would accept but that must not pass silently: every
 * `pattern` and `patternProperties` key must run on RE2 (the validators' regex engine, see
 * runtime/regex/schema-pattern.ts), and every `format` must be one the validators enforce (ajv
 * ignores an unknown format, so a typo such as `"emial"` would validate nothing).
 * In: a schema (JSON). Out: problems with the JSON pointer of the offending value (worded by
 * errors.ts).
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import { regexProblem } from '../../runtime/regex/index.js';
import { invalidPattern, patternNeedsBacktracking, unknownFormat, type SchemaKeywordProblem } from './errors.js';

export type { SchemaKeywordProblem };

/** The formats the validators check (ajv-formats, added to every validator's ajv). */
export const KNOWN_FORMATS: readonly string[] = Object.keys(fullFormats).sort();

/** Keywords whose value is a map of subschemas. */
export const SCHEMA_MAPS: readonly string[] = [
  'properties',
  'patternProperties',
  'definitions',
  '$defs',
  'dependentSchemas',
];
/** Keywords whose value is one subschema. */
export const SCHEMA_VALUES: readonly string[] = [
  'additionalProperties',
  'additionalItems',
  'items',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
/** Keywords whose value is a list of subschemas (`items` too, in its array form). */
export const SCHEMA_LISTS: readonly string[] = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
/** Deeper than this a walk of a schema stops: it bounds the recursion whatever the schema. */
export const MAX_DEPTH = 256;

export function schemaKeywordProblems(schema: unknown): SchemaKeywordProblem[] {
  const problems: SchemaKeywordProblem[] = [];
  walk(schema, '', 0, problems);
  return problems;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function walk(schema: unknown, pointer: string, depth: number, problems: SchemaKeywordProblem[]): void {
  if (!isObject(schema) || depth > MAX_DEPTH) return;
  const pattern = schema['pattern'];
  if (typeof pattern === 'string') checkPattern(pattern, `${pointer}/pattern`, problems);
  const patternProperties = schema['patternProperties'];
  if (isObject(patternProperties)) {
    for (const key of Object.keys(patternProperties))
      checkPattern(key, `${pointer}/patternProperties/${escape(key)}`, problems);
  }
  const format = schema['format'];
  if (typeof format === 'string' && !KNOWN_FORMATS.includes(format)) {
    problems.push(unknownFormat(format, `${pointer}/format`, KNOWN_FORMATS, suggest(format, KNOWN_FORMATS)));
  }
  for (const keyword of SCHEMA_MAPS) {
    const map = schema[keyword];
    if (isObject(map))
      for (const key of Object.keys(map)) walk(map[key], `${pointer}/${keyword}/${escape(key)}`, depth + 1, problems);
  }
  for (const keyword of SCHEMA_VALUES) walk(schema[keyword], `${pointer}/${keyword}`, depth + 1, problems);
  for (const keyword of SCHEMA_LISTS) {
    const list = schema[keyword];
    if (Array.isArray(list)) list.forEach((item, i) => walk(item, `${pointer}/${keyword}/${i}`, depth + 1, problems));
  }
  // draft-04..07 `dependencies`: a subschema, or a list of property names.
  const dependencies = schema['dependencies'];
  if (isObject(dependencies)) {
    for (const key of Object.keys(dependencies))
      walk(dependencies[key], `${pointer}/dependencies/${escape(key)}`, depth + 1, problems);
  }
}

function checkPattern(pattern: string, pointer: string, problems: SchemaKeywordProblem[]): void {
  const problem = regexProblem(pattern, 'ecmascript');
  if (problem === undefined) return;
  problems.push(
    problem.needsBacktracking
      ? patternNeedsBacktracking(pattern, pointer, problem.message)
      : invalidPattern(pattern, pointer, problem.message),
  );
}
