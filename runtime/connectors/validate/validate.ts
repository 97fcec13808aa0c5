/**
 * Validator v2 at run time: the schema was compiled at build time to an ajv standalone validator
 * (`params.validator`). Valid → the payload passes unchanged. Invalid → the reference's
 * `{ success: false, validation: [...] }` (detailed or simplified), or, with fail-on-error, a
 * PipeError carrying the same `validation` list.
 */
import { PipeError } from '../../errors.js';
import type { CompiledValidator, Json, JsonObject, ValidationErrorLike } from '../../types.js';
import type { SyncConnectorRun } from '../../steps.js';

export interface ValidateParams {
  readonly validator: CompiledValidator;
  readonly payload?: Json;
  readonly simplified?: boolean;
  readonly status?: number;
  readonly 'fail-on-error'?: boolean;
}

/** Synchronous (no promise per step): ajv's standalone validators are. */
export const run: SyncConnectorRun<ValidateParams> = (params, message) => {
  const payload = params.payload === undefined ? message : params.payload;
  if (params.validator(payload)) return payload;
  const violations = (params.validator.errors ?? []).map(describeViolation);
  const validation: Json = params.simplified ? violations.map((v) => String(v['message'])) : violations;
  if (params['fail-on-error']) {
    throw new PipeError(
      `the message does not match the schema: ${violations.map((v) => String(v['message'])).join('; ')}`,
      {
        code: params.status ?? 400,
        kind: 'VALIDATION',
        details: { validation },
      },
    );
  }
  return { success: false, validation };
};

/** Reference codes for the two keywords the reference documents; the keyword name otherwise. */
const REFERENCE_CODES: Readonly<Record<string, string>> = { type: '1029', required: '1028' };

/** One violation in the reference's shape: `{ type, code, path, schemaPath, arguments, details, message }`. */
export function describeViolation(error: ValidationErrorLike): JsonObject {
  const path = toJsonPath(error.instancePath);
  const params = error.params;
  let fieldPath = path;
  let text: string;
  let args: Json[] = [];
  switch (error.keyword) {
    case 'required': {
      const missing = String(params['missingProperty']);
      fieldPath = `${path}.${missing}`;
      text = 'is missing but it is required';
      args = [missing];
      break;
    }
    case 'type':
      text = `${typeName(error)} found, ${String(params['type']).split(',').join(' or ')} expected${requiredFields(error)}`;
      args = [typeName(error), String(params['type'])];
      break;
    case 'minItems':
    case 'maxItems':
    case 'minLength':
    case 'maxLength':
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      text = limitText(error);
      args = [String(params['limit'])];
      break;
    case 'additionalProperties': {
      const extra = String(params['additionalProperty']);
      fieldPath = `${path}.${extra}`;
      text = 'is not defined in the schema and the schema does not allow additional properties';
      args = [extra];
      break;
    }
    case 'enum':
      text = `does not have a value in the enumeration ${JSON.stringify(params['allowedValues'])}`;
      break;
    case 'pattern':
      text = `does not match the regex pattern ${String(params['pattern'])}`;
      args = [String(params['pattern'])];
      break;
    default:
      text = error.message ?? `fails ${error.keyword}`;
  }
  return {
    type: error.keyword,
    code: REFERENCE_CODES[error.keyword] ?? error.keyword,
    path: fieldPath,
    schemaPath: `#${error.schemaPath.replace(/^#/, '')}`,
    arguments: args,
    details: null,
    // `$` alone is easy to misread: say that it is the whole message.
    message: `${fieldPath === '$' ? '$ (the whole message)' : fieldPath}: ${text}`,
  };
}

/** For an object expected where something else is: the fields the schema requires of it. */
function requiredFields(error: ValidationErrorLike): string {
  const required = (error as { parentSchema?: { required?: unknown } }).parentSchema?.required;
  if (String(error.params['type']) !== 'object' || !Array.isArray(required) || required.length === 0) return '';
  return ` (an object with ${required.map(String).join(', ')})`;
}

/** A size or bound rule, said as what was found and what the schema expects. */
function limitText(error: ValidationErrorLike): string {
  const limit = String(error.params['limit']);
  const data = (error as { data?: unknown }).data;
  const found = (what: string): string => (data === undefined ? '' : `${what} found, `);
  switch (error.keyword) {
    case 'minItems':
      return `${found(`${Array.isArray(data) ? data.length : '?'} items`)}at least ${limit} expected`;
    case 'maxItems':
      return `${found(`${Array.isArray(data) ? data.length : '?'} items`)}at most ${limit} expected`;
    case 'minLength':
      return `${found(`${typeof data === 'string' ? [...data].length : '?'} characters`)}at least ${limit} expected`;
    case 'maxLength':
      return `${found(`${typeof data === 'string' ? [...data].length : '?'} characters`)}at most ${limit} expected`;
    case 'minimum':
      return `${found(String(data))}${limit} or more expected`;
    case 'maximum':
      return `${found(String(data))}${limit} or less expected`;
    case 'exclusiveMinimum':
      return `${found(String(data))}more than ${limit} expected`;
    default:
      return `${found(String(data))}less than ${limit} expected`;
  }
}

function toJsonPath(instancePath: string): string {
  if (instancePath === '') return '$';
  return `$${instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? `[${s}]` : /^[A-Za-z_$][\w$]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`))
    .join('')}`;
}

/** ajv reports the expected type only; the found type is read from the data when ajv kept it. */
function typeName(error: ValidationErrorLike): string {
  const data = (error as { data?: unknown }).data;
  if (data === undefined) return 'value';
  if (data === null) return 'null';
  if (Array.isArray(data)) return 'array';
  if (typeof data === 'number') return Number.isInteger(data) ? 'integer' : 'number';
  return typeof data;
}
