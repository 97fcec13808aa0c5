import type { Variant } from '../catalogue.js';

const CRON = 'cron: "30 6 * * 1-5"';

export const variants: Variant[] = [
  // cron and time zones
  { id: 'cron-weekday-range', category: 'cron', find: CRON, replace: 'cron: "30 6 * * 1-8"' },
  { id: 'cron-hour-minute-swapped', category: 'cron', find: CRON, replace: 'cron: "6 30 * * 1-5"' },
  { id: 'cron-month-zero', category: 'cron', find: CRON, replace: 'cron: "30 6 * 0 1-5"' },
  { id: 'cron-text', category: 'cron', find: CRON, replace: 'cron: "every day at 6:30"' },
  { id: 'cron-macro-typo', category: 'cron', find: CRON, replace: 'cron: "@dayly"' },
  {
    id: 'timezone-offset-name',
    category: 'never-match',
    find: 'timezone: "America/Sao_Paulo"',
    replace: 'timezone: "America/SaoPaulo"',
  },

  // parameters
  { id: 'missed-ticks-enum', category: 'parameter', find: 'missed-ticks: run-once', replace: 'missed-ticks: run-all' },
  { id: 'sql-param-typo', category: 'parameter', find: 'max-rows: 500,', replace: 'max-row: 500,' },
  {
    id: 'sql-params-type',
    category: 'parameter',
    find: 'params: [{{ message.scheduledAt - 86400000 }}],',
    replace: 'params: {{ message.scheduledAt - 86400000 }},',
  },
  {
    id: 'sql-account-missing',
    category: 'parameter',
    find: 'sql sales {\n    account: sales-db,\n',
    replace: 'sql sales {\n',
    line: 'sql sales {',
  },
  { id: 'redis-operation-unknown', category: 'parameter', find: 'redis set {', replace: 'redis put {' },
  {
    id: 'redis-param-of-other-operation',
    category: 'parameter',
    find: 'as: "json" }',
    replace: 'as: "json", expire: 1d }',
  },
  {
    id: 'csv-param-typo',
    category: 'parameter',
    find: 'to-file: "daily-sales.csv",',
    replace: 'file-name: "daily-sales.csv",',
  },
  { id: 'mcp-name-type', category: 'parameter', find: 'name: "region_total",', replace: 'name: region total,' },
  // The statement and its params disagree: the error points at the params, which is where the count is wrong.
  {
    id: 'sql-placeholder-count',
    category: 'parameter',
    find: 'WHERE sold_at >= $1 GROUP BY',
    replace: 'WHERE sold_at >= $1 AND region = $2 GROUP BY',
    line: 'params: [',
  },

  // durations
  { id: 'sql-timeout-unit', category: 'duration', find: 'timeout: 30s,', replace: 'timeout: 30 seconds,' },
  { id: 'redis-expire-unit', category: 'duration', find: 'expire: 2d,', replace: 'expire: 2dd,' },

  // closed shapes
  {
    id: 'sql-row-field',
    category: 'closed-shape',
    find: '{{ message.revenue }} },',
    replace: '{{ message.total }} },',
  },
  {
    id: 'sql-output-field',
    category: 'closed-shape',
    find: '{{ step.sales.rowCount }} regions',
    replace: '{{ step.sales.count }} regions',
  },
  {
    id: 'redis-get-output',
    category: 'closed-shape',
    find: 'found: {{ step.total.found }}',
    replace: 'found: {{ step.total.exists }}',
  },
  {
    id: 'mcp-input-field',
    category: 'closed-shape',
    find: 'key: "{{ global.report.cachePrefix }}:{{ message.region }}", as:',
    replace: 'key: "{{ global.report.cachePrefix }}:{{ message.regionCode }}", as:',
  },
  {
    id: 'scheduler-message-field',
    category: 'closed-shape',
    find: '{{ message.scheduledAt - 86400000 }}',
    replace: '{{ message.firedAt - 86400000 }}',
  },
  {
    id: 'global-field-typo',
    category: 'closed-shape',
    find: 'key: "{{ global.report.cachePrefix }}:{{ message.region }}",\n',
    replace: 'key: "{{ global.report.prefix }}:{{ message.region }}",\n',
  },

  // for-each
  {
    id: 'for-each-over-sql-output',
    category: 'for-each',
    find: 'for-each cached "$.rows[*]"',
    replace: 'for-each cached "$.data[*]"',
  },
  {
    id: 'for-each-element-field',
    category: 'for-each',
    find: 'orders: {{ message.orders }}',
    replace: 'orders: {{ message.order }}',
  },
  {
    id: 'for-each-output-field',
    category: 'for-each',
    find: '{{ step.cached.success }} cached',
    replace: '{{ step.cached.count }} cached',
  },

  // envelopes
  {
    id: 'mcp-input-under-body',
    category: 'envelope',
    find: 'key: "{{ global.report.cachePrefix }}:{{ message.region }}", as:',
    replace: 'key: "{{ global.report.cachePrefix }}:{{ message.body.region }}", as:',
  },
  {
    id: 'sql-rows-under-body',
    category: 'envelope',
    find: 'rows: {{ step.sales.rows }},',
    replace: 'rows: {{ step.sales.body.rows }},',
  },

  // undefined names
  {
    id: 'unknown-account',
    category: 'undefined-name',
    find: 'account: report-cache,\n',
    replace: 'account: reports-cache,\n',
  },
  {
    id: 'unknown-row-schema',
    category: 'undefined-name',
    find: 'row-schema: SalesRow,',
    replace: 'row-schema: SaleRow,',
  },
  {
    id: 'unknown-step',
    category: 'undefined-name',
    find: 'rows: {{ step.sales.rows }},',
    replace: 'rows: {{ step.sale.rows }},',
  },

  // duplicates
  {
    id: 'duplicate-account',
    category: 'duplicate',
    find: 'account report-cache: connection',
    replace: 'account sales-db: connection',
  },
  { id: 'duplicate-label', category: 'duplicate', find: 'csv generate report-file {', replace: 'csv generate sales {' },

  // Double Braces
  {
    id: 'date-minus-string',
    category: 'double-braces',
    find: '{{ message.scheduledAt - 86400000 }}',
    replace: '{{ message.scheduledAt - "1d" }}',
  },

  // pending: regexes in parameters
  {
    id: 'schema-pattern-unbalanced',
    category: 'regex-param',
    find: 'pattern: "^[A-Z]{2}$"',
    replace: 'pattern: "^[A-Z{2}$"',
  },

  // hunt (issue 20)
  {
    id: 'csv-generate-file-path',
    category: 'envelope',
    find: '{{ step.cached.success }} cached',
    replace: '{{ step.cached.success }} cached in {{ step.report-file.path }}',
  },
  {
    id: 'csv-generate-text-with-to-file',
    category: 'envelope',
    find: '{{ step.cached.success }} cached',
    replace: '{{ step.cached.success }} cached, {{ SIZE(step.report-file.text) }} characters',
  },
  {
    id: 'redis-get-exists',
    category: 'envelope',
    find: 'found: {{ step.total.found }}',
    replace: 'found: {{ step.total.exists }}',
  },
  {
    id: 'sql-row-total-typo',
    category: 'closed-shape',
    find: 'revenue: {{ message.revenue }} },',
    replace: 'revenue: {{ message.total }} },',
  },
  {
    id: 'for-each-braces-over-row-count',
    category: 'for-each',
    find: 'for-each cached "$.rows[*]"',
    replace: 'for-each cached "{{ step.sales.rowCount }}"',
  },
  {
    id: 'timezone-without-underscore',
    category: 'never-match',
    find: 'timezone: "America/Sao_Paulo"',
    replace: 'timezone: "America/Sao Paulo"',
  },
  {
    id: 'mcp-region-never-matches-pattern',
    category: 'never-match',
    find: 'json-generator { json: { key: "{{ message.key }}"',
    replace: 'json-generator { json: { eu: {{ message.region == "europe" }}, key: "{{ message.key }}"',
  },
  // hard: Double Braces values that can never do what they say
  {
    id: 'path-in-single-braces',
    category: 'double-braces',
    hard: true,
    find: 'key: "{{ global.report.cachePrefix }}:{{ message.region }}",\n      value',
    replace: 'key: "{{ global.report.cachePrefix }}:{message.region}",\n      value',
  },
  {
    id: 'csv-column-typo',
    category: 'closed-shape',
    find: 'columns: ["region", "orders", "revenue"],',
    replace: 'columns: ["region", "orders", "revenu"],',
  },
  {
    id: 'csv-column-of-other-shape',
    category: 'closed-shape',
    find: 'columns: ["region", "orders", "revenue"],',
    replace: 'columns: ["region", "orders", "total"],',
  },
];
