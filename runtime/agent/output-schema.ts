/**
 * Structured output: what is sent (`response_format` with the strict form of the schema), how a
 * reply is checked (parsed, strict-mode nulls removed, validated with ajv against the USER's
 * schema), and what the model is told in a repair round (the exact violations).
 * In: the user's JSON Schema and the reply text; out: the schema-valid value or the violations.
 */
import AjvModule from 'ajv';
import Ajv2019Module from 'ajv/dist/2019.js';
import Ajv2020Module from 'ajv/dist/2020.js';
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { ResponseFormatJSONSchema } from 'openai/resources/shared';
import { PipeError } from '../errors.js';
import { schemaRegExp } from '../regex/schema-pattern.js';
import type { Json, JsonObject } from '../types.js';
import { dropNullOptionals, toStrictSchema } from './strict-schema.js';

// CommonJS modules: their classes sit on `.default` under NodeNext.
const Ajv = AjvModule.default;
const Ajv2019 = Ajv2019Module.default;
const Ajv2020 = Ajv2020Module.default;
const AjvDraft04 = AjvDraft04Module.default;
const addFormats = addFormatsModule.default;

/** At most this many violations are reported to the model and in errors. */
const MAX_VIOLATIONS = 20;

/** `response_format` for a schema: strict form when expressible, named from its title. */
export function responseFormatFor(schema: JsonObject): ResponseFormatJSONSchema {
  const { schema: sent, strict } = toStrictSchema(schema);
  return { type: 'json_schema', json_schema: { name: schemaName(schema), schema: sent, strict } };
}

/** OpenAI requires names matching ^[a-zA-Z0-9_-]{1,64}$. */
export function schemaName(schema: JsonObject): string {
  const title = typeof schema.title === 'string' ? schema.title : '';
  const cleaned = title
    .replace(/[^a-zA-Z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
  return cleaned.length > 0 ? cleaned : 'output';
}

export type ReplyCheck =
  { readonly ok: true; readonly value: Json } | { readonly ok: false; readonly violations: readonly string[] };

/** Compiles and caches validators; one instance per process is enough (bounded LRU). */
export class OutputValidatorCache {
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly capacity = 64) {}

  /** Throws PipeError 500 AGENT_SCHEMA_INVALID when the schema itself does not compile. */
  validatorFor(schema: JsonObject): ValidateFunction {
    const key = JSON.stringify(schema);
    const cached = this.validators.get(key);
    if (cached) {
      this.validators.delete(key);
      this.validators.set(key, cached);
      return cached;
    }
    const compiled = compileSchema(schema);
    this.validators.set(key, compiled);
    if (this.validators.size > this.capacity) {
      const oldest = this.validators.keys().next().value;
      if (oldest !== undefined) this.validators.delete(oldest);
    }
    return compiled;
  }

  /** Parses the reply text and validates it against the user's schema. */
  check(schema: JsonObject, replyText: string): ReplyCheck {
    let parsed: Json;
    try {
      parsed = JSON.parse(stripCodeFence(replyText)) as Json;
    } catch (err) {
      return { ok: false, violations: [`the reply is not valid JSON (${(err as Error).message})`] };
    }
    const value = dropNullOptionals(schema, parsed);
    const validate = this.validatorFor(schema);
    if (validate(value)) return { ok: true, value };
    return { ok: false, violations: describeErrors(validate.errors ?? []) };
  }
}

function compileSchema(schema: JsonObject): ValidateFunction {
  // The reply is outside data too: its patterns run on RE2, as the compiled validators' do.
  const options = { allErrors: true, strict: false, validateFormats: true, code: { regExp: schemaRegExp } } as const;
  const draft = typeof schema.$schema === 'string' ? schema.$schema : '';
  const ajv = draft.includes('draft-04')
    ? new AjvDraft04(options)
    : draft.includes('2020-12')
      ? new Ajv2020(options)
      : draft.includes('2019-09')
        ? new Ajv2019(options)
        : new Ajv(options);
  addFormats(ajv);
  try {
    return ajv.compile(schema);
  } catch (err) {
    throw new PipeError(`The agent's output-schema is not a valid JSON Schema: ${(err as Error).message}`, {
      code: 500,
      kind: 'AGENT_SCHEMA_INVALID',
      cause: err,
    });
  }
}

/** ajv errors as short lines a model (and a person) can act on: `<path>: <problem>`. */
export function describeErrors(errors: readonly ErrorObject[]): string[] {
  const lines = errors.map((e) => `${e.instancePath === '' ? '(root)' : e.instancePath}: ${describeError(e)}`);
  return [...new Set(lines)].slice(0, MAX_VIOLATIONS);
}

function describeError(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties')
    return `must NOT have the property "${String(params.additionalProperty)}"`;
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    return `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return error.message ?? `fails "${error.keyword}"`;
}

/** The user message of a repair round. */
export function repairMessage(violations: readonly string[]): string {
  return [
    'Your previous reply does not match the required JSON Schema. Problems:',
    ...violations.map((v) => `- ${v}`),
    'Reply again with only the corrected JSON object, fixing every problem listed.',
  ].join('\n');
}

/** Some models wrap JSON in ```json fences even when asked not to; accept that. */
function stripCodeFence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('```')) return trimmed;
  const firstNewline = trimmed.indexOf('\n');
  const body = firstNewline === -1 ? '' : trimmed.slice(firstNewline + 1);
  return body.endsWith('```') ? body.slice(0, -3).trim() : body.trim();
}
