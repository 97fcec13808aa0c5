import type { CodeTable } from '../codes.js';

export const patternCodes: CodeTable = {
  PIPE5501: {
    title: 'Invalid JSONPath',
    severity: 'error',
    phase: 'check',
    explain: 'A JSONPath condition or expression cannot be parsed. Paths start with `$`; filters are written `[?(@.field == \'value\')]` with strings in single quotes.\n\nExample: `when "$.body[?(@.total < 500)" { … }` is missing a `]`.',
  },
  PIPE5502: {
    title: 'No such field in message',
    severity: 'error',
    phase: 'check',
    explain: 'The path names a field that the message cannot have at this step: its shape is known and closed (from a trigger body schema, a validate step, a JSON Generator literal or a connector output).\n\nExample: `when "$.body[?(@.totl < 500)]"` after a validate whose schema has `total`. Fix the field name.',
  },
  PIPE5503: {
    title: 'Invalid cron expression',
    severity: 'error',
    phase: 'check',
    explain: 'A scheduler trigger takes a cron expression with 5 fields (minute hour day-of-month month day-of-week) or 6 (with seconds first), and an IANA time zone.\n\nExample: `cron: "*/5 * * *"` has only four fields.',
  },
};
