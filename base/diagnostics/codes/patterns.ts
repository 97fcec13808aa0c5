import type { CodeTable } from '../codes.js';

export const patternCodes = {
  PIPE5501: {
    title: 'Invalid JSONPath',
    severity: 'error',
    phase: 'check',
    explain:
      'A JSONPath condition or `for-each` path cannot be parsed. Every JSONPath literal is parsed at build time by the ' +
      'parser the run time uses (runtime/jsonpath.ts), filters included. Paths start with `$`; filters are written ' +
      "`[?(@.field == 'value')]` with strings in single quotes, and compare with `==` (a single `=` would assign; " +
      "the error points at it), `=~ /pattern/flags`, or Jayway's word operators `in`, `nin`, `subsetof`, `anyof`, " +
      "`noneof` (an array on the right: `@.status in ['NEW','PAID']`), `size` (a number: `@.items size 2`) and " +
      '`empty` (`true` or `false`: `@.tags empty false`); a literal of another kind on the right of one of them, or ' +
      'one with no value on a side, is refused. A `JSONPATH()` literal in Double Braces is checked the same way (PIPE4017).\n\n' +
      'Example: `when "$.body[?(@.total < 500)" { … }` is missing a `]`; `when "$.body[?(@.status = \'paid\')]"` ' +
      'needs `==`.',
  },
  PIPE5502: {
    title: 'No such field in message',
    severity: 'error',
    phase: 'check',
    explain:
      'The path names a field that the message cannot have at this step: its shape is known and closed (from a ' +
      'trigger body schema, a validate step, a JSON Generator literal or a connector output). Every field of the ' +
      'path is checked, and every `@.a.b` chain inside its filters, in each `&&` / `||` part, against the element ' +
      'the filter tests (`@root.a.b` against the root); a `JSONPATH(value, "…")` literal is checked against the type ' +
      'of `value`. A string, number or boolean has no members and an array only its elements and `length`, so ' +
      '`for-each "$.body.trackingId[*]"` over a string and `$.body.items.sku` (a field of an array: `[*].sku`) ' +
      "select nothing too; inside a filter a string's `length` and characters (`@.code[0]`) are read. " +
      'Open shapes (but a near miss of a declared field, PIPE4030), deep scans (`..`), scripts and `@parent` are not checked. A `for-each` gives its body the shape of the elements its ' +
      'path selects, so `message.x` inside the loop is checked too (PIPE4006).\n\n' +
      'Example: `when "$.body[?(@.totl < 500)]"` after a validate whose schema has `total`; ' +
      '`when "$.body[?(@.customer.tierr == \'vip\')]"`. Fix the field name.',
  },
  PIPE5503: {
    title: 'Invalid cron expression',
    severity: 'error',
    phase: 'check',
    explain:
      'A scheduler trigger takes a cron expression with 5 fields (minute hour day-of-month month day-of-week) or 6 (with seconds first), or a nickname (`@daily`, `@hourly`…), and an IANA time zone. Quartz forms are read too: a step from a number (`0/5`: from 0, every 5) and an open seventh field, the year (`*`), in an expression with `?`.\n\nExample: `cron: "*/5 * * *"` has only four fields.',
  },
  PIPE5507: {
    title: 'Weekdays by number in Quartz cron',
    severity: 'warning',
    phase: 'check',
    explain:
      "Digibee's scheduler reads Quartz cron, which counts the days of the week from SUN=1 to SAT=7; pipec's scheduler " +
      '(croner, as Unix cron) counts SUN=0 to SAT=6 (7 is Sunday too). An expression in Quartz form (`?` for the day ' +
      'of month or the day of week) that names days by number therefore runs a day later than it did in Quartz: ' +
      '`0 0 12 ? * 2-6` runs Tuesday to Saturday. A warning, since the number may be meant as pipec counts.\n\n' +
      'Example: `cron: "0 0 12 ? * 2-6"`. Fix: name the days, `cron: "0 0 12 ? * MON-FRI"`.',
  },
  PIPE5504: {
    title: 'Regular expression needs backtracking',
    severity: 'error',
    phase: 'check',
    explain:
      'Every regular expression a request can reach runs on RE2, a linear-time engine, so no input can make a match take ' +
      'longer than a pass over it (a backtracking engine can take minutes on a 30-byte input with a pattern such as ' +
      '`^([a-z0-9]+)*$`). RE2 has no backtracking, so it cannot run backreferences (`\\1`, `\\k<name>`), lookahead ' +
      'and lookbehind (`(?=…)`, `(?!…)`, `(?<=…)`, `(?<!…)`), atomic groups (`(?>…)`) or possessive quantifiers ' +
      '(`a*+`). This applies to JSON Schema `pattern` and `patternProperties`, Double Braces (MATCHES, REPLACE, SPLIT, ' +
      'STRINGMATCHES), JSLT (`test`, `capture`, `split`, `replace`), JOLT (`=split`) and connector parameters that ' +
      "are regular expressions (their schema says `format: regex`: an agent's `guardrails.regex[].pattern`), and a " +
      '`$regex` written in an Object Store query or `$match` stage.\n\n' +
      'Example: `pattern: "^(?!admin).*$"` in a schema. Fix: rewrite the pattern without those features, for example ' +
      'check the excluded case with a second rule (`not: { pattern: "^admin" }`), or match more and check the rest in ' +
      'a later step.',
  },
  PIPE5505: {
    title: 'Invalid regular expression',
    severity: 'error',
    phase: 'check',
    explain:
      'A regular expression written in a JSON Schema (`pattern`, the keys of `patternProperties`), as the separator ' +
      "of a JOLT `=split`, or as a connector parameter whose schema says `format: regex` (an agent's guardrail " +
      '`pattern`), or as the `$regex` of an Object Store query does not compile. JSON Schema patterns, regex ' +
      'parameters and `$regex` are ECMAScript regular expressions ' +
      '(`u` mode); JOLT separators are Java ones. All run on RE2, and are compiled at build time by the same code.\n\n' +
      'Example: `pattern: "^[0-9"` misses the closing `]`; `pattern: "\\\\Aabc"` uses Java\'s `\\A`, which ECMAScript ' +
      'writes `^`.',
  },
  PIPE5506: {
    title: '`for-each` over a single value',
    severity: 'error',
    phase: 'check',
    explain:
      'A `for-each` whose `{{ }}` collection is known to give a number, a string or a boolean. The run time makes a ' +
      'list of what the expression gives (runtime/steps.ts `asArray`: an array as it is, null as no element, any ' +
      'other value as a list of itself), so the body runs once, with that value as its message, and every ' +
      '`message.x` in it reads nothing. Only a type known for certain is reported: an array, an object, null or ' +
      'a value of unknown type stays quiet. The same holds for a JSONPath without a wildcard, filter, slice, union ' +
      'or deep scan that selects a list (`"$.rows"`): it selects one node, the list, so the body runs once with the ' +
      'whole list; `"$.rows[*]"` iterates over its elements.\n\n' +
      'Example: `for-each "{{ step.parsed.rowCount }}" { … }` after `csv parse parsed` iterates over the count; ' +
      'the rows are `{{ step.parsed.rows }}`.',
  },
} as const satisfies CodeTable;
