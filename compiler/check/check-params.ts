/**
 * Checks a step's or trigger's literal parameters against its connector's parameter schema with ajv,
 * mapping every ajv error back to the exact source span (the key for unknown parameters, the value
 * for wrong values, the step name for missing ones). Dynamic values ({{ }}, env()) are accepted only
 * where the schema marks `x-pipe-braces`; their types are checked by the Double Braces checker.
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import type { ObjectValue, Value } from '../ast/ast.js';
import type { ConnectorSchema, JsonSchema } from '../connectors/connector-registry.js';
import { paramProperties } from '../connectors/connector-registry.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import {
  expressionInFixedParameter,
  expressionInQueryText,
  invalidParameter,
  missingParameter,
  notOneOf,
  parameterNotApplicable,
  regexParameterProblem,
  unknownParameter,
} from './errors.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import { formatProblems, formatsIn } from './param-formats.js';
import { regexProblem } from '../../runtime/regex/index.js';
import type { Span } from '../../base/source/span.js';
import { checkParamRules, withoutRules } from './param-rules.js';
import { DYNAMIC, isDynamicPointer, spanAt, toLiteral, unescapePointer, type LiteralInstance } from '../ast/literal.js';

/**
 * How connector parameter schemas are compiled (exported for the test that validates the schemas).
 * `format: "timezone"` is checked by param-formats.ts, which reports the value with a did-you-mean;
 * `format: "regex"` parameters are compiled by the runtime's engine instead (checkRegexParameters).
 */
export const PARAM_AJV_OPTIONS: Options = {
  allErrors: true,
  strict: false,
  validateSchema: false,
  formats: { timezone: true, regex: true },
  // The validators run on a few small parameter objects per compile: ajv's pass that tidies the
  // generated code costs more than it saves (≈ 15 ms of each `pipec check`), and never changes a result.
  code: { optimize: false },
};

/**
 * Compiles each connector schema once per compile run. The schemas are pipec's own
 * (runtime/{connectors,triggers}/<name>/schema.json), so they are not checked against the JSON
 * Schema meta-schema here — compiling that meta-schema cost ≈ 50 ms of every `pipec check`;
 * compiler/connectors/connector-schemas.test.ts checks them instead.
 */
export class ParamValidators {
  private readonly ajv = new Ajv(PARAM_AJV_OPTIONS);
  private readonly cache = new Map<ConnectorSchema, ValidateFunction>();

  validatorFor(schema: ConnectorSchema): ValidateFunction {
    let validate = this.cache.get(schema);
    if (!validate) {
      validate = this.ajv.compile(withoutRules(schema.params) as object);
      this.cache.set(schema, validate);
    }
    return validate;
  }

  /** A validator of a schema fact (x-pipe-retry.unsafe.when), compiled once per compile run. */
  validatorForFact(fact: JsonSchema): ValidateFunction {
    let validate = this.facts.get(fact);
    if (!validate) {
      validate = this.ajv.compile(fact as object);
      this.facts.set(fact, validate);
    }
    return validate;
  }

  private readonly facts = new Map<JsonSchema, ValidateFunction>();
}

export interface ParamsSubject {
  /** 'connector' or 'trigger', for messages. */
  readonly what: string;
  readonly name: string;
  /** Span of the connector/trigger name (missing parameters point here). */
  readonly nameSpan: Span;
}

/**
 * `extra` are the header words as parameters (`operation` of `csv parse`), `extraSpans` where each
 * is written (a header word written with braces has none: its value is known only at run time),
 * `headerWords` the word each was written in (`orders.find` for `operation` of `store orders.find`).
 */
export function checkParams(
  schema: ConnectorSchema,
  params: ObjectValue,
  extra: Readonly<Record<string, unknown>>,
  subject: ParamsSubject,
  validators: ParamValidators,
  extraSpans: Readonly<Record<string, Span>> = {},
  headerWords: Readonly<Record<string, string>> = {},
): { instance: LiteralInstance; diagnostics: Diagnostic[] } {
  const instance = toLiteral(params);
  const json = { ...(instance.json as Record<string, unknown>), ...extra };
  const diagnostics: Diagnostic[] = [];
  const validate = validators.validatorFor(schema);
  // A header word written with `{{ }}` is reported where it is written (PIPE3004), not again by its schema.
  const unwritten = Object.keys(extra).filter((key) => !Object.hasOwn(extraSpans, key));
  const aboutUnwritten = (error: ErrorObject): boolean =>
    unwritten.some((key) => error.instancePath === `/${key}` || error.instancePath.startsWith(`/${key}/`));
  if (!validate(json)) {
    for (const error of dedupeAjvErrors(validate.errors ?? []).filter((e) => !aboutUnwritten(e))) {
      const d = mapAjvError(error, schema, instance, subject, params.span);
      if (d) diagnostics.push(d);
    }
  }
  const known = Object.fromEntries(
    Object.entries(extra).map(([key, value]) => [key, Object.hasOwn(extraSpans, key) ? value : DYNAMIC]),
  );
  diagnostics.push(
    ...checkParamRules({
      params: schema.params,
      json: { ...(instance.json as Record<string, unknown>), ...known },
      headerWords: new Map(Object.entries(headerWords)),
      subject,
      keySpan: (pointer) =>
        instance.spans.get(`#key:${pointer}`) ??
        extraSpans[unescapePointer(pointer.slice(1))] ??
        spanAt(instance, pointer, subject.nameSpan),
      holds: (rule, value) => validators.validatorForFact(rule)(value) === true,
      valueProblems: (rule, pointer) => {
        const check = validators.validatorForFact(rule);
        if (check(valueAt(json, pointer))) return [];
        const errors = (check.errors ?? []).map((e) => ({ ...e, instancePath: `${pointer}${e.instancePath}` }));
        return dedupeAjvErrors(errors).flatMap((e) => mapAjvError(e, schema, instance, subject, params.span) ?? []);
      },
    }),
  );
  diagnostics.push(...checkDynamicPlacement(schema, instance, subject, params));
  diagnostics.push(...formatProblems(schema.params, instance, subject));
  diagnostics.push(...checkRegexParameters(schema, instance, subject));
  return { instance, diagnostics: diagnostics.filter(uniqueBySpan()) };
}

function dedupeAjvErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  // anyOf/oneOf produce one error per alternative plus a summary: keep the summary only.
  const summaries = new Set(
    errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.instancePath),
  );
  return errors.filter(
    (e) =>
      e.keyword === 'anyOf' ||
      e.keyword === 'oneOf' ||
      !summaries.has(e.instancePath) ||
      e.keyword === 'additionalProperties' ||
      e.keyword === 'required',
  );
}

function mapAjvError(
  error: ErrorObject,
  schema: ConnectorSchema,
  instance: LiteralInstance,
  subject: ParamsSubject,
  fallback: Span,
): Diagnostic | undefined {
  const pointer = error.instancePath;
  if (isDynamicPointer(instance, pointer)) return undefined;
  // A bare name where the schema takes a reference (a schema name for an inline-schema field) is
  // resolved by the reference checks, not judged by the field's literal type.
  if (instance.idents.has(pointer) && typeof schemaAt(schema.params, pointer)?.['x-pipe-ref'] === 'string')
    return undefined;
  const where = pointer === '' ? '' : ` \`${pointerToPath(pointer)}\``;
  switch (error.keyword) {
    case 'false schema': {
      // A parameter the schema rules out (`properties: { x: false }`).
      const key = pointerToPath(pointer);
      const keySpan = instance.spans.get(`#key:${pointer}`) ?? spanAt(instance, pointer, fallback);
      return parameterNotApplicable(key, subject, keySpan);
    }
    case 'additionalProperties': {
      const key = String(error.params['additionalProperty']);
      const childPointer = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      const keySpan = instance.spans.get(`#key:${childPointer}`) ?? spanAt(instance, pointer, fallback);
      const accepted = Object.keys(propertiesAt(schema.params, pointer)).sort();
      const close = suggestParameter(key, accepted);
      const inside = pointer === '' ? undefined : pointerToPath(pointer);
      return unknownParameter({ key, at: keySpan, owner: subject, inside, accepted, suggestion: close });
    }
    default:
      break;
  }
  switch (error.keyword) {
    case 'required': {
      const missing = String(error.params['missingProperty']);
      const span = pointer === '' ? subject.nameSpan : spanAt(instance, pointer, fallback);
      const propSchema = propertiesAt(schema.params, pointer)[missing];
      const description =
        propSchema && typeof propSchema['description'] === 'string' ? propSchema['description'] : undefined;
      return missingParameter(missing, pointer === '' ? '' : where, subject, span, description);
    }
    default: {
      const span = spanAt(instance, pointer, fallback);
      const alternatives =
        error.keyword === 'anyOf' || error.keyword === 'oneOf'
          ? enumAlternatives(schemaAt(schema.params, pointer))
          : undefined;
      const allowed =
        alternatives ??
        (Array.isArray(error.params['allowedValues']) ? (error.params['allowedValues'] as unknown[]) : undefined);
      if (alternatives) {
        const value = valueAt(instance.json, pointer);
        const close = typeof value === 'string' ? suggest(value, alternatives.map(String)) : undefined;
        return notOneOf(where, subject, span, alternatives, close);
      }
      const value = valueAt(instance.json, pointer);
      const close = allowed && typeof value === 'string' ? suggest(value, allowed.map(String)) : undefined;
      const problem = durationLimit(error, schemaAt(schema.params, pointer)) ?? error.message ?? 'not allowed';
      return invalidParameter({ where, owner: subject, at: span, problem, allowed, suggestion: close });
    }
  }
}

/** A minimum or maximum of a duration field (`x-pipe-unit: ms`) said as a duration: "must be at least 1s". */
function durationLimit(error: ErrorObject, fieldSchema: JsonSchema | undefined): string | undefined {
  if (fieldSchema?.['x-pipe-unit'] !== 'ms' || (error.keyword !== 'minimum' && error.keyword !== 'maximum'))
    return undefined;
  const limit = Number(error.params['limit']);
  return `must be ${error.keyword === 'minimum' ? 'at least' : 'at most'} ${formatDuration(limit)}`;
}

function formatDuration(ms: number): string {
  const units: readonly [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  for (const [unit, size] of units) if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

/**
 * Parameters the schema marks `format: regex` (JSON Schema's ECMAScript regular expression) are
 * compiled here as the runtime compiles them — runtime/regex, ECMAScript syntax on RE2 — so a
 * literal pattern RE2 cannot run (a backreference, a lookahead) or that does not parse fails the
 * build, with the engine's message, instead of the first execution.
 */
function checkRegexParameters(
  schema: ConnectorSchema,
  instance: LiteralInstance,
  subject: ParamsSubject,
): Diagnostic[] {
  if (!formatsIn(schema.params).has('regex')) return [];
  const out: Diagnostic[] = [];
  for (const [pointer, span] of instance.spans) {
    if (pointer.startsWith('#') || isDynamicPointer(instance, pointer)) continue;
    if (schemaAt(schema.params, pointer)?.['format'] !== 'regex') continue;
    const pattern = valueAt(instance.json, pointer);
    if (typeof pattern !== 'string') continue;
    const problem = regexProblem(pattern, 'ecmascript');
    if (problem)
      out.push(
        regexParameterProblem(
          pointerToPath(pointer),
          subject,
          pattern,
          problem.message,
          problem.needsBacktracking,
          span,
        ),
      );
  }
  return out;
}

/** `{{ }}` and env() only where the schema says `x-pipe-braces` (or the field accepts any value). */
function checkDynamicPlacement(
  schema: ConnectorSchema,
  instance: LiteralInstance,
  subject: ParamsSubject,
  params: ObjectValue,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const pointer of instance.dynamic) {
    const fieldSchema = schemaAt(schema.params, pointer);
    if (fieldSchema === undefined) continue; // unknown field: reported by additionalProperties
    if (allowsDynamic(fieldSchema) || inheritsDynamic(schema.params, pointer)) continue;
    const span = instance.spans.get(pointer);
    if (!span) continue;
    const refusal = fieldSchema['x-pipe-refuses-braces'];
    if (typeof refusal === 'string') {
      out.push(
        expressionInQueryText(
          pointerToPath(pointer),
          subject,
          firstExpressionSpan(astValueAt(params, pointer)) ?? span,
          refusal,
        ),
      );
      continue;
    }
    out.push(expressionInFixedParameter(pointerToPath(pointer), subject, span));
  }
  return out;
}

/** The value written at a JSON pointer of the parameters (an AST value, for spans inside it). */
function astValueAt(root: Value, pointer: string): Value | undefined {
  let current: Value | undefined = root;
  for (const segment of pointer.split('/').slice(1)) {
    const key = unescapePointer(segment);
    if (!current) return undefined;
    if (current.kind === 'array') current = current.items[Number(key)];
    else if (current.kind === 'object' || current.kind === 'tagged') {
      const obj: ObjectValue = current.kind === 'tagged' ? current.value : current;
      const entry = obj.entries.find((e) => e.kind === 'entry' && e.key === key);
      current = entry?.kind === 'entry' ? entry.value : undefined;
    } else return undefined;
  }
  return current;
}

/** Where the first `{{ }}` of a value is: the braces inside a template string, or the value itself. */
function firstExpressionSpan(value: Value | undefined): Span | undefined {
  if (!value) return undefined;
  if (value.kind === 'template') return value.parts.find((p) => p.kind === 'braces')?.span ?? value.span;
  return value.span;
}

/** The enum values offered by a schema's anyOf/oneOf alternatives (including arrays of them). */
function enumAlternatives(schema: JsonSchema | undefined): unknown[] | undefined {
  if (!schema) return undefined;
  const options = (schema['anyOf'] ?? schema['oneOf']) as JsonSchema[] | undefined;
  if (!Array.isArray(options)) return undefined;
  const values = new Set<unknown>();
  for (const option of options) {
    const direct = option['enum'];
    const items = option['items'] as JsonSchema | undefined;
    for (const v of Array.isArray(direct)
      ? direct
      : Array.isArray(items?.['enum'])
        ? (items?.['enum'] as unknown[])
        : [])
      values.add(v);
  }
  return values.size > 0 ? [...values] : undefined;
}

/**
 * Did-you-mean for parameter names: close spelling first, else the one name that contains every
 * word of the given one (`max-tokens` → `max-output-tokens`).
 */
export function suggestParameter(name: string, accepted: readonly string[]): string | undefined {
  const close = suggest(name, accepted);
  if (close) return close;
  const words = name.toLowerCase().split(/[-_]/).filter(Boolean);
  if (words.length < 2) return undefined;
  const containing = accepted.filter((candidate) => {
    const candidateWords = candidate.toLowerCase().split(/[-_]/);
    return words.every((w) => candidateWords.includes(w));
  });
  return containing.length === 1 ? containing[0] : undefined;
}

function allowsDynamic(schema: JsonSchema): boolean {
  return schema['x-pipe-braces'] === true || schema['x-pipe-steps'] === true;
}

/** A field inside an object/array marked `x-pipe-braces` inherits it (e.g. a JSON Generator template). */
function inheritsDynamic(root: JsonSchema, pointer: string): boolean {
  const segments = pointer.split('/').slice(1);
  let current: JsonSchema | undefined = root;
  for (const segment of segments) {
    if (!current) return false;
    if (allowsDynamic(current) && current !== root) return true;
    current = childSchema(current, unescapePointer(segment));
  }
  return false;
}

export function schemaAt(root: JsonSchema, pointer: string): JsonSchema | undefined {
  let current: JsonSchema | undefined = root;
  for (const segment of pointer.split('/').slice(1)) {
    if (!current) return undefined;
    current = childSchema(current, unescapePointer(segment));
  }
  return current;
}

function childSchema(schema: JsonSchema, key: string): JsonSchema | undefined {
  const props = schema['properties'] as Record<string, JsonSchema> | undefined;
  if (props && Object.hasOwn(props, key)) return props[key];
  if (/^\d+$/.test(key) && schema['items'] && typeof schema['items'] === 'object') return schema['items'] as JsonSchema;
  const additional = schema['additionalProperties'];
  if (additional && typeof additional === 'object') return additional as JsonSchema;
  if (additional === true || (additional === undefined && !props)) return {};
  for (const combinator of ['anyOf', 'oneOf'] as const) {
    const options = schema[combinator];
    if (Array.isArray(options)) {
      for (const option of options as JsonSchema[]) {
        const found = childSchema(option, key);
        if (found) return found;
      }
    }
  }
  return undefined;
}

function propertiesAt(root: JsonSchema, pointer: string): Record<string, JsonSchema> {
  const at = schemaAt(root, pointer);
  const props = at?.['properties'];
  return props && typeof props === 'object' ? (props as Record<string, JsonSchema>) : {};
}

function valueAt(json: unknown, pointer: string): unknown {
  let current = json;
  for (const segment of pointer.split('/').slice(1)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[unescapePointer(segment)];
  }
  return current === DYNAMIC ? undefined : current;
}

export function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map(unescapePointer)
    .map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`))
    .join('');
}

function uniqueBySpan(): (d: Diagnostic) => boolean {
  const seen = new Set<string>();
  return (d) => {
    const key = `${d.code}:${d.primary.span.start}:${d.primary.span.end}:${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}

export { paramProperties };
