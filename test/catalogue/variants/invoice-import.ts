import type { Variant } from '../catalogue.js';

const PAYLOAD =
  'payload: { count: {{ step.parsed.rowCount }}, file: "{{ step.file.remotePath }}", rejected: {{ step.parsed.rejectedCount }} },';

export const variants: Variant[] = [
  // connector envelopes other than rest
  {
    id: 'sftp-get-name-field',
    category: 'envelope',
    find: 'from {{ step.file.originalFileName }}',
    replace: 'from {{ step.file.name }}',
  },
  {
    id: 'sftp-get-content-read',
    category: 'envelope',
    find: 'from {{ step.file.originalFileName }}',
    replace: 'from {{ step.file.body.name }}',
  },
  {
    id: 'email-output-recipients',
    category: 'envelope',
    find: '{{ SIZE(step.summary.accepted) }}',
    replace: '{{ SIZE(step.summary.recipients) }}',
  },
  {
    id: 'email-output-under-body',
    category: 'envelope',
    find: '(message {{ step.summary.messageId }})',
    replace: '(message {{ step.summary.body.messageId }})',
  },
  {
    id: 'csv-parse-count-name',
    category: 'envelope',
    find: 'subject: "{{ step.parsed.rowCount }} invoices',
    replace: 'subject: "{{ step.parsed.count }} invoices',
  },
  {
    id: 'csv-parse-rejected-plural',
    category: 'envelope',
    find: 'rows were rejected.',
    replace: 'rows were rejected ({{ SIZE(step.parsed.rejectedRows) }}).',
  },
  {
    id: 'store-find-rows-name',
    category: 'envelope',
    find: '{ rowCount: "count", data:',
    replace: '{ rowCount: "count", rows:',
    hard: true,
  },
  // for-each elements and paths
  {
    id: 'for-each-row-field-typo',
    category: 'for-each',
    find: 'amount: {{ message.amount }}, currency',
    replace: 'amount: {{ message.amout }}, currency',
  },
  {
    id: 'for-each-braces-element-field',
    category: 'for-each',
    find: 'supplier: "{{ message.supplier }}", due',
    replace: 'supplier: "{{ message.vendor }}", due',
  },
  {
    id: 'for-each-path-typo',
    category: 'for-each',
    find: 'for-each booked "$.rows[*]"',
    replace: 'for-each booked "$.row[*]"',
  },
  {
    id: 'for-each-over-count',
    category: 'for-each',
    find: 'for-each saved "{{ step.parsed.rows }}"',
    replace: 'for-each saved "{{ step.parsed.rowCount }}"',
  },
  {
    id: 'for-each-rejected-element',
    category: 'for-each',
    find: 'for-each booked "$.rows[*]"',
    replace: 'for-each booked "$.rejected[*]"',
    line: 'ref: "{{ message.number }}"',
  },
  // transformation outputs
  {
    id: 'jolt-output-renamed-read',
    category: 'transform-output',
    find: '"{{ step.totals.count }} invoices are open',
    replace: '"{{ step.totals.rowCount }} invoices are open',
  },
  {
    id: 'jolt-output-nested-read',
    category: 'transform-output',
    find: '"{{ step.totals.count }} invoices are open',
    replace: '"{{ step.totals.numbers.count }} invoices are open',
  },
  // contracts: publish payload built from steps
  {
    id: 'publish-count-as-text',
    category: 'contract',
    find: PAYLOAD,
    replace: PAYLOAD.replace('count: {{ step.parsed.rowCount }}', 'count: "{{ step.parsed.rowCount }} rows"'),
  },
  {
    id: 'publish-file-object',
    category: 'contract',
    find: PAYLOAD,
    replace: PAYLOAD.replace('"{{ step.file.remotePath }}"', '{{ step.file }}'),
  },
  {
    id: 'publish-rows-as-count',
    category: 'contract',
    find: PAYLOAD,
    replace: PAYLOAD.replace('count: {{ step.parsed.rowCount }}', 'count: {{ step.parsed.rows }}'),
  },
  {
    id: 'consumer-read-under-body',
    category: 'contract',
    find: 'when {{ message.count > 0 }}',
    replace: 'when {{ message.body.count > 0 }}',
  },
  // values that can never match
  {
    id: 'timezone-misspelt',
    category: 'never-match',
    find: 'timezone: "Europe/Lisbon"',
    replace: 'timezone: "Europe/Lisboa"',
  },
  {
    id: 'count-compared-to-text',
    category: 'never-match',
    find: 'when {{ message.count > 0 }}',
    replace: 'when {{ message.file > 0 }}',
  },
  // parameters that depend on each other
  { id: 'sftp-put-without-file', category: 'dependent-param', find: 'sftp get file {', replace: 'sftp put file {' },
  {
    id: 'csv-parse-without-input',
    category: 'dependent-param',
    find: 'csv parse parsed { file: {{ step.file }}, schema',
    replace: 'csv parse parsed { schema',
  },
  {
    id: 'api-key-header-without-account',
    category: 'dependent-param',
    find: '      account: accounting-api,\n',
    replace: '',
    line: 'api-key-header: "x-api-key",',
  },
  { id: 'csv-on-invalid-enum', category: 'parameter', find: 'on-invalid: reject', replace: 'on-invalid: skip' },
  { id: 'sftp-max-size-unit', category: 'parameter', find: 'max-size: 20MB', replace: 'max-size: 20 megabytes' },
  // secrets through steps, for-each, concatenation and publish payloads
  {
    id: 'key-in-email',
    category: 'secret',
    find: 'rows were rejected.',
    replace: 'rows were rejected (api key {{ account.accounting-api.key }}).',
  },
  {
    id: 'key-concatenated-in-log',
    category: 'secret',
    find: 'message: "invoices sent to {{ SIZE(step.summary.accepted) }} recipients',
    replace:
      'message: {{ "invoices sent with " + account.accounting-api.key }}, detail: "{{ SIZE(step.summary.accepted) }} recipients',
  },
  {
    id: 'key-stored-in-for-each',
    category: 'secret',
    find: 'due: "{{ message.due }}" } }',
    replace: 'due: "{{ message.due }}", apiKey: "{{ account.accounting-api.key }}" } }',
  },
  {
    id: 'key-through-step-published',
    category: 'secret',
    find: '  publish payments-due {\n    payload: { count: {{ step.parsed.rowCount }}, file: "{{ step.file.remotePath }}"',
    replace:
      '  json-generator creds { json: { key: "{{ account.accounting-api.key }}" } }\n\n  publish payments-due {\n    payload: { count: {{ step.parsed.rowCount }}, file: "{{ step.creds.key }}"',
    line: 'file: "{{ step.creds.key }}"',
  },
  {
    id: 'smtp-password-in-email',
    category: 'secret',
    find: 'text: "{{ step.totals.count }} invoices are open;',
    replace: 'text: "{{ step.totals.count }} invoices are open (smtp {{ account.finance-smtp.password }});',
  },
  {
    id: 'sftp-password-in-event',
    category: 'secret',
    find: PAYLOAD,
    replace: PAYLOAD.replace(
      '"{{ step.file.remotePath }}"',
      '"{{ account.invoice-sftp.username }}:{{ account.invoice-sftp.password }}@{{ step.file.remotePath }}"',
    ),
  },
  // second round
  {
    id: 'email-to-rows',
    category: 'parameter',
    find: 'to: "{{ global.finance-to }}",',
    replace: 'to: {{ step.parsed.rows }},',
  },
  {
    id: 'sftp-path-file-object',
    category: 'parameter',
    find: 'path: "{{ global.invoice-file }}"',
    replace: 'path: {{ step.file }}',
    hard: true,
  },
  { id: 'publish-event-typo', category: 'contract', find: 'publish payments-due {', replace: 'publish payment-due {' },
  {
    id: 'for-each-path-without-wildcard',
    category: 'for-each',
    find: 'for-each booked "$.rows[*]"',
    replace: 'for-each booked "$.rows"',
  },
  { id: 'cron-hour-range', category: 'cron', find: 'cron: "15 1 * * *"', replace: 'cron: "15 25 * * *"' },
  { id: 'max-rejected-negative', category: 'parameter', find: 'max-rejected: 500', replace: 'max-rejected: -1' },
  {
    id: 'choice-jsonpath-comparison',
    category: 'jsonpath',
    find: 'when {{ message.count > 0 }}',
    replace: 'when "$.count > 0"',
  },
  {
    id: 'key-in-email-subject',
    category: 'secret',
    find: 'invoices imported from',
    replace: 'invoices imported with {{ account.accounting-api.key }} from',
  },
  {
    id: 'store-query-operator-typo',
    category: 'parameter',
    find: '{ supplier: { $exists: true } }',
    replace: '{ supplier: { $exist: true } }',
  },
  {
    id: 'store-sort-direction-word',
    category: 'parameter',
    find: 'limit: 1000 }',
    replace: 'sort: { due: "asc" }, limit: 1000 }',
  },
  {
    id: 'jolt-spec-key-typo',
    category: 'transform-output',
    find: '{ rowCount: "count", data:',
    replace: '{ rowcount: "count", data:',
    line: '"{{ step.totals.count }} invoices are open',
    hard: true,
  },
  {
    id: 'unknown-event-consumer-field',
    category: 'contract',
    find: '{{ message.count }} invoices due from',
    replace: '{{ message.total }} invoices due from',
  },
  {
    id: 'rest-account-wrong-type',
    category: 'parameter',
    // rest's schema does not list the account types it takes yet (which ones its run time maps is
    // to be settled), so the build cannot be sure.
    hard: true,
    find: '      account: accounting-api,\n',
    replace: '      account: finance-smtp,\n',
  },
  {
    id: 'sftp-account-wrong-type',
    category: 'parameter',
    find: 'sftp get file { account: invoice-sftp,',
    replace: 'sftp get file { account: finance-smtp,',
  },
];
