import type { Variant } from '../catalogue.js';

const ROUTE_LOW = 'when "$.body[?(@.total >= 0 && @.total < 500)]"';
const ROUTE_MID = 'when "$.body[?(@.total >= 500 && @.total < 2000)]"';
const ROUTE_HIGH = 'when "$.body[?(@.total >= 2000)]"';

export const variants: Variant[] = [
  // parameters
  { id: 'agent-param-typo', category: 'parameter', find: 'max-output-tokens: 1024,', replace: 'max-tokens: 1024,' },
  { id: 'agent-temperature-range', category: 'parameter', find: 'temperature: 0.3,', replace: 'temperature: 3.5,' },
  { id: 'agent-temperature-type', category: 'parameter', find: 'temperature: 0.3,', replace: 'temperature: "0.3",' },
  {
    id: 'agent-max-tokens-type',
    category: 'parameter',
    find: 'max-output-tokens: 1024,',
    replace: 'max-output-tokens: 1024.5,',
  },
  {
    id: 'guardrail-enum',
    category: 'parameter',
    find: 'guardrails: { pii: mask },',
    replace: 'guardrails: { pii: hide },',
  },
  {
    id: 'guardrail-unknown',
    category: 'parameter',
    find: 'guardrails: { pii: mask },',
    replace: 'guardrails: { pii: mask, toxicity: block },',
  },
  {
    id: 'validate-schema-missing',
    category: 'parameter',
    find: '    schema: PdfUpload,\n',
    replace: '',
    line: 'validate upload {',
  },
  {
    id: 'agent-model-missing',
    category: 'parameter',
    find: 'agent extract {\n    model: "{{ global.expense-model }}",\n',
    replace: 'agent extract {\n',
  },
  { id: 'http-file-size-type', category: 'parameter', find: 'max-file-size: 10MB', replace: 'max-file-size: "10MB"' },
  {
    id: 'trigger-on-wrong-kind',
    category: 'parameter',
    find: 'trigger http-file { method: POST, path: "/expenses", max-file-size: 10MB }',
    replace: 'trigger http-file { method: POST, path: "/expenses", max-file-size: 10MB, body: PdfUpload }',
  },
  {
    id: 'output-schema-inline-invalid',
    category: 'parameter',
    find: 'trip_type: { type: "string", enum: ["Domestic", "International"] },',
    replace: 'trip_type: { type: "text", enum: ["Domestic", "International"] },',
  },

  // Double Braces
  { id: 'now-arity', category: 'double-braces', find: 'at: {{ NOW() }}', replace: 'at: {{ NOW(1) }}' },
  {
    id: 'braces-in-bare-string',
    category: 'double-braces',
    find: 'model: "{{ message.model }}"',
    replace: 'model: "{{ message.model }}}"',
    hard: true,
  },

  // undefined names
  {
    id: 'unknown-global-underscore',
    category: 'undefined-name',
    find: 'model: "{{ global.expense-model }}",\n    account',
    replace: 'model: "{{ global.expense_model }}",\n    account',
  },
  {
    id: 'unknown-account',
    category: 'undefined-name',
    find: 'account: expense-llm,',
    replace: 'account: expenses-llm,',
  },
  {
    id: 'unknown-output-schema',
    category: 'undefined-name',
    find: 'output-schema: ExpenseReport,',
    replace: 'output-schema: ExpenseReports,',
  },
  {
    id: 'unknown-store',
    category: 'undefined-name',
    find: 'store expense-costs.insert {',
    replace: 'store expense-cost.insert {',
  },

  // duplicates
  { id: 'duplicate-schema', category: 'duplicate', find: 'schema TokenUsage {', replace: 'schema PdfUpload {' },
  {
    id: 'duplicate-parameter',
    category: 'duplicate',
    find: 'max-output-tokens: 1024,',
    replace: 'max-output-tokens: 1024,\n    temperature: 0.2,',
    line: 'temperature: 0.2,',
  },
  {
    id: 'duplicate-account',
    category: 'duplicate',
    find: 'global expense-model =',
    replace: 'account expense-llm: secret-key { key: env("OPENAI_KEY", "") }\n\nglobal expense-model =',
    line: 'env("OPENAI_KEY", "")',
  },

  // closed shapes after agent / validate
  {
    id: 'agent-token-usage-field',
    category: 'closed-shape',
    find: 'input: {{ message.tokenUsage.inputTokenCount }},',
    replace: 'input: {{ message.tokenUsage.inputTokens }},',
  },
  // ExpenseReport is an open schema (the seed's): a field it does not declare may still be there.
  {
    id: 'agent-body-field',
    category: 'closed-shape',
    hard: true,
    find: 'decision: "APPROVED", employee: "{{ message.body.employee_name }}"',
    replace: 'decision: "APPROVED", employee: "{{ message.body.employee }}"',
  },
  {
    id: 'agent-body-field-spelling',
    category: 'closed-shape',
    hard: true,
    find: 'decision: "APPROVED", employee: "{{ message.body.employee_name }}"',
    replace: 'decision: "APPROVED", employee: "{{ message.body.employeeName }}"',
  },
  {
    id: 'agent-output-not-under-body',
    category: 'closed-shape',
    find: 'decision: "MANAGER_APPROVAL", employee: "{{ message.body.employee_name }}"',
    replace: 'decision: "MANAGER_APPROVAL", employee: "{{ message.employee_name }}"',
  },
  {
    id: 'upload-files-typo',
    category: 'closed-shape',
    find: 'files: {{ message.files }},',
    replace: 'files: {{ message.file }},',
  },

  // contracts: publish payload and consumer reads
  {
    id: 'publish-nested-type',
    category: 'contract',
    find: 'total: {{ message.tokenUsage.totalTokenCount }},',
    replace: 'total: "{{ message.tokenUsage.totalTokenCount }} tokens",',
  },
  {
    id: 'publish-missing-required',
    category: 'contract',
    find: '      step_name: "extract",\n',
    replace: '',
    line: 'payload: {',
  },
  {
    id: 'publish-extra-field',
    category: 'contract',
    find: '      step_name: "extract",\n',
    replace: '      step_name: "extract",\n      stepName: "extract",\n',
    line: 'stepName: "extract",',
  },
  {
    id: 'consumer-read-typo',
    category: 'contract',
    find: 'step: "{{ message.step_name }}"',
    replace: 'step: "{{ message.step }}"',
  },
  {
    id: 'publish-event-typo',
    category: 'contract',
    find: 'publish expense-token-usage {',
    replace: 'publish expense-tokens-usage {',
  },

  // JSONPath
  {
    id: 'filter-field-typo-and-left',
    category: 'jsonpath',
    hard: true,
    find: ROUTE_LOW,
    replace: 'when "$.body[?(@.totl >= 0 && @.total < 500)]"',
  },
  {
    id: 'filter-field-typo-and-right',
    category: 'jsonpath',
    hard: true,
    find: ROUTE_MID,
    replace: 'when "$.body[?(@.total >= 500 && @.totals < 2000)]"',
  },
  {
    id: 'filter-assignment',
    category: 'jsonpath',
    find: ROUTE_HIGH,
    replace: 'when "$.body[?(@.trip_type = \'International\')]"',
  },
  {
    id: 'filter-unclosed',
    category: 'jsonpath',
    find: ROUTE_LOW,
    replace: 'when "$.body[?(@.total >= 0 && @.total < 500)"',
  },
  { id: 'root-field-typo', category: 'jsonpath', find: ROUTE_HIGH, replace: 'when "$.bdy[?(@.total >= 2000)]"' },
  {
    id: 'filter-nested-typo-or',
    category: 'jsonpath',
    hard: true,
    find: ROUTE_HIGH,
    replace: 'when "$.body[?(@.total >= 2000 || @.itemized_expenses[0].amont > 1000)]"',
  },
  { id: 'filter-arrow-operator', category: 'jsonpath', find: ROUTE_HIGH, replace: 'when "$.body[?(@.total => 2000)]"' },

  // pending
  {
    id: 'enum-literal-case',
    category: 'never-match',
    find: ROUTE_HIGH,
    replace: 'when "$.body[?(@.total >= 2000 && @.trip_type == \'international\')]"',
  },
  {
    id: 'real-model-without-account',
    category: 'dependent-param',
    find: '    model: "{{ global.expense-model }}",\n    account: expense-llm,\n',
    replace: '    model: "gpt-4o-mini",\n',
    line: 'model: "gpt-4o-mini",',
  },
  {
    id: 'account-key-in-response',
    category: 'secret',
    find: 'message: "no approval route for this total" }',
    replace: 'message: "no approval route for this total", key: "{{ account.expense-llm.key }}" }',
  },
  {
    id: 'account-key-in-prompt',
    category: 'secret',
    find: 'user: "Extract the expense report from the attached file.",',
    replace: 'user: "Extract the expense report from the attached file. API key: {{ account.expense-llm.key }}",',
  },
  { id: 'upload-pattern-invalid', category: 'regex-param', find: '"^.+\\\\.(pdf)$"', replace: '"^.+\\\\.(pdf$"' },

  // hard: braces in text
  {
    id: 'template-opening-forgotten',
    category: 'double-braces',
    hard: true,
    find: 'model: "{{ message.model }}"',
    replace: 'model: "message.model }}"',
  },
  {
    id: 'stray-brace-before-template',
    category: 'double-braces',
    hard: true,
    find: 'model: "{{ message.model }}"',
    replace: 'model: "{ {{ message.model }}"',
  },
];
