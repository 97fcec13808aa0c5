/**
 * Test support: the two output schemas of the seed — generated documentation sections and expense
 * reports — written as the seed describes them.
 */
import type { JsonObject } from '../../types.js';

export const DOCUMENTATION_SCHEMA: JsonObject = {
  title: 'documentation_section',
  type: 'object',
  additionalProperties: false,
  required: ['title', 'description', 'use_cases', 'best_practices'],
  properties: {
    title: { type: 'string' },
    description: { type: 'string' },
    use_cases: { type: 'array', items: { type: 'string' }, minItems: 3 },
    best_practices: { type: 'array', items: { type: 'string' }, minItems: 3 },
  },
};

export const EXPENSE_SCHEMA: JsonObject = {
  title: 'expense_report',
  type: 'object',
  required: ['employee_name', 'department', 'total', 'trip_type', 'itemized_expenses'],
  properties: {
    employee_name: { type: 'string' },
    department: { type: 'string' },
    total: { type: 'number' },
    trip_type: { type: 'string', enum: ['Domestic', 'International'] },
    itemized_expenses: {
      type: 'array',
      items: {
        type: 'object',
        required: ['date', 'description', 'category', 'amount'],
        properties: {
          date: { type: 'string' },
          description: { type: 'string' },
          category: { type: 'string' },
          amount: { type: 'number' },
        },
      },
    },
  },
};
