/**
 * Syntax diagnostics (PIPE1001–PIPE1999): lexing, parsing and the structural checks cst-to-ast.ts
 * makes while building the AST. Produced by grammar/lexer.ts, grammar/syntax-errors.ts,
 * compiler/ast/token-values.ts and compiler/ast/cst-to-ast.ts.
 */
import type { CodeTable } from '../codes.js';

export const syntaxCodes = {
  PIPE1001: {
    title: 'Unknown character',
    severity: 'error',
    phase: 'lex',
    explain:
      'The file contains a character that cannot start any token, such as `#`, `;` or a lone `/`. ' +
      'The lexer skips it and goes on, so later errors are still reported. For example `# note` ' +
      'is not a comment in .pipe: write `// note` or `/* note */`. Steps and entries need no `;`.',
  },
  PIPE1002: {
    title: 'Unterminated string',
    severity: 'error',
    phase: 'lex',
    explain:
      'A string opened with `"` or `\'` must be closed on the same line, and a `"""` string must be ' +
      'closed with `"""`. For example `path: "/orders` has no closing quote: write `path: "/orders"`. ' +
      'For text over several lines use a `"""` string.',
  },
  PIPE1003: {
    title: 'Unterminated block comment',
    severity: 'error',
    phase: 'lex',
    explain:
      'A block comment opened with `/*` runs to the end of the file because no `*/` closes it, ' +
      'so everything after it is ignored. For example `/* old step` must become `/* old step */`.',
  },
  PIPE1004: {
    title: 'Unterminated Double Braces',
    severity: 'error',
    phase: 'lex',
    explain:
      'A Double Braces expression opened with `{{` must be closed with `}}`. For example ' +
      '`total: {{ message.total }` is missing one `}`: write `total: {{ message.total }}`. Inside a ' +
      '"…" string, double quotes in the expression must be escaped as \\" (or use \'…\'), otherwise ' +
      'the string ends early. To write a literal `{{` in a string, escape it as `\\{{`.',
  },
  PIPE1005: {
    title: 'Invalid escape sequence',
    severity: 'error',
    phase: 'lex',
    explain:
      'Strings accept the JSON escapes `\\"`, `\\\'`, `\\\\`, `\\/`, `\\b`, `\\f`, `\\n`, `\\r`, `\\t`, ' +
      '`\\uXXXX`, and `\\{` for a literal brace. Any other backslash sequence is an error. For example ' +
      'a regex `"^\\d+$"` must be written `"^\\\\d+$"`. `"""` strings take no escapes except `\\{{`.',
  },
  PIPE1006: {
    title: 'Unknown unit on number',
    severity: 'error',
    phase: 'lex',
    explain:
      'A number directly followed by letters is a duration or a size. Durations take `ms`, `s`, `m`, ' +
      '`h` or `d` (`30s`, `250ms`, `7d`); sizes take `B`, `KB`, `MB` or `GB`, 1024-based (`10MB`). ' +
      'For example `timeout: 30sec` must be written `timeout: 30s`.',
  },
  PIPE1007: {
    title: 'Invalid number literal',
    severity: 'error',
    phase: 'lex',
    explain:
      'The number cannot be represented: it has leading zeros (`007`), an empty hex part (`0x`), a ' +
      'fractional size or duration that is not a whole number of bytes or milliseconds, or it is too ' +
      'large. For example write `7` instead of `007`, and `1500ms` instead of `1.5005s`.',
  },
  PIPE1008: {
    title: 'File is not text',
    severity: 'error',
    phase: 'lex',
    explain:
      'The file contains NUL bytes or bytes that are not valid UTF-8, so it is probably a binary file ' +
      'or saved in another encoding. Nothing else is reported for it. Save the file as UTF-8 text, or ' +
      'make sure only .pipe sources are passed to pipec.',
  },
  PIPE1009: {
    title: 'File too large',
    severity: 'error',
    phase: 'lex',
    explain:
      'Source files are limited to 5 MB so one runaway file cannot exhaust the compiler. A pipeline ' +
      'file this large is almost certainly generated data: move large schemas to JSON files and ' +
      '`import "./schemas/x.json" as X`, or split the pipelines over several files.',
  },
  PIPE1010: {
    title: 'Nesting too deep',
    severity: 'error',
    phase: 'parse',
    explain:
      'Objects, arrays, blocks and parentheses may nest at most 256 levels deep. Deeper nesting is ' +
      'almost always an unbalanced `{` or `[`; the file is not parsed further. For example a long run ' +
      'of `{{{{…` or generated JSON with hundreds of levels. Flatten the value or move it to a JSON file.',
  },
  PIPE1011: {
    title: 'Unclosed delimiter',
    severity: 'error',
    phase: 'parse',
    explain:
      'An object, array, block or parenthesis was opened but not closed before something that cannot ' +
      'be inside it. For example `pipeline a { trigger http { path: "/a" }` followed by `pipeline b {` ' +
      'is missing the `}` of pipeline `a`. Add the closing `}`, `]` or `)` where the construct ends.',
  },
  PIPE1012: {
    title: 'Unexpected closing delimiter',
    severity: 'error',
    phase: 'parse',
    explain:
      'A `}`, `]` or `)` appears where nothing is open, or it closes the wrong kind of bracket. For ' +
      'example an extra `}` after a pipeline, or `[1, 2}`. Remove it or fix the matching opener.',
  },
  PIPE1013: {
    title: 'Missing colon after key',
    severity: 'error',
    phase: 'parse',
    explain:
      'Object entries are written `key: value`. For example `{ method POST }` must be ' +
      '`{ method: POST }`. Only a block of steps follows a key without a colon: `on-fail { … }`.',
  },
  PIPE1014: {
    title: 'Missing value',
    severity: 'error',
    phase: 'parse',
    explain:
      'A key is not followed by a value. For example `{ path: , method: POST }` or `{ path }`. ' +
      'Write the value after the colon, or remove the entry.',
  },
  PIPE1015: {
    title: 'Unexpected token',
    severity: 'error',
    phase: 'parse',
    explain:
      'The parser found a token where the grammar expects something else, for example a number where ' +
      'a name is needed (`pipeline 42 { … }`) or a missing `=` in `global timeout 30s`. The message ' +
      'says what was expected; grammar/README.md has the full grammar.',
  },
  PIPE1016: {
    title: 'Pipeline without trigger',
    severity: 'error',
    phase: 'parse',
    explain:
      'Every pipeline starts with exactly one trigger that says how it is started, for example ' +
      '`trigger http { method: POST, path: "/orders" }` or `trigger event { name: "order-created" }`. ' +
      'Add a trigger as the first item of the pipeline.',
  },
  PIPE1017: {
    title: 'Duplicate trigger',
    severity: 'error',
    phase: 'parse',
    explain:
      'A pipeline has exactly one trigger. To start the same steps from two sources, write a second ' +
      'pipeline with the other trigger that calls the first one with `execute`, or publish an event.',
  },
  PIPE1018: {
    title: 'Trigger after steps',
    severity: 'error',
    phase: 'parse',
    explain:
      'The trigger must be the first item of a pipeline, before any step, `on-error` or `branch`. ' +
      'For example move `trigger http { … }` above `log { … }`.',
  },
  PIPE1019: {
    title: 'Step without parameter block',
    severity: 'error',
    phase: 'parse',
    explain:
      'A connector step always ends with a block of parameters in braces, even when it is empty, ' +
      'because newlines do not end steps. For example `log` must be written `log { }` and ' +
      '`trigger http` must be `trigger http { method: GET, path: "/x" }`.',
  },
  PIPE1020: {
    title: 'Expected a declaration',
    severity: 'error',
    phase: 'parse',
    explain:
      'At the top level a file holds only `import`, `schema`, `account`, `global`, `store`, ' +
      '`pipeline` and `capsule` declarations. Steps such as `log { … }` belong inside a pipeline. ' +
      'A stray `}` usually means a pipeline was closed too early.',
  },
  PIPE1021: {
    title: 'Invalid status code',
    severity: 'error',
    phase: 'parse',
    explain:
      'The status after `respond` or `fail` is an integer HTTP status between 100 and 599, for ' +
      'example `respond 200 { ok: true }` or `fail 422 "invalid input"`. Durations, sizes and ' +
      'fractions such as `200.5` are not statuses.',
  },
  PIPE1022: {
    title: 'Unknown value function',
    severity: 'error',
    phase: 'parse',
    explain:
      'The only function allowed directly in a value is `env("NAME")` (or `env("NAME", "default")`). ' +
      'Other functions belong in a Double Braces expression: write `{{ NOW() }}`, not `NOW()`.',
  },
  PIPE1023: {
    title: 'Invalid env arguments',
    severity: 'error',
    phase: 'parse',
    explain:
      '`env` takes the variable name as a string and an optional default string: ' +
      '`env("OPENAI_API_KEY")` or `env("REGION", "eu-west-1")`. Other arguments are rejected.',
  },
  PIPE1024: {
    title: 'Duplicate on-error block',
    severity: 'error',
    phase: 'parse',
    explain: 'A pipeline has at most one `on-error { … }` block: merge the steps of both blocks into one.',
  },
  PIPE1025: {
    title: 'Invalid declaration name',
    severity: 'error',
    phase: 'parse',
    explain:
      'Declaration names (pipelines, stores, accounts, globals, schemas, capsules, branches) are ' +
      'words with inner dashes: letters, digits and `_`, optionally joined by `-`, like ' +
      '`order-created`. A `$` is allowed only in object keys such as the query operator `$lte`.',
  },
  PIPE1026: {
    title: 'Duplicate object key',
    severity: 'error',
    phase: 'parse',
    explain:
      'The same key appears twice in one object, so one value would silently win. For example ' +
      '`{ path: "/a", path: "/b" }`. Remove one of them.',
  },
  PIPE1027: {
    title: 'Try without catch',
    severity: 'error',
    phase: 'parse',
    explain:
      'A `try { … }` block must be followed by `catch { … }`, which runs with the error object as ' +
      'the message when a step of the try block fails. Write `catch { }` to ignore the error.',
  },
  PIPE1028: {
    title: 'Stray brace next to {{ }}',
    severity: 'error',
    phase: 'parse',
    explain:
      'A string template has a `}` after the `}}` that closes an expression (`model: "{{ message.model }}}"`, also with spaces between), or a `{` before the `{{` that opens one (`"{ {{ message.id }}"`), and no brace of the text around the expressions matches it. The brace is not part of the expression: it is copied into the text, so every value gets a stray brace. Braces the text itself balances are not reported: JSON written by hand, `"{\\"total\\": {{ message.total }}}"`, is fine. (`"{{{ x }}"` opens the expression at its first brace and leaves it unclosed: PIPE1004.) Fix: delete the extra brace.',
  },
  PIPE1029: {
    title: 'Path in braces that are text',
    severity: 'error',
    phase: 'parse',
    explain:
      'The text of a string holds a path of a Double Braces scope between single braces: `"order {message.body.id}"`, or `"${message.body.id}"` as in JavaScript, or before a `}}` whose `{{` is missing: `"order message.body.id }}"`. That is plain text: the string holds the characters as written, never the value. Only `{{ … }}` is an expression. Paths of `message`, `step`, `global`, `account` and `metadata` followed by a field are reported; other words between braces (`{id}` in a URL template) are not. Fix: write `"order {{ message.body.id }}"`.',
  },
} as const satisfies CodeTable;
