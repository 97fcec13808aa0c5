/**
 * The agent connector's parameters, read from the evaluated step params (a JsonObject) into a
 * typed, defaulted record. The compiler checks literals against schema.json; this re-checks at run
 * time because `{{ }}` values only exist then. Invalid configuration is a PipeError 500
 * (kind AGENT_CONFIG) naming the parameter.
 */
import { PipeError } from '../errors.js';
import type { Json, JsonObject } from '../types.js';
import { DEFAULT_MAX_FILE_SIZE } from './files.js';
import type { McpServerSpec } from './mcp-client.js';
import type { RegexRule } from './regex-guardrails.js';

export interface AgentParams {
  readonly model: string;
  readonly accountFields: Readonly<Record<string, Json>> | undefined;
  readonly temperature?: number;
  readonly topP?: number;
  readonly maxOutputTokens?: number;
  readonly frequencyPenalty?: number;
  readonly presencePenalty?: number;
  readonly system?: string;
  readonly user?: string;
  readonly files?: Json;
  readonly outputSchema?: JsonObject;
  readonly piiMask: boolean;
  readonly regexRules: readonly RegexRule[];
  readonly tools: readonly McpServerSpec[];
  readonly timeout: number;
  readonly maxRetries: number;
  readonly maxToolIterations: number;
  readonly repairAttempts: number;
  readonly maxFileSize: number;
  /** The `mock` entry chosen for this input (the first whose `when` holds): the offline model's reply. */
  readonly mockAnswer?: Json;
}

export const DEFAULTS = {
  timeout: 30_000,
  maxRetries: 2,
  maxToolIterations: 8,
  repairAttempts: 1,
  maxFileSize: DEFAULT_MAX_FILE_SIZE,
} as const;

export function parseAgentParams(params: JsonObject): AgentParams {
  const model = optionalString(params, 'model');
  if (!model) throw configError('"model" is required');
  const guardrails = optionalObject(params, 'guardrails');
  const pii = guardrails ? own(guardrails, 'pii') : undefined;
  if (pii !== undefined && pii !== 'mask' && pii !== 'off' && pii !== true && pii !== false) {
    throw configError('"guardrails.pii" must be "mask" or "off"');
  }
  return {
    model,
    accountFields: optionalObject(params, 'accountFields'),
    ...numberParam(params, 'temperature', 'temperature', 0, 2),
    ...numberParam(params, 'top-p', 'topP', 0, 1),
    ...integerParam(params, 'max-output-tokens', 'maxOutputTokens', 1),
    ...numberParam(params, 'frequency-penalty', 'frequencyPenalty', -2, 2),
    ...numberParam(params, 'presence-penalty', 'presencePenalty', -2, 2),
    ...stringParam(params, 'system', 'system'),
    ...stringParam(params, 'user', 'user'),
    ...(own(params, 'files') !== undefined && own(params, 'files') !== null ? { files: own(params, 'files') } : {}),
    ...schemaParam(params),
    piiMask: pii === 'mask' || pii === true,
    regexRules: regexRules(guardrails),
    tools: toolSpecs(params),
    timeout: integerOr(params, 'timeout', DEFAULTS.timeout, 1),
    maxRetries: integerOr(params, 'max-retries', DEFAULTS.maxRetries, 0),
    maxToolIterations: integerOr(params, 'max-tool-iterations', DEFAULTS.maxToolIterations, 0),
    repairAttempts: integerOr(params, 'repair-attempts', DEFAULTS.repairAttempts, 0),
    maxFileSize: integerOr(params, 'max-file-size', DEFAULTS.maxFileSize, 1),
    ...mockAnswer(params),
  };
}

function own(object: JsonObject, key: string): Json | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function optionalString(params: JsonObject, key: string): string | undefined {
  const value = own(params, key);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw configError(`"${key}" must be a string`);
  return value;
}

function stringParam<K extends string>(params: JsonObject, key: string, field: K): Partial<Record<K, string>> {
  const value = optionalString(params, key);
  return value === undefined ? {} : ({ [field]: value } as Record<K, string>);
}

function optionalObject(params: JsonObject, key: string): JsonObject | undefined {
  const value = own(params, key);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw configError(`"${key}" must be an object`);
  return value;
}

function numberParam<K extends string>(
  params: JsonObject,
  key: string,
  field: K,
  min: number,
  max: number,
): Partial<Record<K, number>> {
  const value = own(params, key);
  if (value === undefined || value === null) return {};
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw configError(`"${key}" must be a number from ${min} to ${max}`);
  }
  return { [field]: value } as Record<K, number>;
}

function integerParam<K extends string>(
  params: JsonObject,
  key: string,
  field: K,
  min: number,
): Partial<Record<K, number>> {
  const value = own(params, key);
  if (value === undefined || value === null) return {};
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
    throw configError(`"${key}" must be an integer ≥ ${min}`);
  return { [field]: value } as Record<K, number>;
}

function integerOr(params: JsonObject, key: string, fallback: number, min: number): number {
  return integerParam(params, key, 'value', min).value ?? fallback;
}

function schemaParam(params: JsonObject): { outputSchema?: JsonObject } {
  const value = own(params, 'output-schema');
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw configError('"output-schema" must be a JSON Schema object');
  return { outputSchema: value };
}

/** The answer of the first `mock` entry whose `when` is true (an entry without `when` always is). */
function mockAnswer(params: JsonObject): { mockAnswer?: Json } {
  const value = own(params, 'mock');
  if (value === undefined || value === null) return {};
  if (!Array.isArray(value)) throw configError('"mock" must be an array of { when, answer }');
  for (const [i, entry] of value.entries()) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || own(entry, 'answer') === undefined) {
      throw configError(`"mock[${i}]" must be an object with an "answer"`);
    }
    // null (a missing field) counts as false, as in Double Braces' logical functions.
    const when = own(entry, 'when');
    if (when !== undefined && when !== null && typeof when !== 'boolean')
      throw configError(`"mock[${i}].when" must be a boolean`);
    if (when === undefined || when === true) return { mockAnswer: own(entry, 'answer') as Json };
  }
  return {};
}

function regexRules(guardrails: JsonObject | undefined): RegexRule[] {
  const value = guardrails ? own(guardrails, 'regex') : undefined;
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw configError('"guardrails.regex" must be an array');
  return value.map((rule, i) => {
    if (typeof rule !== 'object' || rule === null || Array.isArray(rule))
      throw configError(`"guardrails.regex[${i}]" must be an object`);
    const field = optionalString(rule, 'field');
    const pattern = optionalString(rule, 'pattern');
    if (!field || pattern === undefined) throw configError(`"guardrails.regex[${i}]" needs "field" and "pattern"`);
    const message = optionalString(rule, 'message');
    return message === undefined ? { field, pattern } : { field, pattern, message };
  });
}

function toolSpecs(params: JsonObject): McpServerSpec[] {
  const value = own(params, 'tools');
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw configError('"tools" must be an array');
  return value.map((tool, i) => {
    if (typeof tool !== 'object' || tool === null || Array.isArray(tool))
      throw configError(`"tools[${i}]" must be an object`);
    const type = optionalString(tool, 'type') ?? 'mcp';
    if (type !== 'mcp') throw configError(`"tools[${i}].type" must be "mcp"`);
    const name = optionalString(tool, 'name');
    const url = optionalString(tool, 'url');
    if (!name || !url) throw configError(`"tools[${i}]" needs "name" and "url"`);
    const headers = stringMap(tool, 'headers', `tools[${i}].headers`);
    const query = stringMap(tool, 'query', `tools[${i}].query`);
    const accountFields = optionalObject(tool, 'accountFields');
    return {
      name,
      url,
      ...(headers ? { headers } : {}),
      ...(query ? { query } : {}),
      ...(accountFields ? { accountFields } : {}),
    };
  });
}

function stringMap(object: JsonObject, key: string, label: string): Record<string, string> | undefined {
  const value = optionalObject(object, key);
  if (!value) return undefined;
  const entries = Object.entries(value).map(([k, v]): [string, string] => {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')
      throw configError(`"${label}.${k}" must be a text value`);
    return [k, String(v)];
  });
  return Object.fromEntries(entries);
}

function configError(message: string): PipeError {
  return new PipeError(`Agent configuration: ${message}`, { code: 500, kind: 'AGENT_CONFIG' });
}
