/** Plausible data for a schema: valid, deterministic, and looking like what each field's name says. */
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../types.js';
import { plausibleData } from './mock-data.js';
import { toStrictSchema } from './strict-schema.js';
import { DOCUMENTATION_SCHEMA, EXPENSE_SCHEMA } from './test-support/seed-schemas.js';

const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;
const SEEDS = Array.from({ length: 200 }, (_, i) => i * 7919 + 1);

function validator(schema: object): (value: unknown) => string | undefined {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  return (value) => (validate(value) ? undefined : JSON.stringify(validate.errors));
}

const SCHEMAS: Record<string, JsonObject> = {
  expense: EXPENSE_SCHEMA as JsonObject,
  documentation: DOCUMENTATION_SCHEMA as JsonObject,
  'expense, as sent in strict mode': toStrictSchema(EXPENSE_SCHEMA as JsonObject).schema as JsonObject,
  bounds: {
    type: 'object',
    required: ['score', 'count', 'price', 'step', 'negative', 'tight', 'legacy'],
    properties: {
      score: { type: 'number', minimum: 0, exclusiveMaximum: 1 },
      count: { type: 'integer', minimum: 3, maximum: 4 },
      price: { type: 'number', minimum: 5000 },
      step: { type: 'number', minimum: 0, maximum: 1, multipleOf: 0.25 },
      negative: { type: 'integer', maximum: -10 },
      tight: { type: 'integer', exclusiveMinimum: 1, exclusiveMaximum: 3 },
      legacy: { type: 'number', minimum: 0, maximum: 10, exclusiveMinimum: 0 },
    },
  },
  strings: {
    type: 'object',
    additionalProperties: false,
    required: ['email', 'when', 'at', 'id', 'site', 'short', 'long', 'code', 'tags', 'kind', 'fixed'],
    properties: {
      email: { type: 'string', format: 'email' },
      when: { type: 'string', format: 'date' },
      at: { type: 'string', format: 'date-time' },
      id: { type: 'string', format: 'uuid' },
      site: { type: 'string', format: 'uri' },
      short: { type: 'string', maxLength: 3 },
      long: { type: 'string', minLength: 80 },
      code: { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' },
      tags: { type: 'array', items: { enum: ['a', 'b', 'c'] }, minItems: 3, uniqueItems: true },
      kind: { const: 'order' },
      fixed: { type: ['string', 'null'], enum: ['x', null] },
    },
  },
  'refs and nullable unions': {
    type: 'object',
    required: ['customer', 'lines'],
    properties: {
      customer: { $ref: '#/$defs/person' },
      lines: {
        type: 'array',
        minItems: 1,
        maxItems: 2,
        items: { anyOf: [{ type: 'null' }, { $ref: '#/$defs/line' }] },
      },
    },
    $defs: {
      person: {
        type: 'object',
        required: ['name', 'email'],
        properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
      },
      line: {
        type: 'object',
        required: ['sku', 'qty'],
        properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
      },
    },
  },
};

describe('plausibleData', () => {
  it.each(Object.entries(SCHEMAS))('is valid for the %s schema, whatever the seed', (_name, schema) => {
    const check = validator(schema);
    for (const seed of SEEDS) expect(check(plausibleData(schema, seed)), `seed ${seed}`).toBeUndefined();
  });

  it('is a function of the schema and the seed', () => {
    for (const schema of Object.values(SCHEMAS)) {
      for (const seed of SEEDS.slice(0, 20)) expect(plausibleData(schema, seed)).toEqual(plausibleData(schema, seed));
    }
    const answers = new Set(SEEDS.slice(0, 20).map((seed) => JSON.stringify(plausibleData(EXPENSE_SCHEMA, seed))));
    expect(answers.size).toBeGreaterThan(15);
  });

  it('makes an expense report look like one: a name, a department, positive amounts that add up to the total', () => {
    for (const seed of SEEDS.slice(0, 50)) {
      const report = plausibleData(EXPENSE_SCHEMA, seed) as {
        employee_name: string;
        department: string;
        total: number;
        itemized_expenses: Array<{ date: string; amount: number; category: string }>;
      };
      expect(report.employee_name).toMatch(/^\p{Lu}\p{Ll}+ \p{Lu}\p{Ll}+$/u);
      expect(['Sales', 'Finance', 'Engineering', 'Operations', 'Marketing', 'Customer Success', 'Legal']).toContain(
        report.department,
      );
      expect(report.itemized_expenses.length).toBeGreaterThan(0);
      for (const item of report.itemized_expenses) {
        expect(item.amount).toBeGreaterThan(0);
        expect(item.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(item.category).toMatch(/^[a-z]+$/);
      }
      const sum = report.itemized_expenses.reduce((total, item) => total + item.amount, 0);
      expect(Math.abs(report.total - sum)).toBeLessThan(0.005);
    }
  });

  it('writes sentences where a field holds prose, and at least as many as minItems', () => {
    const section = plausibleData(DOCUMENTATION_SCHEMA, 42) as {
      title: string;
      description: string;
      use_cases: string[];
      best_practices: string[];
    };
    expect(section.title).toMatch(/^\p{Lu}/u);
    for (const text of [section.description, ...section.use_cases, ...section.best_practices])
      expect(text).toMatch(/^\p{Lu}.* .*\.$/u);
    expect(section.use_cases.length).toBeGreaterThanOrEqual(3);
  });

  it('reads the field name: e-mails, dates, ids, amounts, counts, statuses', () => {
    const schema = {
      type: 'object',
      properties: {
        contact_email: { type: 'string' },
        invoiceDate: { type: 'string' },
        order_id: { type: 'string' },
        price: { type: 'number' },
        quantity: { type: 'integer' },
        status: { type: 'string' },
        customer_name: { type: 'string' },
        created_at: { type: 'integer' },
      },
    };
    const value = plausibleData(schema, 3) as Record<string, string | number>;
    expect(value['contact_email']).toMatch(/^[a-z]+\.[a-z]+@example\.com$/);
    expect(value['invoiceDate']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(value['order_id']).toMatch(/^ORD-\d{5}$/);
    expect(value['price']).toBeGreaterThanOrEqual(10);
    expect(value['quantity']).toBeGreaterThanOrEqual(1);
    expect(value['quantity']).toBeLessThanOrEqual(12);
    expect(['active', 'pending', 'completed']).toContain(value['status']);
    expect(value['customer_name']).toMatch(/^\p{Lu}\p{Ll}+ \p{Lu}\p{Ll}+$/u);
    expect(new Date(value['created_at'] as number).getUTCFullYear()).toBe(2026);
  });

  it('stays inside numeric bounds that exclude the plausible range', () => {
    const value = plausibleData(SCHEMAS['bounds'], 9) as Record<string, number>;
    expect(value['price']).toBeGreaterThanOrEqual(5000);
    expect(value['negative']).toBeLessThanOrEqual(-10);
    expect(value['tight']).toBe(2);
    expect([0, 0.25, 0.5, 0.75, 1]).toContain(value['step']);
  });
});
