/**
 * The rules between parameters (param-rules.ts) on a schema of their own: each keyword reports
 * what it should, where it should, and a condition that reads a run-time value reports nothing.
 */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { span } from '../../base/source/span.js';
import { DYNAMIC } from '../ast/literal.js';
import type { JsonSchema } from '../connectors/connector-registry.js';
import { checkParamRules, describeRules, withoutRules } from './param-rules.js';

const ajv = new Ajv({ strict: false });

const SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    mode: { enum: ['read', 'write'] },
    file: { type: 'string' },
    text: { type: 'string' },
    rows: { type: 'array' },
    model: { type: 'string' },
    account: { type: 'string' },
    batch: { type: 'array' },
    'batch-fields': { type: 'array' },
    auth: {
      type: 'object',
      properties: { type: { enum: ['key', 'token'] }, account: { type: 'string' }, url: { type: 'string' } },
      allOf: [
        {
          if: { required: ['type'], properties: { type: { const: 'key' } } },
          then: { required: ['account'], not: { required: ['url'] } },
        },
      ],
    },
  },
  dependentRequired: { 'batch-fields': ['batch'] },
  allOf: [
    {
      if: { required: ['mode'], properties: { mode: { const: 'read' } } },
      then: { properties: { rows: false }, oneOf: [{ required: ['file'] }, { required: ['text'] }] },
      else: { required: ['rows'] },
    },
    {
      if: {
        description: 'the model is remote',
        required: ['model'],
        properties: { model: { type: 'string', not: { pattern: '^mock:' } } },
      },
      then: { required: ['account'] },
    },
  ],
};

/** The messages for parameters given as JSON (`mode` as a header word), each with the key it points at. */
function check(json: Record<string, unknown>): string[] {
  const out = checkParamRules({
    params: SCHEMA,
    json,
    headerWords: new Map(typeof json['mode'] === 'string' ? [['mode', json['mode']]] : []),
    subject: { what: 'connector', name: 'demo', nameSpan: span('t', 0, 4) },
    keySpan: (pointer) => span(pointer, 0, 1),
    holds: (schema, value) => ajv.validate(schema as object, value) === true,
    valueProblems: () => [],
  });
  return out.map((d) => `${d.code} ${d.message} @${d.primary.span.file}`);
}

describe('rules between parameters', () => {
  it('names the case, refuses what it does not take and needs one of a group', () => {
    expect(check({ mode: 'read', rows: [], file: 'a', text: 'b' })).toEqual([
      'PIPE3015 `rows` is not a parameter of `demo read` @/rows',
      'PIPE3015 `demo read` takes one of `file` or `text`, not both @/text',
    ]);
    expect(check({ mode: 'read' })).toEqual(['PIPE3002 `demo read` needs `file` or `text` @t']);
  });

  it('applies `else` when the condition is false, and neither branch when it reads a run-time value', () => {
    expect(check({ mode: 'write' })).toEqual([
      'PIPE3002 missing required parameter `rows` for connector `demo` when `mode` is not `read` @t',
    ]);
    expect(check({ mode: DYNAMIC })).toEqual([]);
    expect(check({ mode: 'read', file: 'a', model: DYNAMIC })).toEqual([]);
  });

  it('says a condition by its description, and checks dependentRequired and nested objects', () => {
    expect(check({ mode: 'read', file: 'a', model: 'gpt' })).toEqual([
      'PIPE3002 missing required parameter `account` for connector `demo` when the model is remote @/model',
    ]);
    expect(check({ mode: 'read', file: 'a', model: 'mock:x' })).toEqual([]);
    expect(check({ mode: 'read', file: 'a', 'batch-fields': [] })).toEqual([
      'PIPE3002 `batch-fields` of connector `demo` needs `batch` @/batch-fields',
    ]);
    expect(check({ mode: 'read', file: 'a', auth: { type: 'key', url: 'u' } })).toEqual([
      'PIPE3002 missing required parameter `account` for `auth` of connector `demo` when `type` is `key` @/auth/type',
      'PIPE3015 `url` is not a parameter of `auth` of connector `demo` when `type` is `key` @/auth/url',
    ]);
  });

  it('leaves ajv the shapes only, and lists the rules for the reference pages', () => {
    const shapes = withoutRules(SCHEMA) as JsonSchema;
    expect(Object.keys(shapes).sort()).toEqual(['properties', 'type']);
    expect(Object.keys((shapes['properties'] as Record<string, JsonSchema>)['auth'] ?? {}).sort()).toEqual([
      'properties',
      'type',
    ]);
    // Where the checker does not walk (definitions), ajv keeps the whole schema.
    const defs = { $defs: { x: { oneOf: [{ required: ['a'] }, { required: ['b'] }] } } };
    expect(withoutRules(defs)).toEqual(defs);
    expect(describeRules(SCHEMA).map((r) => `${r.where}|${r.when}|${r.needs.join()}|${r.refuses.join()}`)).toEqual([
      '|`batch-fields` is given|batch|',
      '|`mode` is `read`||rows',
      '|not (`mode` is `read`)|rows|',
      '|the model is remote|account|',
      'auth|`type` is `key`|account|url',
    ]);
  });
});
