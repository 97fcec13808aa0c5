import type { Variant } from '../catalogue.js';

const CRON = 'cron: "*/5 * * * *"';
const EXEC_PAYLOAD =
  'payload: { body: { invoiceId: "{{ step.entry.payload.invoiceId }}", attempt: {{ step.entry.attempt + 1 }} } },';
const PUBLISH_PAYLOAD =
  'payload: { payload: { invoiceId: "{{ step.invoice-api.body.invoiceId }}" }, flow: "invoice-sync", maxRetry: 5, intervalRetry: 10 },';

export const variants: Variant[] = [
  // cron
  { id: 'cron-four-fields', category: 'cron', find: CRON, replace: 'cron: "*/5 * * *"' },
  { id: 'cron-seven-fields', category: 'cron', find: CRON, replace: 'cron: "0 */5 * * * * *"' },
  { id: 'cron-hour-range', category: 'cron', find: CRON, replace: 'cron: "0 25 * * *"' },
  { id: 'cron-minute-range', category: 'cron', find: CRON, replace: 'cron: "60 * * * *"' },
  { id: 'cron-day-name', category: 'cron', find: CRON, replace: 'cron: "*/5 * * * MON-FRY"' },
  { id: 'cron-step-zero', category: 'cron', find: CRON, replace: 'cron: "*/0 * * * *"' },

  // durations
  { id: 'pipeline-timeout-unit', category: 'duration', find: 'timeout: 30s)', replace: 'timeout: 30x)' },
  {
    id: 'connect-timeout-unit',
    category: 'duration',
    find: 'connect-timeout: 2s,',
    replace: 'connect-timeout: 2secs,',
  },
  { id: 'read-timeout-string', category: 'duration', find: 'read-timeout: 5s,', replace: 'read-timeout: "5s",' },
  { id: 'expiration-negative', category: 'duration', find: 'expiration: 0 }', replace: 'expiration: -1 }' },

  // parameters
  {
    id: 'pipeline-concurrency-zero',
    category: 'parameter',
    find: '(concurrency: 4, timeout: 30s)',
    replace: '(concurrency: 0, timeout: 30s)',
  },
  {
    id: 'pipeline-option-typo',
    category: 'parameter',
    find: '(concurrency: 4, timeout: 30s)',
    replace: '(concurency: 4, timeout: 30s)',
  },
  { id: 'for-each-parallel-zero', category: 'parameter', find: '(parallel: 4)', replace: '(parallel: 0)' },
  {
    id: 'find-by-id-param-typo',
    category: 'parameter',
    find: 'find-by-id doc { id:',
    replace: 'find-by-id doc { key:',
  },
  { id: 'execute-mode-enum', category: 'parameter', find: 'mode: async,', replace: 'mode: fire-and-forget,' },
  {
    id: 'rest-method-enum',
    category: 'parameter',
    find: 'method: POST,\n    body: { attempt',
    replace: 'method: SEND,\n    body: { attempt',
  },
  {
    id: 'store-operation-unknown',
    category: 'parameter',
    find: 'store pending-retries.find due {',
    replace: 'store pending-retries.search due {',
  },
  {
    id: 'store-limit-type',
    category: 'parameter',
    find: 'limit: {{ global.retry.pageSize }},',
    replace: 'limit: "50",',
  },
  {
    id: 'store-index-shape',
    category: 'parameter',
    find: 'indexes: [{ fields: { dueAt: 1 } }],',
    replace: 'indexes: [{ field: { dueAt: 1 } }],',
  },
  {
    id: 'schema-minimum-type',
    category: 'parameter',
    find: 'maxRetry: { type: "integer", minimum: 1, maximum: 20 },',
    replace: 'maxRetry: { type: "integer", minimum: "1", maximum: 20 },',
  },

  // undefined names
  {
    id: 'unknown-for-each-label',
    category: 'undefined-name',
    find: '{{ step.sent.success }}',
    replace: '{{ step.send.success }}',
  },
  {
    id: 'unknown-global',
    category: 'undefined-name',
    find: 'global.retry.minuteMs }}',
    replace: 'global.retries.minuteMs }}',
  },
  {
    id: 'unknown-step',
    category: 'undefined-name',
    find: 'of {{ step.due.rowCount }}',
    replace: 'of {{ step.dues.rowCount }}',
  },
  {
    id: 'unknown-store',
    category: 'undefined-name',
    find: 'store pending-retries.update-by-id {',
    replace: 'store pending-retry.update-by-id {',
  },
  {
    id: 'unknown-pipeline',
    category: 'undefined-name',
    find: 'execute invoice-sync {',
    replace: 'execute invoices-sync {',
  },

  // closed shapes
  {
    id: 'for-each-output-field',
    category: 'closed-shape',
    find: '{{ step.sent.success }}',
    replace: '{{ step.sent.succeeded }}',
  },
  {
    id: 'find-output-field',
    category: 'closed-shape',
    find: 'of {{ step.due.rowCount }}',
    replace: 'of {{ step.due.count }}',
  },
  {
    id: 'insert-output-field',
    category: 'closed-shape',
    find: 'FIRSTELEMENT(message.ids)',
    replace: 'FIRSTELEMENT(message.id)',
  },
  {
    id: 'global-field-typo',
    category: 'closed-shape',
    find: 'global.retry.minuteMs }}',
    replace: 'global.retry.minutesMs }}',
  },

  // contracts
  {
    id: 'execute-field-typo',
    category: 'contract',
    find: EXEC_PAYLOAD,
    replace: EXEC_PAYLOAD.replace('attempt:', 'attempts:'),
  },
  {
    id: 'execute-without-body',
    category: 'contract',
    find: EXEC_PAYLOAD,
    replace: 'payload: { invoiceId: "{{ step.entry.payload.invoiceId }}", attempt: {{ step.entry.attempt + 1 }} },',
  },
  {
    id: 'publish-type',
    category: 'contract',
    find: PUBLISH_PAYLOAD,
    replace: PUBLISH_PAYLOAD.replace('maxRetry: 5', 'maxRetry: "5"'),
  },
  {
    id: 'publish-out-of-range',
    category: 'contract',
    find: PUBLISH_PAYLOAD,
    replace: PUBLISH_PAYLOAD.replace('maxRetry: 5', 'maxRetry: 50'),
  },
  {
    id: 'publish-missing-required',
    category: 'contract',
    find: PUBLISH_PAYLOAD,
    replace: PUBLISH_PAYLOAD.replace(' flow: "invoice-sync",', ''),
  },
  {
    id: 'publish-ticket-field',
    category: 'contract',
    find: 'payload: { id: "{{ message._oId }}" }',
    replace: 'payload: { _oId: "{{ message._oId }}" }',
  },
  {
    id: 'ticket-read-typo',
    category: 'contract',
    find: 'doc { id: "{{ message.id }}"',
    replace: 'doc { id: "{{ message.ticket }}"',
  },
  {
    id: 'executed-read-typo',
    category: 'contract',
    find: 'body: { attempt: {{ message.body.attempt }} },',
    replace: 'body: { attempt: {{ message.body.attempts }} },',
  },
  // RetryRequest is open: a field it does not declare may be there.
  {
    id: 'open-consumer-read-typo',
    category: 'contract',
    hard: true,
    find: 'flow: "{{ message.flow }}",',
    replace: 'flow: "{{ message.flowName }}",',
  },
  // The only publisher sends `maxRetry`; RetryRequest is open but does not declare `maxRetries`.
  {
    id: 'open-consumer-read-plural',
    category: 'contract',
    find: 'maxRetry: {{ message.maxRetry }},',
    replace: 'maxRetry: {{ message.maxRetries }},',
  },
  {
    id: 'publish-event-typo',
    category: 'contract',
    find: 'publish retry-requested {',
    replace: 'publish retry-request {',
  },

  // envelopes
  {
    id: 'rest-output-without-body',
    category: 'envelope',
    find: '"{{ step.invoice-api.body.invoiceId }}"',
    replace: '"{{ step.invoice-api.invoiceId }}"',
  },
  {
    id: 'event-payload-under-body',
    category: 'envelope',
    find: 'payload: {{ message.payload }},',
    replace: 'payload: {{ message.body.payload }},',
  },
  {
    id: 'http-without-body',
    category: 'envelope',
    find: 'invoices/{{ message.body.invoiceId }}/sync',
    replace: 'invoices/{{ message.invoiceId }}/sync',
  },
  {
    id: 'rest-status-under-body',
    category: 'envelope',
    find: 'when {{ message.status >= 500 }}',
    replace: 'when {{ message.statusCode >= 500 }}',
  },

  // for-each
  {
    id: 'for-each-path-field',
    category: 'for-each',
    find: 'for-each sent "$.data[*]"',
    replace: 'for-each sent "$.rows[*]"',
  },
  {
    id: 'for-each-over-number',
    category: 'for-each',
    find: 'for-each sent "$.data[*]"',
    replace: 'for-each sent "$.rowCount[*]"',
  },

  // unreachable
  {
    id: 'step-after-respond',
    category: 'unreachable',
    find: '      respond 202 { queued: true }\n',
    replace: '      respond 202 { queued: true }\n      log { message: "queued for retry" }\n',
    line: 'log { message: "queued for retry" }',
  },

  // duplicates
  {
    id: 'duplicate-store',
    category: 'duplicate',
    find: 'pipeline retry-intake {',
    replace: 'store pending-retries\n\npipeline retry-intake {',
    line: 'store pending-retries\n',
  },
  { id: 'duplicate-label', category: 'duplicate', find: 'json-generator entry {', replace: 'json-generator doc {' },
  {
    id: 'duplicate-global',
    category: 'duplicate',
    find: 'store pending-retries {',
    replace: 'global retry = { pageSize: 20 }\n\nstore pending-retries {',
    line: 'global retry = { pageSize: 20 }',
  },

  // Double Braces
  {
    id: 'unbalanced-paren',
    category: 'double-braces',
    find: 'global.retry.minuteMs }}',
    replace: 'global.retry.minuteMs) }}',
  },
  {
    id: 'unknown-function',
    category: 'double-braces',
    find: 'json: {{ FIRSTELEMENT(message.data) }}',
    replace: 'json: {{ FIRST(message.data) }}',
  },
  {
    id: 'object-compared-to-number',
    category: 'double-braces',
    find: 'when {{ step.entry.attempt < step.entry.maxRetry }}',
    replace: 'when {{ step.entry < step.entry.maxRetry }}',
    hard: true,
  },

  // pending
  {
    id: 'timezone-unknown',
    category: 'never-match',
    find: 'timezone: "Europe/Lisbon"',
    replace: 'timezone: "Europe/Lisboa"',
  },

  // hunt (issue 20)
  {
    id: 'for-each-over-row-count-braces',
    category: 'for-each',
    find: 'for-each sent "$.data[*]"',
    replace: 'for-each sent "{{ step.due.rowCount }}"',
  },
  {
    id: 'find-by-id-output-single',
    category: 'envelope',
    find: 'json-generator entry { json: {{ FIRSTELEMENT(message.data) }} }',
    replace: 'json-generator entry { json: {{ message.document }} }',
  },
  {
    id: 'publish-interval-as-text',
    category: 'contract',
    find: 'maxRetry: 5, intervalRetry: 10 },',
    replace: 'maxRetry: 5, intervalRetry: "10m" },',
  },
  {
    id: 'execute-attempt-from-flow',
    category: 'contract',
    find: 'attempt: {{ step.entry.attempt + 1 }} } },',
    replace: 'attempt: "{{ step.entry.flow }}" } },',
    hard: true,
  },
  {
    id: 'rest-response-under-response',
    category: 'envelope',
    find: 'invoiceId: "{{ step.invoice-api.body.invoiceId }}"',
    replace: 'invoiceId: "{{ step.invoice-api.response.invoiceId }}"',
  },
  {
    id: 'object-as-null-guard',
    category: 'double-braces',
    hard: true,
    find: 'when {{ step.entry.attempt < step.entry.maxRetry }}',
    replace: 'when {{ step.entry && step.entry.attempt < step.entry.maxRetry }}',
  },
];
