import type { CodeTable } from '../codes.js';

export const transformCodes = {
  // ───── JOLT (PIPE5001–PIPE5299), owned by compiler/jolt ─────
  PIPE5001: {
    title: 'JOLT chain is not a list',
    severity: 'error',
    phase: 'check',
    explain:
      'A JOLT spec is a chain: a list of operations run in order. For example ' +
      '`{ "operation": "shift", "spec": { "a": "b" } }` on its own is rejected; wrap it in a list: ' +
      '`[ { "operation": "shift", "spec": { "a": "b" } } ]`.',
  },
  PIPE5002: {
    title: 'Empty JOLT chain',
    severity: 'error',
    phase: 'check',
    explain:
      'The JOLT chain `[]` has no operations, so it would do nothing. Add at least one operation, ' +
      'for example `[ { "operation": "shift", "spec": { "*": "&" } } ]`, or remove the step.',
  },
  PIPE5003: {
    title: 'Malformed JOLT chain entry',
    severity: 'error',
    phase: 'check',
    explain:
      'Each entry of a JOLT chain must be an object with an `operation` name (a string) and, except ' +
      'for `sort`, a `spec`. For example `{ "operation": ["shift"] }` is rejected because the name ' +
      'is a list: write `{ "operation": "shift", "spec": { … } }`.',
  },
  PIPE5004: {
    title: 'Unknown JOLT operation',
    severity: 'error',
    phase: 'check',
    explain:
      'The `operation` of a chain entry is not a JOLT operation. The operations are `shift`, ' +
      '`default`, `remove`, `sort`, `cardinality`, `modify-overwrite-beta`, `modify-default-beta` ' +
      'and `modify-define-beta`. For example `"operation": "shiftr"` is rejected: write `"shift"`.',
  },
  PIPE5005: {
    title: 'Missing JOLT spec',
    severity: 'error',
    phase: 'check',
    explain:
      'Every JOLT operation except `sort` needs a `spec` telling it what to do. For example ' +
      '`{ "operation": "default" }` is rejected: add `"spec": { "status": "NEW" }`.',
  },
  PIPE5006: {
    title: 'JOLT spec is not an object',
    severity: 'error',
    phase: 'check',
    explain:
      'The `spec` of a JOLT operation must be an object whose keys mirror the input. For example ' +
      '`"spec": ["a", "b"]` for a `shift` is rejected: write `"spec": { "a": "b" }` to move the ' +
      'value of `a` to `b`.',
  },
  PIPE5007: {
    title: 'Malformed JOLT key',
    severity: 'error',
    phase: 'check',
    explain:
      'A key of a JOLT spec does not follow the key syntax of its operation. For example in a ' +
      '`shift`, `a@b` is rejected because `@` is only allowed at the front of a key, and `a[0]` ' +
      'because `[…]` must be the whole key; `@` and `$` keys cannot have children; modify keys can only ' +
      'be names, `*` patterns or `[index]`. Escape a special character with a backslash to mean it ' +
      'literally: `"a\\\\@b"` matches the input key `a@b`.',
  },
  PIPE5008: {
    title: 'Bad JOLT reference',
    severity: 'error',
    phase: 'check',
    explain:
      'A reference such as `&`, `&2`, `&(1,2)`, `$1`, `#2` or `@(1,name)` cannot be parsed or points ' +
      'outside the spec: `&(n,m)` looks `n` levels up and takes the `m`-th `*` match of that key. For ' +
      'example under `"rating-*": { "value": "&(1,2)" }` the key `rating-*` has only one `*`, so ' +
      'group 2 does not exist: write `&(1,1)`. `&x` is rejected because the level must be a number.',
  },
  PIPE5009: {
    title: 'Malformed JOLT output path',
    severity: 'error',
    phase: 'check',
    explain:
      'A right-hand side path of a `shift` (where a value is written) cannot contain `*` or `$` and ' +
      'can contain `@` only as `@(…)` lookups. For example `"a": "out.*"` is rejected: write ' +
      '`"a": "out.&"` to reuse the matched key. Escape with a backslash to mean the character literally.',
  },
  PIPE5010: {
    title: 'Invalid shift right-hand side',
    severity: 'error',
    phase: 'check',
    explain:
      'In a `shift` spec the value of a key must be an output path (a string), a list of output ' +
      'paths, `null` (match but drop) or an object (descend). For example `"a": 5` is rejected: ' +
      'write `"a": "b"` to move the value of `a` to `b`.',
  },
  PIPE5011: {
    title: 'Duplicate JOLT key',
    severity: 'error',
    phase: 'check',
    explain:
      'Two keys of the same spec object mean the same thing once sugar is expanded, so one of them ' +
      'could never apply. For example `"&1"` and `"&(1,0)"`, or `"a|b"` next to `"a"`. Keep one.',
  },
  PIPE5012: {
    title: 'Empty JOLT spec object',
    severity: 'error',
    phase: 'check',
    explain:
      'A key of a `shift` or `cardinality` spec has `{}` as its value, which matches the input but ' +
      'does nothing. For example `"a": {}` is rejected: write `"a": null` to match and drop, or give ' +
      'it children.',
  },
  PIPE5013: {
    title: 'Invalid default wildcard key',
    severity: 'error',
    phase: 'check',
    explain:
      'In a `default` spec a key with `*` must be exactly `*` (apply to every existing key); partial ' +
      'wildcards are not supported. For example `"tuna*": "marlin"` is rejected: use `"*"`, or list ' +
      'the keys with `|` as in `"tuna|tunafish": "marlin"`.',
  },
  PIPE5014: {
    title: 'Invalid remove value',
    severity: 'error',
    phase: 'check',
    explain:
      'In a `remove` spec a key is either removed (its value is `""`) or descended into (its value ' +
      'is an object). For example `"a": "yes"` is rejected: write `"a": ""`.',
  },
  PIPE5015: {
    title: 'Invalid cardinality value',
    severity: 'error',
    phase: 'check',
    explain:
      'In a `cardinality` spec a leaf must be `"ONE"` (turn a list into its first element) or ' +
      '`"MANY"` (wrap a single value in a list). For example `"tags": "LIST"` is rejected: write ' +
      '`"tags": "MANY"`. The words are upper case.',
  },
  PIPE5016: {
    title: 'Unknown modify function',
    severity: 'error',
    phase: 'check',
    explain:
      'A modify spec calls `=name(...)` with a name that is not in the JOLT function library. For ' +
      'example `"=uppercase"` is rejected: the function is `=toUpper`. The library has toLower, ' +
      'toUpper, concat, join, split, substring, trim, leftPad, rightPad, min, max, abs, avg, ' +
      'intSum, longSum, doubleSum, intSubtract, longSubtract, doubleSubtract, divide, ' +
      'divideAndRound, multiply, toInteger, toLong, toDouble, toBoolean, toString, size, ' +
      'squashNulls, recursivelySquashNulls, squashDuplicates, noop, isPresent, notNull, isNull, ' +
      'isString, isNumber, isBoolean, isList, isMap, firstElement, lastElement, elementAt, toList ' +
      'and sort.',
  },
  PIPE5017: {
    title: 'Mixed list index and map key',
    severity: 'error',
    phase: 'check',
    explain:
      'One object of a modify spec has both list indexes like `[1]` and map keys like `a` or `a*`, ' +
      'so the input there cannot be both a list and a map. For example `{ "[1]": "x", "a*": "y" }` is ' +
      'rejected. A plain `*` may sit next to either kind. Split the spec into two objects.',
  },
  PIPE5018: {
    title: 'Malformed modify function call',
    severity: 'error',
    phase: 'check',
    explain:
      'A modify value starting with `=` must be a function name, optionally followed by arguments in ' +
      "parentheses: `=toUpper`, `=concat(@(1,first),' ',@(1,last))`. For example `=concat(a,b` " +
      'misses the closing parenthesis. Quote literal text containing commas with single quotes.',
  },
  PIPE5019: {
    title: 'JOLT spec nested too deeply',
    severity: 'error',
    phase: 'check',
    explain:
      'The JOLT spec nests objects more than 200 levels deep. Specs mirror the input, and no real ' +
      'input needs that depth; the limit protects the compiler from hostile input. Flatten the spec ' +
      'with `*` and references.',
  },
  PIPE5020: {
    title: 'Non-index key under list default',
    severity: 'error',
    phase: 'check',
    explain:
      'In a `default` spec a key ending in `[]` says the value is a list, so its children must be ' +
      'list indexes (or `*`). For example `"photos[]": { "url": "x" }` is rejected: write ' +
      '`"photos[]": { "*": { "url": "x" } }` to default every photo, or `"0": { … }` for the first.',
  },
  PIPE5021: {
    title: 'Shift key never matches the input',
    severity: 'warning',
    phase: 'check',
    explain:
      'A literal key of a `shift` spec names a field that the input cannot have there: the message ' +
      'shape at that point is a closed object (a schema with `additionalProperties: false`, or the ' +
      'output of an earlier step whose shape is known) without that field, so the key never matches ' +
      'and its output paths are never written. For example, after `validate { schema: Order }` where ' +
      'Order is closed with the fields `id` and `items`, `{ "operation": "shift", "spec": { "orderId": ' +
      '"id" } }` moves nothing. Keys over open or unknown shapes are never reported. Fix the key (the ' +
      'hint names the closest field), the nesting of the spec, or the schema.',
  },
  // ───── JSLT (PIPE5300–PIPE5499), owned by compiler/jslt ─────
  PIPE5300: {
    title: 'JSLT syntax error',
    severity: 'error',
    phase: 'parse',
    explain:
      'The JSLT query of a `jslt` step does not follow the JSLT grammar. The message says what the ' +
      'parser expected and what it found. For example `.[1 2]` is missing the `:` of a slice: write ' +
      '`.[1 : 2]`. Note that JSLT has no unary minus on expressions and that `a-1` is read as one name: ' +
      'write `$a - 1` with spaces.',
  },
  PIPE5301: {
    title: 'Invalid JSLT string escape',
    severity: 'error',
    phase: 'parse',
    explain:
      'A string literal in a JSLT query uses an escape JSON does not know, or an unfinished `\\u` escape. ' +
      'For example the regular expression `"\\d+"` must be written `"\\\\d+"` inside a JSLT string, so that ' +
      'the string holds a backslash followed by `d`. Valid escapes are `\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX`.',
  },
  PIPE5302: {
    title: 'Unknown JSLT function',
    severity: 'error',
    phase: 'check',
    explain:
      'A JSLT query calls a function that is neither built in nor declared with `def`. For example ' +
      '`lower(.name)` fails because the built-in is `lowercase(.name)`. Declare your own functions ' +
      'with `def name(param) body` before the main expression.',
  },
  PIPE5303: {
    title: 'Wrong JSLT argument count',
    severity: 'error',
    phase: 'check',
    explain:
      'A JSLT function is called with fewer or more arguments than it takes. For example ' +
      '`split(.text)` fails because `split` needs the text and a regular expression: write ' +
      '`split(.text, ",")`. Functions declared with `def` take exactly their declared parameters.',
  },
  PIPE5304: {
    title: 'Duplicate JSLT variable',
    severity: 'error',
    phase: 'check',
    explain:
      'Two `let` declarations (or two parameters) in the same JSLT scope have the same name. For ' +
      'example `let x = 1 let x = 2 $x` is rejected. Rename one of them; a `let` inside an object, ' +
      '`for` or `if` may shadow an outer variable of the same name.',
  },
  PIPE5305: {
    title: 'Duplicate JSLT object key',
    severity: 'error',
    phase: 'check',
    explain:
      'An object constructor in a JSLT query lists the same literal key twice, as in ' +
      '`{"id": .a, "id": .b}`. Keep one of them, or use `fallback(.a, .b)` to choose between values.',
  },
  PIPE5306: {
    title: 'Misplaced JSLT object matcher',
    severity: 'error',
    phase: 'check',
    explain:
      'The object matcher `* : .` copies the keys of the input object found at the same path, so it ' +
      'is only allowed where that path is known: not inside an array, a function declared with ' +
      '`def`, or the value of a key computed at run time. For example `[{* : .}]` is rejected; ' +
      'write `[for (.items) {* : .}]` or move the object out of the array.',
  },
  PIPE5307: {
    title: 'JSLT import not supported',
    severity: 'error',
    phase: 'check',
    explain:
      'A `jslt` step query uses `import "file.jslt" as m`. Steps compile to standalone services, so ' +
      'a query must be self-contained: copy the needed `def` functions into the query. Only the ' +
      'built-in module `"http://jslt.schibsted.com/2018/experimental"` (group-by) can be imported.',
  },
  PIPE5308: {
    title: 'Unknown JSLT module',
    severity: 'error',
    phase: 'check',
    explain:
      'A call `prefix:name(...)` uses a prefix that no `import` declares, or the imported module ' +
      'could not be read or compiled, or the same module is imported twice. For example ' +
      '`m:f(1)` needs `import "m.jslt" as m` at the top of the query.',
  },
  PIPE5309: {
    title: 'JSLT object matcher with dynamic keys',
    severity: 'error',
    phase: 'check',
    explain:
      'An object that uses the matcher `* : ...` may only have literal string keys, because the ' +
      'matcher must know which keys the object already defines. For example `{.name : 1, * : .}` ' +
      'is rejected; build the dynamic part separately and join with `+`.',
  },
  PIPE5310: {
    title: 'Invalid JSLT regular expression',
    severity: 'error',
    phase: 'check',
    explain:
      'A literal regular expression given to `test`, `capture`, `split` or `replace` does not ' +
      'compile. For example `test(.id, "[0-9")` misses the closing `]`. The syntax is Java\'s; a ' +
      'backslash must be doubled inside a JSLT string (`"\\\\d+"`).',
  },
  PIPE5311: {
    title: 'JSLT query nested too deeply',
    severity: 'error',
    phase: 'parse',
    explain:
      'The JSLT query nests parentheses, arrays, objects, calls or `if`s more than 150 levels deep, ' +
      'or chains more than 500 operands with one operator. The limit protects the compiler from ' +
      'hostile input. Split the query with `let` variables or `def` functions.',
  },
  PIPE5312: {
    title: 'JSLT read of an absent field',
    severity: 'warning',
    phase: 'check',
    explain:
      'A key read of a JSLT query (`.name`, `$order.name`) names a field that the value there cannot ' +
      'have: its shape is a closed object (a schema with `additionalProperties: false`, or the output ' +
      'of an earlier step whose shape is known) without that field, so the read always gives null. ' +
      'For example, with a message `{ products: [...] }` from a closed schema, `size(.product)` is ' +
      'always null. Reads of open or unknown shapes are never reported. Fix the name (the hint names ' +
      'the closest field), or the schema.',
  },
} as const satisfies CodeTable;
