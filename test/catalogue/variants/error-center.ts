import type { Variant } from '../catalogue.js';

export const variants: Variant[] = [
  // contracts: the publish payload against the handler's StandardError
  { id: 'publish-enum-value', category: 'contract', find: 'errorType: "server",', replace: 'errorType: "fatal",' },
  {
    id: 'publish-missing-required',
    category: 'contract',
    find: "        occurredAt: \"{{ FORMATDATE(NOW(), 'timestamp', 'yyyy-MM-dd HH:mm:ss') }}\",\n",
    replace: '',
    line: 'payload: {\n        errorType',
  },
  {
    id: 'publish-object-as-string',
    category: 'contract',
    find: 'payload: { orderId: "{{ step.gateway.body.orderId }}" },',
    replace: 'payload: "order {{ step.gateway.body.orderId }}",',
  },
  { id: 'publish-empty-string', category: 'contract', find: 'orderId: "payment",', replace: 'orderId: "",' },
  {
    id: 'publish-event-typo',
    category: 'contract',
    find: 'publish standard-error {',
    replace: 'publish standard-errors {',
  },
  // StandardError is open: `message.message` may be there.
  {
    id: 'open-consumer-read',
    category: 'contract',
    hard: true,
    find: 'text: "{{ message.summary }}"',
    replace: 'text: "{{ message.message }}"',
  },
  // Inside the open `payload` object: the publisher sends `orderId` there, nothing else.
  {
    id: 'open-consumer-nested-read',
    category: 'contract',
    find: 'order: "{{ message.orderId }}"',
    replace: 'order: "{{ message.payload.order }}"',
  },

  // envelopes and closed shapes
  {
    id: 'rest-status-name',
    category: 'envelope',
    find: 'when {{ message.status == 200 }}',
    replace: 'when {{ message.statusCode == 200 }}',
  },
  {
    id: 'catch-error-field',
    category: 'closed-shape',
    // A connector's error details join the error object: open.
    hard: true,
    find: 'failed: {{ message.message }}',
    replace: 'failed: {{ message.errorMessage }}',
  },
  {
    id: 'catch-error-field-edit',
    category: 'closed-shape',
    hard: true,
    find: 'failed: {{ message.message }}',
    replace: 'failed: {{ message.mesage }}',
  },
  {
    id: 'step-in-catch-body-field',
    category: 'envelope',
    find: 'orderId: "{{ step.gateway.body.orderId }}"',
    replace: 'orderId: "{{ step.gateway.orderId }}"',
  },
  {
    id: 'event-read-under-body',
    category: 'envelope',
    find: 'order: "{{ message.orderId }}"',
    replace: 'order: "{{ message.body.orderId }}"',
  },

  // parameters
  { id: 'rest-retries-range', category: 'parameter', find: 'retries: 2,', replace: 'retries: -1,' },
  {
    id: 'rest-param-typo',
    category: 'parameter',
    find: 'stop-on-client-error: true,',
    replace: 'stop-on-client-errors: true,',
  },
  {
    id: 'rest-method-case',
    category: 'parameter',
    find: 'method: POST,\n      body: { order',
    replace: 'method: "post",\n      body: { order',
  },
  {
    id: 'rest-url-missing',
    category: 'parameter',
    find: 'rest forward {\n    url: "{{ global.forwardUrl }}",\n',
    replace: 'rest forward {\n',
    line: 'rest forward {',
  },
  {
    id: 'store-option-typo',
    category: 'parameter',
    find: 'store error-log { expire-after: 30d }',
    replace: 'store error-log { expires-after: 30d }',
  },
  { id: 'schema-format-unknown', category: 'parameter', find: 'format: "email"', replace: 'format: "e-mail"' },
  {
    id: 'schema-type-unknown',
    category: 'parameter',
    find: 'currency: { type: "string" }',
    replace: 'currency: { type: "str" }',
  },

  // durations
  { id: 'store-expiry-unit', category: 'duration', find: 'expire-after: 30d', replace: 'expire-after: 30days' },
  {
    id: 'connect-timeout-negative',
    category: 'duration',
    find: 'connect-timeout: 2s,',
    replace: 'connect-timeout: -2s,',
  },
  { id: 'read-timeout-number', category: 'duration', find: 'read-timeout: 5s,', replace: 'read-timeout: 5ss,' },

  // undefined names
  { id: 'unknown-account', category: 'undefined-name', find: 'account: error-api,', replace: 'account: errors-api,' },
  {
    id: 'unknown-global',
    category: 'undefined-name',
    find: 'url: "{{ global.forwardUrl }}",',
    replace: 'url: "{{ global.forwardURL }}",',
  },
  {
    id: 'unknown-step-in-catch',
    category: 'undefined-name',
    find: '"{{ step.gateway.body.orderId }}"',
    replace: '"{{ step.payment-gateway.body.orderId }}"',
  },

  // Double Braces
  {
    id: 'format-date-kind',
    category: 'double-braces',
    find: "FORMATDATE(NOW(), 'timestamp', 'yyyy-MM-dd HH:mm:ss')",
    replace: "FORMATDATE(NOW(), 'timestmp', 'yyyy-MM-dd HH:mm:ss')",
  },
  {
    id: 'elvis-operator',
    category: 'double-braces',
    find: "{{ message.status ?? 'none' }}",
    replace: "{{ message.status ?: 'none' }}",
  },

  // duplicates
  {
    id: 'duplicate-pipeline',
    category: 'duplicate',
    find: 'pipeline error-handler {',
    replace: 'pipeline payment-processor {',
  },
  {
    id: 'duplicate-payload-key',
    category: 'duplicate',
    find: 'orderId: "payment",',
    replace: 'orderId: "payment",\n        summary: "payment",',
    line: 'summary: "payment",',
  },

  // unreachable
  {
    id: 'step-after-catch-respond',
    category: 'unreachable',
    find: '    respond 503 { error: "payment gateway unavailable" } headers { "retry-after": "30" }\n',
    replace:
      '    respond 503 { error: "payment gateway unavailable" } headers { "retry-after": "30" }\n    log { message: "payment failed" }\n',
    line: 'log { message: "payment failed" }',
  },

  // pending: secrets, values that never match
  {
    id: 'key-in-log',
    category: 'secret',
    find: 'log { level: info, message: "error forwarded" }',
    replace: 'log { level: info, message: "error forwarded with {{ account.error-api.key }}" }',
  },
  {
    id: 'key-stored',
    category: 'secret',
    find: 'document: {{ message }}, fail-on-error',
    replace: 'document: { error: {{ message }}, key: "{{ account.error-api.key }}" }, fail-on-error',
  },
  {
    id: 'key-published',
    category: 'secret',
    find: 'contact: "{{ global.contact }}",',
    replace: 'contact: "{{ account.error-api.key }}",',
  },
  {
    id: 'status-compared-to-string',
    category: 'never-match',
    find: 'when {{ message.status == 200 }}',
    replace: 'when {{ message.status == "200" }}',
  },

  // hunt (issue 20)
  {
    id: 'rest-status-code-name',
    category: 'envelope',
    find: 'when {{ message.status == 200 }}',
    replace: 'when {{ message.statusCode == 200 }}',
  },
  {
    id: 'api-key-header-without-account',
    category: 'dependent-param',
    find: '    account: error-api,\n',
    replace: '',
    line: 'api-key-header: "x-api-key",',
  },
  {
    id: 'key-through-report-logged',
    category: 'secret',
    find: 'json: { type: "{{ message.errorType }}", text: "{{ message.summary }}"',
    replace: 'json: { type: "{{ message.errorType }}", text: "{{ message.summary }} ({{ account.error-api.key }})"',
    line: 'store error-log.insert',
  },
  {
    id: 'key-in-retry-header',
    category: 'secret',
    find: 'headers { "retry-after": "30" }',
    replace: 'headers { "retry-after": "30", "x-api-key": "{{ account.error-api.key }}" }',
  },
  {
    id: 'error-type-never-matches',
    category: 'never-match',
    find: 'log { level: info, message: "error forwarded" }',
    replace: 'log { level: info, message: "error forwarded: {{ step.report.type == \'fatal\' }}" }',
  },
  // hard: Double Braces values that can never do what they say
  {
    id: 'javascript-template-path',
    category: 'double-braces',
    hard: true,
    find: 'summary: "payment gateway failed: {{ message.message }}",',
    replace: 'summary: "payment gateway failed: ${message.message}",',
  },
  {
    id: 'status-out-of-range',
    category: 'never-match',
    find: 'when {{ message.status == 200 }}',
    replace: 'when {{ message.status == 2000 }}',
  },
];
