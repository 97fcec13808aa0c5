/**
 * Validator v2 output shapes, from the reference's examples: valid → the payload itself; invalid →
 * `{ success: false, validation: [{ type, code, path, schemaPath, arguments, details, message }] }`,
 * simplified → messages only, fail-on-error → a PipeError carrying the same list. Every draft.
 */
import { describe, expect, it } from 'vitest';
import { compileValidatorModule, type Draft } from '../../../compiler/check/json-schema.js';
import { validatorPreamble } from '../../../compiler/codegen/generate-service.js';
import { PipeError } from '../../errors.js';
import { fakeContext } from '../../service/test-support/fake-context.js';
import type { CompiledValidator, Json } from '../../types.js';
import { run } from './validate.js';

/** Loads an ajv standalone module (as the compiler generates it) from source. */
async function validatorFor(schema: unknown, draft: Draft): Promise<CompiledValidator> {
  const source = compileValidatorModule(schema, draft);
  const preamble = validatorPreamble(source, new URL('../..', import.meta.url).href.replace(/\/$/, '')).replace(
    'createRequire(import.meta.url)',
    `createRequire(${JSON.stringify(import.meta.url)})`,
  );
  const code = `${preamble}${source}`;
  const mod = (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as {
    default: CompiledValidator;
  };
  return mod.default;
}

/** What `fn` throws (the connector is synchronous); undefined when it returns. */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err;
  }
}

const schema = {
  type: 'object',
  required: ['field'],
  properties: { code: { type: 'integer' }, field: { type: 'string' } },
};

describe('validate connector', () => {
  const { ctx } = fakeContext();

  it('a valid payload passes unchanged', async () => {
    const validator = await validatorFor(schema, 'draft-07');
    const message: Json = { code: 1, field: 'x' };
    expect(run({ validator }, message, ctx)).toBe(message);
  });

  it('invalid → the reference shape, detailed', async () => {
    const validator = await validatorFor(schema, 'draft-04');
    const out = run({ validator }, { code: 'a' }, ctx) as {
      success: boolean;
      validation: Array<Record<string, unknown>>;
    };
    expect(out.success).toBe(false);
    expect(out.validation).toContainEqual({
      type: 'type',
      code: '1029',
      path: '$.code',
      schemaPath: '#/properties/code/type',
      arguments: ['string', 'integer'],
      details: null,
      message: '$.code: string found, integer expected',
    });
    expect(out.validation).toContainEqual({
      type: 'required',
      code: '1028',
      path: '$.field',
      schemaPath: '#/required',
      arguments: ['field'],
      details: null,
      message: '$.field: is missing but it is required',
    });
  });

  it('simplified → messages only', async () => {
    const validator = await validatorFor(schema, 'draft-07');
    const out = run({ validator, simplified: true }, { code: 'a', field: 'f' }, ctx);
    expect(out).toEqual({ success: false, validation: ['$.code: string found, integer expected'] });
  });

  it('fail-on-error → a PipeError with the status and the validation list', async () => {
    const validator = await validatorFor(schema, 'draft-07');
    const error = thrownBy(() => run({ validator, 'fail-on-error': true, status: 422 }, {}, ctx));
    expect(error).toBeInstanceOf(PipeError);
    expect((error as PipeError).code).toBe(422);
    expect((error as PipeError).details?.['validation']).toHaveLength(1);
  });

  it('validates a payload other than the message when given', async () => {
    const validator = await validatorFor(schema, '2020-12');
    const out = run({ validator, payload: { field: 3 } }, { field: 'ok' }, ctx) as { success: boolean };
    expect(out.success).toBe(false);
  });

  const draftSpecific: Array<[Draft, unknown, Json, boolean]> = [
    [
      'draft-04',
      { type: 'object', properties: { n: { type: 'number', maximum: 5, exclusiveMaximum: true } } },
      { n: 5 },
      false,
    ],
    ['draft-06', { type: 'object', properties: { n: { const: 3 } } }, { n: 3 }, true],
    ['draft-07', { if: { properties: { a: { const: 1 } } }, then: { required: ['b'] } }, { a: 1 }, false],
    [
      '2019-09',
      { type: 'object', properties: { a: { type: 'string' } }, unevaluatedProperties: false },
      { a: 'x', b: 1 },
      false,
    ],
    ['2020-12', { type: 'array', prefixItems: [{ type: 'string' }], items: false }, ['x', 'y'], false],
  ];
  for (const [draft, draftSchema, data, valid] of draftSpecific) {
    it(`draft ${draft} keywords`, async () => {
      const validator = await validatorFor(draftSchema, draft);
      const out = run({ validator }, data, ctx);
      expect(out === data).toBe(valid);
    });
  }
});

describe('violation messages say where and what the schema expects', () => {
  const contract = {
    type: 'object',
    required: ['products'],
    properties: {
      products: {
        type: 'array',
        minItems: 1,
        maxItems: 2,
        items: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 2 },
            qty: { type: 'integer', minimum: 1, exclusiveMaximum: 10 },
          },
        },
      },
      note: { type: ['string', 'null'] },
    },
  };
  const messages = async (data: Json): Promise<string[]> => {
    const out = run(
      { validator: await validatorFor(contract, 'draft-07'), simplified: true },
      data,
      fakeContext().ctx,
    ) as { validation: string[] };
    return out.validation;
  };

  it('a null message: the whole message, what was found and the object the schema wants', async () => {
    expect(await messages(null)).toEqual([
      '$ (the whole message): null found, object expected (an object with products)',
    ]);
  });

  it('sizes and bounds: what was found and the limit', async () => {
    expect(await messages({ products: [] })).toEqual(['$.products: 0 items found, at least 1 expected']);
    expect(await messages({ products: [{}, {}, {}] })).toEqual(['$.products: 3 items found, at most 2 expected']);
    expect(await messages({ products: [{ name: 'é', qty: 0 }, { qty: 10 }] })).toEqual([
      '$.products[0].name: 1 characters found, at least 2 expected',
      '$.products[0].qty: 0 found, 1 or more expected',
      '$.products[1].qty: 10 found, less than 10 expected',
    ]);
    expect(await messages({ products: [{}], note: 3 })).toEqual(['$.note: integer found, string or null expected']);
  });
});
