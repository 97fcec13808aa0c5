import type { Variant } from '../catalogue.js';

export const variants: Variant[] = [
  // parameters: names, types, ranges, required
  { id: 'trigger-param-typo', category: 'parameter', find: 'max-body-size: 64KB', replace: 'max-body-sise: 64KB' },
  {
    id: 'trigger-method-enum',
    category: 'parameter',
    find: 'method: POST, path: "/orders"',
    replace: 'method: PUSH, path: "/orders"',
  },
  { id: 'execute-timeout-type', category: 'parameter', find: 'timeout: 10s,', replace: 'timeout: "10 seconds",' },
  { id: 'store-param-typo', category: 'parameter', find: 'fail-on-error: true }', replace: 'fail-on-eror: true }' },
  {
    id: 'execute-mode-enum',
    category: 'parameter',
    find: 'timeout: 10s,',
    replace: 'timeout: 10s,\n    mode: background,',
    line: 'mode: background',
  },
  { id: 'log-level-enum', category: 'parameter', find: 'level: info,', replace: 'level: notice,' },
  { id: 'respond-status-range', category: 'parameter', find: 'respond 202 {', replace: 'respond 2020 {' },
  {
    id: 'log-message-missing',
    category: 'parameter',
    find: 'log { level: info, message: "order {{ message.orderId }} accepted, {{ message.lines }} lines, express: {{ message.express ?? false }}" }',
    replace: 'log { level: info }',
  },
  { id: 'schema-keyword-type', category: 'parameter', find: 'maxItems: 100,', replace: 'maxItems: "100",' },
  {
    id: 'publish-fail-on-error-type',
    category: 'parameter',
    find: 'fail-on-error: true,\n  }\n\n  choice',
    replace: 'fail-on-error: "yes",\n  }\n\n  choice',
  },

  // Double Braces
  {
    id: 'unknown-function',
    category: 'double-braces',
    find: 'SIZE(message.body.items)',
    replace: 'SIZEOF(message.body.items)',
  },
  {
    id: 'map-arity',
    category: 'double-braces',
    find: 'SUM(MAP(message.body.items, line => line.qty * line.price))',
    replace: 'SUM(MAP(message.body.items))',
  },
  {
    id: 'single-equals',
    category: 'double-braces',
    find: 'message.body.customer.tier == "gold"',
    replace: 'message.body.customer.tier = "gold"',
  },
  {
    id: 'unclosed-braces',
    category: 'double-braces',
    find: 'json: {\n      orderId: "{{ message.body.orderId }}",',
    replace: 'json: {\n      orderId: "{{ message.body.orderId }",',
    line: 'orderId: "{{ message.body.orderId }",',
  },
  {
    id: 'string-times-number',
    category: 'double-braces',
    find: 'line.qty * line.price',
    replace: 'line.sku * line.price',
  },

  // undefined names
  {
    id: 'unknown-step',
    category: 'undefined-name',
    find: 'document: {{ step.priced }}',
    replace: 'document: {{ step.price }}',
  },
  {
    id: 'unknown-global',
    category: 'undefined-name',
    find: 'global.pricing.managerFrom }}',
    replace: 'global.prices.managerFrom }}',
  },
  {
    id: 'unknown-store',
    category: 'undefined-name',
    find: 'store orders.insert saved',
    replace: 'store order.insert saved',
  },
  {
    id: 'unknown-pipeline',
    category: 'undefined-name',
    find: 'execute fulfil-order {',
    replace: 'execute fulfill-order {',
  },
  {
    id: 'unknown-schema',
    category: 'undefined-name',
    find: 'body: Order, max-body-size',
    replace: 'body: Orders, max-body-size',
  },
  {
    id: 'unknown-scope',
    category: 'undefined-name',
    find: '"{{ message.body.customer.name }}"',
    replace: '"{{ messages.body.customer.name }}"',
  },

  // duplicates
  {
    id: 'duplicate-step-label',
    category: 'duplicate',
    find: 'store orders.insert saved',
    replace: 'store orders.insert priced',
  },
  {
    id: 'duplicate-json-key',
    category: 'duplicate',
    find: 'gold: {{ message.body.customer.tier == "gold" }},',
    replace: 'total: {{ message.body.customer.tier == "gold" }},',
  },
  {
    id: 'duplicate-pipeline',
    category: 'duplicate',
    find: 'pipeline warehouse-notice {',
    replace: 'pipeline fulfil-order {',
  },
  { id: 'duplicate-route', category: 'duplicate', find: 'path: "/fulfilment"', replace: 'path: "/orders"' },
  {
    id: 'duplicate-schema-property',
    category: 'duplicate',
    find: 'express: { type: "boolean" },',
    replace: 'lines: { type: "boolean" },',
  },

  // durations and sizes
  { id: 'duration-unit', category: 'duration', find: 'timeout: 10s,', replace: 'timeout: 10sec,' },
  { id: 'size-unit', category: 'duration', find: 'max-body-size: 64KB', replace: 'max-body-size: 64XB' },

  // unreachable steps
  {
    id: 'step-after-exhaustive-choice',
    category: 'unreachable',
    find: 'route: "standard", total: {{ step.priced.total }} }\n    }\n  }\n}',
    replace: 'route: "standard", total: {{ step.priced.total }} }\n    }\n  }\n  log { message: "order done" }\n}',
    line: 'log { message: "order done" }',
  },
  {
    id: 'step-after-respond',
    category: 'unreachable',
    find: '  log { message: "fulfilling {{ message.body.orderId }} ({{ message.body.lines }} lines)" }\n  respond 200 { orderId: "{{ message.body.orderId }}", status: "queued" }',
    replace:
      '  respond 200 { orderId: "{{ message.body.orderId }}", status: "queued" }\n  log { message: "fulfilling {{ message.body.orderId }} ({{ message.body.lines }} lines)" }',
    line: 'log { message: "fulfilling',
  },

  // closed shapes
  {
    id: 'global-field-typo',
    category: 'closed-shape',
    find: 'global.pricing.freeShippingFrom }}',
    replace: 'global.pricing.freeShipping }}',
  },
  {
    id: 'body-nested-field-typo',
    category: 'closed-shape',
    find: '"{{ message.body.customer.name }}"',
    replace: '"{{ message.body.customer.fullName }}"',
  },
  {
    id: 'step-field-typo',
    category: 'closed-shape',
    find: 'when {{ step.priced.total >= global.pricing.managerFrom',
    replace: 'when {{ step.priced.totl >= global.pricing.managerFrom',
  },
  {
    id: 'lambda-field-typo',
    category: 'closed-shape',
    find: 'line.qty * line.price',
    replace: 'line.quantity * line.price',
  },
  {
    id: 'store-output-field',
    category: 'closed-shape',
    find: 'document: {{ step.priced }}, fail-on-error: true }',
    replace: 'document: {{ step.priced }}, fail-on-error: true }\n  log { message: "stored {{ step.saved.id }}" }',
    line: 'log { message: "stored',
  },

  // contracts between pipelines
  {
    id: 'execute-payload-without-body',
    category: 'contract',
    find: 'payload: { body: { orderId: "{{ step.priced.orderId }}", lines: {{ step.priced.lines }} } },',
    replace: 'payload: { orderId: "{{ step.priced.orderId }}", lines: {{ step.priced.lines }} },',
  },
  {
    id: 'execute-payload-field-typo',
    category: 'contract',
    find: 'payload: { body: { orderId: "{{ step.priced.orderId }}", lines: {{ step.priced.lines }} } },',
    replace: 'payload: { body: { orderId: "{{ step.priced.orderId }}", lineCount: {{ step.priced.lines }} } },',
  },
  {
    id: 'execute-payload-type',
    category: 'contract',
    find: 'payload: { body: { orderId: "{{ step.priced.orderId }}", lines: {{ step.priced.lines }} } },',
    replace: 'payload: { body: { orderId: "{{ step.priced.orderId }}", lines: "{{ step.priced.lines }} lines" } },',
  },
  {
    id: 'publish-payload-missing-required',
    category: 'contract',
    find: 'payload: { orderId: "{{ step.priced.orderId }}", lines: {{ step.priced.lines }}, express: {{ step.priced.gold }} },',
    replace: 'payload: { orderId: "{{ step.priced.orderId }}", express: {{ step.priced.gold }} },',
  },
  {
    id: 'publish-payload-type',
    category: 'contract',
    find: 'express: {{ step.priced.gold }} },',
    replace: 'express: "true" },',
  },
  {
    id: 'publish-payload-extra-field',
    category: 'contract',
    find: 'express: {{ step.priced.gold }} },',
    replace: 'express: {{ step.priced.gold }}, total: {{ step.priced.total }} },',
  },
  {
    id: 'publish-event-typo',
    category: 'contract',
    find: 'publish order-accepted {',
    replace: 'publish order-acepted {',
  },
  {
    id: 'executed-pipeline-read-typo',
    category: 'contract',
    find: '({{ message.body.lines }} lines)',
    replace: '({{ message.body.lineCount }} lines)',
  },
  {
    id: 'consumer-read-typo',
    category: 'contract',
    find: '{{ message.lines }} lines, express',
    replace: '{{ message.lineCount }} lines, express',
  },
  {
    id: 'subscription-typo',
    category: 'contract',
    find: 'name: "order-accepted"',
    replace: 'name: "order-accept"',
  },

  // connector envelopes
  {
    id: 'http-body-missing',
    category: 'envelope',
    find: 'respond 200 { orderId: "{{ message.body.orderId }}"',
    replace: 'respond 200 { orderId: "{{ message.orderId }}"',
  },
  {
    id: 'event-payload-under-body',
    category: 'envelope',
    find: 'log { level: info, message: "order {{ message.orderId }}',
    replace: 'log { level: info, message: "order {{ message.body.orderId }}',
  },

  // pending: values that can never match, regexes
  {
    id: 'enum-literal-never-matches',
    category: 'never-match',
    find: 'message.body.customer.tier == "gold"',
    replace: 'message.body.customer.tier == "Gold"',
  },
  {
    id: 'schema-pattern-invalid',
    category: 'regex-param',
    find: '"^[A-Z]{2}-[0-9]{4,10}$"',
    replace: '"^[A-Z]{2}-[0-9]{4,10$"',
  },

  // hunt (issue 20): payloads built from steps, envelopes of other connectors
  {
    id: 'execute-lines-from-total',
    category: 'contract',
    find: 'lines: {{ step.priced.lines }} } },',
    replace: 'lines: {{ step.priced.total }} } },',
    hard: true,
  },
  {
    id: 'publish-express-from-name',
    category: 'contract',
    find: 'express: {{ step.priced.gold }} },',
    replace: 'express: {{ step.priced.customer }} },',
  },
  {
    id: 'execute-order-id-from-insert-ids',
    category: 'contract',
    find: 'payload: { body: { orderId: "{{ step.priced.orderId }}"',
    replace: 'payload: { body: { orderId: {{ step.saved.ids }}',
  },
  {
    id: 'store-insert-output-id',
    category: 'envelope',
    find: 'respond 202 { orderId: "{{ step.priced.orderId }}"',
    replace: 'respond 202 { orderId: "{{ step.saved.id }}"',
  },
  {
    id: 'publish-output-read',
    category: 'envelope',
    find: 'respond 202 { orderId: "{{ step.priced.orderId }}"',
    replace: 'respond 202 { orderId: "{{ step.order-accepted.orderId }}"',
  },
  {
    id: 'tier-literal-never-matches',
    category: 'never-match',
    find: 'gold: {{ message.body.customer.tier == "gold" }},',
    replace: 'gold: {{ message.body.customer.tier == "premium" }},',
  },
  // hard: Double Braces values that can never do what they say
  {
    id: 'object-equals-string',
    category: 'double-braces',
    hard: true,
    find: 'gold: {{ message.body.customer.tier == "gold" }},',
    replace: 'gold: {{ message.body.customer == "gold" }},',
  },
  {
    id: 'string-as-condition',
    category: 'double-braces',
    hard: true,
    find: 'when {{ step.priced.total >= global.pricing.managerFrom }} {',
    replace: 'when {{ step.priced.customer }} {',
  },
  {
    id: 'stray-brace-after-template',
    category: 'double-braces',
    hard: true,
    find: 'customer: "{{ message.body.customer.name }}",',
    replace: 'customer: "{{ message.body.customer.name }}}",',
  },
  {
    id: 'array-compared-to-number',
    category: 'double-braces',
    hard: true,
    find: 'lines: {{ SIZE(message.body.items) }},',
    replace: 'lines: {{ IF(message.body.items > 0, SIZE(message.body.items), 0) }},',
  },
  {
    id: 'object-ordered-by-function',
    category: 'double-braces',
    hard: true,
    find: 'when {{ step.priced.total >= global.pricing.freeShippingFrom }} {',
    replace: 'when {{ GREATERTHANEQUAL(step.priced, global.pricing.freeShippingFrom) }} {',
  },
];
