/**
 * The precompiled draft-07 meta-validator (generated/draft-07-meta.ts) is current, and judges
 * schemas exactly as ajv's own `validateSchema` does, errors included.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import validateDraft07Schema from './generated/draft-07-meta.js';
import { SchemaCompiler } from './json-schema.js';
import { draft07MetaValidatorSource, META_CHECK_OPTIONS } from './meta-validator-source.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => Ajv;
type Validator = ((schema: unknown) => boolean) & { errors?: Ajv['errors'] };

/** What a diagnostic is made of (the verbose `schema`/`parentSchema` copies of the meta-schema aside). */
const essentials = (errors: Ajv['errors']) =>
  (errors ?? []).map(({ instancePath, schemaPath, keyword, params, message, data }) => ({
    instancePath,
    schemaPath,
    keyword,
    params,
    message,
    data,
  }));

const SCHEMAS: readonly unknown[] = [
  { type: 'object', required: ['a'], properties: { a: { type: 'string', minLength: 1 }, b: { enum: [1, 2] } } },
  { type: 'objekt' },
  { type: ['string', 'nope'] },
  { required: 'a' },
  { properties: { a: { minLength: -1 } }, additionalProperties: 3 },
  { $ref: '#/definitions/x', definitions: { x: { type: 'number', multipleOf: 0 } } },
  { pattern: '[', format: 'email', items: [{ type: 'string' }, true], maxItems: 1.5 },
  { allOf: [], anyOf: [{}], oneOf: 'x', not: { const: null } },
  { dependencies: { a: ['b', 'b'], c: { type: 'null' } }, propertyNames: { maxLength: 3 } },
  true,
  { $id: 'no spaces allowed here', title: 5, examples: {} },
];

describe('precompiled draft-07 meta-validator', () => {
  it('is the current output of its generator (npm run gen:meta)', () => {
    const file = path.join(import.meta.dirname, 'generated', 'draft-07-meta.ts');
    expect(fs.readFileSync(file, 'utf8')).toBe(draft07MetaValidatorSource());
  });

  it('gives the verdict and errors of ajv.validateSchema', () => {
    const ajv = new Ajv({ ...META_CHECK_OPTIONS });
    addFormats(ajv);
    const precompiled = validateDraft07Schema as Validator;
    for (const schema of SCHEMAS) {
      const expected = ajv.validateSchema(schema as object);
      expect(precompiled(schema), JSON.stringify(schema)).toBe(expected);
      // ajv leaves `errors` of the previous call in place after a valid boolean schema: compare them when invalid.
      if (!expected) expect(essentials(precompiled.errors), JSON.stringify(schema)).toEqual(essentials(ajv.errors));
    }
  });

  it('is what a schema check uses: invalid schemas are still reported', () => {
    const outcome = new SchemaCompiler().compile({ type: 'objekt' }, 'draft-07');
    expect(outcome.ok).toBe(false);
    expect(new SchemaCompiler().compile(SCHEMAS[0], 'draft-07').ok).toBe(true);
  });
});
