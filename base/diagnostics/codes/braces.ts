/**
 * Diagnostic codes of Double Braces expressions: PIPE40xx types, names and constant arguments
 * (phase `check`), PIPE41xx expression syntax (phase `parse`; kept in this range because the
 * braces parser owns them — the host-file syntax codes are PIPE1xxx).
 */
import type { CodeTable } from '../codes.js';

export const bracesCodes = {
  PIPE4001: {
    title: 'Type mismatch in {{ }} expression',
    severity: 'error',
    phase: 'check',
    explain:
      'The value of a `{{ }}` expression cannot have the type its place requires. For example `readTimeout: {{ CONCAT(global.read-timeout, "000") }}` gives a string where the connector field expects an integer. The message says why the type is expected and what each referenced path is. Fix: convert explicitly (`TOLONG(...)`, `TODOUBLE(...)`, `TOSTRING(...)`, `TOBOOLEAN(...)`) or reference a field of the right type.',
  },
  PIPE4002: {
    title: 'Unknown function',
    severity: 'error',
    phase: 'check',
    explain:
      'The expression calls a function that Double Braces does not have. For example `{{ CONCATT(message.a, "b") }}`. Function names are case-insensitive; the hint names the closest known function. Fix: correct the name (`CONCAT`), or see docs/double-braces.md for the full list.',
  },
  PIPE4003: {
    title: 'Wrong number of arguments',
    severity: 'error',
    phase: 'check',
    explain:
      'A function is called with too few or too many arguments. For example `{{ SUBSTRING(message.name) }}` lacks the start index. The message shows the signature. Fix: pass the arguments the signature lists (optional ones may be left out or given as null).',
  },
  PIPE4004: {
    title: 'Argument of the wrong type',
    severity: 'error',
    phase: 'check',
    explain:
      'An argument can never be used by the function: an object where a number is needed, an array where text is needed, or text that is not a number, as in `{{ SUM(message.items, 1) }}` when `items` is an array. Values whose type is not known at build time are always accepted. Fix: pass a value of the listed type, or convert it first.',
  },
  PIPE4005: {
    title: 'Operand of the wrong type',
    severity: 'error',
    phase: 'check',
    explain:
      'An operator is applied to values it cannot combine: `+` on a number and a string, `-` on text, `&&` on a number, or `<` between a number and a string. For example `{{ message.count + " items" }}`. Fix: use CONCAT or a text template to join text, convert with TODOUBLE / TOLONG, or compare values of the same type.',
  },
  PIPE4006: {
    title: 'Unknown field in message shape',
    severity: 'error',
    phase: 'check',
    explain:
      'The path reads a field that the known, closed shape of the value does not have. For example, after an agent step with an output schema (`additionalProperties: false`) that has `total`, `{{ message.body.totl }}` names no field. Open or unknown shapes never report this. Fix: use the suggested field name, or widen the schema.',
  },
  PIPE4007: {
    title: 'Field access on a non-object',
    severity: 'error',
    phase: 'check',
    explain:
      'The path steps into a value that is known to be a number, string, boolean or array, which has no fields. For example `{{ message.body.total.amount }}` when `total` is a number. At run time such a path would always read null. Fix: stop the path at the value, or index arrays with `[0]`.',
  },
  PIPE4008: {
    title: 'Unknown name in expression',
    severity: 'error',
    phase: 'check',
    explain:
      'A bare word is not a scope, a literal or a function call. Paths start with `message`, `global`, `account`, `metadata`, `step`, `item` or `capsule`; for example `{{ mesage.id }}` or `{{ body.id }}`. Fix: start the path with its scope (`message.body.id`); to read a field whose name has a dash write `message["x-id"]`.',
  },
  PIPE4009: {
    title: 'Unknown global variable',
    severity: 'error',
    phase: 'check',
    explain:
      'The expression reads `global.<name>` but no global of that name is declared. For example `{{ global.read-timout }}`. Fix: declare it with `global read-timeout = 30000`, or correct the name.',
  },
  PIPE4010: {
    title: 'Unknown account',
    severity: 'error',
    phase: 'check',
    explain:
      'The expression reads `account.<name>.<field>` but no account of that name is declared, or the account has no such field. For example `{{ account.crm.tokn }}`. Fix: declare the account (`account crm: oauth-bearer { … }`) or correct the account or field name.',
  },
  PIPE4011: {
    title: 'Unknown step label',
    severity: 'error',
    phase: 'check',
    explain:
      'The expression reads `step.<label>` but no earlier step carries that label. For example `{{ step.lookup.body }}` before any step labelled `lookup`. Fix: label the step whose output you need, or correct the label; only steps that ran before this one can be read.',
  },
  PIPE4012: {
    title: 'Unknown capsule parameter',
    severity: 'error',
    phase: 'check',
    explain:
      'Inside a capsule the expression reads `capsule.<name>`, but the capsule declares no such parameter; outside a capsule `capsule.` is not available at all. For example `{{ capsule.regon }}` in `capsule enrich(region: string)`. Fix: use a declared parameter name.',
  },
  PIPE4013: {
    title: 'Item scope outside a transformer',
    severity: 'error',
    phase: 'check',
    explain:
      '`item` is the element being processed by a JSON Transformer or a for-each; elsewhere it does not exist. For example `{{ item.id }}` in a `log` step at pipeline level. Fix: use `message.…` here, or move the expression into the transformer.',
  },
  PIPE4014: {
    title: 'Invalid regular expression',
    severity: 'error',
    phase: 'check',
    explain:
      'A literal regex argument does not compile: for example `{{ MATCHES(message.id, "[0-9") }}` misses the closing `]`. The syntax is Java\'s `Pattern`; Java-only forms RE2 lacks are translated (`\\p{Alpha}`, `\\h`, `(?x)` comments). Features that need backtracking (backreferences, lookaround) are PIPE5504.',
  },
  PIPE4015: {
    title: 'Invalid date pattern',
    severity: 'error',
    phase: 'check',
    explain:
      'A literal date pattern contains an unknown letter or an unterminated quote. Patterns use Java letters (yyyy MM dd HH mm ss SSS a z Z XXX E) and quote literal text: `"yyyy-MM-dd\'T\'HH:mm:ss"`. For example `FORMATDATE(x, "timestamp", "yyyy-mm-dd T")` has an unquoted `T`. Fix: quote literal letters, or write "timestamp" for epoch milliseconds.',
  },
  PIPE4016: {
    title: 'Invalid number pattern',
    severity: 'error',
    phase: 'check',
    explain:
      'A literal DecimalFormat pattern of FORMATNUMBER or TONUMBER cannot be used: no digit placeholders, two decimal points, an unterminated quote, or scientific notation. For example `FORMATNUMBER(x, "abc")`. Fix: write a pattern such as `"#,##0.00"`, quoting literal text: `"\'R$ \'#,##0.00"`.',
  },
  PIPE4017: {
    title: 'Invalid constant argument',
    severity: 'error',
    phase: 'check',
    explain:
      'A literal argument that must be one of a fixed set is not: a time unit (`"SECOND"`, `"DAY"`…), a locale (`"pt-BR"`), an escape type (JSON, XML, CSV, HTML), a charset, a regex flag or a JSONPath. For example `SUMDATE(NOW(), "SECONDZ", 1)`. Fix: use one of the listed values. (An unknown time zone has a code of its own, PIPE5550.)',
  },
  PIPE4018: {
    title: 'Division by zero',
    severity: 'error',
    phase: 'check',
    explain:
      'The expression divides by a literal zero (`/ 0`, `% 0`, `DIVIDE(x, 0)`, `MOD(x, 0)`), which always fails at run time. Fix: divide by the intended value, or guard it with IF.',
  },
  PIPE4019: {
    title: 'Lambda outside an array function',
    severity: 'error',
    phase: 'check',
    explain:
      'A lambda (`x => …`) appears where no function takes one. Lambdas are only arguments of the array functions MAP, FILTER, REDUCE, SOME, EVERY, FIND, SORTBY and GROUPBY, in the position their signature shows. For example `{{ x => x.price }}` or `{{ SUM(x => x.price) }}`. Fix: pass the lambda to an array function, e.g. `{{ SUM(MAP(message.lines, x => x.price)) }}`.',
  },
  PIPE4020: {
    title: 'Lambda argument expected',
    severity: 'error',
    phase: 'check',
    explain:
      'An array function needs a lambda in this position but got another value. For example `{{ MAP(message.lines, "price") }}`. Fix: write a lambda whose body computes the value for each element: `{{ MAP(message.lines, x => x.price) }}`.',
  },
  PIPE4021: {
    title: 'Wrong number of lambda parameters',
    severity: 'error',
    phase: 'check',
    explain:
      'A lambda has a different number of parameters than the function passes to it: MAP, FILTER, SOME, EVERY, FIND, SORTBY and GROUPBY pass one element (`x => …`); REDUCE passes the accumulator and the element (`(acc, x) => …`). For example `{{ REDUCE(message.lines, x => x.qty, 0) }}`. Fix: declare the parameters the signature shows: `{{ REDUCE(message.lines, (acc, x) => acc + x.qty, 0) }}`.',
  },
  PIPE4022: {
    title: 'Invalid lambda parameter name',
    severity: 'error',
    phase: 'check',
    explain:
      'A lambda parameter would hide a name that already means something: a scope (`message`, `global`, `account`, `metadata`, `step`, `item`, `capsule`), a literal (`true`, `false`, `null`), another parameter of the same lambda, or a parameter of an enclosing lambda. For example `{{ MAP(message.lines, message => message.qty) }}`. Fix: choose another name, e.g. `line => line.qty`.',
  },
  PIPE4023: {
    title: 'Condition that is never true',
    severity: 'error',
    phase: 'check',
    explain:
      'A `when {{ … }}` condition is a value that, whenever it is present, is not a boolean: a string, a number, an object or an array. Only `true` is true in Double Braces (there is no "truthy" text or object), so the branch is never taken — whether the value is there or missing. For example `when {{ message.customer }}` where `customer` is an object, or `when {{ message.email }}` where it is a string. Fix: write the test meant, e.g. `!ISNULL(message.customer)`, `message.email != ""`, `TOBOOLEAN(message.flag)` for text such as "true", or `SIZE(message.items) > 0`.',
  },
  PIPE4024: {
    title: 'Object or array never equals scalar',
    severity: 'error',
    phase: 'check',
    explain:
      'A value that, whenever it is present, is an object or an array is compared with `==`, `!=` or `EQUALTO` to a number, string or boolean. Double Braces compare strictly (deep equality, no conversion), so such a comparison is always false (`!=` always true), whether the value is there or missing. For example `{{ message.customer == "ACME" }}` where `customer` is an object. Fix: compare one of its fields (`message.customer.name == "ACME"`), or its size (`SIZE(message.items) == 0`).',
  },
  PIPE4030: {
    title: 'Near miss of a declared field',
    severity: 'error',
    phase: 'check',
    explain:
      'A `{{ }}` path or a JSONPath (a path, or an `@.a.b` chain in a filter) reads a field that an open shape does not declare, and its name is one slip away from a name the shape does declare. An open shape (a JSON Schema without `additionalProperties: false`, the error object a `catch` sees, the failure an `on-fail` sees) allows fields it does not list, so such a read is not wrong in itself; but one this close to a declared name is a typo in practice, and it reads null at run time. For example `{{ message.body.employeeName }}` when the schema declares `employee_name`, or `when "$.body[?(@.totl > 0)]"` when it declares `total`.\n\n' +
      "A near miss is: the same name in another case or with other separators (`employeeName` / `employee_name`); one letter inserted, deleted, replaced or two neighbours swapped, in names of at least 4 and 5 characters (`totl`, `amont` for `total`, `amount`; never `data` for `date`); or two declared names run together (`errorMessage` where `error` and `message` are declared). Not near misses: the plural or singular of a declared name (`items` / `item`, `cities` / `city`); an edit of the first letter (`height` beside `weight`); a few common pairs of distinct fields (`county` / `country`, `content` / `context`); a declared name with one word more or less (`totalTax` beside `total`, `userName` beside `user`, `employee` beside `employee_name`), since data commonly holds such related fields side by side; names that differ only in digits (`address1` / `address2`). Nor a read whose absence the expression handles (either side of `??`, the arguments of `ISNULL` and `DEFAULT`), nor a read of a shape whose other fields are named elsewhere (a map's `additionalProperties` schema, `patternProperties`, `if`/`then`; the error a `catch` sees after a `fail` with an object or an `execute`). Reads of undeclared names that are no near miss are not reported.\n\n" +
      'Fix: use the declared name. If the data really holds that field, declare it in the schema (`properties`).',
  },
  PIPE4101: {
    title: 'Syntax error in {{ }} expression',
    severity: 'error',
    phase: 'parse',
    explain:
      'The text between `{{` and `}}` is not a valid expression: a missing operand or parenthesis, a stray character, or two values without an operator. For example `{{ CONCAT(message.a,, "b") }}`. The caret points at the first token that does not fit. Fix: complete the expression as the message says.',
  },
  PIPE4102: {
    title: 'Unterminated string in expression',
    severity: 'error',
    phase: 'parse',
    explain:
      'A string literal inside `{{ }}` has no closing quote. For example `{{ CONCAT("abc) }}`. Inside a quoted .pipe string, write the inner quotes as `\\"` or use single quotes: `"{{ EQUALTO(message.type, \'create\') }}"`. Fix: close the string.',
  },
  PIPE4103: {
    title: 'Expression nested too deeply',
    severity: 'error',
    phase: 'parse',
    explain:
      'The expression nests parentheses, calls or operators more than 200 levels deep. The limit keeps compilation safe from hostile input. Fix: split the computation over several steps.',
  },
  PIPE4104: {
    title: 'Empty {{ }} expression',
    severity: 'error',
    phase: 'parse',
    explain:
      'The braces contain nothing: `{{ }}`. Fix: write the expression, e.g. `{{ message.id }}`, or remove the braces.',
  },
} as const satisfies CodeTable;
